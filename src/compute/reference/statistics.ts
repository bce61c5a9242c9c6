/**
 * Reference sufficient statistics and conditional independence tests: covariance, correlation, Fisher-z on
 * partial correlations, contingency counts and G-square. Plain loops, written to be read; assembly/stats/ must
 * agree with them within the tolerances test/kernels/ states.
 */
import { chiSquareSurvival } from '../distributions.js';
import { requireCodedColumns, requireColumn, requireLength, requireSize, requireTestBatch } from '../kernel-arguments.js';
import { PIVOT_TOLERANCE } from './regression.js';

export function covariance(data: Float64Array, n: number, p: number): { means: Float64Array; cov: Float64Array } {
  requireSize('n', n);
  requireSize('p', p);
  requireLength('data', data, n * p);
  const means = new Float64Array(p);
  for (let r = 0; r < n; r++) {
    for (let j = 0; j < p; j++) means[j]! += data[r * p + j]!;
  }
  for (let j = 0; j < p; j++) means[j]! /= n;
  const cov = new Float64Array(p * p);
  if (n < 2) return { means, cov: cov.fill(Number.NaN) };
  // Two passes (means first, then centred products) keep the precision the one-pass formula loses.
  const centred = new Float64Array(p);
  for (let r = 0; r < n; r++) {
    for (let j = 0; j < p; j++) centred[j] = data[r * p + j]! - means[j]!;
    for (let i = 0; i < p; i++) {
      for (let j = i; j < p; j++) cov[i * p + j]! += centred[i]! * centred[j]!;
    }
  }
  for (let i = 0; i < p; i++) {
    for (let j = i; j < p; j++) {
      const value = cov[i * p + j]! / (n - 1);
      cov[i * p + j] = value;
      cov[j * p + i] = value;
    }
  }
  return { means, cov };
}

/** Correlations from the covariance; a constant column (zero variance) answers NaN in its row and column. */
export function correlation(data: Float64Array, n: number, p: number): Float64Array {
  const { cov } = covariance(data, n, p);
  const sd = new Float64Array(p);
  for (let j = 0; j < p; j++) sd[j] = Math.sqrt(cov[j * p + j]!);
  const corr = new Float64Array(p * p);
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < p; j++) corr[i * p + j] = i === j ? (sd[i]! > 0 ? 1 : Number.NaN) : cov[i * p + j]! / (sd[i]! * sd[j]!);
  }
  return corr;
}

/** The variables of test `t` as [S..., x, y], or undefined when an index or k is out of range. */
function testVariables(tests: Int32Array, maxK: number, t: number, columns: number): number[] | undefined {
  const slot = t * (maxK + 3);
  const k = tests[slot + 2]!;
  if (k < 0 || k > maxK) return undefined;
  const variables = [...tests.subarray(slot + 3, slot + 3 + k), tests[slot]!, tests[slot + 1]!];
  return variables.every((v) => v >= 0 && v < columns) ? variables : undefined;
}

/**
 * The partial correlation of the last two `variables` given the others, from the Cholesky factor of the
 * correlation submatrix ordered [S, x, y]: its bottom 2 x 2 block [[a, 0], [b, c]] factors the covariance of
 * (x, y) given S, so the partial correlation is a b / (a sqrt(b^2 + c^2)) = b / sqrt(b^2 + c^2). A conditioning
 * variable that the earlier ones determine (pivot <= PIVOT_TOLERANCE of its diagonal) adds nothing and is
 * dropped; NaN when x or y is itself determined by S. `rank` counts the conditioning variables kept.
 */
function partialCorrelation(corr: Float64Array, p: number, variables: number[]): { partial: number; rank: number } {
  const m = variables.length;
  const k = m - 2;
  const l = new Float64Array(m * m);
  const at = (i: number, j: number) => corr[variables[i]! * p + variables[j]!]!;
  let rank = 0;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < i; j++) {
      if (l[j * m + j] === 0) continue; // a dropped variable's column stays zero
      let s = at(i, j);
      for (let q = 0; q < j; q++) s -= l[i * m + q]! * l[j * m + q]!;
      l[i * m + j] = s / l[j * m + j]!;
    }
    const diagonal = at(i, i);
    let d = diagonal;
    for (let q = 0; q < i; q++) d -= l[i * m + q]! * l[i * m + q]!;
    const threshold = PIVOT_TOLERANCE * diagonal;
    if (i < k) {
      if (d > threshold) {
        l[i * m + i] = Math.sqrt(d);
        rank++;
      } else if (!(d <= threshold)) {
        return { partial: Number.NaN, rank }; // NaN in the matrix
      }
    } else if (i === k) {
      if (!(d > threshold)) return { partial: Number.NaN, rank };
      l[i * m + i] = Math.sqrt(d);
    } else {
      const b = l[i * m + k]!;
      const c2 = Math.max(d, 0);
      if (!(b * b + c2 > threshold)) return { partial: Number.NaN, rank };
      return { partial: b / Math.sqrt(b * b + c2), rank };
    }
  }
  return { partial: Number.NaN, rank };
}

