import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, correlatedData, InputSource, packTests, reference, wasm } from './support.js';

const implementations = { reference, wasm };
/** WASM vs reference: the same operations in the same order, so identical but for Math.log/atanh ulps. */
const MOMENTS_TOLERANCE = 1e-14;
const FISHER_TOLERANCE = 1e-12;

for (const [name, kernels] of Object.entries(implementations)) {
  test(`${name}: the covariance of a known 4 x 2 matrix is [[20/3, 34/3], [34/3, 62/3]]`, () => {
    const { means, cov } = kernels.covariance(new Float64Array([1, 2, 3, 6, 5, 7, 7, 13]), 4, 2);
    assertClose(means, [4, 7], 1e-15, 'means');
    assertClose(cov, [20 / 3, 34 / 3, 34 / 3, 62 / 3], 1e-15, 'covariance');
    assertClose(kernels.correlation(new Float64Array([1, 2, 3, 6, 5, 7, 7, 13]), 4, 2), [1, 34 / Math.sqrt(20 * 62), 34 / Math.sqrt(20 * 62), 1], 1e-15, 'correlation');
  });

  test(`${name}: fewer than two rows answer NaN covariance and a constant column NaN correlations`, () => {
    assert.ok(kernels.covariance(new Float64Array(0), 0, 3).cov.every(Number.isNaN));
    const single = kernels.covariance(new Float64Array([1, 2, 3]), 1, 3);
    assert.deepEqual([...single.means], [1, 2, 3]);
    assert.ok(single.cov.every(Number.isNaN));
    const corr = kernels.correlation(new Float64Array([1, 5, 2, 2, 5, 4, 3, 5, 7]), 3, 3);
    assert.deepEqual([...corr].map(Number.isNaN), [false, true, false, true, true, true, false, true, false]);
  });

  test(`${name}: with three correlations of 0.5 the partial correlation is 1/3 and n = 100 gives p = 6.845e-4`, () => {
    const corr = new Float64Array([1, 0.5, 0.5, 0.5, 1, 0.5, 0.5, 0.5, 1]);
    const { partial, pValue } = kernels.fisherZBatch(corr, 3, 100, packTests(1, [[0, 1, 2], [0, 1]]), 1, 2);
    // (r_xy - r_xz r_yz) / sqrt((1 - r_xz^2)(1 - r_yz^2)); the p-value is 2 (1 - Phi(atanh(1/3) sqrt(96))) by mpmath.
    assertClose(partial, [1 / 3, 0.5], 1e-15, 'partial correlations');
    assertClose([pValue[0]!], [0.00068449887266810155], 1e-12, 'p-value', 0);
  });

  test(`${name}: a partial correlation equals the correlation of the two regression residuals`, () => {
    const source = new InputSource(11);
    const n = 3000;
    const p = 5;
    const data = correlatedData(source, n, p);
    const corr = kernels.correlation(data, n, p);
    const conditioning = [1, 3, 4];
    const rx = residuals(data, n, p, 0, conditioning);
    const ry = residuals(data, n, p, 2, conditioning);
    const expected = kernels.correlation(interleave(rx, ry), n, 2)[1]!;
    const { partial } = kernels.fisherZBatch(corr, p, n, packTests(3, [[0, 2, ...conditioning]]), 3, 1);
    assertClose(partial, [expected], 1e-12, 'partial vs residual correlation');
  });

  test(`${name}: a conditioning variable that copies another is dropped; one that copies x answers NaN`, () => {
    const corr = new Float64Array([1, 0.3, 0.4, 0.4, 0.3, 1, 0.2, 0.2, 0.4, 0.2, 1, 1, 0.4, 0.2, 1, 1]);
    const tests = packTests(2, [[0, 1, 2, 3], [0, 1, 2], [0, 2, 3], [0, 1, 0], [2, 2], [0, 9], [0, 1, -1]]);
    const { partial, pValue } = kernels.fisherZBatch(corr, 4, 50, tests, 2, 7);
    assert.equal(partial[0], partial[1], 'S = {2, 3} with 3 a copy of 2 is S = {2}');
    assert.equal(pValue[0], pValue[1], 'the dropped copy does not count in n - |S| - 3');
    assert.ok(Number.isNaN(partial[2]!), 'y = 2 is determined by S = {3}, its copy');
    assert.ok(Number.isNaN(partial[3]!), 'x in its own conditioning set');
    assert.equal(partial[4], 1, 'a variable with itself');
    assert.equal(pValue[4], 0);
    assert.ok(Number.isNaN(partial[5]!) && Number.isNaN(partial[6]!), 'indices out of range');
  });

  test(`${name}: too few rows for n - |S| - 3 > 0 answer the partial correlation with a NaN p-value`, () => {
    const corr = new Float64Array([1, 0.2, 0.1, 0.2, 1, 0.3, 0.1, 0.3, 1]);
    const { partial, pValue } = kernels.fisherZBatch(corr, 3, 4, packTests(1, [[0, 1], [0, 1, 2]]), 1, 2);
    assert.ok(Number.isFinite(partial[1]!) && Number.isNaN(pValue[1]!));
    assert.ok(Number.isFinite(pValue[0]!));
  });
}

