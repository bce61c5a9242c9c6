/**
 * The pooled graph's adjacencies tested again within environments, PC-style, and the graph re-oriented where one
 * goes. The pooled search conditions linearly with one slope for all environments; where a slope differs across
 * environments (an edge present in some, absent in others), a variable's neighbours look dependent on it through
 * the slope difference, and the search may add an edge to absorb it and orient another to suit (a -> e, e -> b where
 * the truth is a -> b -> e with b -> e gated). An adjacency X - Y goes when, for S a subset of one endpoint's other
 * neighbours (Spirtes, Glymour & Scheines 2000, PC's adjacency search; the CD-NOD indicator is conditioned on
 * implicitly, since each environment is tested apart), X shows no effect on Y given S in any environment (the
 * stratified Wald test of evidence.ts, a sum of chi-squares over environments) nor on average (the environments'
 * estimates combined by precision), while the pooled model with one slope does show one: the dependence is the
 * environments' difference, not a link. Where the pooled model shows none either, the adjacency is the search's
 * decision against near-cancelling paths, and it stays, unless an endpoint is a variable whose slopes or spread
 * differ across environments (context-edges.ts), for which the one-slope model is itself the wrong yardstick. Every
 * decision uses the adjacencies before any removal (PC-stable, Colombo & Maathuis 2014), so the result does not
 * depend on the order.
 *
 * When an adjacency goes, the collider decisions it touches are taken again from its separating set (a triple
 * X - Z - Y is a collider exactly when Z is not in it); the search's other colliders (with the indicator among the
 * parents: CD-NOD's orientations) are kept, Meek's rules carry them on, and the DAG is a consistent extension of the
 * result. When nothing goes, the graph is returned as it came.
 */
import { chiSquareSurvival } from '../../compute/distributions.js';
import { termsFor } from '../cbn/design.js';
import { startingDag } from '../discovery/dag-from-pdag.js';
import { type Knowledge, buildKnowledge } from '../discovery/knowledge.js';
import { applyKnowledge } from '../discovery/orient-pc.js';
import { applyMeekRules } from '../graph/meek.js';
import { adjacent, emptyPdag, isDirected, setDirected, setUndirected } from '../graph/pdag.js';
import { type BackgroundKnowledge, edgeOrientations } from '../identification/class.js';
import { invert } from '../linear-algebra.js';
import type { DiscoveredEdge, EdgeRef, Frame } from '../types.js';
import { MIN_EVIDENCE_DF, judgeEdges } from './evidence.js';
import { type Family, type FamilyMoments, familyMoments } from './moments.js';
import { block, environmentFit, multiply } from './regression.js';

/** Largest separating set tried (the adjacencies of a pooled panel graph are few; its tests stay cheap). */
const MAX_SEPARATING_SET = 2;
/** Separating sets tried per adjacency at most (the smallest first). */
const MAX_TESTS_PER_PAIR = 40;

interface Separation {
  edge: DiscoveredEdge;
  separatingSet: string[];
}

/**
 * `edges` (a DAG over `frame`'s columns) less the adjacencies some environment-stratified test separates, the rest
 * re-oriented as the header says. `changing` are the indicator's children (the variables whose mechanisms differ),
 * `slopes` those of them whose slopes or spread differ; required edges stay as they are and forbidden ones never
 * appear. `environment` codes each row's environment (0..count-1). Strengths are the pooled fit's, as the search
 * gave them (the fit of the twin recomputes every coefficient).
 */
export function separatedWithinEnvironments(frame: Frame, environment: Int32Array, count: number, edges: readonly DiscoveredEdge[], changing: readonly string[], background: BackgroundKnowledge, alpha: number, slopes: readonly string[] = []): DiscoveredEdge[] {
  const pinned = background.required;
  const separations = separationsOf(frame, environment, count, edges, pinned, alpha, new Set(slopes));
  if (separations.length === 0) return [...edges];
  const gone = new Set(separations.map((s) => pairKey(s.edge.source, s.edge.target)));
  const kept = edges.filter((e) => !gone.has(pairKey(e.source, e.target)));
  return reoriented(frame.columns.map((c) => c.name), edges, kept, separations, changing, background);
}

