// Status codes every kernel answers instead of throwing (STYLE.md "Habits"); src/compute/kernels.ts KernelStatus
// carries the same numbers to the JavaScript side.

export const STATUS_OK: i32 = 0;
/** Not positive definite / singular system, or nothing to fit. */
export const STATUS_SINGULAR: i32 = 1;
/** An iterative fit reached its iteration limit; the answer is the last iterate. */
export const STATUS_NOT_CONVERGED: i32 = 2;
/** The arena could not grow linear memory for the kernel's scratch space. */
export const STATUS_OUT_OF_MEMORY: i32 = 3;
/** Structurally invalid input the kernel refused (outputs are NaN). */
export const STATUS_INVALID_INPUT: i32 = 4;
