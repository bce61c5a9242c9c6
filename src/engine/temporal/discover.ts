/**
 * Temporal discovery in the PCMCI+ family (Runge 2020, "Discovering contemporaneous and lagged causal relations in
 * autocorrelated nonlinear time series datasets", UAI): over the lagged design (lagged.ts),
 *  1. PC1 condition selection: for each variable at t, the lagged candidates (and seasonal terms) that stay
 *     dependent on it given the strongest other candidates, level by level;
 *  2. MCI: every lagged link i(t-tau) -> j(t) tested given j's selected conditions and i's, shifted by tau
 *     (momentary conditional independence), p-values controlled by Benjamini-Hochberg;
 *  3. the contemporaneous skeleton by PC over lag-0 pairs, always given both ends' lagged parents, and lagged
 *     links re-tested given contemporaneous neighbours; separating sets recorded;
 *  4. orientation: a lagged link is directed by time; same-step edges by colliders (a neighbour not in the
 *     separating set), then Meek's rules; what stays undirected is reversible and given an acyclic direction.
 * Tests are chosen by data type (ci-tests.ts: Fisher-z, G-square, degenerate Gaussian) and batched per level.
 */
import type { Kernels } from '../../compute/kernels.js';
import { ciTesterFor, type CiTest } from '../discovery/ci-tests.js';
import { withContextTests } from '../discovery/context-tests.js';
import { prepareForDiscovery } from '../discovery/prepare.js';
import { consistentExtension, reaches } from '../graph/dag.js';
import { applyMeekRules } from '../graph/meek.js';
import { emptyPdag, isDirected, isUndirected, setDirected, setUndirected } from '../graph/pdag.js';
import type { Frame, WorkHooks } from '../types.js';
import { laggedDesign } from './lagged.js';

export interface LaggedEdgeRef {
  source: string;
  target: string;
  /** Absent: any lag. */
  lag?: number;
}

export interface TemporalDiscoveryOptions {
  maxLag: number;
  alpha: number;
  /** Seasonal periods (steps) offered as exogenous parents. */
  periods: number[];
  required?: LaggedEdgeRef[];
  forbidden?: LaggedEdgeRef[];
  /** Largest lagged conditioning set per side (default 8). */
  maxConditions?: number;
  timeBudgetMs?: number;
}

export type LinkOrientation = 'time' | 'compelled' | 'fixed' | 'reversible';

export interface TemporalLink {
  source: string;
  target: string;
  lag: number;
  pValue: number;
  /** |partial correlation| (or the chi-square tests' standardized statistic) of the deciding test. */
  dependence: number;
  orientation: LinkOrientation;
}

export interface TemporalDiscoveryResult {
  links: TemporalLink[];
  /** Seasonal terms kept as parents: variable and period. */
  seasonal: Array<{ variable: string; period: number }>;
  /** With context columns: the variables a context stays adjacent to (their mechanisms change across environments). */
  changing: string[];
  stats: { tests: number; rows: number; timedOut: boolean };
}

/** PC1's significance level: liberal, so few true parents are lost before MCI (Runge et al. 2019 use 0.05-0.5). */
const PC_ALPHA = 0.2;
const CONTEMPORANEOUS_DEPTH = 2;
const CONTEMPORANEOUS_CANDIDATES = 6;

export function discoverTemporal(series: Frame, options: TemporalDiscoveryOptions, kernels: Kernels, hooks: WorkHooks = {}): TemporalDiscoveryResult {
  const design = laggedDesign(series, Math.max(1, options.maxLag), options.periods, { complete: true });
  return discoverOnDesign(design.frame, series.columns.map((c) => c.name), 0, options, kernels, hooks);
}

/**
 * The search over a lagged design (lagged.ts's column order: each variable at lags 0..maxLag, then the seasonal
 * terms) followed by `contexts` context columns (J-PCMCI+, Guenther, Ninad & Runge 2023: variables of the
 * environment that nothing in the system causes). A context column is offered to every variable as a same-step
 * candidate parent, like a seasonal term, and is tested again given same-step neighbours; a variable it stays
 * adjacent to has a mechanism that changes with the environment (`changing`), and those edges orient same-step
 * links as CD-NOD's indicator does (context -> X - Y with the context separated from Y: X -> Y by Meek's first rule,
 * or a collider when the separating set lacks X).
 */
