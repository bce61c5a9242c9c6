import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { selectRows } from '../../../../src/engine/frame.js';
import {
  abduct, ancestorsOf, compileScm, descendantsOf, drawNoise, frameFromRecords, propagate, valueAt,
} from '../../../../src/engine/inference/scm.js';
import { modelEdges, randomModel, sampleModel, withMissingValues } from '../../../../src/engine/simulate.js';
import type { CbnModel, Frame, NodeModel } from '../../../../src/engine/types.js';

type Continuous = Extract<NodeModel, { kind: 'continuous' }>;

/** A linear node on continuous parents with Gaussian noise (no stored residuals: standard normal noise). */
function linear(name: string, intercept: number, parents: [string, number][], noiseStd: number, residualQuantiles: number[] = []): Continuous {
  return {
    name, kind: 'continuous', parents: parents.map(([p]) => p), terms: parents.map(([p]) => ({ kind: 'linear', parents: [p] })),
    intercept, coefficients: parents.map(([, b]) => b), noiseStd, residualQuantiles, mean: 0, std: 1,
  };
}

/** X ~ N(2, 1); Y = 1 + 3X + N(0, 0.5^2); Z = 0.5X - Y + N(0, 1); G in {lo, hi} with P(hi | Y) = sigmoid(Y - 7). */
function knownModel(): CbnModel {
  return {
    nodes: [
      linear('X', 2, [], 1),
      linear('Y', 1, [['X', 3]], 0.5),
      linear('Z', 0, [['X', 0.5], ['Y', -1]], 1),
      { name: 'G', kind: 'categorical', parents: ['Y'], categories: ['lo', 'hi'], marginal: [0.5, 0.5],
        logistic: { terms: [{ kind: 'linear', parents: ['Y'] }], weights: [[0, 0], [-7, 1]] } },
    ],
  };
}

