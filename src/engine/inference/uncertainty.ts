/**
 * Parameter uncertainty of a fitted twin, for effect intervals that cover the truth and not only the Monte Carlo
 * error: a fitted model differs from the true mechanism by its estimation error, which simulation alone never
 * shows. Plausible parameter sets are drawn from the fit's large-sample posterior -- a linear node's
 * [intercept, coefficients] ~ N(estimate, sigma^2 (X'X)^-1), a CPT row ~ Dirichlet(smoothed counts) -- and an
 * effect's spread over those sets is its parameter variance (added to its Monte Carlo variance). Nodes fitted
 * without these statistics (older models, logistic nodes) stay at their estimates.
 */
import { Rng } from '../random.js';
import type { CbnModel, NodeModel } from '../types.js';

/** Draws parameter sets of a model; null from parameterSampler when no node carries its uncertainty. */
export interface ParameterSampler {
  draw(rng: Rng): CbnModel;
}

type ContinuousNode = Extract<NodeModel, { kind: 'continuous' }>;
type CategoricalNode = Extract<NodeModel, { kind: 'categorical' }>;

export function parameterSampler(model: CbnModel): ParameterSampler | null {
  const perNode = model.nodes.map((node): ((rng: Rng) => NodeModel) | null =>
    node.kind === 'continuous' ? linearDraw(node) : cptDraw(node));
  if (perNode.every((f) => f === null)) return null;
  return { draw: (rng) => ({ nodes: model.nodes.map((node, i) => perNode[i]?.(rng) ?? node) }) };
}

/** [intercept, coefficients] + L z with L the Cholesky factor of the stored covariance. */
function linearDraw(node: ContinuousNode): ((rng: Rng) => NodeModel) | null {
  const packed = node.coefficientCovariance;
  const m = node.coefficients.length + 1;
  if (!packed || packed.length !== (m * (m + 1)) / 2) return null;
  const l = choleskyOfPacked(packed, m);
  const estimate = [node.intercept, ...node.coefficients];
  const z = new Float64Array(m);
  return (rng) => {
    for (let i = 0; i < m; i++) z[i] = rng.normal();
    const theta = estimate.map((e, i) => {
      let v = e;
      for (let j = 0; j <= i; j++) v += l[i * m + j]! * z[j]!;
      return v;
    });
    return { ...node, intercept: theta[0]!, coefficients: theta.slice(1) };
  };
}

/** Each CPT row from its Dirichlet posterior: concentration = smoothed probabilities x (rows + smoothing x classes). */
function cptDraw(node: CategoricalNode): ((rng: Rng) => NodeModel) | null {
  const cpt = node.cpt;
  if (!cpt?.rowCounts || cpt.rowCounts.length !== cpt.table.length) return null;
  const rowCounts = cpt.rowCounts;
  const prior = (cpt.smoothing ?? 1) * node.categories.length;
  return (rng) => {
    const table = cpt.table.map((row, r) => {
      const draws = row.map((p) => rng.gamma(Math.max(p * (rowCounts[r]! + prior), 1e-3)));
      const sum = draws.reduce((a, b) => a + b, 0);
      return sum > 0 ? draws.map((d) => d / sum) : row;
    });
    return { ...node, cpt: { ...cpt, table } };
  };
}

/** Lower Cholesky factor (row-major m x m) of a packed lower-triangular covariance; a non-positive pivot keeps 0. */
function choleskyOfPacked(packed: number[], m: number): Float64Array {
  const at = (i: number, j: number) => packed[(i * (i + 1)) / 2 + j]!;
  const l = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    let d = at(j, j);
    for (let p = 0; p < j; p++) d -= l[j * m + p]! ** 2;
    if (!(d > 0)) continue;
    const root = Math.sqrt(d);
    l[j * m + j] = root;
    for (let i = j + 1; i < m; i++) {
      let v = at(i, j);
      for (let p = 0; p < j; p++) v -= l[i * m + p]! * l[j * m + p]!;
      l[i * m + j] = v / root;
    }
  }
  return l;
}

/** Sample variance (n - 1 denominator); 0 for fewer than two values. */
export function sampleVariance(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return 0;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i]! - mean) ** 2;
  return ss / (n - 1);
}

/**
 * Half-width of a confidence interval for an estimate whose variance is a sum of independently estimated parts
 * (e.g. Monte Carlo with many degrees of freedom, parameter spread over D draws with D - 1): Student's t with
 * Welch-Satterthwaite degrees of freedom, so few draws widen the interval as they should.
 */
export function halfWidth(confidenceLevel: number, parts: { variance: number; df: number }[]): number {
  const total = parts.reduce((s, p) => s + Math.max(p.variance, 0), 0);
  if (total <= 0) return 0;
  const spread = parts.reduce((s, p) => s + (p.variance > 0 && p.df > 0 && Number.isFinite(p.df) ? p.variance ** 2 / p.df : 0), 0);
  const df = spread > 0 ? (total * total) / spread : Number.POSITIVE_INFINITY;
  return studentCritical(confidenceLevel, df) * Math.sqrt(total);
}

/** Two-sided Student t critical value by the Cornish-Fisher expansion around the normal (Hill 1970), df >= 1. */
export function studentCritical(confidenceLevel: number, df: number): number {
  const z = normalCritical(confidenceLevel);
  if (!Number.isFinite(df) || df > 1e7) return z;
  const n = Math.max(df, 1);
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * ((5 * z2 + 16) * z2 + 3)) / 96;
  const g3 = (z * (((3 * z2 + 19) * z2 + 17) * z2 - 15)) / 384;
  const g4 = (z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945)) / 92160;
  return z + g1 / n + g2 / n ** 2 + g3 / n ** 3 + g4 / n ** 4;
}

/** The two-sided normal critical value of a confidence level (0.95 -> 1.959964). */
export function normalCritical(confidenceLevel: number): number {
  return normalQuantile(1 - (1 - confidenceLevel) / 2);
}

/** Inverse standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? Number.NEGATIVE_INFINITY : p === 1 ? Number.POSITIVE_INFINITY : Number.NaN;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  }
  const q = Math.sqrt(-2 * Math.log(1 - p));
  return -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
}
