/**
 * Second moments of a set of numeric columns with missing values (NaN): the sufficient statistics of the
 * Gaussian tests and scores. Complete columns go through the covariance kernel in one call. With missing values
 * the pairwise-complete estimate (made positive definite) starts EM to the maximum-likelihood covariance under
 * missingness at random (em-covariance.ts): pairwise deletion alone gives an inconsistent matrix whose conditional
 * variances can be badly wrong for strongly related variables. The tests' sample size is then the smallest
 * pairwise count, the conservative choice.
 */
import type { Kernels } from '../../compute/kernels.js';
import { emCovariance } from './em-covariance.js';

export interface Moments {
  q: number;
  means: Float64Array;
  cov: Float64Array;
  effectiveN: number;
}

export function columnMoments(columns: readonly Float64Array[], n: number, kernels: Kernels): Moments {
  const q = columns.length;
  const anyMissing = columns.some((c) => c.some(Number.isNaN));
  if (!anyMissing) {
    const data = new Float64Array(n * q);
    for (let j = 0; j < q; j++) {
      const col = columns[j]!;
      for (let r = 0; r < n; r++) data[r * q + j] = col[r]!;
    }
    const { means, cov } = n > 1 ? kernels.covariance(data, n, q) : { means: new Float64Array(q), cov: new Float64Array(q * q) };
    return { q, means, cov: ensurePositiveDefinite(cov, q, kernels), effectiveN: n };
  }
  const means = new Float64Array(q);
  for (let j = 0; j < q; j++) {
    let sum = 0;
    let count = 0;
    for (const v of columns[j]!) if (!Number.isNaN(v)) {
      sum += v;
      count++;
    }
    means[j] = count > 0 ? sum / count : 0;
  }
  const cov = new Float64Array(q * q);
  let minCount = n;
  for (let a = 0; a < q; a++) {
    const ca = columns[a]!;
    for (let b = a; b < q; b++) {
      const cb = columns[b]!;
      let count = 0;
      let sa = 0;
      let sb = 0;
      for (let r = 0; r < n; r++) if (!Number.isNaN(ca[r]!) && !Number.isNaN(cb[r]!)) {
        count++;
        sa += ca[r]!;
        sb += cb[r]!;
      }
      let value = 0;
      if (count > 1) {
        const ma = sa / count;
        const mb = sb / count;
        let s = 0;
        for (let r = 0; r < n; r++) if (!Number.isNaN(ca[r]!) && !Number.isNaN(cb[r]!)) s += (ca[r]! - ma) * (cb[r]! - mb);
        value = s / (count - 1);
      }
      cov[a * q + b] = value;
      cov[b * q + a] = value;
      if (count < minCount) minCount = count;
    }
  }
  const em = emCovariance(columns, n, { mean: means, cov: ensurePositiveDefinite(cov, q, kernels) }, kernels);
  return { q, means: em.mean, cov: ensurePositiveDefinite(em.cov, q, kernels), effectiveN: Math.max(minCount, 0) };
}

/**
 * A pairwise covariance matrix need not be positive definite: shrink its correlation part towards the identity
 * (Ledoit-Wolf style target, smallest of a fixed ladder of weights that makes Cholesky succeed).
 */
export function ensurePositiveDefinite(cov: Float64Array, q: number, kernels: Kernels): Float64Array {
  if (q === 0) return cov;
  const sd = new Float64Array(q);
  for (let j = 0; j < q; j++) sd[j] = Math.sqrt(Math.max(cov[j * q + j]!, 0));
  const active = Array.from({ length: q }, (_, j) => j).filter((j) => sd[j]! > 1e-12);
  const k = active.length;
  if (k === 0) return cov;
  const corr = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) {
    const i = active[a]!;
    const j = active[b]!;
    corr[a * k + b] = a === b ? 1 : cov[i * q + j]! / (sd[i]! * sd[j]!);
  }
  if (kernels.cholesky(corr, k).status === 0) return cov;
  for (const weight of [0.001, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]) {
    const shrunk = corr.map((v, idx) => (idx % (k + 1) === 0 ? 1 : (1 - weight) * v));
    if (kernels.cholesky(shrunk, k).status === 0) {
      const out = cov.slice();
      for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) {
        const i = active[a]!;
        const j = active[b]!;
        out[i * q + j] = shrunk[a * k + b]! * sd[i]! * sd[j]!;
      }
      return out;
    }
  }
  return cov;
}

/** The correlation matrix of a covariance matrix (zero rows and columns for constant columns, 1 on the diagonal). */
export function correlationOf(cov: Float64Array, q: number): Float64Array {
  const out = new Float64Array(q * q);
  for (let a = 0; a < q; a++) for (let b = 0; b < q; b++) {
    const d = Math.sqrt(cov[a * q + a]! * cov[b * q + b]!);
    out[a * q + b] = a === b ? 1 : d > 1e-300 ? cov[a * q + b]! / d : 0;
  }
  return out;
}