const column = (frame: Frame, name: string) => {
  const c = frame.columns.find((col) => col.name === name)!;
  return c.kind === 'continuous' ? c.values : Float64Array.from(c.codes);
};
function mean(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]!;
  return s / v.length;
}
function covariance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const ma = mean(a);
  const mb = mean(b);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - ma) * (b[i]! - mb);
  return s / (a.length - 1);
}
const near = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected} (tolerance ${tolerance})`);

test('propagating prior noise reproduces the means and covariances of a known linear SCM', () => {
  const scm = compileScm(knownModel());
  const frame = propagate(scm, drawNoise(scm, 40_000, 1));
  const [x, y, z] = ['X', 'Y', 'Z'].map((n) => column(frame, n));
  near(mean(x!), 2, 0.03, 'E[X]');
  near(mean(y!), 7, 0.05, 'E[Y]');
  near(mean(z!), 1 - 7, 0.05, 'E[Z]');
  // Var Y = 9 + 0.25; Cov(X, Z) = 0.5 - 3 = -2.5; Var Z = Var(-2.5 X - e_Y + e_Z) = 6.25 + 0.25 + 1.
  near(covariance(y!, y!), 9.25, 0.2, 'Var Y');
  near(covariance(x!, z!), -2.5, 0.06, 'Cov(X, Z)');
  near(covariance(z!, z!), 7.5, 0.2, 'Var Z');
  // P(G = hi) = E[sigmoid(Y - 7)] with Y - 7 ~ N(0, 9.25): 0.5 by symmetry.
  near(mean(column(frame, 'G')), 0.5, 0.01, 'P(G = hi)');
});

test('the same seed draws the same noise, and a different seed different noise', () => {
  const scm = compileScm(knownModel());
  assert.deepEqual(drawNoise(scm, 50, 7), drawNoise(scm, 50, 7));
  assert.notDeepEqual(drawNoise(scm, 50, 7)[0], drawNoise(scm, 50, 8)[0]);
});

test('continuous noise follows the stored residual quantiles, not a normal', () => {
  // Standardised exponential residuals (mean 0, sd 1, skewness 2).
  const quantiles = Array.from({ length: 1000 }, (_, i) => -Math.log(1 - (i + 0.5) / 1000) - 1);
  const scm = compileScm({ nodes: [linear('E', 10, [], 2, quantiles)] });
  const e = column(propagate(scm, drawNoise(scm, 40_000, 3)), 'E');
  near(mean(e), 10, 0.04, 'mean');
  const sd = Math.sqrt(covariance(e, e));
  near(sd, 2, 0.05, 'sd');
  let skew = 0;
  for (const v of e) skew += ((v - 10) / sd) ** 3;
  near(skew / e.length, 2, 0.25, 'skewness');
  assert.ok(Math.min(...e) >= 10 + 2 * quantiles[0]! - 1e-9, 'draws stay within the residual range');
});

test('abducting observed units and propagating reproduces them exactly, categorical included', () => {
  const truth = randomModel(10, 2.5, 11, { categoricalShare: 0.4, maxLevels: 4 });
  const data = sampleModel(truth, 3000, 12);
  const model = fitCbn(data, modelEdges(truth), {}, kernels);
  const scm = compileScm(model);
  const units = selectRows(data, Int32Array.from({ length: 300 }, (_, i) => i * 7));
  const replay = propagate(scm, abduct(scm, units, 5));
  for (const c of units.columns) {
    const out = replay.columns[scm.indexOf(c.name)]!;
    if (c.kind === 'categorical') {
      assert.ok(out.kind === 'categorical');
      for (let r = 0; r < units.nRows; r++) assert.equal(out.categories[out.codes[r]!], c.categories[c.codes[r]!], `${c.name} row ${r}`);
    } else {
      assert.ok(out.kind === 'continuous');
      for (let r = 0; r < units.nRows; r++) near(out.values[r]!, c.values[r]!, 1e-9 * (1 + Math.abs(c.values[r]!)), `${c.name} row ${r}`);
    }
  }
});

test('abduction reproduces the observed cells and draws a missing cell\'s noise from its prior', () => {
  const scm = compileScm(knownModel());
  // Only Y observed (a column subset).
  const rows = frameFromRecords(scm, Array.from({ length: 20_000 }, () => ({ Y: 10 })));
  const out = propagate(scm, abduct(scm, { nRows: rows.nRows, columns: [rows.columns[1]!] }, 9));
  for (const v of column(out, 'Y')) near(v, 10, 1e-9, 'Y');
  // Abduction draws X from its prior, not its posterior: it reproduces observed cells and nothing more.
  near(mean(column(out, 'X')), 2, 0.03, 'X drawn from its prior');
  assert.ok(column(out, 'G').every((g) => g === 0 || g === 1));
});

test('treatments: set and shift a continuous node, restricted by a row mask, with common random numbers', () => {
  const scm = compileScm(knownModel());
  const noise = drawNoise(scm, 10_000, 21);
  const base = propagate(scm, noise);
  const setX = propagate(scm, noise, [{ node: 'X', kind: 'set', value: 5 }]);
  assert.ok(column(setX, 'X').every((v) => v === 5));
  // Common random numbers: each unit's Y moves by exactly 3 * (5 - X).
  const [bx, by, sy] = [column(base, 'X'), column(base, 'Y'), column(setX, 'Y')];
  for (let r = 0; r < 100; r++) near(sy[r]! - by[r]!, 3 * (5 - bx[r]!), 1e-9, `unit ${r}`);
  const plus = propagate(scm, noise, [{ node: 'X', kind: 'shift', mode: 'absolute', value: 1 }]);
  near(mean(column(plus, 'Z')) - mean(column(base, 'Z')), 0.5 - 3, 1e-9, 'effect of +1 on Z (0.5 direct - 3 through Y)');
  const pct = propagate(scm, noise, [{ node: 'Y', kind: 'shift', mode: 'percentage', value: -10 }]);
  near(column(pct, 'Y')[3]!, 0.9 * by[3]!, 1e-12, 'Y lowered 10%');
  const rows = Uint8Array.from({ length: 10_000 }, (_, r) => r % 2);
  const half = propagate(scm, noise, [{ node: 'X', kind: 'set', value: 0, rows }]);
  const hx = column(half, 'X');
  assert.equal(hx[1], 0);
  assert.equal(hx[0], bx[0]);
});

test('treatments: set a category and re-draw from adjusted probabilities with the same uniforms', () => {
  const scm = compileScm(knownModel());
  const noise = drawNoise(scm, 20_000, 22);
  const base = column(propagate(scm, noise), 'G');
  const forced = column(propagate(scm, noise, [{ node: 'G', kind: 'set', value: 'hi' }]), 'G');
  assert.ok(forced.every((g) => g === 1));
  const adjusted = column(propagate(scm, noise, [{ node: 'G', kind: 'distribution', adjust: (p) => { p[1] = Math.min(1, p[1]! + 0.2); p[0] = 1 - p[1]!; } }]), 'G');
  // Expected rise per unit: min(1, p + 0.2) - p with p = sigmoid(Y - 7) on the unit's own Y.
  const rise = column(propagate(scm, noise), 'Y').map((y) => {
    const p = 1 / (1 + Math.exp(7 - y));
    return Math.min(1, p + 0.2) - p;
  });
  near(mean(adjusted) - mean(base), mean(rise), 0.01, 'rise of P(hi)');
  // Monotone coupling: raising P(hi) never turns a unit from hi to lo.
  for (let r = 0; r < base.length; r++) assert.ok(adjusted[r]! >= base[r]!);
  assert.throws(() => propagate(scm, noise, [{ node: 'G', kind: 'set', value: 'middle' }]), /no category "middle"/);
  assert.throws(() => propagate(scm, noise, [{ node: 'G', kind: 'shift', mode: 'absolute', value: 1 }]), /categorical/);
  assert.throws(() => propagate(scm, noise, [{ node: 'Q', kind: 'set', value: 1 }]), /not a variable/);
});

test('records become frames over the model and cells read back as JSON values', () => {
  const scm = compileScm(knownModel());
  const records: Record<string, number | string | null>[] = [{ X: 1.5, Y: null, G: 'hi' }, { X: 'oops', Z: -2, G: 'unknown' }, { G: 'lo', W: 3 }];
  const frame = frameFromRecords(scm, records);
  assert.deepEqual(frame.columns.map((c) => c.name), ['X', 'Y', 'Z', 'G']);
  const cells = [0, 1, 2].map((r) => [0, 1, 2, 3].map((c) => valueAt(frame, c, r)));
  assert.deepEqual(cells, [[1.5, null, null, 'hi'], [null, null, -2, null], [null, null, null, 'lo']]);
});

test('ancestors and descendants follow directed paths', () => {
  const scm = compileScm(knownModel());
  assert.deepEqual([...ancestorsOf(scm, scm.indexOf('Z'))].sort(), [0, 1]);
  assert.deepEqual([...descendantsOf(scm, scm.indexOf('X'))].sort(), [1, 2, 3]);
  assert.deepEqual([...descendantsOf(scm, scm.indexOf('G'))], []);
  assert.equal(scm.indexOf('nope'), -1);
  assert.deepEqual(scm.childrenOf(scm.indexOf('Y')), [2, 3]);
});

test('abduction on rows with missing cells still reproduces every observed cell', () => {
  const truth = randomModel(8, 2, 31, { categoricalShare: 0.5 });
  const data = sampleModel(truth, 2000, 32);
  const scm = compileScm(fitCbn(data, modelEdges(truth), {}, kernels));
  const units = withMissingValues(selectRows(data, Int32Array.from({ length: 200 }, (_, i) => i)), 0.3, 33);
  const replay = propagate(scm, abduct(scm, units, 34));
  for (const c of units.columns) {
    const i = scm.indexOf(c.name);
    for (let r = 0; r < units.nRows; r++) {
      const v = valueAt(units, units.columns.indexOf(c), r);
      if (v === null) continue;
      const out = valueAt(replay, i, r);
      if (typeof v === 'number') near(out as number, v, 1e-9 * (1 + Math.abs(v)), `${c.name} row ${r}`);
      else assert.equal(out, v);
    }
  }
});

test('propagating from a baseline recomputes only what the treatments reach, with the same values', () => {
  const truth = randomModel(12, 2.5, 51, { categoricalShare: 0.3 });
  const scm = compileScm(fitCbn(sampleModel(truth, 2000, 52), modelEdges(truth), {}, kernels));
  const noise = drawNoise(scm, 500, 53);
  const base = propagate(scm, noise);
  const target = scm.model.nodes.find((n) => n.kind === 'continuous' && scm.childrenOf(scm.indexOf(n.name)).length > 0)!.name;
  const treatments = [{ node: target, kind: 'shift' as const, mode: 'absolute' as const, value: 2 }];
  const full = propagate(scm, noise, treatments);
  const fast = propagate(scm, noise, treatments, base);
  assert.deepEqual(fast, full);
  const reached = descendantsOf(scm, scm.indexOf(target));
  fast.columns.forEach((c, i) => {
    const shared = c.kind === 'continuous' ? c.values === (base.columns[i] as typeof c).values : c.codes === (base.columns[i] as typeof c).codes;
    assert.equal(shared, !reached.has(i) && i !== scm.indexOf(target), `column ${c.name}`);
  });
});
