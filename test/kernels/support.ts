/**
 * Shared pieces of the kernel tests: both implementations side by side, an input generator independent of the
 * kernels' own generator, and closeness checks that print the largest difference and where it is.
 */
import assert from 'node:assert/strict';
import type { Kernels } from '../../src/compute/kernels.js';
import { referenceKernels } from '../../src/compute/reference.js';
import { loadWasmKernels } from '../../src/compute/wasm.js';

export const reference: Kernels = referenceKernels;
export const wasm: Kernels = loadWasmKernels();

/** Marsaglia's xorshift32 (J. Stat. Software 8(14), 2003): test inputs that do not come from the code under test. */
export class InputSource {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }

  /** In (0, 1): the state is never 0. */
  uniform(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 4294967296;
  }

  /** Box-Muller with Math.log/cos: independent of the polar method the sampler uses. */
  normal(): number {
    return Math.sqrt(-2 * Math.log(this.uniform())) * Math.cos(2 * Math.PI * this.uniform());
  }

  integer(below: number): number {
    return Math.floor(this.uniform() * below);
  }

  normals(count: number): Float64Array {
    return Float64Array.from({ length: count }, () => this.normal());
  }
}

/** Largest |actual - expected| / max(|expected|, floor); NaN matches NaN, NaN against a number is Infinity. */
export function largestDifference(actual: ArrayLike<number>, expected: ArrayLike<number>, floor = 1): { value: number; index: number } {
  assert.equal(actual.length, expected.length, 'lengths differ');
  let worst = { value: 0, index: -1 };
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    let difference: number;
    if (Number.isNaN(a) || Number.isNaN(e)) difference = Number.isNaN(a) && Number.isNaN(e) ? 0 : Number.POSITIVE_INFINITY;
    else if (a === e) difference = 0;
    else difference = Math.abs(a - e) / Math.max(Math.abs(e), floor);
    if (difference > worst.value) worst = { value: difference, index: i };
  }
  return worst;
}

/** Asserts every element agrees within `tolerance` (relative, absolute below |expected| = floor). */
export function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, label: string, floor = 1): void {
  const worst = largestDifference(actual, expected, floor);
  // KERNELS_REPORT_DIFFERENCES=1 prints every comparison's margin, to restate the tolerances in the docs.
  if (process.env.KERNELS_REPORT_DIFFERENCES === '1') process.stdout.write(`# ${label}: ${worst.value.toExponential(2)} (tolerance ${tolerance})\n`);
  assert.ok(
    worst.value <= tolerance,
    `${label}: largest difference ${worst.value.toExponential(3)} > ${tolerance} at index ${worst.index} (actual ${actual[worst.index]}, expected ${expected[worst.index]})`,
  );
}

/** n x p rows whose columns are mixed so they correlate: column j = z_j + 0.5 * column j-1. */
export function correlatedData(source: InputSource, n: number, p: number): Float64Array {
  const data = new Float64Array(n * p);
  for (let r = 0; r < n; r++) {
    for (let j = 0; j < p; j++) data[r * p + j] = source.normal() + (j > 0 ? 0.5 * data[r * p + j - 1]! : 0) + j;
  }
  return data;
}

/** A packed batch of tests (kernels.ts, fisherZBatch) from [x, y, ...S] lists. */
export function packTests(maxK: number, tests: number[][]): Int32Array {
  const packed = new Int32Array(tests.length * (maxK + 3));
  tests.forEach(([x, y, ...conditioning], t) => {
    packed.set([x!, y!, conditioning.length, ...conditioning], t * (maxK + 3));
  });
  return packed;
}
