/**
 * Held-out evaluation of a fitted CBN: each node predicted from its parents' observed values in the test rows
 * (one-step, not propagated through the graph), with the metrics of cbn/metrics.ts.
 */
import { columnByName, selectRows } from '../frame.js';
import { Rng } from '../random.js';
import type { CbnModel, Evaluation, Frame, NodeMetrics } from '../types.js';
import { codesInCategories } from './design.js';
import { classificationMetrics, regressionMetrics } from './metrics.js';
import { predictContinuous, predictProbabilities } from './predict.js';

/**
 * Fewest usable test rows (node and parents observed) for a node's metrics; below it the node is skipped, and
 * the whole evaluation is skipped as insufficient_data when the test split itself is smaller. Twenty rows keep
 * the standard error of an accuracy under ~0.11 and make an r2 at least roughly meaningful.
 */
export const MIN_EVALUATION_ROWS = 20;

/** A seeded random split: round(nRows * testFraction) rows for testing, the rest for training, each in row order. */
export function splitHoldout(frame: Frame, testFraction: number, seed: number): { train: Frame; test: Frame } {
  const n = frame.nRows;
  const nTest = Math.min(n, Math.max(0, Math.round(n * testFraction)));
  const order = new Rng(seed).shuffle(Array.from({ length: n }, (_, i) => i));
  const test = order.slice(0, nTest).sort((a, b) => a - b);
  const train = order.slice(nTest).sort((a, b) => a - b);
  return { train: selectRows(frame, train), test: selectRows(frame, test) };
}

export function evaluateCbn(model: CbnModel, test: Frame): Evaluation {
  const evaluation: Evaluation = { modelType: 'cbn', nodeMetrics: {}, globalMetrics: {}, skippedReason: null, skipReasons: [], nEvalPoints: test.nRows };
  if (test.nRows < MIN_EVALUATION_ROWS) {
    evaluation.skippedReason = 'insufficient_data';
    evaluation.skipReasons.push(`the test split has ${test.nRows} rows, fewer than ${MIN_EVALUATION_ROWS}`);
    return evaluation;
  }
  for (const node of model.nodes) {
    const metrics = node.kind === 'continuous' ? continuousNodeMetrics(node, test) : categoricalNodeMetrics(node, test);
    if (typeof metrics === 'number') evaluation.skipReasons.push(`${node.name}: insufficient_data (${metrics} usable test rows)`);
    else evaluation.nodeMetrics[node.name] = metrics;
  }
  if (Object.keys(evaluation.nodeMetrics).length === 0 && model.nodes.length > 0) evaluation.skippedReason = 'insufficient_data';
  evaluation.globalMetrics = globalMetrics(evaluation.nodeMetrics);
  return evaluation;
}

/** Metrics, or the number of usable rows when there are too few. */
function continuousNodeMetrics(node: Extract<CbnModel['nodes'][number], { kind: 'continuous' }>, test: Frame): NodeMetrics | number {
  const column = columnByName(test, node.name);
  if (column.kind !== 'continuous') throw new Error(`column ${node.name} is not continuous in the test frame`);
  const predicted = predictContinuous(node, test);
  const actual: number[] = [];
  const fitted: number[] = [];
  for (let r = 0; r < test.nRows; r++) {
    if (Number.isNaN(column.values[r]!) || !Number.isFinite(predicted[r]!)) continue;
    actual.push(column.values[r]!);
    fitted.push(predicted[r]!);
  }
  return actual.length < MIN_EVALUATION_ROWS ? actual.length : regressionMetrics(actual, fitted);
}

function categoricalNodeMetrics(node: Extract<CbnModel['nodes'][number], { kind: 'categorical' }>, test: Frame): NodeMetrics | number {
  const codes = codesInCategories(test, node.name, node.categories);
  const classes = node.categories.length;
  const probabilities = predictProbabilities(node, test);
  const actual: number[] = [];
  const kept: number[] = [];
  for (let r = 0; r < test.nRows; r++) {
    if (codes[r]! < 0 || Number.isNaN(probabilities[r * classes]!)) continue;
    actual.push(codes[r]!);
    for (let k = 0; k < classes; k++) kept.push(probabilities[r * classes + k]!);
  }
  return actual.length < MIN_EVALUATION_ROWS ? actual.length : classificationMetrics(actual, Float64Array.from(kept), classes);
}

/** Means over the evaluated nodes of r2 (continuous) and accuracy, F1, AUC, Brier (categorical). */
function globalMetrics(nodeMetrics: Record<string, NodeMetrics>): Record<string, number> {
  const out: Record<string, number> = { nodesEvaluated: Object.keys(nodeMetrics).length };
  const meanOf = (key: keyof NodeMetrics, name: string) => {
    const values = Object.values(nodeMetrics).map((m) => m[key]).filter((v): v is number => v !== undefined);
    if (values.length > 0) out[name] = values.reduce((a, b) => a + b, 0) / values.length;
  };
  meanOf('r2', 'meanR2');
  meanOf('accuracy', 'meanAccuracy');
  meanOf('f1Score', 'meanF1Score');
  meanOf('auc', 'meanAuc');
  meanOf('brierScore', 'meanBrierScore');
  return out;
}