const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/** Each unpinned adjacency a stratified test separates, with the first separating set found (smallest first). */
function separationsOf(frame: Frame, environment: Int32Array, count: number, edges: readonly DiscoveredEdge[], pinned: readonly EdgeRef[], alpha: number, slopes: ReadonlySet<string>): Separation[] {
  const kinds = new Map(frame.columns.map((c) => [c.name, c.kind]));
  const neighbours = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!neighbours.has(e.source)) neighbours.set(e.source, new Set());
    if (!neighbours.has(e.target)) neighbours.set(e.target, new Set());
    neighbours.get(e.source)!.add(e.target);
    neighbours.get(e.target)!.add(e.source);
  }
  const fixed = new Set(pinned.map((e) => pairKey(e.source, e.target)));
  const tests: Array<{ edge: DiscoveredEdge; node: string; source: string; set: string[] }> = [];
  for (const edge of edges) {
    if (fixed.has(pairKey(edge.source, edge.target))) continue;
    // The regression's outcome must be continuous: the target, or the source when only it is.
    const node = kinds.get(edge.target) === 'continuous' ? edge.target : kinds.get(edge.source) === 'continuous' ? edge.source : null;
    if (node === null) continue;
    const source = node === edge.target ? edge.source : edge.target;
    // PC's candidates: subsets of one endpoint's other neighbours (a set mixing both sides' neighbours can hold a
    // common child, which opens a path instead of closing one).
    const sets = new Map<string, string[]>();
    for (const [from, to] of [[edge.source, edge.target], [edge.target, edge.source]] as const) {
      const around = [...neighbours.get(from)!].filter((n) => n !== to).sort();
      for (const set of subsetsUpTo(around, MAX_SEPARATING_SET)) sets.set(set.join('\u0000'), set);
    }
    const ordered = [...sets.values()].sort((x, y) => x.length - y.length).slice(0, MAX_TESTS_PER_PAIR);
    for (const set of ordered) tests.push({ edge, node, source, set });
  }
  if (tests.length === 0) return [];
  const families: Family[] = tests.map((t) => ({ node: t.node, terms: termsFor(frame, [t.source, ...t.set], false) }));
  const environments = Array.from({ length: count }, (_, e) => e);
  const moments = familyMoments(frame, environment, environments, families);
  const found = new Map<DiscoveredEdge, string[]>();
  tests.forEach((test, f) => {
    if (found.has(test.edge)) return;
    const perEnvironment = moments.map((perEnv) => perEnv[f]!);
    const [judged] = judgeEdges([{ source: test.source, target: test.node }], [families[f]!], perEnvironment.map((x) => [x]), alpha);
    if (judged?.absenceP == null || judged.absenceP <= alpha) return;
    // Neither an effect somewhere (the sum of chi-squares) nor an effect on average (a small one of one sign)...
    const at = families[f]!.terms.flatMap((t, i) => (t.parents.includes(test.source) ? [i + 1] : []));
    const mean = meanEffectP(perEnvironment, at);
    if (mean !== null && mean <= alpha) return;
    // ...where the pooled model (one slope, a level per environment) sees a dependence: the environments explain it.
    // Where it sees none either (paths that nearly cancel given this set), the search's choice stands, unless an
    // endpoint's slopes are known to differ across environments (the pooled model is wrong for it).
    const sloped = slopes.has(test.edge.source) || slopes.has(test.edge.target);
    const pooled = sloped ? 0 : pooledWithinP(perEnvironment, at);
    if (pooled !== null && pooled < alpha) found.set(test.edge, test.set);
  });
  return [...found].map(([edge, separatingSet]) => ({ edge, separatingSet }));
}

/**
 * The p-value of the terms `at` (positions in [intercept, terms...]) having no effect on average: the environments'
 * own estimates (each with its own other coefficients) combined by their precisions, as a fixed-effect
 * meta-analysis does, a Wald chi-square. Where an effect is the same sign everywhere but small, this sees it when
 * the sum of the environments' chi-squares (which spends a degree of freedom on each environment) does not.
 */
function meanEffectP(perEnvironment: readonly FamilyMoments[], at: readonly number[]): number | null {
  const k = at.length;
  const precision = new Array<number>(k * k).fill(0);
  const weighted = new Array<number>(k).fill(0);
  let judged = 0;
  for (const moments of perEnvironment) {
    const fit = environmentFit(moments);
    if (fit === null || fit.df < MIN_EVIDENCE_DF) continue;
    const p = invert(block(fit.covariance, fit.coef.length, at), k);
    if (p === null) continue;
    const pb = multiply(p, at.map((i) => fit.coef[i]!), k);
    for (let i = 0; i < k * k; i++) precision[i]! += p[i]!;
    for (let i = 0; i < k; i++) weighted[i]! += pb[i]!;
    judged++;
  }
  if (judged === 0) return null;
  const covariance = invert(precision, k);
  if (covariance === null) return null;
  // W = mean' P mean with mean = P^-1 (sum P_e b_e), i.e. (sum P_e b_e)' P^-1 (sum P_e b_e).
  const mean = multiply(covariance, weighted, k);
  return chiSquareSurvival(mean.reduce((sum, x, i) => sum + x * weighted[i]!, 0), k);
}

/**
 * The p-value of the terms `at` (positions in [intercept, terms...]) in the pooled regression with a level per
 * environment: the within-environment centred cross products summed over environments (the fixed-effects model the
 * pooled search scores, with its one slope per term), a Wald chi-square on the terms.
 */
