/**
 * Tail probabilities of a distribution known by a sorted sample (a node's stored standardised residuals, or a
 * Monte Carlo sample of a variable): the piecewise-linear empirical CDF in the body -- the same distribution the
 * structural model draws noise from (scm.ts, uniform positions between stored quantiles) -- and exponential tails
 * beyond the outer 1% (peaks over threshold with the generalised Pareto shape fixed at 0, Pickands 1975), so a
 * value beyond every stored point still gets a small, finite probability instead of 0.
 */
import { normalSurvival } from '../../compute/distributions.js';

/** Share of the sample on each side that the exponential tail replaces. */
const TAIL_SHARE = 0.01;
/** Fewest sample points a tail is fitted on. */
const MIN_TAIL_POINTS = 5;
/** Smallest tail probability reported: keeps -log(p) finite for values the model holds impossible. */
export const MIN_TAIL_PROBABILITY = 1e-300;

export interface TailDistribution {
  /** P(X <= x). */
  lower(x: number): number;
  /** P(X >= x). */
  upper(x: number): number;
  /** 2 min(P(X <= x), P(X >= x)), at most 1: small when x is far out on either side. */
  twoSided(x: number): number;
}

/** The standard normal: the fallback when too few residuals were kept to stand for a shape. */
export const standardNormalTail: TailDistribution = {
  lower: (x) => normalSurvival(-x),
  upper: (x) => normalSurvival(x),
  twoSided: (x) => Math.min(1, 2 * normalSurvival(Math.abs(x))),
};

/**
 * A point mass at `at`: values within a relative 1e-9 of it have probability 1, any other value the smallest
 * probability (a node the training data never saw vary).
 */
export function pointMassTail(at: number): TailDistribution {
  const tolerance = 1e-9 * Math.max(1, Math.abs(at));
  const same = (x: number) => Math.abs(x - at) <= tolerance;
  return {
    lower: (x) => (x >= at - tolerance ? 1 : MIN_TAIL_PROBABILITY),
    upper: (x) => (x <= at + tolerance ? 1 : MIN_TAIL_PROBABILITY),
    twoSided: (x) => (same(x) ? 1 : MIN_TAIL_PROBABILITY),
  };
}

/** The distribution of a sorted sample (ascending, at least 2 points; NaN-free). */
export function empiricalTail(sorted: ArrayLike<number>): TailDistribution {
  const m = sorted.length;
  if (m < 2) throw new Error('a tail distribution needs at least two sample points');
  const first = sorted[0]!;
  const last = sorted[m - 1]!;
  if (last - first <= 1e-12 * Math.max(1, Math.abs(first))) return pointMassTail(first);
  const span = m - 1;
  // k points beyond each threshold; the body keeps positions [k, m-1-k].
  const k = Math.min(Math.max(MIN_TAIL_POINTS, Math.ceil(TAIL_SHARE * span)), Math.floor((m - 1) / 2));
  const share = k / span;
  const lowThreshold = sorted[k]!;
  const highThreshold = sorted[m - 1 - k]!;
  // Mean excess of the piecewise-linear distribution beyond the threshold: each interval holds mass 1/span and
  // its mean excess is the midpoint's.
  let lowExcess = 0;
  let highExcess = 0;
  for (let i = 0; i < k; i++) {
    lowExcess += lowThreshold - (sorted[i]! + sorted[i + 1]!) / 2;
    highExcess += (sorted[m - 1 - i]! + sorted[m - 2 - i]!) / 2 - highThreshold;
  }
  // A tail of tied points has no spread: fall back to the sample's mean spacing, so one step past the last point
  // costs a factor e rather than everything.
  const floor = (last - first) / span;
  const lowScale = Math.max(lowExcess / k, floor);
  const highScale = Math.max(highExcess / k, floor);

  // Position (0..span) of x in the body: the largest position whose interpolated value is <= x (ties: the last).
  const positionAtOrBelow = (x: number): number => {
    let lo = 0;
    let hi = m - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (sorted[mid]! <= x) lo = mid;
      else hi = mid - 1;
    }
    if (lo >= m - 1) return span;
    const a = sorted[lo]!;
    const b = sorted[lo + 1]!;
    return b > a ? lo + (x - a) / (b - a) : lo;
  };
  // The smallest position whose interpolated value is >= x (ties: the first).
  const positionAtOrAbove = (x: number): number => {
    let lo = 0;
    let hi = m - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! >= x) hi = mid;
      else lo = mid + 1;
    }
    if (lo === 0) return 0;
    const a = sorted[lo - 1]!;
    const b = sorted[lo]!;
    return b > a ? lo - 1 + (x - a) / (b - a) : lo;
  };

  const lowTail = (x: number) => share * Math.exp(-(lowThreshold - x) / lowScale);
  const highTail = (x: number) => share * Math.exp(-(x - highThreshold) / highScale);
  const lower = (x: number): number => {
    if (Number.isNaN(x)) return Number.NaN;
    if (x < lowThreshold) return Math.max(MIN_TAIL_PROBABILITY, lowTail(x));
    if (x > highThreshold) return 1 - highTail(x);
    return Math.min(1, positionAtOrBelow(x) / span);
  };
  const upper = (x: number): number => {
    if (Number.isNaN(x)) return Number.NaN;
    if (x > highThreshold) return Math.max(MIN_TAIL_PROBABILITY, highTail(x));
    if (x < lowThreshold) return 1 - lowTail(x);
    return Math.min(1, 1 - positionAtOrAbove(x) / span);
  };
  return {
    lower,
    upper,
    twoSided: (x) => Math.min(1, 2 * Math.min(lower(x), upper(x))),
  };
}
