/**
 * Fits a causal Bayesian network on a given DAG (DESIGN.md "CBN fit"): each node given its parents --
 * linear-Gaussian regression (with the optional basis of squares and products) for continuous nodes, a Laplace-
 * smoothed CPT for a categorical node whose parents are all categorical, multinomial logistic regression for a
 * categorical node with a continuous parent. Missing values: each node is fitted on the rows where it and its
 * parents are observed (complete cases per family); a node with no such row falls back to its marginal.
 */
import type { Kernels } from '../../compute/kernels.js';
import { AppError } from '../../errors.js';
import { columnByName, columnNames, observedMeanAndStd } from '../frame.js';
import { invertSymmetric } from '../discovery/em-covariance.js';
import { topologicalSort } from '../graph/dag.js';
import type { CategoricalColumn, CbnModel, ContinuousColumn, EdgeRef, FitOptions, Frame, NodeModel } from '../types.js';
import { termColumn, termsFor } from './design.js';
import { dirichletCpt } from './dirichlet.js';
import { fitLogistic } from './fit-logistic.js';

/** Nodes with more design terms than this keep no coefficient covariance (its size grows with the square). */
const MAX_COVARIANCE_TERMS = 32;
/** Largest CPT (parent configurations) kept as a table; beyond it the node is fitted as a logistic model. */
const MAX_CPT_CONFIGURATIONS = 65_536;
/** At most this many sorted standardised residuals are kept for abduction. */
const RESIDUAL_QUANTILES = 1000;
/** At most this many order statistics of the training values are kept: the margin anomaly decisions read (its
 * outer points carry the exponential tails); fewer than the residuals', since every run reads the model. */
const VALUE_QUANTILES = 256;

export function fitCbn(frame: Frame, edges: readonly EdgeRef[], options: FitOptions, kernels: Kernels): CbnModel {
  const names = columnNames(frame);
  const known = new Set(names);
  for (const e of edges) {
    if (!known.has(e.source) || !known.has(e.target)) throw new AppError('validation_failed', `edge ${e.source} -> ${e.target} names a column that is not in the data`);
  }
  const order = topologicalSort(names, edges);
  if (order === null) throw new AppError('validation_failed', 'the edges form a directed cycle');
  const parentsOf = new Map(names.map((n) => [n, [] as string[]]));
  for (const e of edges) if (!parentsOf.get(e.target)!.includes(e.source)) parentsOf.get(e.target)!.push(e.source);
  const nodes = order.map((name): NodeModel => {
    const column = columnByName(frame, name);
    const parents = parentsOf.get(name)!;
    return column.kind === 'continuous'
      ? fitContinuousNode(frame, column, parents, options, kernels)
      : fitCategoricalNode(frame, column, parents, options, kernels);
  });
  return { nodes };
}

export function fitContinuousNode(frame: Frame, column: ContinuousColumn, parents: string[], options: FitOptions, kernels: Kernels): NodeModel {
  const terms = termsFor(frame, parents, options.nonlinear === true);
  const termValues = terms.map((t) => termColumn(frame, t));
  // Plain loops over typed arrays: this runs for every node of every fit (and of identification's refits).
  const complete = new Int32Array(frame.nRows);
  let n = 0;
  rows: for (let r = 0; r < frame.nRows; r++) {
    if (Number.isNaN(column.values[r]!)) continue;
    for (const v of termValues) if (Number.isNaN(v[r]!)) continue rows;
    complete[n++] = r;
  }
  const { mean, rawStd } = observedMeanAndStd(column.values);
  const k = terms.length;
  if (n === 0) {
    return { name: column.name, kind: 'continuous', parents, terms, intercept: mean, coefficients: new Array<number>(k).fill(0), noiseStd: rawStd, residualQuantiles: [0], mean, std: rawStd };
  }
  const rows = complete.subarray(0, n);
  // Centre and scale each term, and centre y, so the small ridge only guards against collinearity.
  const centre = termValues.map((v) => observedMeanAndStd(Float64Array.from(rows, (r) => v[r]!)));
  let ySum = 0;
  for (const r of rows) ySum += column.values[r]!;
  const yMean = ySum / n;
  const x = new Float64Array(n * (k + 1));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    x[i * (k + 1)] = 1;
    for (let t = 0; t < k; t++) x[i * (k + 1) + t + 1] = (termValues[t]![r]! - centre[t]!.mean) / centre[t]!.std;
    y[i] = column.values[r]! - yMean;
  }
  const fit = kernels.leastSquares(x, y, n, k + 1, 1e-8 * n);
  const coefficients = terms.map((_, t) => (fit.coef[t + 1] ?? 0) / centre[t]!.std);
  const intercept = yMean + (fit.coef[0] ?? 0) - coefficients.reduce((s, b, t) => s + b * centre[t]!.mean, 0);
  const residuals = new Float64Array(n);
  let rss = 0;
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    let prediction = intercept;
    for (let t = 0; t < k; t++) prediction += coefficients[t]! * termValues[t]![r]!;
    residuals[i] = column.values[r]! - prediction;
    rss += residuals[i]! ** 2;
  }
  const dof = n - k - 1 > 0 ? n - k - 1 : n;
  const noiseStd = Math.sqrt(rss / dof);
  const scale = noiseStd > 0 ? noiseStd : 1;
  const covariance = k + 1 <= MAX_COVARIANCE_TERMS ? coefficientCovariance(x, n, k, noiseStd ** 2, centre, 1e-8 * n, kernels) : null;
  const uncertainty: { coefficientCovariance?: number[] } = covariance === null ? {} : { coefficientCovariance: covariance };
  return {
    name: column.name, kind: 'continuous', parents, terms, intercept, coefficients, noiseStd,
    residualQuantiles: sortedQuantiles(residuals.map((e) => e / scale), RESIDUAL_QUANTILES),
    valueQuantiles: sortedQuantiles(column.values.filter((v) => !Number.isNaN(v)), VALUE_QUANTILES), mean, std: rawStd,
    ...uncertainty,
  };
}

