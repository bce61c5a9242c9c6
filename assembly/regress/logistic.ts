// Multinomial logistic regression with an L2 penalty by damped Newton steps: the algorithm of
// logisticRegression in src/compute/reference/regression.ts (read it for the method and its sources).
import { allocF64, allocF64Zeroed, getF64, getI32, setF64 } from '../shared/memory';
import { STATUS_NOT_CONVERGED, STATUS_OK, STATUS_OUT_OF_MEMORY, STATUS_SINGULAR } from '../shared/status';
import { factorCholesky, solveCholesky } from './cholesky';

/** Softmax probabilities of row r into `prob`; answers the row's loss ln(sum e^z) - z_label. */
function softmaxRow(x: usize, r: i32, k: i32, classes: i32, w: usize, label: i32, prob: usize): f64 {
  let max = -Infinity;
  for (let c = 0; c < classes; c++) {
    let z: f64 = 0;
    for (let a = 0; a < k; a++) z += getF64(w, c * k + a) * getF64(x, r * k + a);
    setF64(prob, c, z);
    if (z > max) max = z;
  }
  const labelScore = getF64(prob, label);
  let sum: f64 = 0;
  for (let c = 0; c < classes; c++) {
    const e = Math.exp(getF64(prob, c) - max);
    setF64(prob, c, e);
    sum += e;
  }
  for (let c = 0; c < classes; c++) setF64(prob, c, getF64(prob, c) / sum);
  return max + Math.log(sum) - labelScore;
}

/** The summed loss plus the penalty at `w`; each valid row's probabilities are kept in `probs` (n x classes). */
function penalisedLoss(x: usize, y: usize, n: i32, k: i32, classes: i32, l2: f64, w: usize, probs: usize): f64 {
  let loss: f64 = 0;
  for (let r = 0; r < n; r++) {
    const label = getI32(y, r);
    if (label >= 0 && label < classes) loss += softmaxRow(x, r, k, classes, w, label, probs + ((<usize>r * classes) << 3));
  }
  let squares: f64 = 0;
  const dim = classes * k;
  for (let i = 0; i < dim; i++) squares += getF64(w, i) * getF64(w, i);
  return loss + 0.5 * l2 * squares;
}

/**
 * Gradient and Hessian at the weights whose row probabilities `probs` holds (penalisedLoss kept them). The Hessian's
 * block (c, d) is sum_r p_rc (delta_cd - p_rd) x_r x_r^T, so each row's outer product is formed once, packed (its
 * upper triangle, `outer`), and added with each pair's weight to that pair's packed block (`packed`); the blocks
 * are unpacked into the full symmetric matrix at the end.
 */
function gradientAndHessian(x: usize, y: usize, n: i32, k: i32, classes: i32, l2: f64, w: usize, gradient: usize, hessian: usize, probs: usize, outer: usize, packed: usize): void {
  const dim = classes * k;
  const triangle = (k * (k + 1)) >> 1;
  const pairs = (classes * (classes + 1)) >> 1;
  memory.fill(gradient, 0, <usize>dim << 3);
  memory.fill(packed, 0, (<usize>pairs * triangle) << 3);
  for (let r = 0; r < n; r++) {
    const label = getI32(y, r);
    if (label < 0 || label >= classes) continue;
    const prob = probs + ((<usize>r * classes) << 3);
    const row = x + ((<usize>r * k) << 3);
    for (let c = 0; c < classes; c++) {
      const residual = getF64(prob, c) - (c == label ? 1.0 : 0.0);
      for (let a = 0; a < k; a++) setF64(gradient, c * k + a, getF64(gradient, c * k + a) + residual * getF64(row, a));
    }
    let at = 0;
    for (let a = 0; a < k; a++) {
      const xa = getF64(row, a);
      for (let b = a; b < k; b++) setF64(outer, at++, xa * getF64(row, b));
    }
    let block = packed;
    for (let c = 0; c < classes; c++) {
      const pc = getF64(prob, c);
      for (let d = c; d < classes; d++) {
        const split = f64x2.splat(pc * ((c == d ? 1.0 : 0.0) - getF64(prob, d)));
        let i = 0;
        for (; i + 1 < triangle; i += 2) {
          const offset = <usize>i << 3;
          v128.store(block + offset, f64x2.add(v128.load(block + offset), f64x2.mul(split, v128.load(outer + offset))));
        }
        if (i < triangle) setF64(block, i, getF64(block, i) + f64x2.extract_lane(split, 0) * getF64(outer, i));
        block += <usize>triangle << 3;
      }
    }
  }
  let block = packed;
  for (let c = 0; c < classes; c++) {
    for (let d = c; d < classes; d++) {
      let at = 0;
      for (let a = 0; a < k; a++) {
        for (let b = a; b < k; b++) {
          const value = getF64(block, at++);
          setF64(hessian, (c * k + a) * dim + d * k + b, value);
          setF64(hessian, (c * k + b) * dim + d * k + a, value);
          setF64(hessian, (d * k + a) * dim + c * k + b, value);
          setF64(hessian, (d * k + b) * dim + c * k + a, value);
        }
      }
      block += <usize>triangle << 3;
    }
  }
  for (let i = 0; i < dim; i++) {
    setF64(gradient, i, getF64(gradient, i) + l2 * getF64(w, i));
    setF64(hessian, i * dim + i, getF64(hessian, i * dim + i) + l2);
  }
}

