import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../src/compute/reference.js';
import { fitCbn } from '../../../src/engine/cbn/fit.js';
import { categoricalColumn, continuousColumn, frameOf } from '../../../src/engine/frame.js';
import { Rng } from '../../../src/engine/random.js';
import { withMissingValues } from '../../../src/engine/simulate.js';
import type { CbnModel, Frame, NodeModel } from '../../../src/engine/types.js';
import { AppError } from '../../../src/errors.js';

/** X ~ N(0,1); G in {a,b,c} with P = (0.2, 0.3, 0.5); Y = 1 + 2X - 0.5 [G=b] + 1.5 [G=c] + N(0, 0.5^2); C = Bernoulli(sigmoid(-0.5 + 1.5X)); Z in {u,v} with P(v | G) = (0.1, 0.5, 0.8). */
function mixedFrame(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const x: number[] = [];
  const g: string[] = [];
  const y: number[] = [];
  const c: string[] = [];
  const z: string[] = [];
  for (let i = 0; i < n; i++) {
    const xi = rng.normal();
    const u = rng.uniform();
    const gi = u < 0.2 ? 'a' : u < 0.5 ? 'b' : 'c';
    x.push(xi);
    g.push(gi);
    y.push(1 + 2 * xi + (gi === 'b' ? -0.5 : gi === 'c' ? 1.5 : 0) + 0.5 * rng.normal());
    c.push(rng.uniform() < 1 / (1 + Math.exp(-(-0.5 + 1.5 * xi))) ? 'yes' : 'no');
    z.push(rng.uniform() < { a: 0.1, b: 0.5, c: 0.8 }[gi]! ? 'v' : 'u');
  }
  return frameOf([
    continuousColumn('X', x),
    categoricalColumn('G', g, ['a', 'b', 'c']),
    continuousColumn('Y', y),
    categoricalColumn('C', c, ['no', 'yes']),
    categoricalColumn('Z', z, ['u', 'v']),
  ]);
}

const edges = [
  { source: 'X', target: 'Y' },
  { source: 'G', target: 'Y' },
  { source: 'X', target: 'C' },
  { source: 'G', target: 'Z' },
];

const node = (model: CbnModel, name: string): NodeModel => model.nodes.find((n) => n.name === name)!;

test('nodes come in topological order with their parents', () => {
  const model = fitCbn(mixedFrame(500, 1), edges, {}, kernels);
  const order = model.nodes.map((n) => n.name);
  for (const e of edges) assert.ok(order.indexOf(e.source) < order.indexOf(e.target));
  assert.deepEqual(node(model, 'Y').parents, ['X', 'G']);
});

test('a linear-Gaussian node recovers its intercept, slopes, indicator effects and noise', () => {
  const y = node(fitCbn(mixedFrame(20_000, 2), edges, {}, kernels), 'Y');
  assert.ok(y.kind === 'continuous');
  assert.deepEqual(y.terms.map((t) => `${t.kind}:${t.parents.join('*')}${t.category ? `=${t.category}` : ''}`), ['linear:X', 'indicator:G=b', 'indicator:G=c']);
  const expected = [2, -0.5, 1.5];
  y.coefficients.forEach((b, i) => assert.ok(Math.abs(b - expected[i]!) < 0.03, `coefficient ${i}: ${b}`));
  assert.ok(Math.abs(y.intercept - 1) < 0.03, `intercept ${y.intercept}`);
  assert.ok(Math.abs(y.noiseStd - 0.5) < 0.01, `noise ${y.noiseStd}`);
  assert.ok(y.residualQuantiles.length === 1000);
  for (let i = 1; i < y.residualQuantiles.length; i++) assert.ok(y.residualQuantiles[i]! >= y.residualQuantiles[i - 1]!);
  assert.ok(Math.abs(y.residualQuantiles[500]!) < 0.05, 'standardised residuals centre on 0');
  // The training margin: 256 evenly spaced order statistics, from the smallest value to the largest.
  const values = Float64Array.from((mixedFrame(20_000, 2).columns.find((c) => c.name === 'Y') as { values: Float64Array }).values).sort();
  assert.equal(y.valueQuantiles?.length, 256);
  assert.equal(y.valueQuantiles![0], values[0]);
  assert.equal(y.valueQuantiles![255], values[values.length - 1]);
  assert.equal(y.valueQuantiles![128], values[Math.round((128 * (values.length - 1)) / 255)]);
});

test('a categorical node with categorical parents gets a smoothed CPT close to the truth', () => {
  const z = node(fitCbn(mixedFrame(20_000, 3), edges, { smoothing: 1 }, kernels), 'Z');
  assert.ok(z.kind === 'categorical' && z.cpt);
  assert.deepEqual(z.cpt.parentCategories, [['a', 'b', 'c']]);
  [0.1, 0.5, 0.8].forEach((pv, row) => {
    assert.ok(Math.abs(z.cpt!.table[row]![1]! - pv) < 0.03, `P(v | G=${row}) = ${z.cpt!.table[row]![1]}`);
    assert.ok(Math.abs(z.cpt!.table[row]![0]! + z.cpt!.table[row]![1]! - 1) < 1e-12);
  });
});

