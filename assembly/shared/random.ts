// The seeded generator: xoshiro128** seeded by splitmix32, 53-bit uniforms and polar-method normals. A port of
// src/compute/reference/sampling.ts using only + - * / and sqrt (correctly rounded everywhere), so a seed gives
// bit-identical draws in WebAssembly and in the TypeScript reference.

let s0: u32 = 0;
let s1: u32 = 0;
let s2: u32 = 0;
let s3: u32 = 0;
let spare: f64 = 0;
let hasSpare = false;

// @ts-ignore: decorator
@inline function splitmix32(counter: u32): u32 {
  let z = counter;
  z = (z ^ (z >>> 16)) * 0x85ebca6b;
  z = (z ^ (z >>> 13)) * 0xc2b2ae35;
  return z ^ (z >>> 16);
}

/** Seeds the four state words from successive splitmix32 outputs (a golden-ratio counter). */
export function seedRandom(seed: u32): void {
  let counter = seed;
  counter += 0x9e3779b9;
  s0 = splitmix32(counter);
  counter += 0x9e3779b9;
  s1 = splitmix32(counter);
  counter += 0x9e3779b9;
  s2 = splitmix32(counter);
  counter += 0x9e3779b9;
  s3 = splitmix32(counter);
  hasSpare = false;
}

/** xoshiro128** (Blackman & Vigna 2018). */
// @ts-ignore: decorator
@inline export function nextUint32(): u32 {
  const result = rotl<u32>(s1 * 5, 7) * 9;
  const t = s1 << 9;
  s2 ^= s0;
  s3 ^= s1;
  s1 ^= s2;
  s0 ^= s3;
  s2 ^= t;
  s3 = rotl<u32>(s3, 11);
  return result;
}

/** A double in [0, 1) with 53 random bits. */
// @ts-ignore: decorator
@inline export function nextUniform(): f64 {
  const high = <f64>(nextUint32() >>> 5);
  const low = <f64>(nextUint32() >>> 6);
  return (high * 67108864 + low) * 1.1102230246251565e-16; // 2^-53: scaling by a power of two is exact
}

const SQRT_HALF: f64 = Math.SQRT1_2;

/** ln s from + - * / only (see portableLog in the reference for the method and its error). */
export function portableLog(s: f64): f64 {
  let m = s;
  let e: f64 = 0;
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
  const f4 = f2 * f2;
  const f8 = f4 * f4;
  const low = 2 + f2 * (2.0 / 3) + f4 * (2.0 / 5 + f2 * (2.0 / 7));
  const middle = 2.0 / 9 + f2 * (2.0 / 11) + f4 * (2.0 / 13 + f2 * (2.0 / 15));
  const high = 2.0 / 17 + f2 * (2.0 / 19) + f4 * (2.0 / 21 + f2 * (2.0 / 23));
  const series = low + f8 * (middle + f8 * high);
  return e * Math.LN2 + f * series;
}

/** A standard normal by Marsaglia's polar method, the pair's second value kept for the next call. */
export function nextNormal(): f64 {
  if (hasSpare) {
    hasSpare = false;
    return spare;
  }
  let u: f64;
  let v: f64;
  let s: f64;
  do {
    u = 2 * nextUniform() - 1;
    v = 2 * nextUniform() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const factor = Math.sqrt((-2 * portableLog(s)) / s);
  spare = v * factor;
  hasSpare = true;
  return u * factor;
}
