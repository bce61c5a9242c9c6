/**
 * The change scan of the causal health monitor. A mechanism's standardised residuals e_t (what it produced minus
 * what the version's coefficients expect, over the noise scale) have mean zero, unit variance and no correlation
 * with its inputs while the mechanism holds. A change of one input's coefficient from some step on shows as a
 * correlation of e with that input over the steps since; a change of the level as a mean of e; a change of the
 * noise as a mean of e^2 - 1. For each such direction z the score statistic of an interval I,
 * S_I = sum_I e z~ / sqrt(sum_I z~^2) (z~ centred within I for an input), is standard normal under no change, and
 * the scan takes the largest |S_I| over intervals with ends on a grid (the CUSUM-type scan of change-point
 * detection, Page 1954; James, James & Siegmund 1987).
 *
 * Its null distribution is calibrated by Monte Carlo on the same inputs: residuals redrawn from the mechanism's
 * residual distribution plus the version's own estimation error (coefficients redrawn from their sampling
 * distribution, so a version fitted on little data does not cry wolf). The replicates fix an effective number of
 * independent intervals m (Nyholt 2004, as calibration.ts does for variables) at levels the replicates resolve,
 * and the p-value of an observed maximum M is 1 - (1 - 2 Phi(-|M|))^m(|M|) (scanTail).
 */
import { standardNormalTail } from '../inference/tail-probability.js';

/** Intervals' ends: about this many grid points over the window. */
const GRID_POINTS = 32;
/** The levels at which the effective number of intervals is read off the replicates (at least 20 exceed the second of 1,000). */
const CALIBRATION_LEVELS = [0.1, 0.02] as const;
/** The growth of the effective number of intervals with the threshold is capped at this power. */
const MAX_TAIL_POWER = 6;

/** A direction of departure: an input (centred within each interval) or a level (z = 1). */
export interface Direction {
  z: Float64Array | null;
}

export interface Interval {
  /** Rows [from, to) of the scanned series. */
  from: number;
  to: number;
  statistic: number;
}

export function gridOf(n: number, minSteps: number): number[] {
  const points = new Set<number>([0, n]);
  const count = Math.min(GRID_POINTS, Math.max(1, Math.floor(n / Math.max(1, Math.floor(minSteps / 2)))));
  for (let k = 1; k < count; k++) points.add(Math.round((k * n) / count));
  return [...points].sort((a, b) => a - b);
}

/** Prefix sums of e z, e, z, z^2 (z = 1 when null). */
function prefixes(e: Float64Array, z: Float64Array | null) {
  const n = e.length;
  const ez = new Float64Array(n + 1);
  const es = new Float64Array(n + 1);
  const zs = new Float64Array(n + 1);
  const zz = new Float64Array(n + 1);
  for (let t = 0; t < n; t++) {
    const x = z === null ? 1 : z[t]!;
    ez[t + 1] = ez[t]! + e[t]! * x;
    es[t + 1] = es[t]! + e[t]!;
    zs[t + 1] = zs[t]! + x;
    zz[t + 1] = zz[t]! + x * x;
  }
  return { ez, es, zs, zz };
}

/** The score statistic of rows [from, to): its numerator and the sum of squares of the (centred) direction. */
export function intervalStatistic(p: ReturnType<typeof prefixes>, from: number, to: number, centred: boolean): { numerator: number; squares: number } {
  const m = to - from;
  const ez = p.ez[to]! - p.ez[from]!;
  const zz = p.zz[to]! - p.zz[from]!;
  if (!centred) return { numerator: ez, squares: zz };
  const e = p.es[to]! - p.es[from]!;
  const z = p.zs[to]! - p.zs[from]!;
  return { numerator: ez - (z * e) / m, squares: zz - (z * z) / m };
}

