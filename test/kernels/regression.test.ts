import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KernelStatus } from '../../src/compute/kernels.js';
import { assertClose, InputSource, reference, wasm } from './support.js';

const implementations = { reference, wasm };
/** WASM vs reference: Cholesky and least squares run the same operations in the same order. */
const LINEAR_TOLERANCE = 1e-13;
/** Logistic fits: both converge to the same optimum; Math.exp/log ulps move the last Newton step slightly. */
const LOGISTIC_TOLERANCE = 1e-10;

/** A random symmetric positive-definite k x k matrix B B' + I. */
function spdMatrix(source: InputSource, k: number): Float64Array {
  const b = source.normals(k * k);
  const a = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      let sum = i === j ? 1 : 0;
      for (let q = 0; q < k; q++) sum += b[i * k + q]! * b[j * k + q]!;
      a[i * k + j] = sum;
    }
  }
  return a;
}

/** An n x k design with an intercept column first. */
function design(source: InputSource, n: number, k: number): Float64Array {
  const x = new Float64Array(n * k);
  for (let r = 0; r < n; r++) for (let j = 0; j < k; j++) x[r * k + j] = j === 0 ? 1 : source.normal();
  return x;
}

/** Class probabilities of every row under weights w (classes x k). */
function probabilities(x: Float64Array, n: number, k: number, classes: number, w: Float64Array): Float64Array {
  const prob = new Float64Array(n * classes);
  for (let r = 0; r < n; r++) {
    const scores = Array.from({ length: classes }, (_, c) => {
      let z = 0;
      for (let a = 0; a < k; a++) z += w[c * k + a]! * x[r * k + a]!;
      return z;
    });
    const max = Math.max(...scores);
    const total = scores.reduce((s, z) => s + Math.exp(z - max), 0);
    scores.forEach((z, c) => (prob[r * classes + c] = Math.exp(z - max) / total));
  }
  return prob;
}

/** Draws labels from the softmax model with weights w. */
function simulateClasses(source: InputSource, x: Float64Array, n: number, k: number, classes: number, w: Float64Array): Int32Array {
  const prob = probabilities(x, n, k, classes, w);
  return Int32Array.from({ length: n }, (_, r) => {
    let u = source.uniform();
    for (let c = 0; c < classes - 1; c++) {
      u -= prob[r * classes + c]!;
      if (u < 0) return c;
    }
    return classes - 1;
  });
}

for (const [name, kernels] of Object.entries(implementations)) {
  test(`${name}: Cholesky factors [[4, 12, -16], [12, 37, -43], [-16, -43, 98]] into [[2], [6, 1], [-8, 5, 3]]`, () => {
    const { status, l } = kernels.cholesky(new Float64Array([4, 12, -16, 12, 37, -43, -16, -43, 98]), 3);
    assert.equal(status, KernelStatus.ok);
    assertClose(l, [2, 0, 0, 6, 1, 0, -8, 5, 3], 1e-15, 'L');
  });

  test(`${name}: an indefinite or singular matrix answers status 1 and a NaN factor`, () => {
    for (const a of [[1, 2, 2, 1], [1, 1, 1, 1], [0, 0, 0, 1], [Number.NaN, 0, 0, 1]]) {
      const { status, l } = kernels.cholesky(new Float64Array(a), 2);
      assert.equal(status, KernelStatus.singular, `[${a}]`);
      assert.ok(l.every(Number.isNaN));
    }
    assert.deepEqual(kernels.cholesky(new Float64Array(0), 0), { status: 0, l: new Float64Array(0) });
  });

  test(`${name}: least squares recovers exact coefficients from noise-free data`, () => {
    const source = new InputSource(2);
    const n = 200;
    const x = design(source, n, 3);
    const y = Float64Array.from({ length: n }, (_, r) => 1 + 2 * x[r * 3 + 1]! - 3 * x[r * 3 + 2]!);
    const { status, coef, rss } = kernels.leastSquares(x, y, n, 3, 0);
    assert.equal(status, KernelStatus.ok);
    assertClose(coef, [1, 2, -3], 1e-12, 'coefficients');
    assert.ok(rss < 1e-20, `rss ${rss}`);
  });

  test(`${name}: least squares with noise lands within sampling error and ridge shrinks as its closed form says`, () => {
    const source = new InputSource(4);
    const n = 20_000;
    const x = design(source, n, 3);
    const y = Float64Array.from({ length: n }, (_, r) => 0.5 - x[r * 3 + 1]! + 0.25 * x[r * 3 + 2]! + 0.1 * source.normal());
    const { coef, rss } = kernels.leastSquares(x, y, n, 3, 0);
    assertClose(coef, [0.5, -1, 0.25], 0.005, 'coefficients');
    assert.ok(Math.abs(rss / n - 0.01) < 0.001, `residual variance ${rss / n}`);
    // One column, no intercept: b = sum xy / (sum x^2 + ridge).
    const single = Float64Array.from({ length: 50 }, (_, r) => x[r * 3 + 1]!);
    const target = y.subarray(0, 50);
    const sxy = single.reduce((s, v, r) => s + v * target[r]!, 0);
    const sxx = single.reduce((s, v) => s + v * v, 0);
    assertClose(kernels.leastSquares(single, target, 50, 1, 7).coef, [sxy / (sxx + 7)], 1e-14, 'ridge closed form');
  });

  test(`${name}: a duplicated column or fewer rows than columns is singular unless ridge is positive`, () => {
    const x = new Float64Array([1, 2, 2, 1, 3, 3, 1, 5, 5, 1, 7, 7]);
    const y = new Float64Array([1, 2, 3, 4]);
    const singular = kernels.leastSquares(x, y, 4, 3, 0);
    assert.equal(singular.status, KernelStatus.singular);
    assert.ok(singular.coef.every(Number.isNaN) && Number.isNaN(singular.rss));
    assert.equal(kernels.leastSquares(x, y, 4, 3, 1e-3).status, KernelStatus.ok);
    assert.equal(kernels.leastSquares(x.subarray(0, 6), y.subarray(0, 2), 2, 3, 0).status, KernelStatus.singular);
  });

  test(`${name}: logistic regression recovers the weights it simulated from and stops at a zero gradient`, () => {
    const source = new InputSource(8);
    const [n, k, classes] = [30_000, 3, 3];
    const truth = new Float64Array([0.5, 1, -0.5, -0.2, -1, 0, -0.3, 0, 0.5]); // columns sum to 0 over classes
    const x = design(source, n, k);
    const y = simulateClasses(source, x, n, k, classes, truth);
    const l2 = 1e-3;
    const { status, weights, logLoss } = kernels.logisticRegression(x, y, n, k, classes, l2, 50);
    assert.equal(status, KernelStatus.ok);
    assertClose(weights, truth, 0.08, 'weights vs truth');
    const prob = probabilities(x, n, k, classes, weights);
    const gradient = new Float64Array(classes * k);
    let loss = 0;
    for (let r = 0; r < n; r++) {
      loss -= Math.log(prob[r * classes + y[r]!]!);
      for (let c = 0; c < classes; c++) {
        for (let a = 0; a < k; a++) gradient[c * k + a]! += (prob[r * classes + c]! - (c === y[r] ? 1 : 0)) * x[r * k + a]!;
      }
    }
    gradient.forEach((g, i) => assert.ok(Math.abs(g + l2 * weights[i]!) < 1e-7 * n, `gradient ${i}: ${g + l2 * weights[i]!}`));
    assertClose([logLoss], [loss / n], 1e-12, 'mean log loss');
  });

  test(`${name}: logistic regression answers status 1 without valid labels and 2 at its iteration limit`, () => {
    const x = new Float64Array([1, 0, 1, 1, 1, 2, 1, 3]);
    const none = kernels.logisticRegression(x, new Int32Array([-1, 5, -1, 2]), 4, 2, 2, 1, 10);
    assert.equal(none.status, KernelStatus.singular);
    const zeroIterations = kernels.logisticRegression(x, new Int32Array([0, 1, 0, 1]), 4, 2, 2, 1, 0);
    assert.equal(zeroIterations.status, KernelStatus.notConverged);
    assert.ok(zeroIterations.weights.every((w) => w === 0));
    assertClose([zeroIterations.logLoss], [Math.log(2)], 1e-15, 'uniform prediction loss');
    // Perfectly separated classes without a penalty: the weights grow without bound.
    const separated = kernels.logisticRegression(x, new Int32Array([0, 0, 1, 1]), 4, 2, 2, 0, 30);
    assert.equal(separated.status, KernelStatus.notConverged);
    assert.ok(separated.logLoss < 1e-3);
  });
}

