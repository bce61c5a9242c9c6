/**
 * Per-environment mechanisms by partial pooling, so small environments borrow strength from the others and large
 * ones keep what is their own.
 *
 * Continuous nodes: a random-coefficients model (Swamy 1970): each environment's [intercept, coefficients] is drawn
 * around a shared mean with a between-environment variance per coefficient, estimated by DerSimonian & Laird's
 * (1986) moment estimator from the environments' own fits; an environment's mechanism is the posterior mean
 * (X'X / s2 + T^-1)^-1 (X'y / s2 + T^-1 b), which needs no invertible X'X, so an environment of three rows still
 * gets one. Residual variances are moderated towards a common prior (Smyth 2004: s2 shrunk with d0 prior degrees
 * of freedom estimated from the spread of the log variances).
 * Categorical nodes with a table: each environment's rows are Dirichlet posteriors centred on the pooled row, with
 * the prior weight chosen by the Dirichlet-multinomial marginal likelihood of every environment's counts.
 * `separate` fits each environment on its own rows (no borrowing), for the panel evaluation's comparison.
 */
import { logGamma } from '../../compute/distributions.js';
import type { NodeModel } from '../types.js';
import type { NodeOverride } from './model.js';
import type { FamilyMoments } from './moments.js';
import { invert } from '../linear-algebra.js';
import { type EnvironmentFit, environmentFit, multiply } from './regression.js';

type Continuous = Extract<NodeModel, { kind: 'continuous' }>;
type Categorical = Extract<NodeModel, { kind: 'categorical' }>;
export type PoolingMode = 'partial' | 'separate';

/** Dirichlet prior weights tried for categorical rows (in rows' worth of evidence). */
const PRIOR_WEIGHTS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096];

/** One override per environment (aligned with `moments`). */
export function poolContinuous(node: Continuous, moments: readonly FamilyMoments[], mode: PoolingMode): NodeOverride[] {
  const m = node.coefficients.length + 1;
  const fits = moments.map((x) => environmentFit(x));
  const variances = moderatedVariances(fits, node.noiseStd ** 2, mode);
  const { mean, tau2 } = randomEffects(fits, [node.intercept, ...node.coefficients]);
  return moments.map((x, e) => {
    const s2 = variances[e]!;
    const priorPrecision = tau2.map((t) => (mode === 'separate' ? 0 : 1 / t));
    const precision = x.xtx.map((v, i) => v / s2 + (i % (m + 1) === 0 ? priorPrecision[i / (m + 1)]! : 0));
    const covariance = invert(precision, m);
    const fit = fits[e];
    const rhs = x.xty.map((v, i) => v / s2 + priorPrecision[i]! * mean[i]!);
    const coef = covariance === null ? (fit?.coef ?? mean) : multiply(covariance, rhs, m);
    const yMean = x.n > 0 ? x.xty[0]! / x.n : node.mean;
    const yVar = x.n > 1 ? (x.yty - x.n * yMean * yMean) / (x.n - 1) : node.std ** 2;
    return {
      kind: 'continuous',
      intercept: coef[0]!,
      coefficients: coef.slice(1),
      noiseStd: Math.sqrt(s2),
      mean: yMean,
      std: Math.sqrt(Math.max(yVar, 0)) || node.std,
      ...(covariance === null || node.coefficientCovariance === undefined ? {} : { coefficientCovariance: packLower(covariance, m) }),
    };
  });
}

/** One override per environment (aligned with `counts`: per environment, per parent configuration, per class). */
export function poolCategorical(node: Categorical, counts: readonly number[][][], mode: PoolingMode): NodeOverride[] {
  const table = node.cpt!.table;
  const weight = mode === 'separate' ? 1 : chosenPriorWeight(table, counts);
  const classes = node.categories.length;
  return counts.map((perEnv) => {
    // `separate`: a uniform prior of one row's worth (Laplace-like), so unseen configurations stay defined.
    const prior = (row: number) => (mode === 'separate' ? new Array<number>(classes).fill(1 / classes) : table[row]!);
    const rows = perEnv.map((c, row) => {
      const n = c.reduce((a, b) => a + b, 0);
      return c.map((v, k) => (v + weight * prior(row)[k]!) / (n + weight));
    });
    return { kind: 'categorical', table: rows, rowCounts: perEnv.map((c) => c.reduce((a, b) => a + b, 0)), smoothing: weight / classes };
  });
}

/** The prior weight a maximising sum over environments and rows of log DirMult(counts | a x pooled row). */
function chosenPriorWeight(table: readonly number[][], counts: readonly number[][][]): number {
  let best = { score: Number.NEGATIVE_INFINITY, weight: PRIOR_WEIGHTS[0]! };
  for (const weight of PRIOR_WEIGHTS) {
    let score = 0;
    for (const perEnv of counts) {
      perEnv.forEach((c, row) => {
        const n = c.reduce((a, b) => a + b, 0);
        if (n === 0) return;
        score += logGamma(weight) - logGamma(weight + n);
        c.forEach((v, k) => {
          const alpha = Math.max(weight * table[row]![k]!, 1e-12);
          if (v > 0) score += logGamma(alpha + v) - logGamma(alpha);
        });
      });
    }
    if (score > best.score) best = { score, weight };
  }
  return best.weight;
}