export function fitCategoricalNode(frame: Frame, column: CategoricalColumn, parents: string[], options: FitOptions, kernels: Kernels): NodeModel {
  /** Laplace smoothing when the caller sets it; otherwise CPT rows are empirical-Bayes Dirichlet means (dirichlet.ts). */
  const smoothing = options.smoothing ?? 1;
  const classes = column.categories.length;
  const counts = new Float64Array(classes);
  let observed = 0;
  for (const c of column.codes) if (c >= 0) {
    counts[c]!++;
    observed++;
  }
  const marginal = Array.from(counts, (c) => (c + smoothing) / (observed + smoothing * classes));
  const parentColumns = parents.map((name) => columnByName(frame, name));
  const base = { name: column.name, kind: 'categorical' as const, parents, categories: [...column.categories], marginal };
  const configurations = parentColumns.reduce((acc, c) => acc * (c.kind === 'categorical' ? Math.max(c.categories.length, 1) : Infinity), 1);
  if (configurations <= MAX_CPT_CONFIGURATIONS) {
    const cats = parentColumns as CategoricalColumn[];
    const table = Array.from({ length: configurations }, () => new Float64Array(classes));
    for (let r = 0; r < frame.nRows; r++) {
      const c = column.codes[r]!;
      if (c < 0) continue;
      let config = 0;
      let ok = true;
      for (const parent of cats) {
        const code = parent.codes[r]!;
        if (code < 0) {
          ok = false;
          break;
        }
        config = config * parent.categories.length + code;
      }
      if (ok) table[config]![c]!++;
    }
    const rowCounts = table.map((row) => row.reduce((a, b) => a + b, 0));
    const parentCategories = cats.map((c) => [...c.categories]);
    if (options.smoothing !== undefined) {
      const rows = table.map((row, config) => Array.from(row, (v) => (v + smoothing) / (rowCounts[config]! + smoothing * classes)));
      return { ...base, cpt: { parentCategories, table: rows, rowCounts, smoothing } };
    }
    // Empirical-Bayes Dirichlet rows (dirichlet.ts); `smoothing` x classes is the prior weight of a row.
    // The margin shape is the Laplace-smoothed margin: no class, even one unseen in training, gets probability 0.
    const fitted = dirichletCpt(table, marginal);
    return { ...base, cpt: { parentCategories, table: fitted.rows, rowCounts, smoothing: fitted.rowPrior / classes } };
  }
  return { ...base, logistic: fitLogistic(frame, column, parents, kernels) };
}


/** `count` evenly spaced order statistics of the values, sorted (all of them when there are fewer). */
function sortedQuantiles(values: Float64Array, count: number): number[] {
  const sorted = values.slice().sort(); // a typed array sorts numerically, without a comparator call per step
  if (sorted.length <= count) return Array.from(sorted);
  return Array.from({ length: count }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (count - 1))]!);
}

/**
 * sigma^2 (X'X + ridge I)^-1 of the fit on centred and scaled terms (x: n x (k+1), intercept column first),
 * carried to the raw scale: b_t = c_t / s_t and a = c_0 - sum_t b_t m_t, so Cov_raw = J Cov J'.
 */
function coefficientCovariance(
  x: Float64Array,
  n: number,
  k: number,
  noiseVar: number,
  centre: { mean: number; std: number }[],
  ridge: number,
  kernels: Kernels,
): number[] | null {
  const m = k + 1;
  const gram = new Float64Array(m * m);
  for (let i = 0; i < n; i++) {
    const row = i * m;
    for (let a = 0; a < m; a++) {
      const xa = x[row + a]!;
      for (let b = 0; b <= a; b++) gram[a * m + b]! += xa * x[row + b]!;
    }
  }
  for (let a = 0; a < m; a++) {
    gram[a * m + a]! += ridge;
    for (let b = 0; b < a; b++) gram[b * m + a] = gram[a * m + b]!;
  }
  // Not positive definite even with the ridge (degenerate terms): the node keeps Monte Carlo intervals only.
  const inverse = invertSymmetric(gram, m, kernels);
  if (inverse === null) return null;
  const jacobian = new Float64Array(m * m);
  jacobian[0] = 1;
  for (let t = 0; t < k; t++) {
    jacobian[t + 1] = -centre[t]!.mean / centre[t]!.std;
    jacobian[(t + 1) * m + t + 1] = 1 / centre[t]!.std;
  }
  const packed: number[] = [];
  for (let a = 0; a < m; a++) {
    for (let b = 0; b <= a; b++) {
      let sum = 0;
      for (let i = 0; i < m; i++) {
        const ja = jacobian[a * m + i]!;
        if (ja === 0) continue;
        for (let j = 0; j < m; j++) sum += ja * inverse[i * m + j]! * jacobian[b * m + j]!;
      }
      packed.push(noiseVar * sum);
    }
  }
  return packed;
}
