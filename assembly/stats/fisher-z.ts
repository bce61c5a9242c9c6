// Fisher-z conditional independence tests on partial correlations: the algorithm of fisherZBatch in
// src/compute/reference/statistics.ts (Cholesky of the [S, x, y] submatrix, redundant conditioning dropped).
import { PIVOT_TOLERANCE } from '../regress/cholesky';
import { allocF64, allocI32, getF64, getI32, setF64, setI32 } from '../shared/memory';
import { STATUS_OK, STATUS_OUT_OF_MEMORY } from '../shared/status';
import { chiSquareSurvival } from './distributions';

/** Conditioning variables kept by the last partialCorrelation call (a second return value). */
let keptRank: i32 = 0;

/** Partial correlation of variables[m-2], variables[m-1] given variables[0..m-2), `l` an m x m scratch. */
function partialCorrelation(corr: usize, p: i32, variables: usize, m: i32, l: usize): f64 {
  const k = m - 2;
  memory.fill(l, 0, (<usize>m * m) << 3);
  keptRank = 0;
  for (let i = 0; i < m; i++) {
    const vi = getI32(variables, i);
    for (let j = 0; j < i; j++) {
      if (getF64(l, j * m + j) == 0) continue;
      let s = getF64(corr, vi * p + getI32(variables, j));
      for (let q = 0; q < j; q++) s -= getF64(l, i * m + q) * getF64(l, j * m + q);
      setF64(l, i * m + j, s / getF64(l, j * m + j));
    }
    const diagonal = getF64(corr, vi * p + vi);
    let d = diagonal;
    for (let q = 0; q < i; q++) d -= getF64(l, i * m + q) * getF64(l, i * m + q);
    const threshold = PIVOT_TOLERANCE * diagonal;
    if (i < k) {
      if (d > threshold) {
        setF64(l, i * m + i, Math.sqrt(d));
        keptRank++;
      } else if (!(d <= threshold)) {
        return NaN;
      }
    } else if (i == k) {
      if (!(d > threshold)) return NaN;
      setF64(l, i * m + i, Math.sqrt(d));
    } else {
      const b = getF64(l, i * m + k);
      const c2 = Math.max(d, 0);
      if (!(b * b + c2 > threshold)) return NaN;
      return b / Math.sqrt(b * b + c2);
    }
  }
  return NaN;
}

export function fisherZBatch(corr: usize, p: i32, n: i32, tests: usize, maxK: i32, count: i32, partial: usize, pValue: usize): i32 {
  const width = maxK + 2;
  const variables = allocI32(<u64>width);
  const l = allocF64(<u64>width * <u64>width);
  if (variables == 0 || l == 0) return STATUS_OUT_OF_MEMORY;
  for (let t = 0; t < count; t++) {
    setF64(partial, t, NaN);
    setF64(pValue, t, NaN);
    const slot = t * (maxK + 3);
    const k = getI32(tests, slot + 2);
    if (k < 0 || k > maxK) continue;
    let valid = true;
    for (let i = 0; i < k; i++) setI32(variables, i, getI32(tests, slot + 3 + i));
    setI32(variables, k, getI32(tests, slot));
    setI32(variables, k + 1, getI32(tests, slot + 1));
    for (let i = 0; i < k + 2; i++) {
      const v = getI32(variables, i);
      if (v < 0 || v >= p) valid = false;
    }
    if (!valid) continue;
    const r = partialCorrelation(corr, p, variables, k + 2, l);
    setF64(partial, t, r);
    const dof = <f64>n - <f64>keptRank - 3;
    if (isNaN(r) || dof <= 0) continue;
    const z = Math.atanh(Math.min(1, Math.max(-1, r)));
    setF64(pValue, t, chiSquareSurvival(dof * z * z, 1));
  }
  return STATUS_OK;
}
