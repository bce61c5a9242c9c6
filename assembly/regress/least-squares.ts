// Ridge least squares by the normal equations (X'X + ridge I) b = X'y and a Cholesky solve: the algorithm of
// leastSquares in src/compute/reference/regression.ts, with X'X accumulated in f64x2 lanes.
import { addOuterProducts, mirrorUpper } from '../shared/gram';
import { allocF64, allocF64Zeroed, fillF64, getF64, setF64 } from '../shared/memory';
import { STATUS_OK, STATUS_OUT_OF_MEMORY, STATUS_SINGULAR } from '../shared/status';
import { factorCholesky, solveCholesky } from './cholesky';

export function leastSquares(x: usize, y: usize, n: i32, k: i32, ridge: f64, coef: usize, rss: usize): i32 {
  const gram = allocF64Zeroed(<u64>k * <u64>k);
  const rhs = allocF64Zeroed(<u64>k);
  const l = allocF64Zeroed(<u64>k * <u64>k);
  const z = allocF64(<u64>k);
  if (gram == 0 || rhs == 0 || l == 0 || z == 0) return STATUS_OUT_OF_MEMORY;
  addOuterProducts(x, n, k, gram);
  for (let r = 0; r < n; r++) {
    const yr = getF64(y, r);
    for (let i = 0; i < k; i++) setF64(rhs, i, getF64(rhs, i) + getF64(x, r * k + i) * yr);
  }
  mirrorUpper(gram, k);
  for (let i = 0; i < k; i++) setF64(gram, i * k + i, getF64(gram, i * k + i) + ridge);
  if (!factorCholesky(gram, k, l)) {
    fillF64(coef, k, NaN);
    setF64(rss, 0, NaN);
    return STATUS_SINGULAR;
  }
  solveCholesky(l, k, rhs, z, coef);
  let sum: f64 = 0;
  for (let r = 0; r < n; r++) {
    let residual = getF64(y, r);
    for (let j = 0; j < k; j++) residual -= getF64(x, r * k + j) * getF64(coef, j);
    sum += residual * residual;
  }
  setF64(rss, 0, sum);
  return STATUS_OK;
}