test('WASM Cholesky and least squares agree with the reference on random systems up to 100,000 rows', () => {
  const source = new InputSource(6);
  for (const k of [1, 2, 5, 20, 60]) {
    const a = spdMatrix(source, k);
    const expected = reference.cholesky(a, k);
    const actual = wasm.cholesky(a, k);
    assert.equal(actual.status, expected.status);
    assertClose(actual.l, expected.l, LINEAR_TOLERANCE, `wasm/ref cholesky k=${k}`);
  }
  for (const n of [0, 1, 5, 100, 10_000, 100_000]) {
    for (const k of [1, 3, 8, 17]) {
      const x = design(source, n, k);
      const y = source.normals(n);
      for (const ridge of [0, 0.5]) {
        const expected = reference.leastSquares(x, y, n, k, ridge);
        const actual = wasm.leastSquares(x, y, n, k, ridge);
        assert.equal(actual.status, expected.status, `status n=${n} k=${k} ridge=${ridge}`);
        assertClose(actual.coef, expected.coef, LINEAR_TOLERANCE, `wasm/ref coefficients n=${n} k=${k} ridge=${ridge}`);
        assertClose([actual.rss], [expected.rss], LINEAR_TOLERANCE, `wasm/ref rss n=${n} k=${k} ridge=${ridge}`);
      }
    }
  }
});

test('WASM logistic regression agrees with the reference for 1 to 5 classes, with and without a penalty', () => {
  const source = new InputSource(9);
  for (const n of [10, 1000, 20_000]) {
    for (const [k, classes] of [[1, 1], [2, 2], [3, 3], [4, 5]] as const) {
      const x = design(source, n, k);
      const w = source.normals(classes * k);
      const y = simulateClasses(source, x, n, k, classes, w);
      if (n > 10) y[3] = -1; // a row without a label
      for (const l2 of [0, 0.1, 10]) {
        const expected = reference.logisticRegression(x, y, n, k, classes, l2, 40);
        const actual = wasm.logisticRegression(x, y, n, k, classes, l2, 40);
        const label = `n=${n} k=${k} classes=${classes} l2=${l2}`;
        assert.equal(actual.status, expected.status, `status ${label}`);
        assertClose(actual.weights, expected.weights, LOGISTIC_TOLERANCE, `wasm/ref weights ${label}`);
        assertClose([actual.logLoss], [expected.logLoss], 1e-12, `wasm/ref log loss ${label}`);
      }
    }
  }
});
