/**
 * The seeded generator and the linear-Gaussian ancestral sampler. Everything here uses only + - * / and sqrt
 * (correctly rounded in JavaScript and WebAssembly alike) on the same operation order as assembly/shared/random.ts
 * and assembly/sample/, so a seed gives bit-identical draws on both implementations.
 */
import { requireLength, requireSize } from '../kernel-arguments.js';

const SQRT_HALF = Math.SQRT1_2;
const LN2 = Math.LN2;

/**
 * ln s for 0 < s < 2, from + - * / only: Math.log may differ by an ulp between V8 and AssemblyScript, which
 * would break bit-identical samples. s = m 2^e with m in [sqrt(1/2), sqrt(2)), then
 * ln m = 2 atanh(f), f = (m - 1) / (m + 1), |f| <= 0.172, by its series to f^23 (truncation < 1e-18; a few
 * ulps of rounding, irrelevant to sampling).
 */
export function portableLog(s: number): number {
  let m = s;
  let e = 0;
  while (m < SQRT_HALF) {
    m *= 2;
    e -= 1;
  }
  while (m >= 2 * SQRT_HALF) {
    m /= 2;
    e += 1;
  }
  const f = (m - 1) / (m + 1);
  const f2 = f * f;
  // sum over i = 0..11 of 2 f2^i / (2i + 1) by Estrin's scheme: a shorter chain of dependent operations than
  // Horner's rule (the sampler's bottleneck), all terms positive so nothing cancels.
  const f4 = f2 * f2;
  const f8 = f4 * f4;
  const low = 2 + f2 * (2 / 3) + f4 * (2 / 5 + f2 * (2 / 7));
  const middle = 2 / 9 + f2 * (2 / 11) + f4 * (2 / 13 + f2 * (2 / 15));
  const high = 2 / 17 + f2 * (2 / 19) + f4 * (2 / 21 + f2 * (2 / 23));
  const series = low + f8 * (middle + f8 * high);
  return e * LN2 + f * series;
}

/**
 * xoshiro128** (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2018), its four words
 * seeded by splitmix32 (a golden-ratio counter through the MurmurHash3 fmix32 finaliser), so every 32-bit seed
 * gives a non-zero state.
 */
export class SeededRandom {
  private readonly state = new Uint32Array(4);
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number) {
    let counter = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      counter = (counter + 0x9e3779b9) >>> 0;
      let z = counter;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      this.state[i] = z ^ (z >>> 16);
    }
  }

  nextUint32(): number {
    const s = this.state;
    const s1 = s[1]!;
    const product = Math.imul(s1, 5);
    const result = Math.imul((product << 7) | (product >>> 25), 9) >>> 0;
    const t = s1 << 9;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = (s[3]! << 11) | (s[3]! >>> 21);
    return result;
  }

  /** A double in [0, 1) with 53 random bits: 27 from one draw, 26 from the next. */
  uniform(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) * 2 ** -53; // scaling by a power of two is exact
  }

  /** A standard normal by Marsaglia's polar method (1964), the pair's second value kept for the next call. */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.uniform() - 1;
      v = 2 * this.uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const factor = Math.sqrt((-2 * portableLog(s)) / s);
    this.spare = v * factor;
    this.hasSpare = true;
    return u * factor;
  }
}

/** True when parent ranges are ordered and every parent of node j comes before j. */
function validParents(p: number, parentStart: Int32Array, parentIndex: Int32Array): boolean {
  if (parentStart[0]! < 0 || parentStart[p]! > parentIndex.length) return false;
  for (let j = 0; j < p; j++) {
    if (parentStart[j + 1]! < parentStart[j]!) return false;
    for (let m = parentStart[j]!; m < parentStart[j + 1]!; m++) {
      if (parentIndex[m]! < 0 || parentIndex[m]! >= j) return false;
    }
  }
  return true;
}

/**
 * Every (row, node) draws its normal, clamped or not, so runs with and without an intervention share their
 * noise (common random numbers) and differ only through the intervention. Invalid parent lists answer NaN.
 */
export function sampleLinearGaussian(
  n: number,
  p: number,
  intercept: Float64Array,
  noiseStd: Float64Array,
  parentStart: Int32Array,
  parentIndex: Int32Array,
  weight: Float64Array,
  fixed: Float64Array,
  seed: number,
): Float64Array {
  requireSize('n', n);
  requireSize('p', p);
  for (const [name, array] of [['intercept', intercept], ['noiseStd', noiseStd], ['fixed', fixed]] as const) requireLength(name, array, p);
  requireLength('parentStart', parentStart, p + 1);
  requireLength('weight', weight, parentIndex.length);
  const out = new Float64Array(n * p);
  if (!validParents(p, parentStart, parentIndex)) return out.fill(Number.NaN);
  const random = new SeededRandom(seed);
  for (let r = 0; r < n; r++) {
    const row = r * p;
    for (let j = 0; j < p; j++) {
      const noise = random.normal();
      const clamp = fixed[j]!;
      if (!Number.isNaN(clamp)) {
        out[row + j] = clamp;
        continue;
      }
      let value = intercept[j]!;
      for (let m = parentStart[j]!; m < parentStart[j + 1]!; m++) value += weight[m]! * out[row + parentIndex[m]!]!;
      out[row + j] = value + noiseStd[j]! * noise;
    }
  }
  return out;
}

export function uniforms(count: number, seed: number): Float64Array {
  requireSize('count', count);
  const random = new SeededRandom(seed);
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = random.uniform();
  return out;
}
