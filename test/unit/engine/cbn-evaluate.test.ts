import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../src/compute/reference.js';
import { evaluateCbn, MIN_EVALUATION_ROWS, splitHoldout } from '../../../src/engine/cbn/evaluate.js';
import { fitCbn } from '../../../src/engine/cbn/fit.js';
import { classificationMetrics, regressionMetrics } from '../../../src/engine/cbn/metrics.js';
import { categoricalColumn, continuousColumn, frameOf, selectRows } from '../../../src/engine/frame.js';
import { Rng } from '../../../src/engine/random.js';
import type { CbnModel, Frame } from '../../../src/engine/types.js';

const close = (actual: number | undefined, expected: number, what: string) => assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} vs ${expected}`);

test('regression metrics match a hand-computed case (mape skips zero actuals)', () => {
  const m = regressionMetrics([1, 2, 3, 4, 0], [1, 2, 2, 5, 1]);
  close(m.mse, 3 / 5, 'mse');
  close(m.mae, 3 / 5, 'mae');
  close(m.mape, (1 / 3 + 1 / 4) / 4, 'mape');
  // mean 2, SST = 1 + 0 + 1 + 4 + 4 = 10, SSE = 3
  close(m.r2, 1 - 3 / 10, 'r2');
});

test('classification metrics match a hand-computed case', () => {
  const probabilities = Float64Array.from([0.9, 0.1, 0.4, 0.6, 0.2, 0.8, 0.6, 0.4]);
  const m = classificationMetrics([0, 0, 1, 1], probabilities, 2);
  close(m.accuracy, 0.5, 'accuracy');
  close(m.precision, 0.5, 'precision');
  close(m.recall, 0.5, 'recall');
  close(m.f1Score, 0.5, 'f1');
  close(m.auc, 0.75, 'auc (3 of 4 positive-negative pairs ranked right)');
  close(m.brierScore, (0.02 + 0.72 + 0.08 + 0.72) / 4, 'brier');
});

test('macro averages run over the classes seen in the truth or the predictions; a class never predicted scores precision 0', () => {
  // Three classes; class 2 never occurs in the truth and is never predicted.
  const probabilities = Float64Array.from([0.7, 0.2, 0.1, 0.6, 0.3, 0.1, 0.2, 0.7, 0.1, 0.8, 0.1, 0.1]);
  const m = classificationMetrics([0, 0, 1, 1], probabilities, 3);
  // predicted 0, 0, 1, 0: class 0 p = 2/3 r = 1; class 1 p = 1 r = 1/2
  close(m.precision, (2 / 3 + 1) / 2, 'precision');
  close(m.recall, (1 + 1 / 2) / 2, 'recall');
  close(m.f1Score, (0.8 + 2 / 3) / 2, 'f1');
  assert.ok(m.auc !== undefined && m.auc > 0 && m.auc <= 1);
  // Truth 0, 1, 2, everything predicted 0: class 0 p = 1/3 r = 1, classes 1 and 2 p = r = 0.
  const allZero = classificationMetrics([0, 1, 2], Float64Array.from([0.5, 0.3, 0.2, 0.5, 0.3, 0.2, 0.5, 0.3, 0.2]), 3);
  close(allZero.precision, 1 / 9, 'precision');
  close(allZero.recall, 1 / 3, 'recall');
  close(allZero.auc, 0.5, 'auc of constant scores');
});

function frameForEvaluation(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const x = Array.from({ length: n }, () => rng.normal());
  const y = x.map((v) => 2 * v + rng.normal());
  const c = x.map((v) => (rng.uniform() < 1 / (1 + Math.exp(-3 * v)) ? 'high' : 'low'));
  return frameOf([continuousColumn('X', x), continuousColumn('Y', y), categoricalColumn('C', c, ['low', 'high'])]);
}

const edges = [{ source: 'X', target: 'Y' }, { source: 'X', target: 'C' }];

test('a held-out evaluation reports per-node metrics near their population values', () => {
  const { train, test: held } = splitHoldout(frameForEvaluation(6000, 1), 0.25, 3);
  const evaluation = evaluateCbn(fitCbn(train, edges, {}, kernels), held);
  assert.equal(evaluation.modelType, 'cbn');
  assert.equal(evaluation.skippedReason, null);
  assert.equal(evaluation.nEvalPoints, 1500);
  const y = evaluation.nodeMetrics.Y!;
  assert.ok(Math.abs(y.r2! - 0.8) < 0.03, `r2 ${y.r2}`); // Var(2X) / Var(Y) = 4 / 5
  assert.ok(Math.abs(y.mse! - 1) < 0.1, `mse ${y.mse}`);
  const c = evaluation.nodeMetrics.C!;
  assert.ok(c.auc! > 0.85 && c.accuracy! > 0.75, JSON.stringify(c));
  const x = evaluation.nodeMetrics.X!;
  assert.ok(Math.abs(x.r2!) < 0.01, 'a root is predicted by its mean');
  assert.equal(evaluation.globalMetrics.nodesEvaluated, 3);
  assert.ok(evaluation.globalMetrics.meanR2 !== undefined && evaluation.globalMetrics.meanAccuracy !== undefined);
});

test(`a test split under ${MIN_EVALUATION_ROWS} rows is skipped as insufficient_data with no metrics`, () => {
  const frame = frameForEvaluation(400, 2);
  const model = fitCbn(frame, edges, {}, kernels);
  const evaluation = evaluateCbn(model, selectRows(frame, Array.from({ length: MIN_EVALUATION_ROWS - 1 }, (_, i) => i)));
  assert.equal(evaluation.skippedReason, 'insufficient_data');
  assert.deepEqual(evaluation.nodeMetrics, {});
  assert.equal(evaluation.nEvalPoints, MIN_EVALUATION_ROWS - 1);
  assert.equal(evaluateCbn(model, selectRows(frame, Array.from({ length: MIN_EVALUATION_ROWS }, (_, i) => i))).skippedReason, null);
});

test('a node with too few usable test rows is skipped and named, the others are still evaluated', () => {
  const frame = frameForEvaluation(200, 4);
  const model: CbnModel = fitCbn(frame, edges, {}, kernels);
  const y = frame.columns[1]!;
  assert.ok(y.kind === 'continuous');
  const holed = { ...frame, columns: [frame.columns[0]!, { ...y, values: y.values.map((v, i) => (i % 20 === 0 ? v : Number.NaN)) }, frame.columns[2]!] };
  const evaluation = evaluateCbn(model, holed);
  assert.equal(evaluation.nodeMetrics.Y, undefined);
  assert.ok(evaluation.skipReasons.some((r) => r.startsWith('Y: insufficient_data')));
  assert.ok(evaluation.nodeMetrics.X && evaluation.nodeMetrics.C);
});

test('a test frame that codes categories differently is evaluated by label', () => {
  const frame = frameForEvaluation(1000, 5);
  const model = fitCbn(frame, edges, {}, kernels);
  const c = frame.columns[2]!;
  assert.ok(c.kind === 'categorical');
  const recoded = { ...frame, columns: [frame.columns[0]!, frame.columns[1]!, { ...c, categories: ['high', 'low'], codes: c.codes.map((v) => 1 - v) }] };
  assert.deepEqual(evaluateCbn(model, recoded).nodeMetrics.C, evaluateCbn(model, frame).nodeMetrics.C);
});

test('the holdout split is seeded, disjoint and covers every row', () => {
  const frame = frameOf([continuousColumn('i', Array.from({ length: 101 }, (_, i) => i))]);
  const { train, test: held } = splitHoldout(frame, 0.2, 9);
  const values = (f: Frame) => Array.from((f.columns[0] as { values: Float64Array }).values);
  assert.equal(held.nRows, 20);
  assert.equal(train.nRows, 81);
  assert.deepEqual([...values(train), ...values(held)].sort((a, b) => a - b), Array.from({ length: 101 }, (_, i) => i));
  assert.deepEqual(splitHoldout(frame, 0.2, 9), { train, test: held });
  assert.notDeepEqual(values(splitHoldout(frame, 0.2, 10).test), values(held));
});
