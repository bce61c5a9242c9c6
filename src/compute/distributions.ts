/**
 * Tail probabilities the conditional independence tests need: the chi-square survival function (through the
 * regularised upper incomplete gamma function) and the standard normal tails. Goal: relative error < 1e-10 for
 * every answer above 1e-300. assembly/stats/distributions.ts is a line-for-line port of this file.
 */

const LN_SQRT_2PI = 0.9189385332046728; // ln(sqrt(2 pi))
const TWO_PI = 2 * Math.PI;
const EPSILON = 1e-16;
const MAX_ITERATIONS = 100_000;
/** Lentz's guard against a zero denominator (Numerical Recipes, 3rd ed., section 5.2). */
const TINY = 1e-300;

/**
 * The remainder of Stirling's series, ln Gamma(a) - [(a - 1/2) ln a - a + ln sqrt(2 pi)], for a >= 10: terms
 * B_2j / (2j (2j - 1) a^(2j - 1)) up to j = 7 (Abramowitz & Stegun 6.1.40); the next term is below 3e-17.
 */
export function stirlingRemainder(a: number): number {
  const inv = 1 / a;
  const inv2 = inv * inv;
  return inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 * (1 / 1188 - inv2 * (691 / 360360 - inv2 / 156))))));
}

/** ln Gamma(a) for a > 0: shift a up to >= 10 with Gamma(a + 1) = a Gamma(a), then Stirling's series. */
export function logGamma(a: number): number {
  let product = 1;
  let shifted = a;
  while (shifted < 10) {
    product *= shifted;
    shifted += 1;
  }
  return (shifted - 0.5) * Math.log(shifted) - shifted + LN_SQRT_2PI + stirlingRemainder(shifted) - Math.log(product);
}

/**
 * x^a e^-x / Gamma(a), the factor both expansions of the incomplete gamma function share. For a >= 10 it is
 * written as exp(a (ln(1 + t) - t) - stirlingRemainder(a)) sqrt(a / 2 pi) with t = (x - a) / a, which keeps
 * its precision when a and x are large and close (the large terms a ln x and x cancel analytically).
 */
function gammaPrefactor(a: number, x: number): number {
  if (a < 10) return Math.exp(a * Math.log(x) - x - logGamma(a));
  const t = (x - a) / a;
  return Math.exp(a * (Math.log1p(t) - t) - stirlingRemainder(a)) * Math.sqrt(a / TWO_PI);
}

/** P(a, x) by its power series, for x < a + 1 (Numerical Recipes, 3rd ed., eq. 6.2.5). */
function lowerGammaSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    term *= x / (a + n);
    sum += term;
    if (term < sum * EPSILON) break;
  }
  return gammaPrefactor(a, x) * sum;
}

/** Q(a, x) by its continued fraction with the modified Lentz method, for x >= a + 1 (NR 3rd ed., eq. 6.2.7). */
function upperGammaContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
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

/** The regularised upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a), for a > 0. */
export function regularizedGammaQ(a: number, x: number): number {
  if (Number.isNaN(a) || Number.isNaN(x) || !(a > 0)) return Number.NaN;
  if (x <= 0) return 1;
  if (x === Number.POSITIVE_INFINITY) return 0;
  if (x < a + 1) return 1 - lowerGammaSeries(a, x);
  return upperGammaContinuedFraction(a, x);
}

/** P(X >= x) for X chi-square with df > 0 degrees of freedom: Q(df / 2, x / 2). */
export function chiSquareSurvival(x: number, df: number): number {
  return regularizedGammaQ(df / 2, x / 2);
}

/** P(Z >= z) for a standard normal Z: half of a chi-square(1) tail, since Z^2 ~ chi-square(1). */
export function normalSurvival(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  const half = 0.5 * regularizedGammaQ(0.5, 0.5 * z * z);
  return z >= 0 ? half : 1 - half;
}

/** P(Z <= z) for a standard normal Z. */
export function normalCdf(z: number): number {
  return normalSurvival(-z);
}
