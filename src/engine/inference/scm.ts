/**
 * The structural causal model behind every simulation (DESIGN.md "The causal engine"): a fitted CBN read as
 * value = mechanism(parents, noise). Continuous nodes are additive-noise models (conditional mean + noiseStd *
 * standardised noise drawn from the node's own residuals); categorical nodes draw by inverse CDF from one uniform
 * per unit. Sharing noise between two propagations gives common random numbers (intervention arms); abducting
 * noise from observed units gives counterfactuals (Pearl 2009, ch. 7: abduction, action, prediction).
 */
import { Rng } from '../random.js';
import type { CbnModel, Frame, FrameColumn } from '../types.js';
import {
  type CategoricalPlan, type Columns, type ContinuousPlan, type NodePlan,
  compilePlans, conditionalMeanInto, cumulativeInto, inverseCdf, probabilitiesInto,
} from './scm-plan.js';

export interface Scm {
  readonly model: CbnModel;
  readonly names: string[];
  /** -1 when the name is not a variable of the model. */
  indexOf(name: string): number;
  parentsOf(i: number): number[];
  childrenOf(i: number): number[];
}

/** One Float64Array(n) per node in model order: continuous = standardised noise drawn from the node's residual
 * distribution (value = conditional mean + noiseStd * noise); categorical = uniform in [0,1) (inverse-CDF draw),
 * or -(c + 1) when abduction pins a unit to an observed class c the model gives no probability mass. */
export type Noise = Float64Array[];

/** A change to a node; `rows` (1 = applies) limits it to some units, absent = all. */
export type Treatment =
  | { node: string; kind: 'set'; value: number | string; rows?: Uint8Array }
  | { node: string; kind: 'shift'; mode: 'percentage' | 'absolute'; value: number; rows?: Uint8Array }
  | { node: string; kind: 'distribution'; adjust(probabilities: Float64Array): void; rows?: Uint8Array }
  /** Every unit's own value (a continuous value, or a categorical class index): e.g. a lagged input of a temporal
   * model, taken from each simulated path's past. */
  | { node: string; kind: 'values'; values: Float64Array | Int32Array }
  /** Each unit's own set value (a continuous value, or a category code), NaN leaving that unit to the mechanism:
   * many candidate settings, of many units, in one propagation (the change search). */
  | { node: string; kind: 'each'; values: Float64Array };

const plansByScm = new WeakMap<Scm, NodePlan[]>();

export function compileScm(model: CbnModel): Scm {
  const names = model.nodes.map((n) => n.name);
  const index = new Map(names.map((n, i) => [n, i]));
  const parents = model.nodes.map((n) => n.parents.map((p) => index.get(p) ?? -1).filter((p) => p >= 0));
  const children: number[][] = names.map(() => []);
  parents.forEach((ps, child) => ps.forEach((p) => children[p]!.push(child)));
  const scm: Scm = {
    model,
    names,
    indexOf: (name) => index.get(name) ?? -1,
    parentsOf: (i) => parents[i] ?? [],
    childrenOf: (i) => children[i] ?? [],
  };
  plansByScm.set(scm, compilePlans(model));
  return scm;
}

/** The compiled node plans of an Scm (compiled on first use when the Scm was not made by compileScm). */
export function plansOf(scm: Scm): NodePlan[] {
  let plans = plansByScm.get(scm);
  if (!plans) {
    plans = compilePlans(scm.model);
    plansByScm.set(scm, plans);
  }
  return plans;
}

export function drawNoise(scm: Scm, n: number, seed: number): Noise {
  const rng = new Rng(seed);
  return plansOf(scm).map((plan) => {
    const out = new Float64Array(n);
    for (let r = 0; r < n; r++) out[r] = priorNoise(plan, rng);
    return out;
  });
}

/** One noise draw from the node's prior: residual-quantile inverse CDF (linear interpolation) or uniform. */
export function priorNoise(plan: NodePlan, rng: Rng): number {
  if (plan.kind === 'categorical') return rng.uniform();
  if (plan.noiseStd === 0) return 0;
  const q = plan.quantiles;
  if (q.length === 0) return rng.normal();
  const position = rng.uniform() * (q.length - 1);
  const below = Math.floor(position);
  const fraction = position - below;
  return q[below]! + fraction * ((q[below + 1] ?? q[below]!) - q[below]!);
}

/**
 * Every node's values for the noise's units, treatments applied in causal order. With `baseline` -- the
 * untreated propagation of the same noise -- nodes no treatment reaches keep the baseline's columns (shared, not
 * copied: frames are read-only), so an intervened arm costs only the treated nodes' descendants.
 */