test('WASM covariance and correlation agree with the reference from 1 to 100,000 rows', () => {
  const source = new InputSource(3);
  for (const n of [1, 2, 3, 10, 1000, 100_000]) {
    for (const p of [1, 2, 3, 7, 16]) {
      const data = correlatedData(source, n, p);
      const expected = reference.covariance(data, n, p);
      const actual = wasm.covariance(data, n, p);
      assertClose(actual.means, expected.means, MOMENTS_TOLERANCE, `wasm/ref means n=${n} p=${p}`);
      assertClose(actual.cov, expected.cov, MOMENTS_TOLERANCE, `wasm/ref covariance n=${n} p=${p}`);
      assertClose(wasm.correlation(data, n, p), reference.correlation(data, n, p), MOMENTS_TOLERANCE, `wasm/ref correlation n=${n} p=${p}`);
    }
  }
});

test('WASM Fisher-z batches agree with the reference for conditioning sets of 0 to 6 variables', () => {
  const source = new InputSource(5);
  for (const [n, p] of [[20, 4], [500, 10], [100_000, 30]] as const) {
    const corr = reference.correlation(correlatedData(source, n, p), n, p);
    const maxK = Math.min(6, p - 2);
    const tests: number[][] = [];
    for (let t = 0; t < 300; t++) {
      const order = shuffled(source, p);
      tests.push(order.slice(0, 2 + (t % (maxK + 1))));
    }
    const expected = reference.fisherZBatch(corr, p, n, packTests(maxK, tests), maxK, tests.length);
    const actual = wasm.fisherZBatch(corr, p, n, packTests(maxK, tests), maxK, tests.length);
    assertClose(actual.partial, expected.partial, FISHER_TOLERANCE, `wasm/ref partial n=${n} p=${p}`);
    assertClose(actual.pValue, expected.pValue, FISHER_TOLERANCE, `wasm/ref p-value n=${n} p=${p}`, 1e-300);
  }
});

/** The numbers 0..p-1 in random order. */
function shuffled(source: InputSource, p: number): number[] {
  const order = Array.from({ length: p }, (_, i) => i);
  for (let i = p - 1; i > 0; i--) {
    const j = source.integer(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** Residuals of column `target` on an intercept and `predictors`, by Gaussian elimination on the normal equations. */
function residuals(data: Float64Array, n: number, p: number, target: number, predictors: number[]): Float64Array {
  const columns = [-1, ...predictors];
  const value = (r: number, c: number) => (c < 0 ? 1 : data[r * p + c]!);
  const m = columns.length;
  const system = Array.from({ length: m }, (_, i) =>
    Array.from({ length: m + 1 }, (_, j) => {
      let sum = 0;
      for (let r = 0; r < n; r++) sum += value(r, columns[i]!) * (j < m ? value(r, columns[j]!) : value(r, target));
      return sum;
    }),
  );
  for (let i = 0; i < m; i++) {
    for (let row = i + 1; row < m; row++) {
      const factor = system[row]![i]! / system[i]![i]!;
      for (let j = i; j <= m; j++) system[row]![j]! -= factor * system[i]![j]!;
    }
  }
  const beta = new Array<number>(m).fill(0);
  for (let i = m - 1; i >= 0; i--) {
    let sum = system[i]![m]!;
    for (let j = i + 1; j < m; j++) sum -= system[i]![j]! * beta[j]!;
    beta[i] = sum / system[i]![i]!;
  }
  return Float64Array.from({ length: n }, (_, r) => value(r, target) - columns.reduce((s, c, i) => s + beta[i]! * value(r, c), 0));
}

function interleave(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length * 2);
  a.forEach((v, i) => {
    out[2 * i] = v;
    out[2 * i + 1] = b[i]!;
  });
  return out;
}
