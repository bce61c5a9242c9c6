// Column means, covariance (divisor n - 1) and correlation of a row-major n x p matrix; the algorithm of
// src/compute/reference/statistics.ts (two passes, centred outer products), with the products in f64x2 lanes.
import { addOuterProducts, mirrorUpper } from '../shared/gram';
import { allocF64, fillF64, getF64, setF64 } from '../shared/memory';
import { STATUS_OK, STATUS_OUT_OF_MEMORY } from '../shared/status';

/** Rows centred per block before their outer products are added. */
const BLOCK_ROWS: i32 = 64;

export function covariance(data: usize, n: i32, p: i32, means: usize, cov: usize): i32 {
  const rowBytes = <usize>p << 3;
  memory.fill(means, 0, rowBytes);
  for (let r = 0; r < n; r++) {
    const row = data + <usize>r * rowBytes;
    let j = 0;
    for (; j + 1 < p; j += 2) {
      const at = <usize>j << 3;
      v128.store(means + at, f64x2.add(v128.load(means + at), v128.load(row + at)));
    }
    if (j < p) setF64(means, j, getF64(means, j) + getF64(row, j));
  }
  for (let j = 0; j < p; j++) setF64(means, j, getF64(means, j) / <f64>n);
  if (n < 2) {
    fillF64(cov, p * p, NaN);
    return STATUS_OK;
  }
  const centred = allocF64(<u64>BLOCK_ROWS * <u64>p);
  if (centred == 0) return STATUS_OUT_OF_MEMORY;
  memory.fill(cov, 0, rowBytes * <usize>p);
  for (let start = 0; start < n; start += BLOCK_ROWS) {
    const count = min(BLOCK_ROWS, n - start);
    for (let r = 0; r < count; r++) {
      const source = data + <usize>(start + r) * rowBytes;
      const target = centred + <usize>r * rowBytes;
      let j = 0;
      for (; j + 1 < p; j += 2) {
        const at = <usize>j << 3;
        v128.store(target + at, f64x2.sub(v128.load(source + at), v128.load(means + at)));
      }
      if (j < p) setF64(target, j, getF64(source, j) - getF64(means, j));
    }
    addOuterProducts(centred, count, p, cov);
  }
  const divisor = <f64>(n - 1);
  for (let i = 0; i < p; i++) {
    for (let j = i; j < p; j++) setF64(cov, i * p + j, getF64(cov, i * p + j) / divisor);
  }
  mirrorUpper(cov, p);
  return STATUS_OK;
}

export function correlation(data: usize, n: i32, p: i32, corr: usize): i32 {
  const means = allocF64(<u64>p);
  const cov = allocF64(<u64>p * <u64>p);
  const sd = allocF64(<u64>p);
  if (means == 0 || cov == 0 || sd == 0) return STATUS_OUT_OF_MEMORY;
  const status = covariance(data, n, p, means, cov);
  if (status != STATUS_OK) return status;
  for (let j = 0; j < p; j++) setF64(sd, j, Math.sqrt(getF64(cov, j * p + j)));
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < p; j++) {
      const value = i == j ? (getF64(sd, i) > 0 ? 1.0 : NaN) : getF64(cov, i * p + j) / (getF64(sd, i) * getF64(sd, j));
      setF64(corr, i * p + j, value);
    }
  }
  return STATUS_OK;
}