export function propagate(scm: Scm, noise: Noise, treatments: Treatment[] = [], baseline?: Frame): Frame {
  const plans = plansOf(scm);
  const n = noise[0]?.length ?? 0;
  const byNode = plans.map(() => [] as Treatment[]);
  for (const t of treatments) {
    const i = scm.indexOf(t.node);
    if (i < 0) throw new Error(`treatment names ${t.node}, which is not a variable of the model`);
    if (t.kind !== 'values' && t.kind !== 'each' && t.rows && t.rows.length !== n) throw new Error(`treatment of ${t.node}: its row mask has ${t.rows.length} entries for ${n} units`);
    if ((t.kind === 'values' || t.kind === 'each') && t.values.length !== n) throw new Error(`treatment of ${t.node}: ${t.values.length} values for ${n} units`);
    byNode[i]!.push(t);
  }
  const columns: Columns = [];
  const scratch = new Float64Array(maxClasses(plans));
  const cumulative = new Float64Array(scratch.length);
  const reached = new Uint8Array(plans.length);
  if (baseline && baseline.nRows !== n) throw new Error(`the baseline has ${baseline.nRows} units, the noise ${n}`);
  for (const plan of plans) {
    const u = noise[plan.index];
    if (!u || u.length !== n) throw new Error(`noise of ${scm.names[plan.index]} has the wrong length`);
    const own = byNode[plan.index]!;
    reached[plan.index] = own.length > 0 || scm.parentsOf(plan.index).some((q) => reached[q] === 1) ? 1 : 0;
    const kept = baseline && reached[plan.index] === 0 ? baseline.columns[plan.index] : undefined;
    if (kept) {
      columns.push(kept.kind === 'continuous' ? kept.values : kept.codes);
      continue;
    }
    const given = own.find((t) => t.kind === 'values');
    if (given !== undefined) {
      columns.push(plan.kind === 'continuous' ? Float64Array.from(given.values) : Int32Array.from(given.values));
      continue;
    }
    if (plan.kind === 'continuous') {
      const values = new Float64Array(n);
      conditionalMeanInto(plan, columns, n, values);
      for (let r = 0; r < n; r++) values[r]! += plan.scale * u[r]!;
      for (const t of own) applyContinuous(plan, scm, t, values);
      columns.push(values);
    } else {
      const codes = new Int32Array(n);
      const distribution = own.filter((t) => t.kind === 'distribution');
      if (plan.cpt && distribution.length === 0) {
        for (let r = 0; r < n; r++) {
          const config = cptConfigOrMarginal(plan, columns, r, scratch, cumulative);
          codes[r] = config < 0 ? inverseCdf(cumulative, 0, plan.classes, u[r]!) : inverseCdf(plan.cpt.cumulative, config * plan.classes, plan.classes, u[r]!);
        }
      } else {
        for (let r = 0; r < n; r++) {
          probabilitiesInto(plan, columns, r, scratch);
          for (const t of distribution) if (!t.rows || t.rows[r] === 1) t.adjust(scratch);
          cumulativeInto(scratch, 0, plan.classes, cumulative, 0);
          codes[r] = inverseCdf(cumulative, 0, plan.classes, u[r]!);
        }
      }
      for (const t of own) if (t.kind !== 'distribution') applyCategorical(plan, scm, t, codes);
      columns.push(codes);
    }
  }
  return frameOfColumns(plans, scm.names, columns, n);
}

/** The unit's CPT configuration; when it has none (unseen parent category) the marginal's CDF is left in `cumulative`. */
function cptConfigOrMarginal(plan: CategoricalPlan, columns: Columns, r: number, scratch: Float64Array, cumulative: Float64Array): number {
  const cpt = plan.cpt!;
  let config = 0;
  for (let k = 0; k < cpt.parents.length; k++) {
    const code = cpt.translate[k]![columns[cpt.parents[k]!]![r]!] ?? -1;
    if (code < 0) {
      scratch.set(plan.marginal);
      cumulativeInto(scratch, 0, plan.classes, cumulative, 0);
      return -1;
    }
    config = config * cpt.radix[k]! + code;
  }
  return config;
}

function applyContinuous(plan: ContinuousPlan, scm: Scm, t: Treatment, values: Float64Array): void {
  const name = scm.names[plan.index];
  if (t.kind === 'distribution') throw new Error(`a probability change needs a categorical variable; ${name} is continuous`);
  if (t.kind === 'values') return;
  if (t.kind === 'each') {
    for (let r = 0; r < values.length; r++) if (!Number.isNaN(t.values[r]!)) values[r] = t.values[r]!;
    return;
  }
  if (typeof t.value !== 'number' || !Number.isFinite(t.value)) throw new Error(`${name} is continuous: it takes a finite number, not ${JSON.stringify(t.value)}`);
  const v = t.value;
  const change = t.kind === 'set' ? () => v : t.mode === 'percentage' ? (x: number) => x * (1 + v / 100) : (x: number) => x + v;
  for (let r = 0; r < values.length; r++) if (!t.rows || t.rows[r] === 1) values[r] = change(values[r]!);
}

function applyCategorical(plan: CategoricalPlan, scm: Scm, t: Treatment, codes: Int32Array): void {
  const name = scm.names[plan.index];
  if (t.kind === 'values') return;
  if (t.kind === 'each') {
    for (let r = 0; r < codes.length; r++) if (!Number.isNaN(t.values[r]!)) codes[r] = t.values[r]!;
    return;
  }
  if (t.kind !== 'set') throw new Error(`a shift needs a continuous variable; ${name} is categorical`);
  const code = plan.categories.indexOf(String(t.value));
  if (code < 0) throw new Error(`${name} has no category ${JSON.stringify(t.value)} (categories: ${plan.categories.join(', ')})`);
  for (let r = 0; r < codes.length; r++) if (!t.rows || t.rows[r] === 1) codes[r] = code;
}

