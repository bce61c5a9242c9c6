/**
 * The fewest changes that make one unit meet its targets (the action step of abduction-action-prediction, Pearl
 * 2009 ch. 7): levers are the targets' ancestors that are neither targets nor fixed. Subsets are tried by size
 * (one change, then two, ... up to maxChanges); within a size the smallest standardised change wins (sum of
 * |change| / std, a category switch counting 1). Categorical levers are enumerated, one continuous lever is a
 * line search (search-lines.ts), several a joint search (search-joint.ts). Holding other variables fixed only
 * removes mechanisms, so a lever affine in every target stays affine whatever else is set. The chosen answer is re-simulated and
 * judged from that run, so `achieved` is what the model does, not what the search believed.
 */
import { AppError } from '../../errors.js';
import { CandidateTracker, type Lever, type Search, type Setting } from './search-candidates.js';
import { searchJoint } from './search-joint.js';
import { type AffineSlopes, type Line, searchLines } from './search-lines.js';
import { ancestorsOf, descendantsOf, type Scm } from './scm.js';
import { type ResolvedTarget, targetMet } from './target-match.js';
import type { UnitProbe, UnitRequest } from './unit-probe.js';

export const DEFAULT_MAX_CHANGES = 2;
/** Lever subsets tried per size: the levers that came closest alone are kept until their subsets fit. */
const MAX_SUBSETS = 200;
/** Category combinations tried per subset (the product over its categorical levers). */
const MAX_COMBINATIONS = 64;
/** Units searched in lockstep: each round of their searches is one propagation (unit-probe.ts bounds its rows). */
const UNITS_IN_STEP = 32;

export interface ChangeSearchPlan {
  scm: Scm;
  targets: ResolvedTarget[];
  levers: Lever[];
  /** Each lever alone: the subsets of size one every unit's search starts with. */
  singles: Lever[][];
  /** The levers by node. */
  leverByNode: ReadonlyMap<number, Lever>;
  /** Per lever, the nodes downstream of it: a lever set below another cuts the paths the other's slopes run along. */
  downstream: ReadonlyMap<number, ReadonlySet<number>>;
  /** Lever nodes whose effect on every target is affine (closed form, one-step joint solve). */
  affine: Set<number>;
  maxChanges: number;
}

export interface UnitAnswer {
  achieved: boolean;
  /** Node values: numbers, or category codes. */
  changes: { node: number; from: number; to: number }[];
  cost: number;
  /** Target values of the unit as it is, and after the changes (re-simulated). */
  baseline: number[];
  counterfactual: number[];
  met: boolean[];
}

export function planChangeSearch(
  scm: Scm, targets: ResolvedTarget[], options: { maxChanges?: number | undefined; constraints?: Record<string, { type: 'fixed' }> | undefined },
): ChangeSearchPlan {
  const maxChanges = options.maxChanges ?? DEFAULT_MAX_CHANGES;
  if (!Number.isInteger(maxChanges) || maxChanges < 0) throw new AppError('validation_failed', `maxChanges must be a whole number >= 0, not ${maxChanges}`);
  const fixed = new Set<number>();
  for (const name of Object.keys(options.constraints ?? {})) {
    const i = scm.indexOf(name);
    if (i < 0) throw new AppError('validation_failed', `constraint names ${name}, which is not a variable of the model`);
    fixed.add(i);
  }
  const targetNodes = new Set(targets.map((t) => t.index));
  const candidates = new Set<number>();
  for (const t of targets) for (const a of ancestorsOf(scm, t.index)) candidates.add(a);
  const levers: Lever[] = [];
  for (const i of [...candidates].sort((a, b) => a - b)) {
    if (targetNodes.has(i) || fixed.has(i)) continue;
    const node = scm.model.nodes[i]!;
    if (node.kind === 'continuous' && node.std > 0) levers.push({ node: i, name: node.name, kind: 'continuous', std: node.std, mean: node.mean, classes: 0 });
    if (node.kind === 'categorical' && node.categories.length > 1) levers.push({ node: i, name: node.name, kind: 'categorical', std: 1, mean: 0, classes: node.categories.length });
  }
  const affine = new Set(levers.filter((l) => l.kind === 'continuous' && targets.every((t) => t.kind === 'continuous' && affineIn(scm, l.node, t.index))).map((l) => l.node));
  const downstream = new Map(levers.map((l) => [l.node, descendantsOf(scm, l.node)]));
  return { scm, targets, levers, singles: levers.map((l) => [l]), leverByNode: new Map(levers.map((l) => [l.node, l])), downstream, affine, maxChanges };
}