export function fisherZBatch(corr: Float64Array, p: number, n: number, tests: Int32Array, maxK: number, count: number): { partial: Float64Array; pValue: Float64Array } {
  requireSize('p', p);
  requireSize('n', n);
  requireLength('corr', corr, p * p);
  requireTestBatch(tests, maxK, count);
  const partial = new Float64Array(count).fill(Number.NaN);
  const pValue = new Float64Array(count).fill(Number.NaN);
  for (let t = 0; t < count; t++) {
    const variables = testVariables(tests, maxK, t, p);
    if (variables === undefined) continue;
    const result = partialCorrelation(corr, p, variables);
    partial[t] = result.partial;
    // Fisher (1921): atanh(r) sqrt(n - |S| - 3) is standard normal under independence, so its square is chi2(1).
    const dof = n - result.rank - 3;
    if (Number.isNaN(result.partial) || dof <= 0) continue;
    const z = Math.atanh(Math.min(1, Math.max(-1, result.partial)));
    pValue[t] = chiSquareSurvival(dof * z * z, 1);
  }
  return { partial, pValue };
}

export function contingency(codes: Int32Array, n: number, levels: Int32Array, x: number, y: number): Float64Array {
  requireCodedColumns(codes, n, levels);
  requireColumn('x', x, levels.length);
  requireColumn('y', y, levels.length);
  const lx = levels[x]!;
  const ly = levels[y]!;
  const table = new Float64Array(lx * ly);
  for (let r = 0; r < n; r++) {
    const cx = codes[x * n + r]!;
    const cy = codes[y * n + r]!;
    if (cx >= 0 && cx < lx && cy >= 0 && cy < ly) table[cx * ly + cy]!++;
  }
  return table;
}

/**
 * Rows grouped by the codes of the conditioning columns, skipping rows with a missing (or out-of-range) code
 * in x, y or S. Keys are mixed-radix numbers while they stay exact in a double, strings beyond that.
 */
function rowsByStratum(codes: Int32Array, n: number, levels: Int32Array, variables: number[]): Map<number | string, number[]> {
  const strata = new Map<number | string, number[]>();
  const exactNumbers = variables.slice(0, -2).reduce((product, v) => product * Math.max(levels[v]!, 1), 1) <= 2 ** 53;
  const parts: number[] = [];
  rows: for (let r = 0; r < n; r++) {
    parts.length = 0;
    for (const v of variables) {
      const code = codes[v * n + r]!;
      if (code < 0 || code >= levels[v]!) continue rows;
      parts.push(code);
    }
    let key: number | string = 0;
    if (exactNumbers) for (let i = 0; i < parts.length - 2; i++) key = key * levels[variables[i]!]! + parts[i]!;
    else key = parts.slice(0, -2).join(',');
    const rowsOfKey = strata.get(key);
    if (rowsOfKey === undefined) strata.set(key, [r]);
    else rowsOfKey.push(r);
  }
  return strata;
}

/**
 * G^2 = 2 sum O ln(O / E) over the x-by-y table of each stratum of S, E = row total x column total / stratum
 * total. Degrees of freedom count only rows and columns with a non-zero margin in each stratum, as bnlearn's
 * df_adjust and causal-learn do (structural zeros). df = 0 (no stratum can show dependence) answers p = 1.
 */
function gSquareTest(codes: Int32Array, n: number, levels: Int32Array, variables: number[]): [number, number, number] {
  const x = variables[variables.length - 2]!;
  const y = variables[variables.length - 1]!;
  const lx = levels[x]!;
  const ly = levels[y]!;
  const table = new Float64Array(lx * ly);
  const rowTotals = new Float64Array(lx);
  const colTotals = new Float64Array(ly);
  let statistic = 0;
  let df = 0;
  for (const rows of rowsByStratum(codes, n, levels, variables).values()) {
    let nonzeroRows = 0;
    let nonzeroCols = 0;
    for (const r of rows) {
      const cx = codes[x * n + r]!;
      const cy = codes[y * n + r]!;
      table[cx * ly + cy]!++;
      if (rowTotals[cx]!++ === 0) nonzeroRows++;
      if (colTotals[cy]!++ === 0) nonzeroCols++;
    }
    df += (nonzeroRows - 1) * (nonzeroCols - 1);
    for (const r of rows) {
      const cx = codes[x * n + r]!;
      const cy = codes[y * n + r]!;
      const observed = table[cx * ly + cy]!;
      if (observed === 0) continue; // this cell was already added
      statistic += observed * Math.log((observed * rows.length) / (rowTotals[cx]! * colTotals[cy]!));
      table[cx * ly + cy] = 0;
    }
    for (const r of rows) {
      rowTotals[codes[x * n + r]!] = 0;
      colTotals[codes[y * n + r]!] = 0;
    }
  }
  statistic = Math.max(0, 2 * statistic);
  return [statistic, df, df > 0 ? chiSquareSurvival(statistic, df) : 1];
}

export function gSquareBatch(codes: Int32Array, n: number, levels: Int32Array, tests: Int32Array, maxK: number, count: number): { statistic: Float64Array; df: Float64Array; pValue: Float64Array } {
  requireCodedColumns(codes, n, levels);
  requireTestBatch(tests, maxK, count);
  const statistic = new Float64Array(count).fill(Number.NaN);
  const df = new Float64Array(count).fill(Number.NaN);
  const pValue = new Float64Array(count).fill(Number.NaN);
  for (let t = 0; t < count; t++) {
    const variables = testVariables(tests, maxK, t, levels.length);
    if (variables === undefined) continue;
    [statistic[t], df[t], pValue[t]] = gSquareTest(codes, n, levels, variables);
  }
  return { statistic, df, pValue };
}
