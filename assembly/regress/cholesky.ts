// Cholesky factorisation and solve: the algorithm of src/compute/reference/regression.ts, operation for
// operation (scalar, so the factor is bit-identical to the reference).
import { fillF64, getF64, setF64 } from '../shared/memory';
import { STATUS_OK, STATUS_SINGULAR } from '../shared/status';

/** A pivot at or below this fraction of its diagonal entry counts as zero (see the reference for why). */
export const PIVOT_TOLERANCE: f64 = 1e-12;

/** Cholesky-Banachiewicz on the lower triangle of the k x k matrix at `a`, writing L at `l`; false if not PD. */
export function factorCholesky(a: usize, k: i32, l: usize): bool {
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < i; j++) {
      let s = getF64(a, i * k + j);
      for (let q = 0; q < j; q++) s -= getF64(l, i * k + q) * getF64(l, j * k + q);
      setF64(l, i * k + j, s / getF64(l, j * k + j));
    }
    let d = getF64(a, i * k + i);
    for (let q = 0; q < i; q++) d -= getF64(l, i * k + q) * getF64(l, i * k + q);
    if (!(d > PIVOT_TOLERANCE * getF64(a, i * k + i))) return false;
    setF64(l, i * k + i, Math.sqrt(d));
  }
  return true;
}

/** Solves L L' b = rhs into `b`, with `z` (k doubles) as scratch. */
export function solveCholesky(l: usize, k: i32, rhs: usize, z: usize, b: usize): void {
  for (let i = 0; i < k; i++) {
    let s = getF64(rhs, i);
    for (let q = 0; q < i; q++) s -= getF64(l, i * k + q) * getF64(z, q);
    setF64(z, i, s / getF64(l, i * k + i));
  }
  for (let i = k - 1; i >= 0; i--) {
    let s = getF64(z, i);
    for (let q = i + 1; q < k; q++) s -= getF64(l, q * k + i) * getF64(b, q);
    setF64(b, i, s / getF64(l, i * k + i));
  }
}

export function cholesky(a: usize, k: i32, l: usize): i32 {
  memory.fill(l, 0, (<usize>k * k) << 3);
  if (factorCholesky(a, k, l)) return STATUS_OK;
  fillF64(l, k * k, NaN);
  return STATUS_SINGULAR;
}