/**
 * Whether the target is affine in the lever whatever else holds: every node on a directed path from the lever to
 * the target (the target included) is continuous and enters the next one only through linear terms.
 */
function affineIn(scm: Scm, lever: number, target: number): boolean {
  const downstream = descendantsOf(scm, lever);
  if (!downstream.has(target)) return true;
  const upstream = ancestorsOf(scm, target);
  const onPath = [...downstream].filter((n) => n === target || upstream.has(n));
  const involved = new Set([...onPath, lever]);
  return onPath.every((n) => {
    const node = scm.model.nodes[n]!;
    return node.kind === 'continuous' && node.terms.every((term) => term.kind === 'linear' || !term.parents.some((p) => involved.has(scm.indexOf(p))));
  });
}

/**
 * The change search of every unit of the probe, UNITS_IN_STEP at a time in lockstep (each unit's search is the
 * same as on its own: rows do not interact in a propagation). `progress` hears the share of units answered.
 */
export function searchUnits(plan: ChangeSearchPlan, probe: UnitProbe, checkpoint: () => void, progress?: (done: number) => void): UnitAnswer[] {
  const baselines = probe.baselines();
  const slopes = affineSlopes(plan, probe);
  const answers: UnitAnswer[] = new Array(baselines.length);
  let answered = 0;
  progress?.(0);
  for (let from = 0; from < baselines.length; from += UNITS_IN_STEP) {
    checkpoint();
    let open: Array<{ unit: number; search: Search<UnitAnswer>; asked: Setting[][] }> = [];
    const to = Math.min(from + UNITS_IN_STEP, baselines.length);
    for (let unit = from; unit < to; unit++) {
      const search = searchUnitChanges(plan, baselines[unit]!, checkpoint, slopes);
      const step = search.next();
      if (step.done) answers[unit] = step.value;
      else open.push({ unit, search, asked: step.value });
    }
    answered += to - from - open.length;
    while (open.length > 0) {
      checkpoint();
      const values = probe.evaluate(open.map((o): UnitRequest => ({ unit: o.unit, rows: o.asked })));
      const still: typeof open = [];
      open.forEach((o, k) => {
        const step = o.search.next(values[k]!);
        if (step.done) answers[o.unit] = step.value;
        else still.push({ ...o, asked: step.value });
      });
      if (still.length < open.length) {
        answered += open.length - still.length;
        progress?.(answered / baselines.length);
      }
      open = still;
    }
  }
  return answers;
}

/**
 * Each affine lever's slopes (per target, per unit of the lever, no other change held). Every node between an
 * affine lever and a target enters the next only through linear terms (affineIn), so the slopes are the model's
 * coefficients along those paths, the same in every unit's world: they are read once, in the probe's neutral world
 * (the lever at its mean and one std above), and the line searches of all units use them without a propagation.
 */
function affineSlopes(plan: ChangeSearchPlan, probe: UnitProbe): AffineSlopes {
  const levers = plan.levers.filter((l) => plan.affine.has(l.node));
  if (levers.length === 0) return new Map();
  const values = probe.neutral(levers.flatMap((l) => [[{ node: l.node, value: l.mean }], [{ node: l.node, value: l.mean + l.std }]]));
  const slopes = levers.map((l, i) => [l.node, values[2 * i + 1]!.map((v, j) => (v - values[2 * i]![j]!) / l.std)] as const);
  // A slope that is not a number (a target the neutral world leaves undefined) is probed in each unit instead.
  return new Map(slopes.filter(([, s]) => s.every(Number.isFinite)));
}

/** One unit's search, from its baseline (every node's value, the targets' values). */
export function* searchUnitChanges(
  plan: ChangeSearchPlan, baseline: { nodes: Float64Array; targets: number[] }, checkpoint: () => void, slopes: AffineSlopes,
): Search<UnitAnswer> {
  const { targets } = plan;
  const tracker = new CandidateTracker(targets, plan.leverByNode, baseline.nodes, baseline.targets);
  // The unit as it is competes too: no change beats changes that only move it further from its targets.
  tracker.consider([], baseline.targets, true);
  if (!targets.every((t, j) => targetMet(t, baseline.targets[j]!))) {
    for (let k = 1; k <= Math.min(plan.maxChanges, plan.levers.length) && !tracker.bestMet; k++) {
      checkpoint();
      yield* searchSubsets(plan, tracker, k === 1 ? plan.singles : largerSubsets(plan.levers, tracker, k), checkpoint, slopes);
    }
  }
  const chosen = tracker.bestMet ?? tracker.closest;
  const settings = chosen?.settings.filter((s) => s.value !== baseline.nodes[s.node]) ?? [];
  // Re-simulate the chosen changes: the answer reports what the model does with them.
  const counterfactual = settings.length === 0 ? baseline.targets : (yield [settings])[0]!;
  const met = targets.map((t, j) => targetMet(t, counterfactual[j]!));
  return {
    achieved: met.every(Boolean),
    changes: settings.map((s) => ({ node: s.node, from: baseline.nodes[s.node]!, to: s.value })),
    cost: tracker.costOf(settings),
    baseline: baseline.targets,
    counterfactual,
    met,
  };
}

