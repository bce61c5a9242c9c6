/**
 * Shape checks both kernel implementations run before touching an array, so a caller's mistake (a wrong
 * length, a negative size) fails the same way on both, as a RangeError, instead of reading past an array in
 * JavaScript or past a buffer in WebAssembly linear memory. Bad numbers inside well-shaped arrays are not
 * checked here: kernels answer those with a status or NaN (kernels.ts).
 */

/** Sizes (n, p, k, counts) must be non-negative integers that fit a 32-bit WebAssembly argument. */
export function requireSize(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
    throw new RangeError(`${name} must be a non-negative integer below 2^31, got ${value}`);
  }
}

export function requireLength(name: string, array: ArrayLike<number>, expected: number): void {
  if (array.length !== expected) throw new RangeError(`${name} has ${array.length} values, expected ${expected}`);
}

/** A column index of integer-coded data with `columns` columns. */
export function requireColumn(name: string, index: number, columns: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= columns) {
    throw new RangeError(`${name} must be a column index in 0..${columns - 1}, got ${index}`);
  }
}

/** A batch of `count` tests packed `maxK + 3` to a slot (kernels.ts, fisherZBatch). */
export function requireTestBatch(tests: Int32Array, maxK: number, count: number): void {
  requireSize('maxK', maxK);
  requireSize('count', count);
  requireLength('tests', tests, count * (maxK + 3));
}

/** Integer-coded columns: `codes` holds levels.length columns of n rows each. */
export function requireCodedColumns(codes: Int32Array, n: number, levels: Int32Array): void {
  requireSize('n', n);
  requireLength('codes', codes, n * levels.length);
  for (const [j, count] of levels.entries()) {
    if (count < 0) throw new RangeError(`levels[${j}] must be non-negative, got ${count}`);
  }
}