function pooledWithinP(perEnvironment: readonly FamilyMoments[], at: readonly number[]): number | null {
  const m = perEnvironment[0]?.xty.length ?? 0;
  const xtx = new Array<number>(m * m).fill(0);
  const xty = new Array<number>(m).fill(0);
  let yty = 0;
  let n = 0;
  let included = 0;
  for (const e of perEnvironment) {
    if (e.n < 2) continue;
    n += e.n;
    included++;
    for (let i = 1; i < m; i++) {
      for (let j = 1; j < m; j++) xtx[i * m + j]! += e.xtx[i * m + j]! - (e.xtx[i]! * e.xtx[j]!) / e.n;
      xty[i]! += e.xty[i]! - (e.xtx[i]! * e.xty[0]!) / e.n;
    }
    yty += e.yty - (e.xty[0]! * e.xty[0]!) / e.n;
  }
  // Centred: the intercept is orthogonal to the terms and its coefficient 0.
  xtx[0] = n;
  // Each environment's level spends a degree of freedom; the fit counts one for the intercept.
  const fit = environmentFit({ n: n - included + 1, xtx, xty, yty });
  if (fit === null) return null;
  const precision = invert(block(fit.covariance, m, at), at.length);
  if (precision === null) return null;
  const b = at.map((i) => fit.coef[i]!);
  const pb = multiply(precision, b, b.length);
  return chiSquareSurvival(b.reduce((sum, x, i) => sum + x * pb[i]!, 0), at.length);
}

/** Subsets of `items` of size 0..size, smallest first (then in the items' order). */
function subsetsUpTo(items: readonly string[], size: number): string[][] {
  const out: string[][] = [[]];
  let frontier: Array<{ set: string[]; next: number }> = [{ set: [], next: 0 }];
  for (let k = 1; k <= size; k++) {
    const grown: typeof frontier = [];
    for (const { set, next } of frontier) for (let i = next; i < items.length; i++) grown.push({ set: [...set, items[i]!], next: i + 1 });
    out.push(...grown.map((g) => g.set));
    frontier = grown;
  }
  return out;
}

/**
 * The kept adjacencies oriented from collider decisions: the separations' (X - Z - Y a collider exactly when Z is
 * not in X and Y's separating set), and the original DAG's colliders on triples no separation touched, the indicator
 * (a source only) pointing into the changing variables; then pinned edges, Meek's rules, a consistent extension.
 */
function reoriented(names: readonly string[], original: readonly DiscoveredEdge[], kept: readonly DiscoveredEdge[], separations: readonly Separation[], changing: readonly string[], background: BackgroundKnowledge): DiscoveredEdge[] {
  // The indicator is the last node: nothing points into it.
  const all = [...names, '\u0000indicator'];
  const p = all.length;
  const c = p - 1;
  const index = new Map(all.map((name, i) => [name, i]));
  const at = (name: string) => index.get(name)!;
  const skeleton = emptyPdag(p);
  for (const e of kept) setUndirected(skeleton, at(e.source), at(e.target));
  for (const name of changing) if (index.has(name)) setUndirected(skeleton, c, at(name));
  const parents = new Set(original.map((e) => `${at(e.source)},${at(e.target)}`));
  for (const name of changing) if (index.has(name)) parents.add(`${c},${at(name)}`);
  const separating = new Map(separations.map((s) => [pairIndex(at(s.edge.source), at(s.edge.target), p), new Set(s.separatingSet.map(at))]));
  const arrowheads = new Uint8Array(p * p);
  for (let z = 0; z < p; z++) {
    for (let x = 0; x < p; x++) {
      if (x === z || !adjacent(skeleton, x, z)) continue;
      for (let y = x + 1; y < p; y++) {
        if (y === z || !adjacent(skeleton, y, z) || adjacent(skeleton, x, y)) continue;
        const set = separating.get(pairIndex(x, y, p));
        const collider = set !== undefined ? !set.has(z) : parents.has(`${x},${z}`) && parents.has(`${y},${z}`);
        if (!collider) continue;
        arrowheads[x * p + z] = 1;
        arrowheads[y * p + z] = 1;
      }
    }
  }
  // The skeleton becomes the pattern: arrowheads, then knowledge and Meek.
  const pdag = skeleton;
  for (let x = 0; x < p; x++) for (let z = 0; z < p; z++) if (arrowheads[x * p + z] === 1 && arrowheads[z * p + x] === 0) setDirected(pdag, x, z);
  const indicatorEdges = changing.filter((n) => index.has(n)).map((target) => ({ source: all[c]!, target }));
  const knowledge: Knowledge = buildKnowledge(all, [...background.required, ...indicatorEdges], [...background.forbidden, ...names.map((source) => ({ source, target: all[c]! }))]);
  applyKnowledge(pdag, knowledge);
  applyMeekRules(pdag, true);
  const dag = startingDag(pdag, knowledge);
  const directed = kept.map((edge) => (isDirected(dag, at(edge.source), at(edge.target)) ? edge : { ...edge, source: edge.target, target: edge.source }));
  // From the data: directed in the class of the chosen DAG with the indicator as the only knowledge (as the search reports it).
  const orientations = edgeOrientations(all, [...directed, ...indicatorEdges], { required: [], forbidden: [] }, [], [all[c]!]);
  return directed.map((edge, i) => ({ ...edge, orientationFromData: orientations[i] !== 'reversible' }));
}

const pairIndex = (a: number, b: number, p: number) => (a < b ? a * p + b : b * p + a);
