/**
 * Reference linear algebra and regressions: Cholesky, ridge least squares by the normal equations, and
 * multinomial logistic regression by damped Newton steps. assembly/regress/ mirrors these operation for
 * operation, so the two agree to rounding (test/kernels/ states the tolerances).
 */
import { requireLength, requireSize } from '../kernel-arguments.js';

/**
 * A pivot at or below this fraction of its diagonal entry counts as zero: that column is a linear combination
 * of the earlier ones up to R^2 > 1 - 1e-12, past which a solve keeps fewer than ~4 significant digits.
 */
export const PIVOT_TOLERANCE = 1e-12;

/** Cholesky-Banachiewicz on the lower triangle of the k x k matrix `a`, writing L into `l`; false if not PD. */
export function factorCholesky(a: Float64Array, k: number, l: Float64Array): boolean {
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < i; j++) {
      let s = a[i * k + j]!;
      for (let q = 0; q < j; q++) s -= l[i * k + q]! * l[j * k + q]!;
      l[i * k + j] = s / l[j * k + j]!;
    }
    let d = a[i * k + i]!;
    for (let q = 0; q < i; q++) d -= l[i * k + q]! * l[i * k + q]!;
    if (!(d > PIVOT_TOLERANCE * a[i * k + i]!)) return false;
    l[i * k + i] = Math.sqrt(d);
  }
  return true;
}

/** Solves L L' b = rhs by forward then back substitution. */
function solveCholesky(l: Float64Array, k: number, rhs: Float64Array): Float64Array {
  const z = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let s = rhs[i]!;
    for (let q = 0; q < i; q++) s -= l[i * k + q]! * z[q]!;
    z[i] = s / l[i * k + i]!;
  }
  const b = new Float64Array(k);
  for (let i = k - 1; i >= 0; i--) {
    let s = z[i]!;
    for (let q = i + 1; q < k; q++) s -= l[q * k + i]! * b[q]!;
    b[i] = s / l[i * k + i]!;
  }
  return b;
}

export function cholesky(a: Float64Array, k: number): { status: number; l: Float64Array } {
  requireSize('k', k);
  requireLength('a', a, k * k);
  const l = new Float64Array(k * k);
  if (factorCholesky(a, k, l)) return { status: 0, l };
  return { status: 1, l: l.fill(Number.NaN) };
}

export function leastSquares(x: Float64Array, y: Float64Array, n: number, k: number, ridge: number): { status: number; coef: Float64Array; rss: number } {
  requireSize('n', n);
  requireSize('k', k);
  requireLength('x', x, n * k);
  requireLength('y', y, n);
  // X'X (upper triangle, one row's outer product at a time) and X'y.
  const gram = new Float64Array(k * k);
  const rhs = new Float64Array(k);
  for (let r = 0; r < n; r++) {
    for (let i = 0; i < k; i++) {
      const xi = x[r * k + i]!;
      rhs[i]! += xi * y[r]!;
      for (let j = i; j < k; j++) gram[i * k + j]! += xi * x[r * k + j]!;
    }
  }
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < i; j++) gram[i * k + j] = gram[j * k + i]!;
    gram[i * k + i]! += ridge;
  }
  const l = new Float64Array(k * k);
  if (!factorCholesky(gram, k, l)) return { status: 1, coef: new Float64Array(k).fill(Number.NaN), rss: Number.NaN };
  const coef = solveCholesky(l, k, rhs);
  // The residual sum of squares from the residuals themselves: y'y - b'X'y loses digits to cancellation.
  let rss = 0;
  for (let r = 0; r < n; r++) {
    let residual = y[r]!;
    for (let j = 0; j < k; j++) residual -= x[r * k + j]! * coef[j]!;
    rss += residual * residual;
  }
  return { status: 0, coef, rss };
}

/** Softmax probabilities of row r into `prob`; answers the row's loss ln(sum e^z) - z_y. */
function softmaxRow(x: Float64Array, r: number, k: number, classes: number, w: Float64Array, label: number, prob: Float64Array): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < classes; c++) {
    let z = 0;
    for (let a = 0; a < k; a++) z += w[c * k + a]! * x[r * k + a]!;
    prob[c] = z;
    if (z > max) max = z;
  }
  const labelScore = prob[label]!;
  let sum = 0;
  for (let c = 0; c < classes; c++) {
    prob[c] = Math.exp(prob[c]! - max);
    sum += prob[c]!;
  }
  for (let c = 0; c < classes; c++) prob[c]! /= sum;
  return max + Math.log(sum) - labelScore;
}

interface LogisticProblem {
  x: Float64Array;
  y: Int32Array;
  n: number;
  k: number;
  classes: number;
  l2: number;
}

/** The summed log loss plus (l2 / 2) |W|^2, over rows whose class code is valid. */
function penalisedLoss(problem: LogisticProblem, w: Float64Array, prob: Float64Array): number {
  let loss = 0;
  for (let r = 0; r < problem.n; r++) {
    const label = problem.y[r]!;
    if (label >= 0 && label < problem.classes) loss += softmaxRow(problem.x, r, problem.k, problem.classes, w, label, prob);
  }
  let squares = 0;
  for (const value of w) squares += value * value;
  return loss + 0.5 * problem.l2 * squares;
}

