/**
 * Maximum-likelihood mean and covariance of a multivariate normal from rows with missing values, by EM
 * (Dempster, Laird & Rubin 1977; Little & Rubin 2002, ch. 11), valid when values are missing at random. The
 * E-step works from the precision matrix L = S^-1: given the observed part O of a row, its missing part M is normal
 * with covariance (L_MM)^-1 and mean mu_M - (L_MM)^-1 L_MO (x_O - mu_O), so each row costs a solve of the size of
 * what it misses, not of what it observes. The filled rows' covariance goes through the covariance kernel.
 */
import type { Kernels } from '../../compute/kernels.js';
import { inverseFromCholesky } from '../linear-algebra.js';

const MAX_ITERATIONS = 50;
const TOLERANCE = 1e-6;

/** Starting point: `mean`/`cov` (e.g. pairwise estimates made positive definite). Rows with nothing observed are skipped. */
export function emCovariance(columns: readonly Float64Array[], n: number, start: { mean: Float64Array; cov: Float64Array }, kernels: Kernels): { mean: Float64Array; cov: Float64Array; iterations: number } {
  const q = columns.length;
  const rows: number[] = [];
  for (let r = 0; r < n; r++) if (columns.some((c) => !Number.isNaN(c[r]!))) rows.push(r);
  const m = rows.length;
  let mean = start.mean.slice();
  let cov = start.cov.slice();
  if (m < 2 || q === 0) return { mean, cov, iterations: 0 };
  const filled = new Float64Array(m * q);
  let iterations = 0;
  for (; iterations < MAX_ITERATIONS; iterations++) {
    const precision = invertSymmetric(cov, q, kernels);
    if (precision === null) break;
    const extra = new Float64Array(q * q); // sum over rows of the conditional covariance of the missing block
    for (let i = 0; i < m; i++) {
      const r = rows[i]!;
      const missing: number[] = [];
      for (let j = 0; j < q; j++) {
        const v = columns[j]![r]!;
        if (Number.isNaN(v)) missing.push(j);
        else filled[i * q + j] = v;
      }
      if (missing.length === 0) continue;
      const k = missing.length;
      const block = new Float64Array(k * k);
      for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) block[a * k + b] = precision[missing[a]! * q + missing[b]!]!;
      const conditionalCov = invertSymmetric(block, k, kernels);
      if (conditionalCov === null) {
        for (const j of missing) filled[i * q + j] = mean[j]!;
        continue;
      }
      // rhs_a = sum over observed o of L[missing a, o] (x_o - mu_o)
      const rhs = new Float64Array(k);
      for (let a = 0; a < k; a++) {
        let s = 0;
        const rowOffset = missing[a]! * q;
        for (let o = 0; o < q; o++) {
          const v = columns[o]![r]!;
          if (!Number.isNaN(v)) s += precision[rowOffset + o]! * (v - mean[o]!);
        }
        rhs[a] = s;
      }
      for (let a = 0; a < k; a++) {
        let s = 0;
        for (let b = 0; b < k; b++) s += conditionalCov[a * k + b]! * rhs[b]!;
        filled[i * q + missing[a]!] = mean[missing[a]!]! - s;
        for (let b = 0; b < k; b++) extra[missing[a]! * q + missing[b]!]! += conditionalCov[a * k + b]!;
      }
    }
    const moments = kernels.covariance(filled, m, q);
    const nextCov = new Float64Array(q * q);
    for (let idx = 0; idx < q * q; idx++) nextCov[idx] = (moments.cov[idx]! * (m - 1) + extra[idx]!) / m;
    let change = 0;
    for (let a = 0; a < q; a++) for (let b = 0; b < q; b++) {
      const scale = Math.sqrt(nextCov[a * q + a]! * nextCov[b * q + b]!) || 1;
      change = Math.max(change, Math.abs(nextCov[a * q + b]! - cov[a * q + b]!) / scale);
    }
    mean = moments.means.slice();
    cov = nextCov;
    if (change < TOLERANCE) {
      iterations++;
      break;
    }
  }
  return { mean, cov, iterations };
}

/** Inverse of a symmetric positive-definite matrix through the Cholesky kernel; null when it is not PD. */
export function invertSymmetric(a: Float64Array, k: number, kernels: Kernels): Float64Array | null {
  const { status, l } = kernels.cholesky(a, k);
  return status === 0 ? inverseFromCholesky(l, k) : null;
}
