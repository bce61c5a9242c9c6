/**
 * Tests of a context (an environment indicator that nothing in the system causes: CD-NOD's indicator, J-PCMCI+'s
 * context) against a continuous variable given continuous conditions, that see a mechanism change in each of the
 * three forms a linear-Gaussian mechanism can change in. CD-NOD's kernel tests (Huang et al. 2020) see every form;
 * the mixed tester's degenerate-Gaussian test, with the indicator's levels as regressors, sees the first only:
 *
 * - level: per-environment intercepts against one (the base tester's test);
 * - slopes: per-environment slopes on the conditions against common ones, each environment keeping its own
 *   intercept (Chow 1960's test of equal regressions, from per-environment cross products);
 * - noise scale: Levene's (1960) test of equal spread of the per-environment regressions' residuals (the analysis of
 *   variance of their absolute values, robust to heavy tails where Bartlett's test is not).
 *
 * Under independence the three statistics are asymptotically independent; the p-value is the smallest of the three,
 * Bonferroni-adjusted, so the test keeps its level and loses little power to any one form. A slope that differs
 * across environments then makes the context adjacent to the variable, which orients links into it as a level shift
 * does. Tests whose conditions include a categorical column keep the base test (its regressors would be indicator
 * blocks with slopes of their own; not done).
 */
import { chiSquareSurvival } from '../../compute/distributions.js';
import { invert } from '../linear-algebra.js';
import type { CategoricalColumn, Frame } from '../types.js';
import { type CiResults, type CiTest, type CiTester, chiSquareDependence } from './ci-tests.js';

/** An environment enters the slope and spread tests with at least this many residual degrees of freedom. */
const MIN_ENVIRONMENT_DF = 5;
/** The three forms of change. */
const FORMS = 3;

/** `base` over `design`, with the tests of a context column (`contexts`: design column indices) against a continuous column answered by all three forms. */
export function withContextTests(base: CiTester, design: Frame, contexts: readonly number[]): CiTester {
  if (contexts.length === 0) return base;
  const moments = new Map<number, EnvironmentMoments>();
  const momentsOf = (context: number) => {
    let found = moments.get(context);
    if (found === undefined) moments.set(context, (found = new EnvironmentMoments(design, design.columns[context] as CategoricalColumn)));
    return found;
  };
  const isContext = new Set(contexts);
  return {
    name: base.name,
    run(tests: readonly CiTest[]): CiResults {
      const result = base.run(tests);
      tests.forEach((test, i) => {
        const context = isContext.has(test.x) ? test.x : isContext.has(test.y) ? test.y : -1;
        const target = context === test.x ? test.y : test.x;
        if (context < 0 || isContext.has(target)) return;
        const forms = momentsOf(context).changes(target, test.s);
        if (forms === null) return;
        const level = { pValue: result.pValue[i]!, dependence: result.dependence[i]! };
        const smallest = Math.min(level.pValue, forms.slopes.pValue, forms.spread.pValue);
        result.pValue[i] = Math.min(1, FORMS * smallest);
        result.dependence[i] = Math.max(level.dependence, forms.slopes.dependence, forms.spread.dependence);
      });
      return result;
    },
  };
}

interface FormTest {
  pValue: number;
  dependence: number;
}

/**
 * Cross products of [1, continuous columns] per environment over the complete rows, the columns centred on their
 * overall means (so the sums do not cancel), built once per context; each test then reads its block.
 */
class EnvironmentMoments {
  /** Continuous design columns: their slot in the moment matrices (-1: categorical). */
  private readonly slot: Int32Array;
  /** Per slot (1..): the column's values and the overall mean they are centred on. */
  private readonly values: Float64Array[];
  private readonly means: number[];
  private readonly size: number;
  /** Per environment: (size x size) row-major sums of products, slot 0 the intercept. */
  private readonly sums: Float64Array[];
  private readonly counts: number[];
  private readonly environment: Int32Array;

  constructor(design: Frame, context: CategoricalColumn) {
    const n = design.nRows;
    this.slot = new Int32Array(design.columns.length).fill(-1);
    this.values = [];
    this.means = [];
    design.columns.forEach((column, c) => {
      if (column.kind !== 'continuous') return;
      let sum = 0;
      let count = 0;
      for (let r = 0; r < n; r++) if (!Number.isNaN(column.values[r]!)) (sum += column.values[r]!), count++;
      const mean = count > 0 ? sum / count : 0;
      this.slot[c] = this.values.length + 1;
      this.values.push(column.values);
      this.means.push(mean);
    });
    this.size = this.values.length + 1;
    const levels = context.categories.length;
    this.environment = context.codes;
    this.sums = Array.from({ length: levels }, () => new Float64Array(this.size * this.size));
    this.counts = new Array<number>(levels).fill(0);
    const row = new Float64Array(this.size);
    rows: for (let r = 0; r < n; r++) {
      const e = context.codes[r]!;
      if (e < 0) continue;
      row[0] = 1;
      for (let k = 1; k < this.size; k++) {
        row[k] = this.values[k - 1]![r]! - this.means[k - 1]!;
        if (Number.isNaN(row[k]!)) continue rows;
      }
      this.counts[e]!++;
      const sums = this.sums[e]!;
      for (let a = 0; a < this.size; a++) {
        const va = row[a]!;
        const offset = a * this.size;
        for (let b = 0; b <= a; b++) sums[offset + b]! += va * row[b]!;
      }
    }
    for (const sums of this.sums) for (let a = 0; a < this.size; a++) for (let b = 0; b < a; b++) sums[b * this.size + a] = sums[a * this.size + b]!;
  }