test('Laplace smoothing keeps an unseen category above zero', () => {
  const frame = frameOf([categoricalColumn('A', ['x', 'x', 'x'], ['x', 'y'])]);
  const a = node(fitCbn(frame, [], { smoothing: 1 }, kernels), 'A');
  assert.ok(a.kind === 'categorical');
  assert.deepEqual(a.cpt!.table[0], [4 / 5, 1 / 5]);
  assert.deepEqual(a.marginal, [4 / 5, 1 / 5]);
});

test('a categorical node with a continuous parent gets a multinomial logistic model', () => {
  const c = node(fitCbn(mixedFrame(20_000, 4), edges, {}, kernels), 'C');
  assert.ok(c.kind === 'categorical' && c.logistic && !c.cpt);
  const [no, yes] = c.logistic.weights;
  // Softmax weights are identified up to a shift common to all classes: compare differences.
  assert.ok(Math.abs(yes![0]! - no![0]! + 0.5) < 0.08, `intercept difference ${yes![0]! - no![0]!}`);
  assert.ok(Math.abs(yes![1]! - no![1]! - 1.5) < 0.08, `slope difference ${yes![1]! - no![1]!}`);
});

test('the nonlinear basis adds squares and products of continuous parents and recovers them', () => {
  const rng = new Rng(5);
  const a = Array.from({ length: 5000 }, () => rng.normal());
  const b = Array.from({ length: 5000 }, () => rng.normal());
  const y = a.map((v, i) => v * v - 0.5 * v * b[i]! + 0.1 * rng.normal());
  const frame = frameOf([continuousColumn('A', a), continuousColumn('B', b), continuousColumn('Y', y)]);
  const fitted = node(fitCbn(frame, [{ source: 'A', target: 'Y' }, { source: 'B', target: 'Y' }], { nonlinear: true }, kernels), 'Y');
  assert.ok(fitted.kind === 'continuous');
  const coefficient = (kind: string, parents: string) => fitted.coefficients[fitted.terms.findIndex((t) => t.kind === kind && t.parents.join('*') === parents)]!;
  assert.ok(Math.abs(coefficient('square', 'A') - 1) < 0.01);
  assert.ok(Math.abs(coefficient('product', 'A*B') + 0.5) < 0.01);
  assert.ok(Math.abs(coefficient('linear', 'A')) < 0.01);
});

test('missing values are dropped per family and the coefficients still come back', () => {
  const frame = withMissingValues(mixedFrame(20_000, 6), 0.2, 1);
  const y = node(fitCbn(frame, edges, {}, kernels), 'Y');
  assert.ok(y.kind === 'continuous');
  assert.ok(Math.abs(y.coefficients[0]! - 2) < 0.04, `slope ${y.coefficients[0]}`);
  assert.ok(Number.isFinite(y.noiseStd) && Number.isFinite(y.intercept));
});

test('a node whose family is never observed together falls back to its marginal', () => {
  const frame = frameOf([continuousColumn('A', [1, null, 3, null]), continuousColumn('B', [null, 2, null, 4])]);
  const b = node(fitCbn(frame, [{ source: 'A', target: 'B' }], {}, kernels), 'B');
  assert.ok(b.kind === 'continuous');
  assert.equal(b.intercept, 3);
  assert.deepEqual(b.coefficients, [0]);
});

test('edges that form a cycle or name unknown columns are refused as validation_failed', () => {
  const frame = mixedFrame(100, 7);
  const cycle = [{ source: 'X', target: 'Y' }, { source: 'Y', target: 'X' }];
  assert.throws(() => fitCbn(frame, cycle, {}, kernels), (e: unknown) => e instanceof AppError && e.code === 'validation_failed');
  assert.throws(() => fitCbn(frame, [{ source: 'X', target: 'nope' }], {}, kernels), AppError);
});

test('the fitted model survives a structured clone (it can cross into and out of a worker)', () => {
  const model = fitCbn(mixedFrame(300, 8), edges, { nonlinear: true }, kernels);
  assert.deepEqual(structuredClone(model), model);
});

test('a logistic model too large to fit (a 300-category variable given a 100-category parent and a number) is refused with a clear 422, not a kernel failure', () => {
  const rng = new Rng(8);
  const n = 2000;
  const frame = frameOf([
    continuousColumn('x', Array.from({ length: n }, () => rng.normal())),
    categoricalColumn('region', Array.from({ length: n }, () => `r${Math.floor(rng.uniform() * 100)}`)),
    categoricalColumn('sku', Array.from({ length: n }, () => `s${Math.floor(rng.uniform() * 300)}`)),
  ]);
  assert.throws(
    () => fitCbn(frame, [{ source: 'x', target: 'sku' }, { source: 'region', target: 'sku' }], {}, kernels),
    (error: unknown) => error instanceof AppError && error.code === 'validation_failed' && /sku has 300 categories/.test(error.message) && /merge rare categories/.test(error.message),
  );
});
