// The WebAssembly ABI of the numeric kernels, wrapped by src/compute/wasm.ts into the Kernels interface of
// src/compute/kernels.ts. Pointers are byte offsets into this module's memory, handed out by `alloc` (a bump
// arena emptied by `reset`); every kernel answers a status code (shared/status.ts) and never traps.
import { arenaAlloc, arenaReset } from './shared/memory';

export function alloc(bytes: usize): usize {
  return arenaAlloc(<u64>bytes);
}

export function reset(): void {
  arenaReset();
}

export { covariance, correlation } from './stats/covariance';
export { fisherZBatch } from './stats/fisher-z';
export { contingency } from './stats/contingency';
export { gSquareBatch } from './stats/g-square';
export { chiSquareSurvival } from './stats/distributions';
export { cholesky } from './regress/cholesky';
export { leastSquares } from './regress/least-squares';
export { logisticRegression } from './regress/logistic';
export { sampleLinearGaussian } from './sample/linear-gaussian';
export { uniforms } from './sample/uniforms';