/** Subsets of `k` levers among those that came closest alone, as many as MAX_SUBSETS allows. */
function largerSubsets(levers: Lever[], tracker: CandidateTracker, k: number): Lever[][] {
  const closeness = (l: Lever) => tracker.singleShortfall(l.node) ?? Number.MAX_VALUE;
  const ranked = [...levers].sort((a, b) => closeness(a) - closeness(b));
  let q = ranked.length;
  while (q > k && binomial(q, k) > MAX_SUBSETS) q--;
  const kept = ranked.slice(0, q).sort((a, b) => a.node - b.node);
  const out: Lever[][] = [];
  const pick = (start: number, chosen: Lever[]) => {
    if (chosen.length === k) {
      out.push(chosen);
      return;
    }
    for (let i = start; i < kept.length; i++) pick(i + 1, [...chosen, kept[i]!]);
  };
  pick(0, []);
  return out;
}

function binomial(n: number, k: number): number {
  let out = 1;
  for (let i = 0; i < k; i++) out = (out * (n - i)) / (i + 1);
  return out;
}

/** The settings held on a line with no other change (shared: never written). */
const NOTHING_HELD: Setting[] = [];

/** One size of subsets: category combinations evaluated in one batch, single continuous levers as one batch of lines, joint searches one by one. */
function* searchSubsets(plan: ChangeSearchPlan, tracker: CandidateTracker, subsets: Lever[][], checkpoint: () => void, slopes: AffineSlopes): Search<void> {
  const enumerated: Setting[][] = [];
  const lines: Line[] = [];
  const joint: { fixed: Setting[]; levers: Lever[] }[] = [];
  for (const subset of subsets) {
    // A continuous lever alone (most subsets a unit searches) is one line with nothing held.
    if (subset.length === 1 && subset[0]!.kind === 'continuous') {
      lines.push({ fixed: NOTHING_HELD, lever: subset[0]!, affine: plan.affine.has(subset[0]!.node) });
      continue;
    }
    const categorical = subset.filter((l) => l.kind === 'categorical');
    const continuous = subset.filter((l) => l.kind === 'continuous');
    for (const fixed of categoryCombinations(categorical, tracker.base)) {
      if (continuous.length === 0) enumerated.push(fixed);
      else if (continuous.length === 1) lines.push({ fixed, lever: continuous[0]!, affine: plan.affine.has(continuous[0]!.node) });
      else joint.push({ fixed, levers: continuous });
    }
  }
  if (enumerated.length > 0) {
    const values = yield enumerated;
    enumerated.forEach((settings, r) => tracker.consider(settings, values[r]!, true));
  }
  if (lines.length > 0) yield* searchLines(plan.targets, tracker, lines, slopes);
  for (const { fixed, levers } of joint) {
    checkpoint();
    // The levers' own slopes add up only where none of them is downstream of another.
    const apart = levers.every((a) => levers.every((b) => !plan.downstream.get(a.node)!.has(b.node)));
    yield* searchJoint(plan.targets, tracker, fixed, levers, levers.every((l) => plan.affine.has(l.node)), apart ? slopes : new Map());
  }
}

/** Every combination of other-than-current categories of the categorical levers (one empty combination when none). */
function categoryCombinations(levers: Lever[], base: Float64Array): Setting[][] {
  let combos: Setting[][] = [[]];
  for (const lever of levers) {
    const next: Setting[][] = [];
    for (const combo of combos) {
      for (let code = 0; code < lever.classes; code++) if (code !== base[lever.node]) next.push([...combo, { node: lever.node, value: code }]);
    }
    combos = next.slice(0, MAX_COMBINATIONS);
  }
  return combos;
}
