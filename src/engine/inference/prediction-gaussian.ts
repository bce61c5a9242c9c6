/**
 * Exact prediction on a linear-Gaussian twin: the model is a Gaussian vector x = B x + c + e, so every target
 * given any set of observed variables is Gaussian with mean mu_T + S_TO S_OO^-1 (x_O - mu_O) and covariance
 * S_TT - S_TO S_OO^-1 S_OT (conditioning on descendants as well as ancestors). The joint moments are computed
 * once; the regression matrix once per pattern of observed variables, so a batch sharing a pattern is one matrix
 * product.
 */
import type { CbnModel } from '../types.js';

export interface GaussianJoint {
  mean: Float64Array;
  /** p x p row-major. */
  covariance: Float64Array;
  p: number;
}

/** True when every node is continuous with only linear terms (no indicator, square or product). */
export function isLinearGaussian(model: CbnModel): boolean {
  return model.nodes.every((n) => n.kind === 'continuous' && n.terms.every((t) => t.kind === 'linear'));
}

/** Mean and covariance of all nodes (model order is topological, so each node's moments follow its parents'). */
export function gaussianJoint(model: CbnModel): GaussianJoint {
  const p = model.nodes.length;
  const index = new Map(model.nodes.map((n, i) => [n.name, i]));
  const mean = new Float64Array(p);
  const cov = new Float64Array(p * p);
  model.nodes.forEach((node, j) => {
    if (node.kind !== 'continuous') throw new Error(`node ${node.name} is not continuous`);
    const parents = node.terms.map((t) => index.get(t.parents[0]!)!);
    const b = node.coefficients;
    mean[j] = node.intercept + parents.reduce((s, q, t) => s + b[t]! * mean[q]!, 0);
    // Cov(x_j, x_k) = sum_t b_t Cov(x_parent_t, x_k) for every earlier k; Var adds the noise.
    for (let k = 0; k < j; k++) {
      let c = 0;
      for (let t = 0; t < parents.length; t++) c += b[t]! * cov[parents[t]! * p + k]!;
      cov[j * p + k] = c;
      cov[k * p + j] = c;
    }
    let v = node.noiseStd ** 2;
    for (let t = 0; t < parents.length; t++) v += b[t]! * cov[parents[t]! * p + j]!;
    cov[j * p + j] = v;
  });
  return { mean, covariance: cov, p };
}

/** The conditional law of targets T given observed O: pred = offset + R x_O, with a fixed covariance. */
export interface PatternRegression {
  observed: number[];
  targets: number[];
  /** |T| x |O| row-major. */
  regression: Float64Array;
  /** mu_T - R mu_O. */
  offset: Float64Array;
  /** Conditional standard deviation of each target. */
  std: Float64Array;
}

export function patternRegression(joint: GaussianJoint, observed: number[], targets: number[]): PatternRegression {
  const { p, covariance: s, mean } = joint;
  const o = observed.length;
  const t = targets.length;
  const regression = new Float64Array(t * o);
  const offset = new Float64Array(t);
  const std = new Float64Array(t);
  // Cholesky of S_OO (a whisker of jitter keeps deterministic relations solvable).
  const l = new Float64Array(o * o);
  let trace = 0;
  for (let a = 0; a < o; a++) trace += s[observed[a]! * p + observed[a]!]!;
  const jitter = 1e-12 * (trace / Math.max(o, 1) || 1);
  for (let j = 0; j < o; j++) {
    let d = s[observed[j]! * p + observed[j]!]! + jitter;
    for (let k = 0; k < j; k++) d -= l[j * o + k]! ** 2;
    const root = Math.sqrt(Math.max(d, jitter));
    l[j * o + j] = root;
    for (let i = j + 1; i < o; i++) {
      let v = s[observed[i]! * p + observed[j]!]!;
      for (let k = 0; k < j; k++) v -= l[i * o + k]! * l[j * o + k]!;
      l[i * o + j] = v / root;
    }
  }
  const y = new Float64Array(o);
  const x = new Float64Array(o);
  targets.forEach((target, ti) => {
    // Row of R = S_tO S_OO^-1: solve S_OO r = S_Ot by forward then back substitution.
    for (let i = 0; i < o; i++) {
      let v = s[target * p + observed[i]!]!;
      for (let k = 0; k < i; k++) v -= l[i * o + k]! * y[k]!;
      y[i] = v / l[i * o + i]!;
    }
    for (let i = o - 1; i >= 0; i--) {
      let v = y[i]!;
      for (let k = i + 1; k < o; k++) v -= l[k * o + i]! * x[k]!;
      x[i] = v / l[i * o + i]!;
    }
    let off = mean[target]!;
    let explained = 0;
    for (let i = 0; i < o; i++) {
      regression[ti * o + i] = x[i]!;
      off -= x[i]! * mean[observed[i]!]!;
      explained += x[i]! * s[target * p + observed[i]!]!;
    }
    offset[ti] = off;
    std[ti] = Math.sqrt(Math.max(s[target * p + target]! - explained, 0));
  });
  return { observed, targets, regression, offset, std };
}
