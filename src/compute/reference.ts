/**
 * The TypeScript reference kernels: the definition of correctness that the WebAssembly build (wasm.ts) is
 * tested against in test/kernels/, and the fallback wherever the WASM file is unavailable. Each family lives in
 * reference/, mirroring assembly/: statistics (stats/), regression (regress/), sampling (sample/).
 */
import type { Kernels } from './kernels.js';
import { cholesky, leastSquares, logisticRegression } from './reference/regression.js';
import { sampleLinearGaussian, uniforms } from './reference/sampling.js';
import { contingency, correlation, covariance, fisherZBatch, gSquareBatch } from './reference/statistics.js';

export const referenceKernels: Kernels = {
  covariance,
  correlation,
  fisherZBatch,
  gSquareBatch,
  contingency,
  cholesky,
  leastSquares,
  logisticRegression,
  sampleLinearGaussian,
  uniforms,
};