export function discoverOnDesign(design: Frame, names: readonly string[], contexts: number, options: TemporalDiscoveryOptions, kernels: Kernels, hooks: WorkHooks = {}): TemporalDiscoveryResult {
  const L = Math.max(1, options.maxLag);
  const N = names.length;
  const index = new Map(names.map((n, i) => [n, i]));
  const prepared = prepareForDiscovery(design, kernels);
  const col = (v: number, lag: number) => v * (L + 1) + lag;
  const seasonCols = options.periods.flatMap((_, k) => [N * (L + 1) + 2 * k, N * (L + 1) + 2 * k + 1]);
  const contextStart = N * (L + 1) + 2 * options.periods.length;
  const contextCols = Array.from({ length: contexts }, (_, k) => contextStart + k);
  // A context's tests see a changed slope or noise scale as well as a changed level (context-tests.ts).
  const tester = withContextTests(ciTesterFor(prepared, kernels), design, contextCols);
  const varOf = (c: number) => Math.floor(c / (L + 1));
  const lagOf = (c: number) => c % (L + 1);
  const isSeason = (c: number) => c >= N * (L + 1) && c < contextStart;
  const isContext = (c: number) => c >= contextStart;
  /** Inputs from outside the variables' dynamics: seasonal terms and contexts (never shifted, never targets). */
  const exogenous = (c: number) => c >= N * (L + 1);
  const sameStep = (c: number) => !exogenous(c) && lagOf(c) === 0;
  const maxCond = options.maxConditions ?? 8;
  const deadline = Date.now() + (options.timeBudgetMs ?? Infinity);
  let tests = 0;
  let timedOut = false;
  const run = (batch: CiTest[]) => {
    tests += batch.length;
    if (Date.now() > deadline) timedOut = true;
    return tester.run(batch);
  };

  const pinnedAt = (list: readonly LaggedEdgeRef[] | undefined, i: number, j: number, lag: number) =>
    (list ?? []).some((e) => index.get(e.source) === i && index.get(e.target) === j && (e.lag === undefined || e.lag === lag));
  const forbidden = (i: number, j: number, lag: number) => pinnedAt(options.forbidden, i, j, lag);
  const required = (i: number, j: number, lag: number) => (options.required ?? []).some((e) => index.get(e.source) === i && index.get(e.target) === j && e.lag === lag);
  // A pin without a lag keeps the link at its strongest lag (decided after MCI).
  const requiredAnyLag = (options.required ?? []).filter((e) => e.lag === undefined);
  const informative = (c: number) => prepared.informative[c] === 1;

  // 1. PC1 condition selection, one batch per level over all targets.
  const candidates: number[][] = [];
  const strength: Array<Map<number, number>> = [];
  for (let j = 0; j < N; j++) {
    const list: number[] = [];
    if (informative(col(j, 0))) {
      for (let i = 0; i < N; i++) for (let lag = 1; lag <= L; lag++) if (informative(col(i, lag)) && !forbidden(i, j, lag)) list.push(col(i, lag));
      for (const c of [...seasonCols, ...contextCols]) if (informative(c)) list.push(c);
    }
    candidates.push(list);
    strength.push(new Map(list.map((c) => [c, Infinity])));
  }
  const keep = (c: number, j: number) => !exogenous(c) && required(varOf(c), j, lagOf(c));
  for (let p = 0; p <= maxCond && !timedOut; p++) {
    const batch: CiTest[] = [];
    const owners: Array<[number, number]> = [];
    for (let j = 0; j < N; j++) {
      const list = candidates[j]!;
      if (list.length - 1 < p) continue;
      const ranked = [...list].sort((a, b) => strength[j]!.get(b)! - strength[j]!.get(a)!);
      for (const c of list) {
        batch.push({ x: c, y: col(j, 0), s: ranked.filter((d) => d !== c).slice(0, p) });
        owners.push([j, c]);
      }
    }
    if (batch.length === 0) break;
    const result = run(batch);
    owners.forEach(([j, c], k) => {
      strength[j]!.set(c, Math.min(strength[j]!.get(c)!, result.dependence[k]!));
      if (result.pValue[k]! > PC_ALPHA && !keep(c, j)) candidates[j] = candidates[j]!.filter((d) => d !== c);
    });
    hooks.progress?.(0.1 + 0.3 * (p / maxCond), `selecting lagged conditions (level ${p})`);
  }
  const top = (j: number, exclude: number, count: number) =>
    candidates[j]!.filter((c) => c !== exclude).sort((a, b) => strength[j]!.get(b)! - strength[j]!.get(a)!).slice(0, count);
  /** i's selected conditions shifted back by `lag` (those that stay inside the window). */
  const shifted = (i: number, lag: number, count: number) =>
    top(i, -1, count)
      .filter((c) => exogenous(c) || lagOf(c) + lag <= L)
      .map((c) => (exogenous(c) ? c : col(varOf(c), lagOf(c) + lag)));

  // 2. MCI over every lagged pair, Benjamini-Hochberg over the p-values.
  const mci: CiTest[] = [];
  const mciOwners: Array<{ j: number; c: number }> = [];
  for (let j = 0; j < N; j++) {
    if (!informative(col(j, 0))) continue;
    for (let i = 0; i < N; i++) {
      for (let lag = 1; lag <= L; lag++) {
        const c = col(i, lag);
        if (!informative(c) || forbidden(i, j, lag)) continue;
        const s = [...new Set([...top(j, c, maxCond), ...shifted(i, lag, Math.ceil(maxCond / 2))])].filter((d) => d !== c && d !== col(j, 0));
        mci.push({ x: c, y: col(j, 0), s });
        mciOwners.push({ j, c });
      }
    }
    for (const c of candidates[j]!.filter(exogenous)) {
      mci.push({ x: c, y: col(j, 0), s: top(j, c, maxCond) });
      mciOwners.push({ j, c });
    }
  }
  const mciResult = run(mci);
  const q = benjaminiHochberg(mciResult.pValue);
  hooks.progress?.(0.6, 'momentary conditional independence tests');
  /** Lagged parents (and seasonal terms) per target, with their p-value and dependence. */
  const lagged: Array<Map<number, { pValue: number; dependence: number }>> = Array.from({ length: N }, () => new Map());
  mciOwners.forEach(({ j, c }, k) => {
    if (q[k]! <= options.alpha || keep(c, j)) lagged[j]!.set(c, { pValue: mciResult.pValue[k]!, dependence: mciResult.dependence[k]! });
  });
  for (const pin of requiredAnyLag) {
    const i = index.get(pin.source);
    const j = index.get(pin.target);
    if (i === undefined || j === undefined) continue;
    const atSomeLag = [...lagged[j]!.keys()].some((c) => !exogenous(c) && varOf(c) === i);
    if (atSomeLag || i === j) continue;
    // The strongest lag by its MCI test, unless the pin is met at lag 0 below.
    let best = -1;
    mciOwners.forEach(({ j: jj, c }, k) => {
      if (jj === j && !exogenous(c) && varOf(c) === i && (best < 0 || mciResult.dependence[k]! > mciResult.dependence[best]!)) best = k;
    });
    if (best >= 0) lagged[j]!.set(mciOwners[best]!.c, { pValue: mciResult.pValue[best]!, dependence: mciResult.dependence[best]! });
  }
  const parentsOf = (j: number, exclude = -1) => [...lagged[j]!.keys()].filter((c) => c !== exclude).sort((a, b) => lagged[j]!.get(b)!.dependence - lagged[j]!.get(a)!.dependence).slice(0, maxCond);
  const shiftedParents = (i: number, lag: number) =>
    parentsOf(i)
      .filter((c) => exogenous(c) || lagOf(c) + lag <= L)
      .slice(0, Math.ceil(maxCond / 2))
      .map((c) => (exogenous(c) ? c : col(varOf(c), lagOf(c) + lag)));

  // 3. The contemporaneous skeleton, and lagged links given contemporaneous neighbours.
  const adjacent0 = Array.from({ length: N }, () => new Set<number>());
  const dep0 = new Map<string, { pValue: number; dependence: number }>();
  const pairKey = (i: number, j: number) => (i < j ? `${i},${j}` : `${j},${i}`);
  const sepset = new Map<string, number[]>();
  for (let i = 0; i < N; i++) {
    for (let j = i + 1; j < N; j++) {
      if (!informative(col(i, 0)) || !informative(col(j, 0))) continue;
      const pinned = required(i, j, 0) || required(j, i, 0) || requiredAnyLag.some((e) => (index.get(e.source) === i && index.get(e.target) === j) || (index.get(e.source) === j && index.get(e.target) === i));
      if (!pinned && forbidden(i, j, 0) && forbidden(j, i, 0)) continue;
      adjacent0[i]!.add(j);
      adjacent0[j]!.add(i);
      dep0.set(pairKey(i, j), { pValue: 0, dependence: Infinity });
    }
  }
  const pinned0 = (i: number, j: number) => required(i, j, 0) || required(j, i, 0);
  for (let p = 0; p <= CONTEMPORANEOUS_DEPTH && !timedOut; p++) {
    const batch: CiTest[] = [];
    const owners: Array<{ kind: 'pair'; i: number; j: number; s: number[] } | { kind: 'lagged'; j: number; c: number; s: number[] }> = [];
    for (let i = 0; i < N; i++) {
      for (const j of adjacent0[i]!) {
        if (j < i || pinned0(i, j)) continue;
        const base = [...new Set([...parentsOf(i), ...parentsOf(j)])];
        for (const s of subsets(neighbours(adjacent0, i, j, dep0, pairKey), p)) {
          batch.push({ x: col(i, 0), y: col(j, 0), s: [...base, ...s.map((v) => col(v, 0))] });
          owners.push({ kind: 'pair', i, j, s });
        }
      }
    }
    if (p > 0) {
      for (let j = 0; j < N; j++) {
        for (const c of lagged[j]!.keys()) {
          if (isSeason(c) || keep(c, j)) continue;
          const near = isContext(c) ? [...adjacent0[j]!] : [...adjacent0[j]!].filter((v) => v !== varOf(c) || lagOf(c) > 0);
          const base = [...new Set([...parentsOf(j, c), ...(isContext(c) ? [] : shiftedParents(varOf(c), lagOf(c)))])].filter((d) => d !== c);
          for (const s of subsets(near.slice(0, CONTEMPORANEOUS_CANDIDATES), p)) {
            batch.push({ x: c, y: col(j, 0), s: [...base, ...s.map((v) => col(v, 0))] });
            owners.push({ kind: 'lagged', j, c, s });
          }
        }
      }
    }
    if (batch.length === 0) break;
    const result = run(batch);
    owners.forEach((owner, k) => {
      const independent = result.pValue[k]! > options.alpha;
      if (owner.kind === 'pair') {
        const key = pairKey(owner.i, owner.j);
        const current = dep0.get(key);
        if (current === undefined) return;
        if (independent) {
          adjacent0[owner.i]!.delete(owner.j);
          adjacent0[owner.j]!.delete(owner.i);
          dep0.delete(key);
          sepset.set(key, owner.s);
        } else if (result.dependence[k]! < current.dependence) dep0.set(key, { pValue: Math.max(current.pValue, result.pValue[k]!), dependence: result.dependence[k]! });
        else current.pValue = Math.max(current.pValue, result.pValue[k]!);
      } else if (independent && lagged[owner.j]!.delete(owner.c)) {
        sepset.set(`${owner.c}>${owner.j}`, owner.s);
      }
    });
    hooks.progress?.(0.7 + 0.1 * p, `contemporaneous links (level ${p})`);
  }

  // 4. Orientation over the window's nodes (variable columns only).
  // Context columns are the window's last nodes (after the seasonal terms, which are not nodes of it).
  const P = N * (L + 1);
  const node = (c: number) => (isContext(c) ? P + (c - contextStart) : c);
  const g = emptyPdag(P + contexts);
  for (let j = 0; j < N; j++) for (const c of lagged[j]!.keys()) if (!isSeason(c)) setDirected(g, node(c), col(j, 0));
  for (let i = 0; i < N; i++) for (const j of adjacent0[i]!) if (i < j) setUndirected(g, col(i, 0), col(j, 0));
  const fixed = new Set<string>();
  for (let i = 0; i < N; i++) {
    for (const j of adjacent0[i]!) {
      if (required(i, j, 0) || requiredAnyLag.some((e) => index.get(e.source) === i && index.get(e.target) === j && ![...lagged[j]!.keys()].some((c) => !exogenous(c) && varOf(c) === i))) {
        setDirected(g, col(i, 0), col(j, 0));
        fixed.add(`${i}>${j}`);
      } else if (forbidden(i, j, 0) && isUndirected(g, col(i, 0), col(j, 0))) setDirected(g, col(j, 0), col(i, 0));
    }
  }
  const sepsetOf = (x: number, y: number) => sepset.get(sameStep(x) ? pairKey(varOf(x), y) : `${x}>${y}`) ?? [];
  // Unshielded triples x - k - y (y and k same-step, x same-step or lagged) whose separating set lacks k.
  const triples: Array<{ x: number; y: number; k: number }> = [];
  for (let k = 0; k < N; k++) {
    const around = [...adjacent0[k]!];
    const laggedIn = [...lagged[k]!.keys()].filter((c) => !isSeason(c));
    for (const y of around) {
      for (const x of [...around.filter((v) => v !== y).map((v) => col(v, 0)), ...laggedIn]) {
        const xAdjacentY = sameStep(x) ? adjacent0[varOf(x)]!.has(y) : lagged[y]!.has(x);
        if (!xAdjacentY && !sepsetOf(x, y).includes(k)) triples.push({ x, y, k });
      }
    }
  }
  // A collider is confirmed when conditioning on k strengthens the dependence of x and y (explaining away), where a
  // chain or a fork through k weakens it: a separating set found without k by a weak test would otherwise orient a
  // chain as a collider (PCMCI+'s collider rules guard the same way).
  const conditioning = ({ x, y, k }: { x: number; y: number; k: number }, withK: boolean) => {
    const base = sameStep(x) ? [...parentsOf(varOf(x)), ...parentsOf(y)] : [...parentsOf(y, x), ...(isContext(x) ? [] : shiftedParents(varOf(x), lagOf(x)))];
    return { x, y: col(y, 0), s: [...new Set([...base, ...sepsetOf(x, y).map((v) => col(v, 0)), ...(withK ? [col(k, 0)] : [])])].filter((d) => d !== x && d !== col(y, 0)) };
  };
  const confirm = run(triples.flatMap((triple) => [conditioning(triple, false), conditioning(triple, true)]));
  // A context's colliders first: the context is exogenous by construction (CD-NOD's argument), so its v-structures
  // rest on fewer assumptions than a lagged variable's, whose pooled tests slopes that differ across environments
  // can mislead; a later conflicting collider cannot reverse them.
  const order = [...triples.keys()].sort((a, b) => Number(isContext(triples[b]!.x)) - Number(isContext(triples[a]!.x)));
  order.forEach((i) => {
    const { x, y, k } = triples[i]!;
    if (confirm.dependence[2 * i + 1]! <= confirm.dependence[2 * i]!) return;
    // x -> k <- y: a collider, unless an earlier orientation (or a pin) says otherwise.
    if (isUndirected(g, col(y, 0), col(k, 0))) setDirected(g, col(y, 0), col(k, 0));
    if (sameStep(x) && isUndirected(g, x, col(k, 0))) setDirected(g, x, col(k, 0));
  });
  applyMeekRules(g);
  // What stays undirected is reversible: one acyclic choice among the same-step variables.
  const same = emptyPdag(N);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      if (isDirected(g, col(i, 0), col(j, 0))) setDirected(same, i, j);
      else if (i < j && isUndirected(g, col(i, 0), col(j, 0))) setUndirected(same, i, j);
    }
  }
  const extension = consistentExtension(same) ?? greedyAcyclic(same);

  const links: TemporalLink[] = [];
  for (let j = 0; j < N; j++) {
    for (const [c, evidence] of lagged[j]!) {
      if (exogenous(c)) continue;
      links.push({ source: names[varOf(c)]!, target: names[j]!, lag: lagOf(c), ...evidence, orientation: keep(c, j) ? 'fixed' : 'time' });
    }
  }
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      if (!isDirected(extension, i, j)) continue;
      const evidence = dep0.get(pairKey(i, j)) ?? { pValue: 0, dependence: 0 };
      const orientation: LinkOrientation = fixed.has(`${i}>${j}`) ? 'fixed' : isDirected(g, col(i, 0), col(j, 0)) ? 'compelled' : 'reversible';
      links.push({ source: names[i]!, target: names[j]!, lag: 0, pValue: evidence.pValue, dependence: Number.isFinite(evidence.dependence) ? evidence.dependence : 0, orientation });
    }
  }
  const seasonal: TemporalDiscoveryResult['seasonal'] = [];
  for (let j = 0; j < N; j++) {
    for (const c of lagged[j]!.keys()) {
      if (!isSeason(c)) continue;
      const period = options.periods[Math.floor((c - P) / 2)]!;
      if (!seasonal.some((s) => s.variable === names[j] && s.period === period)) seasonal.push({ variable: names[j]!, period });
    }
  }
  const changing = names.filter((_, j) => [...lagged[j]!.keys()].some(isContext));
  hooks.progress?.(1, 'oriented');
  return { links, seasonal, changing, stats: { tests, rows: design.nRows, timedOut } };
}

