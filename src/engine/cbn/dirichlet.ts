/**
 * CPT rows as Dirichlet posterior means, with the prior chosen by its marginal likelihood (empirical Bayes).
 * Laplace smoothing adds one count to every cell, which swamps a parent configuration seen in a handful of rows:
 * five rows all in one class become 0.67 of four classes, not 0.98. A BDeu prior (Heckerman, Geiger & Chickering
 * 1995) spreads an equivalent sample size alpha over all q x r cells instead, so it weighs little wherever there is
 * data; alpha is chosen, with the prior's shape (uniform, or the node's own margin as in shrinkage towards the
 * parent-free distribution), by the Bayesian-Dirichlet marginal likelihood of the node's counts (Steck 2008 on why
 * alpha must not be fixed blindly). The posterior of a row is Dirichlet(counts + alpha_j x shape), which
 * uncertainty.ts samples for the answers' intervals.
 */
import { logGamma } from '../../compute/distributions.js';

/** Equivalent sample sizes tried (the BDeu literature's usual range and beyond). */
const ALPHAS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];

export interface DirichletCpt {
  /** Posterior mean of each row. */
  rows: number[][];
  /** Prior weight of each row (alpha / q): the posterior is Dirichlet(rows[j] x (rowCounts[j] + rowPrior)). */
  rowPrior: number;
  alpha: number;
  shape: 'uniform' | 'marginal';
}

/** The CPT of a node from its counts (one row per parent configuration), `margin` its parent-free class shares (all > 0). */
export function dirichletCpt(table: readonly Float64Array[], margin: readonly number[]): DirichletCpt {
  const q = table.length;
  const r = margin.length;
  const uniform = new Array<number>(r).fill(1 / r);
  let best: { score: number; alpha: number; shape: 'uniform' | 'marginal'; weights: readonly number[] } | null = null;
  for (const [shape, weights] of [['uniform', uniform], ['marginal', margin]] as const) {
    for (const alpha of ALPHAS) {
      const score = logMarginal(table, alpha / q, weights);
      if (best === null || score > best.score + 1e-9) best = { score, alpha, shape, weights };
    }
  }
  const { alpha, shape, weights } = best!;
  const rowPrior = alpha / q;
  const rows = table.map((counts) => {
    const n = counts.reduce((a, b) => a + b, 0);
    return Array.from(counts, (c, k) => (c + rowPrior * weights[k]!) / (n + rowPrior));
  });
  return { rows, rowPrior, alpha, shape };
}

/** log P(counts | prior) under independent Dirichlet(rowPrior x weights) rows (the BD score of one family). */
function logMarginal(table: readonly Float64Array[], rowPrior: number, weights: readonly number[]): number {
  let total = 0;
  const cell = weights.map((w) => Math.max(rowPrior * w, 1e-12));
  const cellGamma = cell.map(logGamma);
  const rowGamma = logGamma(rowPrior);
  for (const counts of table) {
    let n = 0;
    let sum = 0;
    for (let k = 0; k < counts.length; k++) {
      const c = counts[k]!;
      if (c === 0) continue;
      n += c;
      sum += logGamma(cell[k]! + c) - cellGamma[k]!;
    }
    if (n > 0) total += rowGamma - logGamma(rowPrior + n) + sum;
  }
  return total;
}
