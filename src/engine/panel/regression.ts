/** One environment's least-squares fit from its family moments (moments.ts), and small dense matrix helpers. */
import type { FamilyMoments } from './moments.js';

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

/** Inverse of a symmetric positive-definite m x m matrix (Cholesky), or null when it is not (numerically) PD. */
export function invert(a: readonly number[], m: number): number[] | null {
  const l = new Float64Array(m * m);
  const scale = Math.max(...Array.from({ length: m }, (_, i) => Math.abs(a[i * m + i]!)), 1e-300);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * m + j]!;
      for (let k = 0; k < j; k++) s -= l[i * m + k]! * l[j * m + k]!;
      if (i === j) {
        if (!(s > 1e-12 * scale)) return null;
        l[i * m + i] = Math.sqrt(s);
      } else l[i * m + j] = s / l[j * m + j]!;
    }
  }
  const li = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    li[j * m + j] = 1 / l[j * m + j]!;
    for (let i = j + 1; i < m; i++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= l[i * m + k]! * li[k * m + j]!;
      li[i * m + j] = s / l[i * m + i]!;
    }
  }
  const out = new Array<number>(m * m).fill(0);
  for (let i = 0; i < m; i++) for (let j = 0; j <= i; j++) {
    let s = 0;
    for (let k = i; k < m; k++) s += li[k * m + i]! * li[k * m + j]!;
    out[i * m + j] = s;
    out[j * m + i] = s;
  }
  return out;
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