/**
 * The shared mean and between-environment variance of each coefficient (DerSimonian-Laird per coefficient, over
 * the environments with a fit); without two such environments the pooled fit's coefficients and no spread.
 */
function randomEffects(fits: ReadonlyArray<EnvironmentFit | null>, pooled: readonly number[]): { mean: number[]; tau2: number[] } {
  const usable = fits.filter((f) => f !== null);
  const m = pooled.length;
  if (usable.length < 2) return { mean: [...pooled], tau2: pooled.map((b) => Math.max(1e-10, 1e-10 * b * b)) };
  const mean: number[] = [];
  const tau2: number[] = [];
  for (let t = 0; t < m; t++) {
    const b = usable.map((f) => f.coef[t]!);
    const v = usable.map((f) => f.covariance[t * m + t]!);
    const w = v.map((x) => 1 / x);
    const wSum = w.reduce((a, c) => a + c, 0);
    const fixed = b.reduce((s, x, i) => s + w[i]! * x, 0) / wSum;
    const q = b.reduce((s, x, i) => s + w[i]! * (x - fixed) ** 2, 0);
    const c = wSum - w.reduce((s, x) => s + x * x, 0) / wSum;
    const spread = Math.max(0, (q - (usable.length - 1)) / c);
    // No spread: the coefficient is shared (a prior variance far below any environment's own, not exactly 0).
    const floor = 1e-6 * median(v);
    const t2 = Math.max(spread, floor);
    const rw = v.map((x) => 1 / (x + t2));
    mean.push(b.reduce((s, x, i) => s + rw[i]! * x, 0) / rw.reduce((a, x) => a + x, 0));
    tau2.push(t2);
  }
  return { mean, tau2 };
}

/**
 * Residual variances moderated towards a common prior s0^2 with d0 degrees of freedom (Smyth 2004, limma): the
 * moments of log s2_e give d0 and s0^2; an environment without a fit gets s0^2 (`separate`: its own s2, or the
 * pooled variance without a fit).
 */
function moderatedVariances(fits: ReadonlyArray<EnvironmentFit | null>, pooledVariance: number, mode: PoolingMode): number[] {
  const usable = fits.filter((f) => f !== null);
  if (mode === 'separate') return fits.map((f) => f?.s2 ?? pooledVariance);
  if (usable.length < 3) return fits.map((f) => (f === null ? pooledVariance : (f.s2 * f.df + pooledVariance * 10) / (f.df + 10)));
  const z = usable.map((f) => Math.log(f.s2) - digamma(f.df / 2) + Math.log(f.df / 2));
  const zMean = z.reduce((a, b) => a + b, 0) / z.length;
  const excess = z.reduce((s, x) => s + (x - zMean) ** 2, 0) / (z.length - 1) - usable.reduce((s, f) => s + trigamma(f.df / 2), 0) / usable.length;
  const d0 = excess > 0 ? 2 * inverseTrigamma(excess) : Number.POSITIVE_INFINITY;
  const s0 = Math.exp(zMean + (Number.isFinite(d0) ? digamma(d0 / 2) - Math.log(d0 / 2) : 0));
  return fits.map((f) => (f === null ? s0 : Number.isFinite(d0) ? (d0 * s0 + f.df * f.s2) / (d0 + f.df) : s0));
}

function digamma(x: number): number {
  let result = 0;
  let y = x;
  while (y < 6) {
    result -= 1 / y;
    y++;
  }
  const f = 1 / (y * y);
  return result + Math.log(y) - 0.5 / y - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}

function trigamma(x: number): number {
  let result = 0;
  let y = x;
  while (y < 6) {
    result += 1 / (y * y);
    y++;
  }
  const f = 1 / (y * y);
  return result + 1 / y + f / 2 + (f / y) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f / 30)));
}

/** The x > 0 with trigamma(x) = value (Newton's method on 1/trigamma, as limma). */
function inverseTrigamma(value: number): number {
  let x = value > 1e6 ? 1 / Math.sqrt(value) : value < 1e-6 ? 1 / value : 0.5 + 1 / value;
  for (let i = 0; i < 50; i++) {
    const t = trigamma(x);
    const step = (t * (1 - t / value)) / tetragamma(x);
    x += step;
    if (Math.abs(step / x) < 1e-10) break;
  }
  return x;
}

/** Derivative of trigamma, by a central difference (only steers Newton's steps). */
const tetragamma = (x: number) => (trigamma(x * (1 + 1e-5)) - trigamma(x * (1 - 1e-5))) / (2e-5 * x);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 1;
}

/** Lower triangle row by row, as NodeModel's coefficientCovariance. */
function packLower(a: readonly number[], m: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < m; i++) for (let j = 0; j <= i; j++) out.push(a[i * m + j]!);
  return out;
}
