/**
 * Conditional independence tests chosen by data type, each run as one batch per call so a PC depth level costs
 * one kernel call: Fisher-z on partial correlations for continuous data (Fisher 1924), G-square on counts for
 * discrete data (as bnlearn/causal-learn), and for mixed data the degenerate-Gaussian likelihood-ratio test
 * (Andrews, Ramsey & Cooper 2019): categoricals enter as indicator blocks and the statistic is
 * n * (log|S_XS| + log|S_YS| - log|S_S| - log|S_XYS|) ~ chi-square(dim X * dim Y).
 */
import type { Kernels } from '../../compute/kernels.js';
import { chiSquareSurvival } from '../../compute/distributions.js';
import { correlationOf } from './moments.js';
import type { PreparedData } from './prepare.js';

export interface CiTest {
  x: number;
  y: number;
  s: readonly number[];
}

export interface CiResults {
  pValue: Float64Array;
  /** Evidence of dependence on a common scale (|partial correlation|, or (statistic - df) / sqrt(2 df) for the
   * chi-square tests): only used to order candidate conditioning sets. */
  dependence: Float64Array;
}

export interface CiTester {
  readonly name: 'fisher-z' | 'g-square' | 'degenerate-gaussian';
  run(tests: readonly CiTest[]): CiResults;
}

/** A chi-square statistic on the dependence scale of the chi-square tests. */
export const chiSquareDependence = (statistic: number, df: number) => (df > 0 ? (statistic - df) / Math.sqrt(2 * df) : 0);
const empty = (): CiResults => ({ pValue: new Float64Array(0), dependence: new Float64Array(0) });

export function ciTesterFor(data: PreparedData, kernels: Kernels): CiTester {
  if (data.mode === 'discrete') return gSquareTester(data, kernels);
  if (data.mode === 'continuous') return fisherZTester(data, kernels);
  return degenerateGaussianTester(data, kernels);
}

function packTests(tests: readonly CiTest[], map: (j: number) => number): { packed: Int32Array; maxK: number } {
  const maxK = tests.reduce((m, t) => Math.max(m, t.s.length), 0);
  const slot = maxK + 3;
  const packed = new Int32Array(tests.length * slot);
  tests.forEach((t, i) => {
    packed[i * slot] = map(t.x);
    packed[i * slot + 1] = map(t.y);
    packed[i * slot + 2] = t.s.length;
    t.s.forEach((v, k) => (packed[i * slot + 3 + k] = map(v)));
  });
  return { packed, maxK };
}

function fisherZTester(data: PreparedData, kernels: Kernels): CiTester {
  const moments = data.moments!;
  const corr = correlationOf(moments.cov, moments.q);
  const embedIndex = (j: number) => data.blocks[j]![0] ?? 0;
  return {
    name: 'fisher-z',
    run(tests) {
      if (tests.length === 0) return empty();
      const { packed, maxK } = packTests(tests, embedIndex);
      const { partial, pValue } = kernels.fisherZBatch(corr, moments.q, moments.effectiveN, packed, maxK, tests.length);
      if (data.observed) {
        // Each test on the rows its least observed pair has (Fisher: atanh(r) sqrt(n - |S| - 3) ~ N(0, 1)).
        tests.forEach((t, i) => {
          const dof = data.observed!.smallest([t.x, t.y, ...t.s]) - t.s.length - 3;
          const z = Math.atanh(Math.min(1, Math.max(-1, partial[i]!)));
          if (!Number.isNaN(partial[i]!)) pValue[i] = dof > 0 ? chiSquareSurvival(dof * z * z, 1) : 1;
        });
      }
      return { pValue, dependence: partial.map((r) => (Number.isNaN(r) ? 0 : Math.abs(r))) };
    },
  };
}

function gSquareTester(data: PreparedData, kernels: Kernels): CiTester {
  const { n, p } = data;
  const codes = new Int32Array(n * p).fill(-1);
  // A number column kept out of the search (a constant) has no codes: missing everywhere, never tested.
  for (let j = 0; j < p; j++) if (data.codes[j]) codes.set(data.codes[j]!, j * n);
  const levels = data.levels.map((l) => Math.max(l, 1));
  return {
    name: 'g-square',
    run(tests) {
      if (tests.length === 0) return empty();
      const { packed, maxK } = packTests(tests, (j) => j);
      const { statistic, df, pValue } = kernels.gSquareBatch(codes, n, levels, packed, maxK, tests.length);
      return { pValue, dependence: statistic.map((g, i) => chiSquareDependence(g, df[i]!)) };
    },
  };
}

function degenerateGaussianTester(data: PreparedData, kernels: Kernels): CiTester {
  const moments = data.moments!;
  const logDets = new Map<string, number>();
  const logDetOf = (columns: number[]): number => {
    if (columns.length === 0) return 0;
    columns.sort((a, b) => a - b);
    const key = columns.join(',');
    const cached = logDets.get(key);
    if (cached !== undefined) return cached;
    const value = logDeterminant(moments.cov, moments.q, columns, kernels);
    logDets.set(key, value);
    return value;
  };
  return {
    name: 'degenerate-gaussian',
    run(tests) {
      const pValue = new Float64Array(tests.length);
      const dependence = new Float64Array(tests.length);
      tests.forEach((t, i) => {
        const bx = data.blocks[t.x]!;
        const by = data.blocks[t.y]!;
        const bs = t.s.flatMap((v) => data.blocks[v]!);
        const info = logDetOf([...bx, ...bs]) + logDetOf([...by, ...bs]) - logDetOf([...bs]) - logDetOf([...bx, ...by, ...bs]);
        // A degenerate block (collinear indicators) gives no evidence either way: count it as independence.
        const rows = data.observed ? data.observed.smallest([t.x, t.y, ...t.s]) : moments.effectiveN;
        const statistic = Number.isFinite(info) ? Math.max(0, rows * info) : 0;
        const df = bx.length * by.length;
        pValue[i] = Number.isFinite(info) && df > 0 ? chiSquareSurvival(statistic, df) : 1;
        dependence[i] = chiSquareDependence(statistic, df);
      });
      if (logDets.size > 200_000) logDets.clear();
      return { pValue, dependence };
    },
  };
}

/** log det of a principal submatrix through the Cholesky kernel; a tiny ridge rescues a singular block. */
export function logDeterminant(cov: Float64Array, q: number, columns: readonly number[], kernels: Kernels): number {
  const k = columns.length;
  const sub = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) sub[a * k + b] = cov[columns[a]! * q + columns[b]!]!;
  for (const ridge of [0, 1e-10, 1e-8, 1e-6, 1e-4]) {
    if (ridge > 0) for (let a = 0; a < k; a++) sub[a * k + a] = cov[columns[a]! * q + columns[a]!]! * (1 + ridge) + ridge;
    const { status, l } = kernels.cholesky(sub, k);
    if (status !== 0) continue;
    let sum = 0;
    for (let a = 0; a < k; a++) sum += Math.log(l[a * k + a]!);
    return 2 * sum;
  }
  return Number.NEGATIVE_INFINITY;
}