/** Contemporaneous neighbours of i or j other than the pair, strongest first (a few: PC's subsets grow fast). */
function neighbours(adjacent: Set<number>[], i: number, j: number, dep: Map<string, { dependence: number }>, key: (a: number, b: number) => string): number[] {
  const around = new Set([...adjacent[i]!, ...adjacent[j]!]);
  around.delete(i);
  around.delete(j);
  const strongest = (v: number) => Math.max(dep.get(key(i, v))?.dependence ?? 0, dep.get(key(j, v))?.dependence ?? 0);
  return [...around].sort((a, b) => strongest(b) - strongest(a)).slice(0, CONTEMPORANEOUS_CANDIDATES);
}

function subsets(items: readonly number[], size: number): number[][] {
  if (size === 0) return [[]];
  const out: number[][] = [];
  const walk = (start: number, chosen: number[]) => {
    if (chosen.length === size) {
      out.push([...chosen]);
      return;
    }
    for (let k = start; k < items.length; k++) walk(k + 1, [...chosen, items[k]!]);
  };
  walk(0, []);
  return out;
}

/** Benjamini & Hochberg 1995 adjusted p-values (q-values), in the input order. */
export function benjaminiHochberg(p: Float64Array): Float64Array {
  const m = p.length;
  const order = Array.from({ length: m }, (_, k) => k).sort((a, b) => p[a]! - p[b]!);
  const q = new Float64Array(m);
  let running = 1;
  for (let r = m - 1; r >= 0; r--) {
    const k = order[r]!;
    running = Math.min(running, (p[k]! * m) / (r + 1));
    q[k] = running;
  }
  return q;
}

/** Orients undirected edges in index order where no cycle forms (when no consistent extension exists). */
function greedyAcyclic(g: ReturnType<typeof emptyPdag>) {
  const dag = emptyPdag(g.p);
  for (let i = 0; i < g.p; i++) for (let j = 0; j < g.p; j++) if (isDirected(g, i, j) && !reaches(dag, j, i)) setDirected(dag, i, j);
  for (let i = 0; i < g.p; i++) {
    for (let j = i + 1; j < g.p; j++) {
      if (!isUndirected(g, i, j)) continue;
      if (!reaches(dag, j, i)) setDirected(dag, i, j);
      else setDirected(dag, j, i);
    }
  }
  return dag;
}

