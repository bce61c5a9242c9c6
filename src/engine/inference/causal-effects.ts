/**
 * Interventional effects with common random numbers (one noise draw shared by every arm), for explanation.ts.
 * A continuous cause is set to mean + 1 std and mean - 1 std: the effect per std is half the difference of the
 * outcome's means. A categorical cause is set to each category: the effect is the largest contrast between two
 * categories. A categorical outcome is read as the share of the class whose share moves most. Path-specific
 * effects follow Pearl (2001) / Avin, Shpitser & Pearl (2005): only the path carries the treated value, every
 * other input of a node on it keeps its value in the reference world; a linear path is the product of its
 * coefficients times the cause's std.
 */
import { predictContinuous, predictProbabilities } from '../cbn/predict.js';
import type { Frame, FrameColumn } from '../types.js';
import { type Noise, propagate, type Scm } from './scm.js';

/** The arms of one cause: for a continuous cause [mean - std, mean + std]; for a categorical one, each category. */
export interface CauseArms {
  cause: number;
  kind: 'continuous' | 'categorical';
  /** Values set (continuous) or category codes. */
  levels: number[];
  frames: Frame[];
  /** Std of the cause in the baseline population (continuous), 1 for a categorical cause. */
  std: number;
}

export interface Effect {
  /** Per std of a continuous cause (signed), or the largest category contrast (>= 0) of a categorical one. */
  effect: number;
  standardError: number;
  /** The categorical outcome's class whose share the effect is about. */
  outcomeClass?: string;
  /** A categorical cause: the categories with the highest and lowest outcome. */
  high?: string;
  low?: string;
  /** Arms the contrast compares: [low arm, high arm] indices into CauseArms.levels. */
  arms: [number, number];
  outcomeCode: number;
}

export function causeArms(scm: Scm, noise: Noise, baseline: Frame, cause: number): CauseArms {
  const model = scm.model.nodes[cause]!;
  const name = model.name;
  if (model.kind === 'categorical') {
    const levels = model.categories.map((_, k) => k);
    return { cause, kind: 'categorical', levels, frames: model.categories.map((label) => propagate(scm, noise, [{ node: name, kind: 'set', value: label }])), std: 1 };
  }
  const column = baseline.columns[cause]!;
  const { mean, std } = meanAndStd(column.kind === 'continuous' ? column.values : new Float64Array(0));
  const levels = [mean - std, mean + std];
  return { cause, kind: 'continuous', levels, frames: levels.map((value) => propagate(scm, noise, [{ node: name, kind: 'set', value }])), std };
}

/** The cause's effect on an outcome over the masked units. */
export function effectOf(scm: Scm, arms: CauseArms, outcome: number, mask: Uint8Array): Effect {
  const model = scm.model.nodes[outcome]!;
  const codes = model.kind === 'categorical' ? model.categories.map((_, k) => k) : [-1];
  let best: Effect | null = null;
  for (const code of codes) {
    const series = arms.frames.map((f) => outcomeSeries(f, outcome, code));
    const means = series.map((s) => maskedMean(s, mask));
    let arm: [number, number] = [0, 1];
    if (arms.kind === 'categorical') {
      const order = means.map((m, k) => ({ m, k })).sort((a, b) => a.m - b.m);
      arm = [order[0]!.k, order[order.length - 1]!.k];
    }
    const half = arms.kind === 'continuous' ? 2 : 1;
    const diffs = series[arm[1]]!.map((v, r) => (v - series[arm[0]]![r]!) / half);
    const effect = (means[arm[1]]! - means[arm[0]]!) / half;
    if (best && Math.abs(effect) <= Math.abs(best.effect)) continue;
    const catModel = scm.model.nodes[arms.cause]!;
    best = {
      effect, standardError: maskedStandardError(diffs, mask), arms: arm, outcomeCode: code,
      ...(model.kind === 'categorical' ? { outcomeClass: model.categories[code]! } : {}),
      ...(catModel.kind === 'categorical' ? { high: catModel.categories[arm[1]]!, low: catModel.categories[arm[0]]! } : {}),
    };
  }
  return best!;
}

/** The same contrast (arms and outcome class of `like`) over other units: segments compare with the whole. */
export function contrastLike(arms: CauseArms, outcome: number, like: Effect, mask: Uint8Array): Effect {
  const low = outcomeSeries(arms.frames[like.arms[0]]!, outcome, like.outcomeCode);
  const high = outcomeSeries(arms.frames[like.arms[1]]!, outcome, like.outcomeCode);
  const half = arms.kind === 'continuous' ? 2 : 1;
  const diffs = high.map((v, r) => (v - low[r]!) / half);
  return { ...like, effect: maskedMean(diffs, mask), standardError: maskedStandardError(diffs, mask) };
}

/** An outcome column as numbers: a continuous variable's values, or the indicator of class `code`. */
function outcomeSeries(frame: Frame, outcome: number, code: number): Float64Array {
  const column = frame.columns[outcome]!;
  return column.kind === 'continuous' ? column.values : Float64Array.from(column.codes, (c) => (c === code ? 1 : 0));
}

/**
 * Path-specific effect of the cause along `path` (node indices, cause first): the outcome when only the path
 * carries the high arm and everything else sees the low arm, minus the outcome in the low arm; per std (halved)
 * for a continuous cause. Returns per-unit differences so segments can average them.
 */
