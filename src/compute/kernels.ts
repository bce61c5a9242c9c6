/**
 * The numeric kernels the engine calls, as one synchronous interface with two implementations: the WebAssembly
 * build of assembly/ (wasm.ts, the fast path used in workers) and the TypeScript reference (reference.ts, the
 * definition the WASM build is tested against). Matrices are row-major Float64Array unless stated otherwise.
 * Kernels never throw on bad numbers: a singular system answers a non-zero status (KernelStatus), an undefined
 * value answers NaN. Arrays of the wrong length or negative sizes are the caller's bug and throw a RangeError,
 * as does memory exhaustion.
 */
export interface Kernels {
  /** Column means and the p x p covariance (divisor n - 1) of a row-major n x p matrix; n < 2 answers NaN covariance. */
  covariance(data: Float64Array, n: number, p: number): { means: Float64Array; cov: Float64Array };

  /** The p x p correlation matrix of a row-major n x p matrix; a constant column answers NaN in its row and column. */
  correlation(data: Float64Array, n: number, p: number): Float64Array;

  /**
   * A batch of Fisher-z conditional independence tests on a p x p correlation matrix from n rows. Test i is
   * packed in `tests` at i * (maxK + 3): x, y, k, then k conditioning indices (the rest of the slot unused).
   * Writes the partial correlation and the two-sided p-value of each test. A conditioning variable that the
   * others determine is dropped (and not counted in the n - |S| - 3 of the test); a test whose x or y the
   * conditioning set determines, or whose indices are out of range, answers NaN; n - |S| - 3 <= 0 answers a
   * NaN p-value.
   */
  fisherZBatch(
    corr: Float64Array,
    p: number,
    n: number,
    tests: Int32Array,
    maxK: number,
    count: number,
  ): { partial: Float64Array; pValue: Float64Array };

  /**
   * A batch of G-square tests on integer-coded discrete data: `codes` column-major (column j at j * n), values
   * 0..levels[j]-1, -1 = missing (rows with a missing value among x, y, S are skipped). Tests packed as in
   * fisherZBatch. Writes G-square, degrees of freedom (structural zeros removed, as bnlearn/causal-learn do)
   * and the p-value; df = 0 answers p = 1. Codes outside 0..levels[j]-1 count as missing too; a test with an
   * index out of range answers NaN.
   */
  gSquareBatch(
    codes: Int32Array,
    n: number,
    levels: Int32Array,
    tests: Int32Array,
    maxK: number,
    count: number,
  ): { statistic: Float64Array; df: Float64Array; pValue: Float64Array };

  /** Counts of each (x, y) cell: levels[x] x levels[y] row-major, skipping missing (or out-of-range) codes. */
  contingency(codes: Int32Array, n: number, levels: Int32Array, x: number, y: number): Float64Array;

  /**
   * Cholesky factor L (lower, row-major) of a k x k symmetric positive-definite matrix, reading its lower
   * triangle; status 1 = not PD to working precision (a pivot <= 1e-12 of its diagonal entry), L all NaN.
   */
  cholesky(a: Float64Array, k: number): { status: number; l: Float64Array };

  /**
   * Ridge least squares: minimises |y - X b|^2 + ridge |b|^2 for a row-major n x k design X (the caller adds
   * an intercept column). Answers b, the residual sum of squares and a status (1 = singular: b and rss NaN).
   */
  leastSquares(x: Float64Array, y: Float64Array, n: number, k: number, ridge: number): { status: number; coef: Float64Array; rss: number };

  /**
   * Multinomial logistic regression (softmax, class 0 as reference is NOT used: all classes get weights)
   * minimising the summed log loss + (l2 / 2) |W|^2 (scikit-learn's C = 1 / l2), by damped Newton steps up to
   * `maxIter`. X row-major n x k (caller adds the intercept column), y class codes 0..classes-1 (other codes:
   * row skipped). Answers weights classes x k row-major in the sum-to-zero gauge (each feature's weights sum
   * to 0 over classes: the unique minimiser when l2 > 0), the mean unpenalised log loss, and a status: 0
   * converged, 1 nothing to fit (no valid row) or non-finite numbers, 2 `maxIter` reached or the Hessian
   * vanished (classes separated without a penalty; the weights are the last iterate).
   */
  logisticRegression(
    x: Float64Array,
    y: Int32Array,
    n: number,
    k: number,
    classes: number,
    l2: number,
    maxIter: number,
  ): { status: number; weights: Float64Array; logLoss: number };

  /**
   * Ancestral sampling of a linear-Gaussian network in topological order: node j (0..p-1, already sorted so
   * parents come first) = intercept[j] + sum over its parents of weight * value + noiseStd[j] * N(0,1).
   * Parents of node j are parentIndex[parentStart[j] .. parentStart[j+1]) with weights alongside.
   * `fixed` (NaN = free) clamps a node to a value (an intervention). Seeded (seed taken modulo 2^32): the same
   * seed gives bit-identical samples on every implementation. Every (row, node) draws its normal even when
   * clamped, so runs with and without an intervention share their noise. Answers a row-major n x p matrix;
   * parent lists that are out of order or point at a later node answer all NaN.
   */
  sampleLinearGaussian(
    n: number,
    p: number,
    intercept: Float64Array,
    noiseStd: Float64Array,
    parentStart: Int32Array,
    parentIndex: Int32Array,
    weight: Float64Array,
    fixed: Float64Array,
    seed: number,
  ): Float64Array;

  /** `count` uniform draws in [0, 1) from the seeded generator the sampler uses (xoshiro128** over splitmix32). */
  uniforms(count: number, seed: number): Float64Array;
}

/** The status numbers kernels answer (assembly/shared/status.ts holds the same). */
export const KernelStatus = {
  ok: 0,
  /** Not positive definite / singular, or nothing to fit. */
  singular: 1,
  /** An iterative fit stopped at its iteration limit; the answer is the last iterate. */
  notConverged: 2,
} as const;
