/** Predictions of a fitted node from its parents' observed values in a frame (one entry per row). */
import type { Frame, NodeModel } from '../types.js';
import { codesInCategories, termColumn } from './design.js';

type ContinuousNode = Extract<NodeModel, { kind: 'continuous' }>;
type CategoricalNode = Extract<NodeModel, { kind: 'categorical' }>;

/** Conditional mean of a continuous node per row; NaN where a parent is missing. */
export function predictContinuous(node: ContinuousNode, frame: Frame): Float64Array {
  const out = new Float64Array(frame.nRows).fill(node.intercept);
  node.terms.forEach((term, t) => {
    const values = termColumn(frame, term);
    const b = node.coefficients[t]!;
    for (let r = 0; r < frame.nRows; r++) out[r]! += b * values[r]!;
  });
  return out;
}

/**
 * Class probabilities of a categorical node per row (row-major nRows x categories); NaN in a row where a parent is
 * missing or holds a category the model never saw.
 */
export function predictProbabilities(node: CategoricalNode, frame: Frame): Float64Array {
  const classes = node.categories.length;
  const out = new Float64Array(frame.nRows * classes);
  if (node.cpt) {
    const { parentCategories, table } = node.cpt;
    const codes = node.parents.map((name, i) => codesInCategories(frame, name, parentCategories[i]!));
    for (let r = 0; r < frame.nRows; r++) {
      let config = 0;
      for (let i = 0; i < codes.length; i++) {
        const code = codes[i]![r]!;
        config = code < 0 ? Number.NaN : config * parentCategories[i]!.length + code;
      }
      const row = Number.isNaN(config) ? undefined : table[config];
      for (let k = 0; k < classes; k++) out[r * classes + k] = row ? row[k]! : Number.NaN;
    }
    return out;
  }
  if (node.logistic) {
    const { terms, weights } = node.logistic;
    const values = terms.map((term) => termColumn(frame, term));
    for (let r = 0; r < frame.nRows; r++) {
      let max = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < classes; k++) {
        const w = weights[k]!;
        let logit = w[0]!;
        for (let t = 0; t < terms.length; t++) logit += w[t + 1]! * values[t]![r]!;
        out[r * classes + k] = logit;
        if (logit > max) max = logit;
      }
      let sum = 0;
      for (let k = 0; k < classes; k++) sum += out[r * classes + k] = Math.exp(out[r * classes + k]! - max);
      for (let k = 0; k < classes; k++) out[r * classes + k]! /= sum;
    }
    return out;
  }
  for (let r = 0; r < frame.nRows; r++) for (let k = 0; k < classes; k++) out[r * classes + k] = node.marginal[k]!;
  return out;
}
