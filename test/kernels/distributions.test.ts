import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chiSquareSurvival, logGamma, normalCdf, normalSurvival } from '../../src/compute/distributions.js';
import { loadWasmModule } from '../../src/compute/wasm.js';
import { assertClose } from './support.js';

/** The goal for p-values above 1e-300 is 1e-10 relative; the implementation measures below 1e-13. */
const TOLERANCE = 1e-12;

// [x, df, P(chi2_df >= x)] computed with mpmath 1.3 at 40 digits: gammainc(df/2, x/2, inf, regularized=True).
const CHI_SQUARE_TAILS: [number, number, number][] = [
  [3.841458820694124, 1, 0.050000000000000057],
  [6.634896601021214, 1, 0.010000000000000009],
  [10.827566170662733, 1, 0.00099999999999999969],
  [0.001, 1, 0.97477287936996039],
  [1e-12, 1, 0.9999992021154392],
  [50, 1, 1.5374597944280349e-12],
  [700, 1, 2.9902269751246203e-154],
  [1300, 1, 1.1303728441492742e-284],
  [0.5, 3, 0.91889141165467586],
  [7.814727903251178, 3, 0.050000000000000038],
  [30, 5, 1.4748581038443052e-5],
  [18.307038053275146, 10, 0.050000000000000007],
  [200, 10, 1.6139305336977305e-37],
  [60, 50, 0.1572420272383916],
  [40, 50, 0.84322737817376227],
  [100, 100, 0.48119168452795672],
  [150, 100, 0.00090393204235400909],
  [1100, 1000, 0.014614408126295194],
  [950, 1000, 0.86912406574568843],
  [10500, 10000, 0.00024794736798936085],
  [9000, 10000, 0.99999999999987302],
  [12000, 10000, 1.1470065524601248e-40],
  [2500, 2000, 1.0740080231386176e-13],
];

// [z, P(Z >= z)] computed with mpmath 1.3 at 40 digits: ncdf(-z).
const NORMAL_TAILS: [number, number][] = [
  [0, 0.5],
  [0.5, 0.3085375387259869],
  [1, 0.15865525393145705],
  [1.959963984540054, 0.025000000000000011],
  [3, 0.0013498980316300945],
  [5, 2.8665157187919391e-7],
  [8, 6.2209605742717841e-16],
  [10, 7.6198530241605261e-24],
  [20, 2.7536241186062337e-89],
  [30, 4.9067139271481871e-198],
  [37, 5.7255712225245768e-300],
  [-1, 0.84134474606854295],
  [-3, 0.99865010196836991],
];

test('the chi-square survival function matches high-precision values from 1 to 10,000 degrees of freedom', () => {
  const computed = CHI_SQUARE_TAILS.map(([x, df]) => chiSquareSurvival(x, df));
  assertClose(computed, CHI_SQUARE_TAILS.map(([, , expected]) => expected), TOLERANCE, 'chi-square tails', 0);
});

test('chi2(1) at its 95% quantile 3.841458820694124 answers 0.05', () => {
  assert.ok(Math.abs(chiSquareSurvival(3.841458820694124, 1) - 0.05) < 1e-15);
});

test('even degrees of freedom match the closed form exp(-x/2) sum_{i<m} (x/2)^i / i!', () => {
  const computed: number[] = [];
  const expected: number[] = [];
  for (let m = 1; m <= 60; m += 3) {
    for (const x of [0.01, 0.5, 2, 2 * m - 1, 2 * m, 2 * m + 3, 4 * m, 10 * m + 20, 600]) {
      let term = 1;
      let sum = 1;
      for (let i = 1; i < m; i++) {
        term *= x / 2 / i;
        sum += term;
      }
      computed.push(chiSquareSurvival(x, 2 * m));
      expected.push(Math.exp(-x / 2) * sum);
    }
  }
  assertClose(computed, expected, TOLERANCE, 'even-df closed form', 0);
});

test('the normal tails match high-precision values down to 1e-300 and the CDF mirrors them', () => {
  assertClose(NORMAL_TAILS.map(([z]) => normalSurvival(z)), NORMAL_TAILS.map(([, p]) => p), TOLERANCE, 'normal tails', 0);
  assert.ok(Math.abs(normalCdf(1.959963984540054) - 0.975) < 1e-15);
});

test('logGamma matches factorials and Gamma(1/2) = sqrt(pi)', () => {
  const factorials = [1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880, 3628800, 39916800];
  assertClose(factorials.map((_, i) => logGamma(i + 1)), factorials.map(Math.log), 1e-14, 'ln (n - 1)!');
  assert.ok(Math.abs(logGamma(0.5) - Math.log(Math.sqrt(Math.PI))) < 1e-14);
});

test('the tails answer 1 at 0, 0 at infinity and NaN for NaN or non-positive degrees of freedom', () => {
  assert.equal(chiSquareSurvival(0, 3), 1);
  assert.equal(chiSquareSurvival(-2, 3), 1);
  assert.equal(chiSquareSurvival(Number.POSITIVE_INFINITY, 3), 0);
  assert.ok(Number.isNaN(chiSquareSurvival(Number.NaN, 3)));
  assert.ok(Number.isNaN(chiSquareSurvival(1, 0)));
  assert.ok(Number.isNaN(normalSurvival(Number.NaN)));
});

test('the WebAssembly port of the chi-square survival function agrees with the reference', () => {
  const module = loadWasmModule();
  const computed: number[] = [];
  const expected: number[] = [];
  for (const df of [0.5, 1, 2, 3, 7, 19.5, 20, 99, 1000, 12345, 1e5]) {
    for (const ratio of [1e-4, 0.01, 0.3, 0.9, 0.99, 1, 1.01, 1.1, 1.5, 3, 10]) {
      for (const x of [ratio * df, ratio * df + 2 * Math.sqrt(df), 1300 * ratio]) {
        computed.push(module.chiSquareSurvival(x, df));
        expected.push(chiSquareSurvival(x, df));
      }
    }
  }
  assertClose(computed, expected, 1e-13, 'wasm vs reference chi-square tails', 1e-300);
});