/** Gradient X'(P - Y) + l2 W and Hessian sum p_c ([c = d] - p_d) x x' + l2 I, both over classes x features. */
function gradientAndHessian(problem: LogisticProblem, w: Float64Array, gradient: Float64Array, hessian: Float64Array, prob: Float64Array): void {
  const { x, y, n, k, classes, l2 } = problem;
  const dim = classes * k;
  gradient.fill(0);
  hessian.fill(0);
  for (let r = 0; r < n; r++) {
    const label = y[r]!;
    if (label < 0 || label >= classes) continue;
    softmaxRow(x, r, k, classes, w, label, prob);
    for (let c = 0; c < classes; c++) {
      const residual = prob[c]! - (c === label ? 1 : 0);
      for (let a = 0; a < k; a++) gradient[c * k + a]! += residual * x[r * k + a]!;
    }
    // Upper triangle only: blocks c < d in full, the diagonal blocks from b = a on.
    for (let c = 0; c < classes; c++) {
      for (let d = c; d < classes; d++) {
        const weight = prob[c]! * ((c === d ? 1 : 0) - prob[d]!);
        for (let a = 0; a < k; a++) {
          const wa = weight * x[r * k + a]!;
          const row = (c * k + a) * dim + d * k;
          for (let b = c === d ? a : 0; b < k; b++) hessian[row + b]! += wa * x[r * k + b]!;
        }
      }
    }
  }
  for (let i = 0; i < dim; i++) {
    gradient[i]! += l2 * w[i]!;
    for (let j = 0; j < i; j++) hessian[i * dim + j] = hessian[j * dim + i]!;
    hessian[i * dim + i]! += l2;
  }
}

/** Moves W to the sum-to-zero gauge (sum over classes of each feature's weight = 0); the likelihood is unchanged. */
function centreOverClasses(w: Float64Array, k: number, classes: number): void {
  for (let a = 0; a < k; a++) {
    let mean = 0;
    for (let c = 0; c < classes; c++) mean += w[c * k + a]!;
    mean /= classes;
    for (let c = 0; c < classes; c++) w[c * k + a]! -= mean;
  }
}

/**
 * Newton's method with Armijo backtracking (Nocedal & Wright, Numerical Optimization, 2nd ed., ch. 3), stopped
 * by the Newton decrement (Boyd & Vandenberghe, Convex Optimization, sec. 9.5) or a negligible step. Every
 * class has weights, so the Hessian is singular along "add the same vector to all classes"; the step is solved
 * with a Levenberg damping of 1e-10 of the largest diagonal entry, and W is kept in the sum-to-zero gauge, which
 * is where the unique minimiser lies when l2 > 0.
 */
export function logisticRegression(x: Float64Array, y: Int32Array, n: number, k: number, classes: number, l2: number, maxIter: number): { status: number; weights: Float64Array; logLoss: number } {
  for (const [name, value] of [['n', n], ['k', k], ['classes', classes], ['maxIter', maxIter]] as const) requireSize(name, value);
  requireLength('x', x, n * k);
  requireLength('y', y, n);
  const problem: LogisticProblem = { x, y, n, k, classes, l2 };
  const dim = classes * k;
  const weights = new Float64Array(dim);
  let validRows = 0;
  for (const label of y) if (label >= 0 && label < classes) validRows++;
  if (validRows === 0) return { status: 1, weights, logLoss: Number.NaN };
  const prob = new Float64Array(classes);
  const gradient = new Float64Array(dim);
  const hessian = new Float64Array(dim * dim);
  const l = new Float64Array(dim * dim);
  const trial = new Float64Array(dim);
  let objective = penalisedLoss(problem, weights, prob);
  let status = 2;
  for (let iteration = 0; iteration < maxIter; iteration++) {
    gradientAndHessian(problem, weights, gradient, hessian, prob);
    if (gradient.every((g) => g === 0)) {
      status = 0; // already stationary (one class, or nothing to move)
      break;
    }
    let largestDiagonal = 0;
    for (let i = 0; i < dim; i++) largestDiagonal = Math.max(largestDiagonal, hessian[i * dim + i]!);
    for (let i = 0; i < dim; i++) hessian[i * dim + i]! += 1e-10 * largestDiagonal;
    if (!factorCholesky(hessian, dim, l)) {
      // A finite loss with a vanished Hessian means saturated probabilities (separated classes, no penalty).
      status = Number.isFinite(objective) ? 2 : 1;
      break;
    }
    const step = solveCholesky(l, dim, gradient.map((g) => -g));
    let largestStep = 0;
    let largestWeight = 0;
    let slope = 0;
    for (let i = 0; i < dim; i++) {
      largestStep = Math.max(largestStep, Math.abs(step[i]!));
      largestWeight = Math.max(largestWeight, Math.abs(weights[i]!));
      slope += gradient[i]! * step[i]!;
    }
    // -slope = g' H^-1 g, twice the decrease Newton expects: once the loss's rounding would hide it, the full step
    // lands on the optimum to ~1e-11 (quadratic convergence) and the fit is done.
    const roundingOfLoss = 1e-12 * (1 + Math.abs(objective));
    if (largestStep <= 1e-10 * (1 + largestWeight) || -slope <= roundingOfLoss) {
      for (let i = 0; i < dim; i++) weights[i]! += step[i]!;
      centreOverClasses(weights, k, classes);
      status = 0;
      break;
    }
    let accepted = false;
    for (let t = 1, halvings = 0; halvings < 40; halvings++, t /= 2) {
      for (let i = 0; i < dim; i++) trial[i] = weights[i]! + t * step[i]!;
      const trialObjective = penalisedLoss(problem, trial, prob);
      if (trialObjective <= objective + 1e-4 * t * slope + roundingOfLoss) {
        accepted = true;
        objective = trialObjective;
        break;
      }
    }
    if (!accepted) break;
    weights.set(trial);
    // The step lies in the sum-to-zero subspace (g does, and H + damping keeps it), so centring only removes
    // rounding drift and leaves the objective as evaluated.
    centreOverClasses(weights, k, classes);
  }
  const logLoss = (penalisedLoss({ ...problem, l2: 0 }, weights, prob)) / validRows;
  return { status, weights, logLoss };
}
