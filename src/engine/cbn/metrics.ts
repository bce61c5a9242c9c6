/** Prediction metrics of one node, as the evaluation reports them (scikit-learn's definitions unless stated). */
import type { NodeMetrics } from '../types.js';

/** mse, mae, mape (mean |error| / |actual| over non-zero actuals, a fraction as scikit-learn's), r2 = 1 - SSE/SST. */
export function regressionMetrics(actual: ArrayLike<number>, predicted: ArrayLike<number>): NodeMetrics {
  const n = actual.length;
  let sse = 0;
  let sae = 0;
  let ape = 0;
  let nonZero = 0;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += actual[i]!;
  mean /= n;
  let sst = 0;
  for (let i = 0; i < n; i++) {
    const e = actual[i]! - predicted[i]!;
    sse += e * e;
    sae += Math.abs(e);
    sst += (actual[i]! - mean) ** 2;
    if (actual[i] !== 0) {
      ape += Math.abs(e) / Math.abs(actual[i]!);
      nonZero++;
    }
  }
  const metrics: NodeMetrics = { mse: sse / n, mae: sae / n, r2: sst > 0 ? 1 - sse / sst : sse === 0 ? 1 : 0 };
  if (nonZero > 0) metrics.mape = ape / nonZero;
  return metrics;
}

/**
 * accuracy; precision, recall, F1 macro-averaged over the classes seen in the actual or predicted labels;
 * AUC one-vs-rest, macro-averaged over the classes with both positives and negatives (Mann-Whitney, ties halved);
 * Brier score in Brier's 1950 multi-class form: mean over rows of sum over classes of (p - indicator)^2
 * (0 best, 2 worst; twice scikit-learn's binary brier_score_loss).
 */
export function classificationMetrics(actual: ArrayLike<number>, probabilities: Float64Array, classes: number): NodeMetrics {
  const n = actual.length;
  const predicted = new Int32Array(n);
  let correct = 0;
  let brier = 0;
  for (let i = 0; i < n; i++) {
    let best = 0;
    for (let k = 1; k < classes; k++) if (probabilities[i * classes + k]! > probabilities[i * classes + best]!) best = k;
    predicted[i] = best;
    if (best === actual[i]) correct++;
    for (let k = 0; k < classes; k++) brier += (probabilities[i * classes + k]! - (actual[i] === k ? 1 : 0)) ** 2;
  }
  let precisionSum = 0;
  let recallSum = 0;
  let f1Sum = 0;
  let labels = 0;
  let aucSum = 0;
  let aucClasses = 0;
  for (let k = 0; k < classes; k++) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (let i = 0; i < n; i++) {
      if (predicted[i] === k && actual[i] === k) tp++;
      else if (predicted[i] === k) fp++;
      else if (actual[i] === k) fn++;
    }
    if (tp + fp + fn > 0) {
      const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
      const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
      precisionSum += precision;
      recallSum += recall;
      f1Sum += precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
      labels++;
    }
    const auc = oneVsRestAuc(actual, probabilities, classes, k);
    if (auc !== null) {
      aucSum += auc;
      aucClasses++;
    }
  }
  const metrics: NodeMetrics = {
    accuracy: correct / n,
    precision: labels > 0 ? precisionSum / labels : 0,
    recall: labels > 0 ? recallSum / labels : 0,
    f1Score: labels > 0 ? f1Sum / labels : 0,
    brierScore: brier / n,
  };
  if (aucClasses > 0) metrics.auc = aucSum / aucClasses;
  return metrics;
}

/** AUC of class k against the rest by ranks (ties get the mean rank); null without both positives and negatives. */
function oneVsRestAuc(actual: ArrayLike<number>, probabilities: Float64Array, classes: number, k: number): number | null {
  const n = actual.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => probabilities[a * classes + k]! - probabilities[b * classes + k]!);
  let positives = 0;
  let rankSum = 0;
  for (let start = 0; start < n; ) {
    let end = start;
    const score = probabilities[order[start]! * classes + k]!;
    while (end + 1 < n && probabilities[order[end + 1]! * classes + k] === score) end++;
    const meanRank = (start + end) / 2 + 1;
    for (let t = start; t <= end; t++) if (actual[order[t]!] === k) {
      positives++;
      rankSum += meanRank;
    }
    start = end + 1;
  }
  const negatives = n - positives;
  if (positives === 0 || negatives === 0) return null;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}