function centreOverClasses(w: usize, k: i32, classes: i32): void {
  for (let a = 0; a < k; a++) {
    let mean: f64 = 0;
    for (let c = 0; c < classes; c++) mean += getF64(w, c * k + a);
    mean /= <f64>classes;
    for (let c = 0; c < classes; c++) setF64(w, c * k + a, getF64(w, c * k + a) - mean);
  }
}

export function logisticRegression(x: usize, y: usize, n: i32, k: i32, classes: i32, l2: f64, maxIter: i32, weights: usize, logLoss: usize): i32 {
  const dim = classes * k;
  memory.fill(weights, 0, <usize>dim << 3);
  let validRows = 0;
  for (let r = 0; r < n; r++) {
    const label = getI32(y, r);
    if (label >= 0 && label < classes) validRows++;
  }
  if (validRows == 0) {
    setF64(logLoss, 0, NaN);
    return STATUS_SINGULAR;
  }
  // Row probabilities at the weights and at the step being tried: a step taken makes the trial's the current ones.
  let probs = allocF64(<u64>n * <u64>classes);
  let trialProbs = allocF64(<u64>n * <u64>classes);
  const triangle = (k * (k + 1)) >> 1;
  const outer = allocF64(<u64>triangle);
  const packed = allocF64(<u64>((classes * (classes + 1)) >> 1) * <u64>triangle);
  const gradient = allocF64(<u64>dim);
  const hessian = allocF64(<u64>dim * <u64>dim);
  const l = allocF64Zeroed(<u64>dim * <u64>dim);
  const negated = allocF64(<u64>dim);
  const step = allocF64(<u64>dim);
  const z = allocF64(<u64>dim);
  const trial = allocF64(<u64>dim);
  if (probs == 0 || trialProbs == 0 || outer == 0 || packed == 0 || gradient == 0 || hessian == 0 || l == 0 || negated == 0 || step == 0 || z == 0 || trial == 0) return STATUS_OUT_OF_MEMORY;
  const dimBytes = <usize>dim << 3;
  let objective = penalisedLoss(x, y, n, k, classes, l2, weights, probs);
  let status = STATUS_NOT_CONVERGED;
  for (let iteration = 0; iteration < maxIter; iteration++) {
    gradientAndHessian(x, y, n, k, classes, l2, weights, gradient, hessian, probs, outer, packed);
    let stationary = true;
    for (let i = 0; i < dim; i++) if (getF64(gradient, i) != 0) stationary = false;
    if (stationary) {
      status = STATUS_OK;
      break;
    }
    let largestDiagonal: f64 = 0;
    for (let i = 0; i < dim; i++) largestDiagonal = Math.max(largestDiagonal, getF64(hessian, i * dim + i));
    for (let i = 0; i < dim; i++) setF64(hessian, i * dim + i, getF64(hessian, i * dim + i) + 1e-10 * largestDiagonal);
    if (!factorCholesky(hessian, dim, l)) {
      status = isFinite(objective) ? STATUS_NOT_CONVERGED : STATUS_SINGULAR;
      break;
    }
    for (let i = 0; i < dim; i++) setF64(negated, i, -getF64(gradient, i));
    solveCholesky(l, dim, negated, z, step);
    let largestStep: f64 = 0;
    let largestWeight: f64 = 0;
    let slope: f64 = 0;
    for (let i = 0; i < dim; i++) {
      largestStep = Math.max(largestStep, Math.abs(getF64(step, i)));
      largestWeight = Math.max(largestWeight, Math.abs(getF64(weights, i)));
      slope += getF64(gradient, i) * getF64(step, i);
    }
    const roundingOfLoss = 1e-12 * (1 + Math.abs(objective));
    if (largestStep <= 1e-10 * (1 + largestWeight) || -slope <= roundingOfLoss) {
      for (let i = 0; i < dim; i++) setF64(weights, i, getF64(weights, i) + getF64(step, i));
      centreOverClasses(weights, k, classes);
      status = STATUS_OK;
      break;
    }
    let accepted = false;
    let t: f64 = 1;
    for (let halvings = 0; halvings < 40; halvings++, t /= 2) {
      for (let i = 0; i < dim; i++) setF64(trial, i, getF64(weights, i) + t * getF64(step, i));
      const trialObjective = penalisedLoss(x, y, n, k, classes, l2, trial, trialProbs);
      if (trialObjective <= objective + 1e-4 * t * slope + roundingOfLoss) {
        accepted = true;
        objective = trialObjective;
        break;
      }
    }
    if (!accepted) break;
    memory.copy(weights, trial, dimBytes);
    const taken = trialProbs;
    trialProbs = probs;
    probs = taken;
    centreOverClasses(weights, k, classes);
  }
  setF64(logLoss, 0, penalisedLoss(x, y, n, k, classes, 0, weights, probs) / <f64>validRows);
  return status;
}