  /** The slope and spread tests of `target` given `conditions` (design columns); null when a column is categorical or too few environments can be fitted. */
  changes(target: number, conditions: readonly number[]): { slopes: FormTest; spread: FormTest } | null {
    const y = this.slot[target]!;
    const s = conditions.map((c) => this.slot[c]!);
    if (y < 0 || s.some((k) => k < 0)) return null;
    const m = s.length + 1;
    const regressors = [0, ...s];
    const fits: Array<{ e: number; n: number; coef: number[]; rss: number }> = [];
    // Pooled within-environment cross products for the common-slopes fit.
    const within = new Array<number>(s.length * s.length).fill(0);
    const withinY = new Array<number>(s.length).fill(0);
    let withinYY = 0;
    for (let e = 0; e < this.sums.length; e++) {
      const n = this.counts[e]!;
      if (n - m < MIN_ENVIRONMENT_DF) continue;
      const sums = this.sums[e]!;
      const at = (a: number, b: number) => sums[a * this.size + b]!;
      const xtx = regressors.flatMap((a) => regressors.map((b) => at(a, b)));
      const xty = regressors.map((a) => at(a, y));
      const inverse = invert(xtx, m);
      if (inverse === null) continue;
      const coef = regressors.map((_, a) => regressors.reduce((acc, _b, b) => acc + inverse[a * m + b]! * xty[b]!, 0));
      const rss = Math.max(0, at(y, y) - coef.reduce((acc, c, a) => acc + c * xty[a]!, 0));
      fits.push({ e, n, coef, rss });
      const meanY = at(0, y) / n;
      s.forEach((a, i) => {
        const meanA = at(0, a) / n;
        withinY[i]! += at(a, y) - n * meanA * meanY;
        s.forEach((b, j) => (within[i * s.length + j]! += at(a, b) - n * meanA * (at(0, b) / n)));
      });
      withinYY += at(y, y) - n * meanY * meanY;
    }
    if (fits.length < 2) return null;
    const total = fits.reduce((acc, f) => acc + f.n, 0);
    const rssFull = fits.reduce((acc, f) => acc + f.rss, 0);
    const dfFull = total - fits.length * m;
    if (dfFull < MIN_ENVIRONMENT_DF || !(rssFull > 0)) return null;
    const sigma2 = rssFull / dfFull;
    let slopes: FormTest = { pValue: 1, dependence: 0 };
    if (s.length > 0) {
      const inverse = invert(within, s.length);
      if (inverse !== null) {
        let explained = 0;
        for (let i = 0; i < s.length; i++) for (let j = 0; j < s.length; j++) explained += withinY[i]! * inverse[i * s.length + j]! * withinY[j]!;
        const rssCommon = Math.max(rssFull, withinYY - explained);
        const df = (fits.length - 1) * s.length;
        const statistic = (rssCommon - rssFull) / sigma2;
        slopes = { pValue: chiSquareSurvival(statistic, df), dependence: chiSquareDependence(statistic, df) };
      }
    }
    return { slopes, spread: this.levene(fits, y, s) };
  }

  /** Levene's test over the per-environment fits' absolute residuals (one pass over the rows). */
  private levene(fits: ReadonlyArray<{ e: number; n: number; coef: number[] }>, y: number, s: readonly number[]): FormTest {
    const fitOf = new Map(fits.map((f) => [f.e, f]));
    const sum = new Map<number, number>();
    const sumSquares = new Map<number, number>();
    const yValues = this.values[y - 1]!;
    const yMean = this.means[y - 1]!;
    rows: for (let r = 0; r < yValues.length; r++) {
      const fit = fitOf.get(this.environment[r]!);
      if (fit === undefined) continue;
      let prediction = fit.coef[0]!;
      for (let k = 0; k < s.length; k++) {
        const v = this.values[s[k]! - 1]![r]! - this.means[s[k]! - 1]!;
        if (Number.isNaN(v)) continue rows;
        prediction += fit.coef[k + 1]! * v;
      }
      const value = yValues[r]! - yMean;
      if (Number.isNaN(value)) continue;
      const z = Math.abs(value - prediction);
      sum.set(fit.e, (sum.get(fit.e) ?? 0) + z);
      sumSquares.set(fit.e, (sumSquares.get(fit.e) ?? 0) + z * z);
    }
    const total = fits.reduce((acc, f) => acc + f.n, 0);
    const grand = fits.reduce((acc, f) => acc + (sum.get(f.e) ?? 0), 0) / total;
    let between = 0;
    let inside = 0;
    for (const f of fits) {
      const groupSum = sum.get(f.e) ?? 0;
      const mean = groupSum / f.n;
      between += f.n * (mean - grand) ** 2;
      inside += (sumSquares.get(f.e) ?? 0) - groupSum * mean;
    }
    const df = fits.length - 1;
    const dfInside = total - fits.length;
    if (!(inside > 0) || dfInside < 1) return { pValue: 1, dependence: 0 };
    // F = (between / df) / (inside / dfInside); df * F is chi-square(df) for large dfInside.
    const statistic = between / (inside / dfInside);
    return { pValue: chiSquareSurvival(statistic, df), dependence: chiSquareDependence(statistic, df) };
  }
}
