// Chi-square survival through the regularised upper incomplete gamma function: a line-for-line port of
// src/compute/distributions.ts (read that file for the derivations and sources).

const LN_SQRT_2PI: f64 = 0.9189385332046728; // ln(sqrt(2 pi))
const TWO_PI: f64 = 2 * Math.PI;
const EPSILON: f64 = 1e-16;
const MAX_ITERATIONS: i32 = 100000;
const TINY: f64 = 1e-300;

function stirlingRemainder(a: f64): f64 {
  const inv = 1 / a;
  const inv2 = inv * inv;
  return inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 * (1.0 / 1680 - inv2 * (1.0 / 1188 - inv2 * (691.0 / 360360 - inv2 / 156))))));
}

function logGamma(a: f64): f64 {
  let product: f64 = 1;
  let shifted = a;
  while (shifted < 10) {
    product *= shifted;
    shifted += 1;
  }
  return (shifted - 0.5) * Math.log(shifted) - shifted + LN_SQRT_2PI + stirlingRemainder(shifted) - Math.log(product);
}

function gammaPrefactor(a: f64, x: f64): f64 {
  if (a < 10) return Math.exp(a * Math.log(x) - x - logGamma(a));
  const t = (x - a) / a;
  return Math.exp(a * (Math.log1p(t) - t) - stirlingRemainder(a)) * Math.sqrt(a / TWO_PI);
}

function lowerGammaSeries(a: f64, x: f64): f64 {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    term *= x / (a + <f64>n);
    sum += term;
    if (term < sum * EPSILON) break;
  }
  return gammaPrefactor(a, x) * sum;
}

function upperGammaContinuedFraction(a: f64, x: f64): f64 {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -(<f64>i) * (<f64>i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return gammaPrefactor(a, x) * h;
}

export function regularizedGammaQ(a: f64, x: f64): f64 {
  if (isNaN(a) || isNaN(x) || !(a > 0)) return NaN;
  if (x <= 0) return 1;
  if (x == Infinity) return 0;
  if (x < a + 1) return 1 - lowerGammaSeries(a, x);
  return upperGammaContinuedFraction(a, x);
}

export function chiSquareSurvival(x: f64, df: f64): f64 {
  return regularizedGammaQ(df / 2, x / 2);
}