export function abduct(scm: Scm, rows: Frame, seed: number): Noise {
  const plans = plansOf(scm);
  const n = rows.nRows;
  const rng = new Rng(seed);
  const observed = observedColumns(scm, plans, rows);
  const columns: Columns = [];
  const noise: Noise = [];
  const scratch = new Float64Array(maxClasses(plans));
  const cumulative = new Float64Array(scratch.length);
  for (const plan of plans) {
    const seen = observed[plan.index];
    const u = new Float64Array(n);
    if (plan.kind === 'continuous') {
      const values = new Float64Array(n);
      conditionalMeanInto(plan, columns, n, values);
      for (let r = 0; r < n; r++) {
        const v = seen ? (seen as Float64Array)[r]! : Number.NaN;
        u[r] = Number.isNaN(v) ? priorNoise(plan, rng) : (v - values[r]!) / plan.scale;
        // The value propagate will compute from this noise, so descendants are abducted on identical parents.
        values[r]! += plan.scale * u[r]!;
      }
      columns.push(values);
    } else {
      const codes = new Int32Array(n);
      for (let r = 0; r < n; r++) {
        probabilitiesInto(plan, columns, r, scratch);
        cumulativeInto(scratch, 0, plan.classes, cumulative, 0);
        const c = seen ? (seen as Int32Array)[r]! : -1;
        u[r] = c < 0 ? rng.uniform() : uniformFor(cumulative, plan.classes, c, rng);
        codes[r] = inverseCdf(cumulative, 0, plan.classes, u[r]!);
      }
      columns.push(codes);
    }
    noise.push(u);
  }
  return noise;
}

/** A uniform drawn within class c's slice of the CDF; pinned (negative) when rounding leaves the slice empty. */
function uniformFor(cumulative: Float64Array, classes: number, c: number, rng: Rng): number {
  const lo = c === 0 ? 0 : cumulative[c - 1]!;
  const hi = c === classes - 1 ? 1 : cumulative[c]!;
  const width = hi - lo;
  if (width > 0) {
    // Keep clear of the slice's ends so the same draw lands in class c again despite rounding.
    const u = lo + width * (1e-6 + (1 - 2e-6) * rng.uniform());
    if (inverseCdf(cumulative, 0, classes, u) === c) return u;
    const middle = lo + width / 2;
    if (inverseCdf(cumulative, 0, classes, middle) === c) return middle;
  }
  return -c - 1;
}

/** The frame's columns in model order, categorical codes translated to the model's categories by label. */
function observedColumns(scm: Scm, plans: NodePlan[], rows: Frame): (Float64Array | Int32Array | undefined)[] {
  const out: (Float64Array | Int32Array | undefined)[] = plans.map(() => undefined);
  for (const column of rows.columns) {
    const i = scm.indexOf(column.name);
    if (i < 0) continue;
    const plan = plans[i]!;
    if (plan.kind !== column.kind) throw new Error(`${column.name} is ${plan.kind} in the model but ${column.kind} in the rows`);
    if (column.kind === 'continuous') out[i] = column.values;
    else {
      const translate = column.categories.map((label) => plan.kind === 'categorical' ? plan.categories.indexOf(label) : -1);
      out[i] = column.codes.map((c) => (c < 0 ? -1 : translate[c] ?? -1));
    }
  }
  return out;
}

export { frameFromRecords, frameFromTable, valueAt } from './scm-records.js';

/** Every node with a directed path into i (i excluded). */
export function ancestorsOf(scm: Scm, i: number): Set<number> {
  return reachable([i], (k) => scm.parentsOf(k));
}

/** Every node with a directed path from i (i excluded). */
export function descendantsOf(scm: Scm, i: number): Set<number> {
  return reachable([i], (k) => scm.childrenOf(k));
}

/** Every node reached from `starts` by one or more `next` steps (a start is included only if reached again). */
export function reachable(starts: readonly number[], next: (i: number) => readonly number[]): Set<number> {
  const seen = new Set<number>();
  const stack = starts.flatMap((start) => next(start));
  while (stack.length > 0) {
    const k = stack.pop()!;
    if (seen.has(k)) continue;
    seen.add(k);
    stack.push(...next(k));
  }
  return seen;
}

function maxClasses(plans: NodePlan[]): number {
  return plans.reduce((m, p) => (p.kind === 'categorical' ? Math.max(m, p.classes) : m), 1);
}

function frameOfColumns(plans: NodePlan[], names: string[], columns: Columns, n: number): Frame {
  return {
    nRows: n,
    columns: plans.map((plan, i): FrameColumn => plan.kind === 'continuous'
      ? { name: names[i]!, kind: 'continuous', values: columns[i] as Float64Array }
      : { name: names[i]!, kind: 'categorical', codes: columns[i] as Int32Array, categories: [...plan.categories] }),
  };
}
