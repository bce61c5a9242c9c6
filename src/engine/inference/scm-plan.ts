/**
 * A fitted CBN compiled for fast structural evaluation: every node's parents and design terms resolved to
 * column indices and category codes once, so propagation and abduction run tight loops over typed arrays with
 * no lookups by name and no per-row allocation. Columns are in model order: Float64Array for a continuous node,
 * Int32Array of codes over node.categories for a categorical one.
 */
import type { CbnModel, NodeModel } from '../types.js';
import { type TailDistribution, empiricalTail, pointMassTail, standardNormalTail } from './tail-probability.js';

export type Columns = (Float64Array | Int32Array)[];

/** A design term on resolved parents: `code` is the indicator's category code in the parent node's categories. */
export type TermPlan =
  | { kind: 'linear' | 'square'; parent: number; code: -1; other: -1 }
  | { kind: 'indicator'; parent: number; code: number; other: -1 }
  | { kind: 'product'; parent: number; code: -1; other: number };

export interface ContinuousPlan {
  kind: 'continuous';
  index: number;
  intercept: number;
  coefficients: Float64Array;
  terms: TermPlan[];
  noiseStd: number;
  /** Divisor of residuals into standardised noise; 1 when the fitted noise is 0 so abduction stays exact. */
  scale: number;
  /** Sorted standardised residuals the noise is drawn from (empty: standard normal). */
  quantiles: Float64Array;
  /** The distribution a standardised residual is scored against (calibration.ts): the residuals' body with
   * exponential tails (tail-probability.ts); a point mass at 0 when the training residuals had no spread. */
  noise: TailDistribution;
}

export interface CategoricalPlan {
  kind: 'categorical';
  index: number;
  classes: number;
  categories: string[];
  marginal: Float64Array;
  /** CPT: parent node indices, node-code -> CPT-code translation per parent, and the table (configs x classes). */
  cpt: { parents: number[]; translate: Int32Array[]; radix: number[]; table: Float64Array; cumulative: Float64Array } | null;
  /** Logistic: terms and weights (classes x (terms + 1), intercept first). */
  logistic: { terms: TermPlan[]; weights: Float64Array } | null;
}

export type NodePlan = ContinuousPlan | CategoricalPlan;

/** Fewer stored residuals than this and the noise is drawn as standard normal: too few to stand for a shape. */
const MIN_QUANTILES = 30;

/**
 * A node's stored residuals as the plan draws and scores them. Kept per residual array: a parameter draw
 * (uncertainty.ts) shares its node's residuals, so the 30 draws of an intervention compile them once, not 30 times.
 */
const residualShapes = new WeakMap<readonly number[], { quantiles: Float64Array; tail: TailDistribution }>();

function residualShape(q: readonly number[]): { quantiles: Float64Array; tail: TailDistribution } {
  let shape = residualShapes.get(q);
  if (shape === undefined) {
    const quantiles = q.length >= MIN_QUANTILES ? Float64Array.from(q) : new Float64Array(0);
    shape = { quantiles, tail: quantiles.length > 0 ? empiricalTail(quantiles) : standardNormalTail };
    residualShapes.set(q, shape);
  }
  return shape;
}

export function compilePlans(model: CbnModel): NodePlan[] {
  const index = new Map(model.nodes.map((n, i) => [n.name, i]));
  const resolve = (name: string, child: string) => {
    const i = index.get(name);
    if (i === undefined) throw new Error(`node ${child} names parent ${name}, which is not in the model`);
    return i;
  };
  const termPlan = (t: Extract<NodeModel, { kind: 'continuous' }>['terms'][number], child: string): TermPlan => {
    const parent = resolve(t.parents[0]!, child);
    const parentNode = model.nodes[parent]!;
    if (t.kind === 'indicator') {
      if (parentNode.kind !== 'categorical') throw new Error(`node ${child}: indicator term on continuous parent ${parentNode.name}`);
      return { kind: 'indicator', parent, code: parentNode.categories.indexOf(t.category ?? ''), other: -1 };
    }
    if (parentNode.kind !== 'continuous') throw new Error(`node ${child}: numeric term on categorical parent ${parentNode.name}`);
    if (t.kind === 'product') return { kind: 'product', parent, code: -1, other: resolve(t.parents[1]!, child) };
    return { kind: t.kind, parent, code: -1, other: -1 };
  };
  return model.nodes.map((node, i): NodePlan => {
    if (node.kind === 'continuous') {
      const terms = node.terms.map((t) => termPlan(t, node.name));
      const { quantiles, tail } = residualShape(node.residualQuantiles);
      // No residual spread in training: the mechanism is deterministic and any deviation is unseen.
      const noise = node.noiseStd === 0 ? pointMassTail(0) : tail;
      return {
        kind: 'continuous', index: i, intercept: node.intercept, coefficients: Float64Array.from(node.coefficients), terms,
        noiseStd: node.noiseStd, scale: node.noiseStd > 0 ? node.noiseStd : 1, quantiles, noise,
      };
    }
    const classes = node.categories.length;
    const plan: CategoricalPlan = {
      kind: 'categorical', index: i, classes, categories: node.categories, marginal: Float64Array.from(node.marginal), cpt: null, logistic: null,
    };
    if (node.cpt) {
      const parents = node.parents.map((p) => resolve(p, node.name));
      const translate = parents.map((p, k) => {
        const parentNode = model.nodes[p]!;
        if (parentNode.kind !== 'categorical') throw new Error(`node ${node.name}: CPT on continuous parent ${parentNode.name}`);
        const cptCategories = node.cpt!.parentCategories[k]!;
        return Int32Array.from(parentNode.categories, (label) => cptCategories.indexOf(label));
      });
      const table = Float64Array.from(node.cpt.table.flat());
      const cumulative = new Float64Array(table.length);
      for (let c = 0; c < node.cpt.table.length; c++) cumulativeInto(table, c * classes, classes, cumulative, c * classes);
      plan.cpt = { parents, translate, radix: node.cpt.parentCategories.map((c) => c.length), table, cumulative };
    } else if (node.logistic) {
      plan.logistic = { terms: node.logistic.terms.map((t) => termPlan(t, node.name)), weights: Float64Array.from(node.logistic.weights.flat()) };
    }
    return plan;
  });
}

