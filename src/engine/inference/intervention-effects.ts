/**
 * Per-variable answers of an intervention: each arm's distribution over the sampled units and the effect on the
 * mean (or on each category's share) with an interval that adds the Monte Carlo variance of the paired
 * difference (common random numbers) to the parameter variance seen across parameter draws.
 */
import type { Frame } from '../types.js';
import type { ResultRecord, SweepPoint } from './outcome.js';
import { halfWidth, sampleVariance } from './uncertainty.js';

/** An arm as the variable's distribution over the units: mean, standard deviation, central interval (null on a
 * categorical variable, whose distribution is `probabilities`). */
export interface ArmSummary {
  mean: number | null;
  std: number | null;
  lowerBound: number | null;
  upperBound: number | null;
  /** Categorical: the share of units in each category, aligned with `categories`. */
  probabilities?: number[];
}

export interface VariableEffect {
  variable: string;
  type: 'continuous' | 'categorical';
  categories?: string[];
  baseline: ArmSummary;
  intervened: ArmSummary;
  /** Continuous: on the mean. Categorical: arrays aligned with the categories (share differences). */
  effect: {
    difference: number | number[];
    lowerBound: number | number[];
    upperBound: number | number[];
    relativeChange: number | null | (number | null)[];
  };
}

/** Baseline and intervened frames over the same units (common random numbers), and the same under parameter draws. */
export interface Arms {
  baseline: Frame;
  intervened: Frame;
  /** The same arms under parameter draws (fewer units each, the same units across draws). */
  draws: { baseline: Frame; intervened: Frame }[];
}

export interface Interval {
  confidenceLevel: number;
}

/** Half-width from a Monte Carlo variance over `units` and the parameter variance over the arms' draws. */
function width(interval: Interval, arms: Arms, mcVariance: number, units: number, parameterVariance: number): number {
  return halfWidth(interval.confidenceLevel, [{ variance: mcVariance, df: units - 1 }, { variance: parameterVariance, df: arms.draws.length - 1 }]);
}

export function variableEffect(column: number, arms: Arms, interval: Interval): VariableEffect {
  const base = arms.baseline.columns[column]!;
  const arm = arms.intervened.columns[column]!;
  if (base.kind === 'continuous' && arm.kind === 'continuous') {
    const difference = mean(arm.values) - mean(base.values);
    const n = arm.values.length;
    const half = width(interval, arms, pairedVariance(arm.values, base.values) / n, n, drawVariance(arms, column, -1, true));
    const baseMean = mean(base.values);
    return {
      variable: base.name, type: 'continuous',
      baseline: distribution(base.values, interval), intervened: distribution(arm.values, interval),
      effect: {
        difference, lowerBound: difference - half, upperBound: difference + half,
        relativeChange: baseMean !== 0 ? difference / Math.abs(baseMean) : null,
      },
    };
  }
  if (base.kind !== 'categorical' || arm.kind !== 'categorical') throw new Error(`column ${column} changed kind between arms`);
  const classes = base.categories.length;
  const baseShares = shares(base.codes, classes);
  const armShares = shares(arm.codes, classes);
  const n = base.codes.length;
  const difference = armShares.map((p, k) => p - baseShares[k]!);
  const half = difference.map((_, k) => {
    // Paired indicator differences: each unit contributes [arm = k] - [baseline = k].
    let sum = 0;
    let ss = 0;
    for (let r = 0; r < n; r++) {
      const d = (arm.codes[r] === k ? 1 : 0) - (base.codes[r] === k ? 1 : 0);
      sum += d;
      ss += d * d;
    }
    const variance = n > 1 ? (ss - (sum * sum) / n) / (n - 1) : 0;
    return width(interval, arms, variance / n, n, drawVariance(arms, column, k, true));
  });
  return {
    variable: base.name, type: 'categorical', categories: [...base.categories],
    baseline: categoricalSummary(baseShares), intervened: categoricalSummary(armShares),
    effect: {
      difference,
      lowerBound: difference.map((d, k) => d - half[k]!),
      upperBound: difference.map((d, k) => d + half[k]!),
      relativeChange: difference.map((d, k) => (baseShares[k]! > 0 ? d / baseShares[k]! : null)),
    },
  };
}

/** The intervened arm as a result record: a continuous variable's distribution, or a categorical one's shares with
 * confidence bounds (Monte Carlo + parameter variance of each share). */
