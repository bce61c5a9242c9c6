/** One environment's least-squares fit from its family moments (moments.ts), and the matrix helpers it uses. */
import type { FamilyMoments } from './moments.js';
import { invert } from '../linear-algebra.js';

export interface EnvironmentFit {
  n: number;
  /** Residual degrees of freedom (n - m). */
  df: number;
  /** [intercept, coefficients...] on the raw scale. */
  coef: number[];
  /** Covariance of `coef`: s2 (X'X)^-1, m x m row-major. */
  covariance: number[];
  /** Residual variance s2 = RSS / df. */
  s2: number;
}

/** The fit, or null when the environment's design is singular or leaves no residual degree of freedom. */
export function environmentFit(moments: FamilyMoments): EnvironmentFit | null {
  const m = moments.xty.length;
  const df = moments.n - m;
  if (df < 1) return null;
  const inverse = invert(moments.xtx, m);
  if (inverse === null) return null;
  const coef = multiply(inverse, moments.xty, m);
  const rss = moments.yty - coef.reduce((s, b, i) => s + b * moments.xty[i]!, 0);
  const s2 = Math.max(rss, 0) / df;
  if (!(s2 > 0)) return null;
  return { n: moments.n, df, coef, covariance: inverse.map((v) => v * s2), s2 };
}

export function multiply(a: readonly number[], x: readonly number[], m: number): number[] {
  return Array.from({ length: m }, (_, i) => {
    let s = 0;
    for (let j = 0; j < m; j++) s += a[i * m + j]! * x[j]!;
    return s;
  });
}

/** The sub-matrix of rows and columns `indices`. */
export function block(a: readonly number[], m: number, indices: readonly number[]): number[] {
  return indices.flatMap((i) => indices.map((j) => a[i * m + j]!));
}