export function pathSpecificDifferences(scm: Scm, noise: Noise, arms: CauseArms, effect: Effect, path: readonly number[]): Float64Array {
  const reference = arms.frames[effect.arms[0]]!;
  const treated = arms.frames[effect.arms[1]]!;
  let carried: FrameColumn = treated.columns[arms.cause]!;
  for (let s = 1; s < path.length; s++) {
    const previous = path[s - 1]!;
    const hybrid: Frame = { nRows: reference.nRows, columns: reference.columns.map((c, i) => (i === previous ? carried : c)) };
    carried = mechanism(scm, path[s]!, hybrid, noise[path[s]!]!);
  }
  const outcome = path[path.length - 1]!;
  const after = outcomeSeries({ nRows: reference.nRows, columns: reference.columns.map((c, i) => (i === outcome ? carried : c)) }, outcome, effect.outcomeCode);
  const before = outcomeSeries(reference, outcome, effect.outcomeCode);
  const half = arms.kind === 'continuous' ? 2 : 1;
  return after.map((v, r) => (v - before[r]!) / half);
}

/**
 * A node's values from its mechanism given the frame's parent values and its noise (scm.ts conventions: conditional
 * mean + noise scale x noise; inverse CDF of the class probabilities at the uniform).
 */
export function mechanism(scm: Scm, node: number, frame: Frame, u: Float64Array): FrameColumn {
  const model = scm.model.nodes[node]!;
  if (model.kind === 'continuous') {
    const values = predictContinuous(model, frame);
    const scale = model.noiseStd > 0 ? model.noiseStd : 1;
    for (let r = 0; r < values.length; r++) values[r]! += scale * u[r]!;
    return { name: model.name, kind: 'continuous', values };
  }
  const classes = model.categories.length;
  const probabilities = predictProbabilities(model, frame);
  const codes = new Int32Array(frame.nRows);
  for (let r = 0; r < frame.nRows; r++) {
    const ur = u[r]!;
    if (ur < 0) {
      codes[r] = -ur - 1;
      continue;
    }
    // An unseen parent category leaves no probabilities; propagate draws from the marginal then.
    const unseen = Number.isNaN(probabilities[r * classes]!);
    let sum = 0;
    let code = classes - 1;
    for (let k = 0; k < classes - 1; k++) {
      sum += unseen ? model.marginal[k]! : probabilities[r * classes + k]!;
      if (ur < sum) {
        code = k;
        break;
      }
    }
    codes[r] = code;
  }
  return { name: model.name, kind: 'categorical', codes, categories: [...model.categories] };
}

/** Directed paths from `from` to `to` (node index lists), at most `limit`, shortest first. */
export function directedPaths(scm: Scm, from: number, to: number, limit: number): { paths: number[][]; truncated: boolean } {
  const paths: number[][] = [];
  let truncated = false;
  const reaches = new Map<number, boolean>();
  const canReach = (i: number): boolean => {
    if (i === to) return true;
    const known = reaches.get(i);
    if (known !== undefined) return known;
    const out = scm.childrenOf(i).some(canReach);
    reaches.set(i, out);
    return out;
  };
  const walk = (path: number[]) => {
    if (truncated) return;
    const last = path[path.length - 1]!;
    if (last === to) {
      if (paths.length >= limit) truncated = true;
      else paths.push(path);
      return;
    }
    for (const child of scm.childrenOf(last)) if (canReach(child)) walk([...path, child]);
  };
  if (from !== to && canReach(from)) walk([from]);
  return { paths: paths.sort((a, b) => a.length - b.length), truncated };
}

/** The product of coefficients along a path when every edge enters its child through one linear term; else null. */
export function linearPathProduct(scm: Scm, path: readonly number[]): number | null {
  if (scm.model.nodes[path[0]!]!.kind !== 'continuous') return null;
  let product = 1;
  for (let s = 1; s < path.length; s++) {
    const child = scm.model.nodes[path[s]!]!;
    const parent = scm.names[path[s - 1]!]!;
    if (child.kind !== 'continuous') return null;
    const using = child.terms.map((t, i) => ({ t, i })).filter(({ t }) => t.parents.includes(parent));
    if (using.length !== 1 || using[0]!.t.kind !== 'linear') return null;
    product *= child.coefficients[using[0]!.i]!;
  }
  return product;
}

export function maskedMean(values: Float64Array, mask: Uint8Array): number {
  let sum = 0;
  let count = 0;
  for (let r = 0; r < values.length; r++) if (mask[r] === 1) {
    sum += values[r]!;
    count++;
  }
  return count > 0 ? sum / count : Number.NaN;
}

function maskedStandardError(values: Float64Array, mask: Uint8Array): number {
  const mean = maskedMean(values, mask);
  let ss = 0;
  let count = 0;
  for (let r = 0; r < values.length; r++) if (mask[r] === 1) {
    ss += (values[r]! - mean) ** 2;
    count++;
  }
  return count > 1 ? Math.sqrt(ss / (count - 1) / count) : Number.NaN;
}

function meanAndStd(values: Float64Array): { mean: number; std: number } {
  const all = new Uint8Array(values.length).fill(1);
  const mean = maskedMean(values, all);
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  const std = Math.sqrt(ss / Math.max(1, values.length - 1));
  return { mean, std: std > 0 ? std : 1 };
}
