/**
 * Multinomial logistic regression of a categorical node on its parents (softmax, every class with its own
 * weights), fitted by the logistic kernel on standardised linear terms and returned on the raw scale:
 * weights[class] = [intercept, one weight per term].
 */
import type { Kernels } from '../../compute/kernels.js';
import { AppError } from '../../errors.js';
import type { CategoricalColumn, Frame } from '../types.js';
import { termColumn, termsFor } from './design.js';

/** L2 penalty of the logistic fit (on standardised terms): enough to keep separable data finite. */
const LOGISTIC_L2 = 1e-3;
const LOGISTIC_MAX_ITERATIONS = 100;
/** Weights (categories x terms) of the largest logistic model fitted: each Newton step factors a matrix of their
 * number squared (2,048: 32 MB). Discovery never proposes more than a quarter of it; pinned parents can ask for more. */
export const MAX_LOGISTIC_WEIGHTS = 2048;

export function fitLogistic(frame: Frame, column: CategoricalColumn, parents: readonly string[], kernels: Kernels) {
  const terms = termsFor(frame, parents, false) as { kind: 'linear' | 'indicator'; parents: string[]; category?: string }[];
  const values = terms.map((t) => termColumn(frame, t));
  const rows: number[] = [];
  for (let r = 0; r < frame.nRows; r++) if (column.codes[r]! >= 0 && values.every((v) => !Number.isNaN(v[r]!))) rows.push(r);
  const k = terms.length + 1;
  const classes = column.categories.length;
  if (classes * k > MAX_LOGISTIC_WEIGHTS) {
    throw new AppError('validation_failed', `${column.name} has ${classes} categories and its parents give ${k - 1} terms: a logistic model of ${classes * k} weights is more than can be fitted (at most ${MAX_LOGISTIC_WEIGHTS}); merge rare categories, or pin fewer parents into it`);
  }
  if (rows.length === 0 || classes < 2) return { terms, weights: Array.from({ length: classes }, () => new Array<number>(k).fill(0)) };
  const centre = terms.map((t, i) => {
    if (t.kind === 'indicator') return { mean: 0, std: 1 };
    let sum = 0;
    for (const r of rows) sum += values[i]![r]!;
    const mean = sum / rows.length;
    let ss = 0;
    for (const r of rows) ss += (values[i]![r]! - mean) ** 2;
    return { mean, std: Math.sqrt(ss / Math.max(rows.length - 1, 1)) || 1 };
  });
  const x = new Float64Array(rows.length * k);
  const y = new Int32Array(rows.length);
  rows.forEach((r, i) => {
    x[i * k] = 1;
    terms.forEach((_, t) => (x[i * k + t + 1] = (values[t]![r]! - centre[t]!.mean) / centre[t]!.std));
    y[i] = column.codes[r]!;
  });
  const fit = kernels.logisticRegression(x, y, rows.length, k, classes, LOGISTIC_L2, LOGISTIC_MAX_ITERATIONS);
  const weights = Array.from({ length: classes }, (_, c) => {
    const w = Array.from({ length: k }, (_, t) => fit.weights[c * k + t] ?? 0);
    const raw = terms.map((_, t) => w[t + 1]! / centre[t]!.std);
    const intercept = w[0]! - raw.reduce((s, b, t) => s + b * centre[t]!.mean, 0);
    return [intercept, ...raw];
  });
  return { terms, weights };
}