export function bestInterval(e: Float64Array, direction: Direction, grid: readonly number[], minSteps: number): Interval {
  const p = prefixes(e, direction.z);
  const centred = direction.z !== null;
  let best: Interval = { from: 0, to: e.length, statistic: 0 };
  for (let i = 0; i < grid.length; i++) {
    for (let j = i + 1; j < grid.length; j++) {
      if (grid[j]! - grid[i]! < minSteps) continue;
      const { numerator, squares } = intervalStatistic(p, grid[i]!, grid[j]!, centred);
      if (!(squares > 1e-12)) continue;
      const s = numerator / Math.sqrt(squares);
      if (Math.abs(s) > Math.abs(best.statistic)) best = { from: grid[i]!, to: grid[j]!, statistic: s };
    }
  }
  return best;
}

/**
 * Where a departure that lasts to `to` began: the start tau (searched step by step from as far before `from` as
 * the interval is long) that maximises the likelihood ratio of "the mechanism shifted in level and, for an input,
 * in slope from tau on" against "it held", (sum e)^2 / m + (sum e z~)^2 / sum z~^2 over [tau, to) with e standard
 * normal while it held: the maximum-likelihood change point given the learned mechanism before it. The scan's
 * grid only brackets the start; a level shift that comes with a slope change would otherwise bias both.
 */
export function changeStart(e: Float64Array, direction: Direction, from: number, to: number, minSteps: number): number {
  const p = prefixes(e, direction.z);
  let best = from;
  let bestGain = Number.NEGATIVE_INFINITY;
  for (let tau = Math.max(0, from - (to - from)); tau <= to - minSteps; tau++) {
    const m = to - tau;
    const level = p.es[to]! - p.es[tau]!;
    let gain = (level * level) / m;
    if (direction.z !== null) {
      const { numerator, squares } = intervalStatistic(p, tau, to, true);
      if (squares > 1e-12) gain += (numerator * numerator) / squares;
    }
    if (gain > bestGain) (best = tau, (bestGain = gain));
  }
  return best;
}

/** Estimate of the departure (in units of e per unit of z) over rows [from, to) and its standard error. */
export function departure(e: Float64Array, direction: Direction, from: number, to: number): { estimate: number; se: number } {
  const { numerator, squares } = intervalStatistic(prefixes(e, direction.z), from, to, direction.z !== null);
  return squares > 1e-12 ? { estimate: numerator / squares, se: 1 / Math.sqrt(squares) } : { estimate: 0, se: Number.POSITIVE_INFINITY };
}

/**
 * How many independent intervals a scan is worth, from the maxima |S| of replicates drawn under no change. At a
 * threshold c the scan's tail is 1 - (1 - p(c))^m(c), with p(c) one interval's two-sided tail; m grows with c (a
 * scan's tail falls off more slowly than one interval's: Siegmund 1988), so m is read off the replicates at two
 * levels and extended as a power of c, m(c) = m1 (c / c1)^k, beyond the first.
 */
export interface ScanTail {
  m1: number;
  c1: number;
  k: number;
}

export function scanTail(nullMaxima: readonly number[]): ScanTail {
  const sorted = [...nullMaxima].map(Math.abs).sort((a, b) => a - b);
  const at = (level: number) => {
    const c = sorted[Math.min(sorted.length - 1, Math.floor((1 - level) * sorted.length))] ?? 0;
    const single = standardNormalTail.twoSided(c);
    return { c, m: single > 0 && single < 1 ? Math.max(1, Math.log1p(-level) / Math.log1p(-single)) : 1 };
  };
  const first = at(CALIBRATION_LEVELS[0]);
  const second = at(CALIBRATION_LEVELS[1]);
  const k = second.c > first.c * 1.0001 ? Math.log(second.m / first.m) / Math.log(second.c / first.c) : 0;
  return { m1: first.m, c1: first.c, k: Math.min(MAX_TAIL_POWER, Math.max(0, k)) };
}

/** The scan's p-value of an observed maximum. */
export function scanPValue(statistic: number, tail: ScanTail): number {
  const c = Math.abs(statistic);
  const single = standardNormalTail.twoSided(c);
  const m = c <= tail.c1 || tail.c1 === 0 ? tail.m1 : tail.m1 * (c / tail.c1) ** tail.k;
  return Math.min(1, -Math.expm1(m * Math.log1p(-Math.min(single, 1))));
}
