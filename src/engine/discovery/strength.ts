/**
 * Edge strengths of the chosen DAG (types.ts DiscoveredEdge.strength). Continuous source and target: the
 * standardised partial regression coefficient of the source in the target's regression on all its parents
 * (signed). Any categorical end: the partial association sqrt(1 - exp(-2 dLL / n)), where dLL is the
 * log-likelihood the target's model loses without the source (the likelihood-ratio pseudo-R of Cox & Snell 1989 /
 * Magee 1990; for Gaussian variables it equals the absolute partial correlation).
 */
import type { Kernels } from '../../compute/kernels.js';
import { type LocalScorer, ridgedCholesky } from './local-score.js';
import type { PreparedData } from './prepare.js';

export function edgeStrength(data: PreparedData, scorer: LocalScorer, kernels: Kernels, source: number, target: number, parents: readonly number[]): number {
  if (data.informative[source] !== 1 || data.informative[target] !== 1) return 0;
  if (data.kinds[source] === 'continuous' && data.kinds[target] === 'continuous' && data.moments) {
    const { cov, q } = data.moments;
    const cols = parents.flatMap((v) => data.blocks[v]!);
    const y = data.blocks[target]![0]!;
    const x = data.blocks[source]![0]!;
    const coef = regressionCoefficients(cov, q, y, cols, kernels);
    const b = coef[cols.indexOf(x)] ?? 0;
    const sx = Math.sqrt(cov[x * q + x]!);
    const sy = Math.sqrt(cov[y * q + y]!);
    return sy > 0 ? (b * sx) / sy : 0;
  }
  const without = parents.filter((v) => v !== source);
  const gain = Math.max(0, scorer.logLik(target, parents) - scorer.logLik(target, without));
  return Math.sqrt(1 - Math.exp((-2 * gain) / Math.max(scorer.n, 1)));
}

/** Coefficients of the regression of column y on columns `cols`, from a covariance matrix (Cholesky solve). */
export function regressionCoefficients(cov: Float64Array, q: number, y: number, cols: readonly number[], kernels: Kernels): Float64Array {
  const k = cols.length;
  const l = ridgedCholesky(cov, q, cols, kernels);
  const z = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let s = cov[cols[i]! * q + y]!;
    for (let j = 0; j < i; j++) s -= l[i * k + j]! * z[j]!;
    z[i] = s / l[i * k + i]!;
  }
  const b = new Float64Array(k);
  for (let i = k - 1; i >= 0; i--) {
    let s = z[i]!;
    for (let j = i + 1; j < k; j++) s -= l[j * k + i]! * b[j]!;
    b[i] = s / l[i * k + i]!;
  }
  return b;
}