/** The conditional mean of a continuous node for every unit, written into `out`. */
export function conditionalMeanInto(plan: ContinuousPlan, columns: Columns, n: number, out: Float64Array): void {
  out.fill(plan.intercept, 0, n);
  // Monomorphic loops per term kind (a Float64Array or an Int32Array each time) keep V8 on its fast path.
  for (let t = 0; t < plan.terms.length; t++) {
    const term = plan.terms[t]!;
    const b = plan.coefficients[t]!;
    if (term.kind === 'indicator') {
      const codes = columns[term.parent] as Int32Array;
      const code = term.code;
      for (let r = 0; r < n; r++) if (codes[r] === code) out[r]! += b;
      continue;
    }
    const x = columns[term.parent] as Float64Array;
    if (term.kind === 'linear') for (let r = 0; r < n; r++) out[r]! += b * x[r]!;
    else if (term.kind === 'square') for (let r = 0; r < n; r++) out[r]! += b * x[r]! * x[r]!;
    else {
      const z = columns[term.other] as Float64Array;
      for (let r = 0; r < n; r++) out[r]! += b * x[r]! * z[r]!;
    }
  }
}

/** The CPT configuration of a unit (-1 when a parent holds a category the CPT never saw). */
export function cptConfiguration(cpt: NonNullable<CategoricalPlan['cpt']>, columns: Columns, row: number): number {
  let config = 0;
  for (let k = 0; k < cpt.parents.length; k++) {
    const code = cpt.translate[k]![columns[cpt.parents[k]!]![row]!] ?? -1;
    if (code < 0) return -1;
    config = config * cpt.radix[k]! + code;
  }
  return config;
}

/** A categorical node's class probabilities for one unit, written into `out` (length classes). */
export function probabilitiesInto(plan: CategoricalPlan, columns: Columns, row: number, out: Float64Array): void {
  const classes = plan.classes;
  if (plan.cpt) {
    const config = cptConfiguration(plan.cpt, columns, row);
    if (config < 0) out.set(plan.marginal);
    else for (let k = 0; k < classes; k++) out[k] = plan.cpt.table[config * classes + k]!;
    return;
  }
  if (plan.logistic) {
    const { terms, weights } = plan.logistic;
    const width = terms.length + 1;
    let max = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < classes; k++) {
      let logit = weights[k * width]!;
      for (let t = 0; t < terms.length; t++) {
        const term = terms[t]!;
        const v = columns[term.parent]![row]!;
        logit += weights[k * width + t + 1]! * (term.kind === 'indicator' ? (v === term.code ? 1 : 0) : v);
      }
      out[k] = logit;
      if (logit > max) max = logit;
    }
    let sum = 0;
    for (let k = 0; k < classes; k++) sum += out[k] = Math.exp(out[k]! - max);
    for (let k = 0; k < classes; k++) out[k]! /= sum;
    return;
  }
  out.set(plan.marginal);
}

/** Running sums of probabilities[from..from+classes) into cumulative[to..): the inverse-CDF table. */
export function cumulativeInto(probabilities: Float64Array, from: number, classes: number, cumulative: Float64Array, to: number): void {
  let sum = 0;
  for (let k = 0; k < classes; k++) cumulative[to + k] = sum += probabilities[from + k]!;
}

/**
 * Inverse-CDF draw: the first class whose cumulative probability exceeds u (the last class takes the rest, so a
 * cumulative sum a rounding short of 1 never drops a draw). A negative u encodes a unit abduction pinned to class
 * -u - 1 because the model gave its observed class no probability mass.
 */
export function inverseCdf(cumulative: Float64Array, from: number, classes: number, u: number): number {
  if (u < 0) return -u - 1;
  for (let k = 0; k < classes - 1; k++) if (u < cumulative[from + k]!) return k;
  return classes - 1;
}