export function armRecord(column: number, arms: Arms, interval: Interval): ResultRecord {
  const arm = arms.intervened.columns[column]!;
  if (arm.kind === 'continuous') {
    const s = distribution(arm.values, interval);
    return { timestamp: null, prediction: s.mean, std: s.std, lowerBound: s.lowerBound, upperBound: s.upperBound, confidenceLevel: interval.confidenceLevel };
  }
  const p = shares(arm.codes, arm.categories.length);
  const n = arm.codes.length;
  const half = p.map((q, k) => width(interval, arms, (q * (1 - q)) / n, n, drawVariance(arms, column, k, false)));
  const best = p.reduce((b, q, k) => (q > p[b]! ? k : b), 0);
  return {
    timestamp: null, prediction: arm.categories[best] ?? null, std: null, probabilities: p, categories: [...arm.categories],
    lowerBound: p.map((q, k) => Math.max(0, q - half[k]!)), upperBound: p.map((q, k) => Math.min(1, q + half[k]!)),
    confidenceLevel: interval.confidenceLevel,
  };
}

/** Sweep points of a variable at one grid value: the intervened mean (or each category's share), its standard
 * error as `std`, and its confidence interval. One point per curve: a continuous variable has one curve, a categorical one per category. */
export function sweepPoints(column: number, arms: Arms, value: number, interval: Interval): SweepPoint[] {
  const arm = arms.intervened.columns[column]!;
  const point = (m: number, mcVariance: number, units: number, parameterVariance: number): SweepPoint => {
    const half = width(interval, arms, mcVariance, units, parameterVariance);
    const se = Math.sqrt(mcVariance + parameterVariance);
    return { value, mean: m, std: se, lowerBound: m - half, upperBound: m + half };
  };
  if (arm.kind === 'continuous') {
    const n = arm.values.length;
    return [point(mean(arm.values), sampleVariance(arm.values) / n, n, drawVariance(arms, column, -1, false))];
  }
  const n = arm.codes.length;
  return shares(arm.codes, arm.categories.length).map((q, k) => point(q, (q * (1 - q)) / n, n, drawVariance(arms, column, k, false)));
}

/**
 * Variance over parameter draws of the effect (paired) or of the intervened arm's mean; category k >= 0 reads
 * the share of that category. The draws share their noise, so this spread is the parameters', not Monte Carlo's.
 */
function drawVariance(arms: Arms, column: number, k: number, paired: boolean): number {
  if (arms.draws.length < 2) return 0;
  const statistic = (frame: Frame) => {
    const c = frame.columns[column]!;
    return c.kind === 'continuous' ? mean(c.values) : shares(c.codes, c.categories.length)[k]!;
  };
  return sampleVariance(arms.draws.map((d) => statistic(d.intervened) - (paired ? statistic(d.baseline) : 0)));
}

function distribution(values: Float64Array, interval: Interval): { mean: number; std: number; lowerBound: number; upperBound: number } {
  const alpha = 1 - interval.confidenceLevel;
  const [lowerBound, upperBound] = quantilePair(values, alpha / 2, 1 - alpha / 2);
  return { mean: mean(values), std: Math.sqrt(sampleVariance(values)), lowerBound, upperBound };
}

function categoricalSummary(p: number[]): ArmSummary {
  return { mean: null, std: null, lowerBound: null, upperBound: null, probabilities: p };
}

function shares(codes: Int32Array, classes: number): number[] {
  const counts = new Float64Array(classes);
  let n = 0;
  for (const c of codes) if (c >= 0) {
    counts[c]!++;
    n++;
  }
  return Array.from(counts, (c) => (n > 0 ? c / n : 0));
}

function mean(values: Float64Array): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return values.length > 0 ? s / values.length : Number.NaN;
}

/** Sample variance of the paired differences a[i] - b[i]. */
function pairedVariance(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  if (n < 2) return 0;
  let sum = 0;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    sum += d;
    ss += d * d;
  }
  return Math.max(0, (ss - (sum * sum) / n) / (n - 1));
}

/** Two empirical quantiles (type 7, linear interpolation) by selection on a copy, in linear time. */
export function quantilePair(values: Float64Array, p: number, q: number): [number, number] {
  const n = values.length;
  if (n === 0) return [Number.NaN, Number.NaN];
  const work = values.slice();
  const at = (h: number) => {
    const lo = Math.floor(h);
    const a = select(work, lo);
    if (lo + 1 >= n || h === lo) return a;
    // The element after a selected position is the minimum of the part above it.
    let b = Number.POSITIVE_INFINITY;
    for (let i = lo + 1; i < n; i++) if (work[i]! < b) b = work[i]!;
    return a + (h - lo) * (b - a);
  };
  return [at(p * (n - 1)), at(q * (n - 1))];
}

/** Hoare selection: afterwards work[k] holds the k-th smallest, smaller ones before it, larger ones after. */
function select(work: Float64Array, k: number): number {
  let left = 0;
  let right = work.length - 1;
  while (right > left) {
    const pivot = work[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (work[i]! < pivot) i++;
      while (work[j]! > pivot) j--;
      if (i <= j) {
        const t = work[i]!;
        work[i] = work[j]!;
        work[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return work[k]!;
}
