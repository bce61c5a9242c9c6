/**
 * Where each edge of the pooled graph holds, environment by environment, and whether its mechanism differs.
 *
 * - Holds: for an edge whose source enters its target's regression as one term, each environment's coefficient
 *   b_e (with its sampling variance v_e) is read as drawn from a two-component model: absent (b_e ~ N(0, v_e)) with
 *   probability 1 - pi, present (b_e ~ N(mu, tau^2 + v_e)) with probability pi, fitted by EM (a spike-and-slab
 *   empirical Bayes model, as in meta-analysis mixtures). `agreementRate` is pi: the share of environments where
 *   the edge holds, corrected for the small environments whose test alone would miss it; an environment holds the
 *   edge when its posterior of presence exceeds one half. A source entering as several terms (a categorical
 *   source's indicators) holds where its Wald test rejects at alpha, and agreement is the share of such environments.
 * - Gated (`isEnvironmentGated`): present in some environments and absent in others, by the likelihood ratio of
 *   the mixture against the edge present everywhere (presenceTest), or of materially different strength: Cochran's
 *   Q test of equal coefficients (Cochran 1954; meta-analysis' heterogeneity test, asymptotically Chow's) with a
 *   between-environment spread of at least MATERIAL_VARIATION of the mean (a several-term source: Q where some
 *   environments show no effect); Benjamini-Hochberg over the graph's edges at alpha for each test. Mechanisms
 *   that differ less are still kept per environment (partial pooling), without the flag.
 * - Absent everywhere: the stratified Wald test (the sum over environments of each one's chi-square), which
 *   discovery uses to drop edges a pooled test found only because slopes differ across environments.
 * - Edges into a categorical node are judged from its class counts per parent configuration in each environment,
 *   a continuous parent counted by its quartile bin (the same cuts in every environment: a discretised test, as
 *   in discrete conditional-independence testing of mixed data): holds where the likelihood-ratio (G) test of the
 *   child's independence of the source given its other parents rejects at alpha; agreement is the share of such
 *   environments; gated when some environments show no effect and the child's conditional distribution differs
 *   across environments (the G test of homogeneity of the CPT rows over environments), as several-term sources are.
 */
import { chiSquareSurvival } from '../../compute/distributions.js';
import { benjaminiHochberg } from '../temporal/discover.js';
import type { EdgeRef } from '../types.js';
import type { Family, FamilyMoments } from './moments.js';
import { invert } from '../linear-algebra.js';
import { block, environmentFit, multiply } from './regression.js';

/**
 * A coefficient differs materially across environments when its between-environment standard deviation is at least
 * this share of its mean's magnitude (and Cochran's Q rejects equal coefficients); smaller differences are the
 * ordinary variation partial pooling absorbs.
 */
export const MATERIAL_VARIATION = 0.5;
/** An environment judges an edge when its regression has this many residual degrees of freedom. */
export const MIN_EVIDENCE_DF = 8;
const EM_ITERATIONS = 200;

export interface EdgeJudgement extends EdgeRef {
  holds: Array<boolean | null>;
  strength: Array<number | null>;
  agreementRate: number | null;
  gated: boolean;
  /** Cochran's Q p-value of equal coefficients across environments (null when fewer than two judge the edge). */
  heterogeneityP: number | null;
  /** p-value of the edge being present in every environment judged (null: not tested). */
  presenceP: number | null;
  /** p-value of the edge being absent in every environment judged: the stratified Wald test, sum of chi-squares. */
  absenceP: number | null;
  /** Single-term sources: the between-environment standard deviation of the coefficient over its mean's magnitude (DerSimonian-Laird). */
  variation: number | null;
}

/** A categorical node, as its per-environment counts are laid out (moments.ts cptCounts: configurations in parent
 * order, the last parent varying fastest; a continuous parent's levels are its bins). */
export interface CountFamily {
  node: string;
  parents: string[];
  parentLevels: number[];
  classes: number;
}

/** Per-environment CPT counts of the count families: `counts[e][f][configuration][class]`. */
export interface FamilyCounts {
  families: readonly CountFamily[];
  counts: number[][][][];
}

/** `moments[e][f]` per environment and family; `cpts` judges the edges into categorical (CPT) nodes. */
export function judgeEdges(edges: readonly EdgeRef[], families: readonly Family[], moments: FamilyMoments[][], alpha: number, cpts?: FamilyCounts): EdgeJudgement[] {
  const fits = moments.map((perEnv) => perEnv.map((x) => environmentFit(x)));
  const familyIndex = new Map(families.map((f, i) => [f.node, i]));
  const countIndex = new Map((cpts?.families ?? []).map((f, i) => [f.node, i]));
  const judged = edges.map((edge): EdgeJudgement => {
    const f = familyIndex.get(edge.target);
    const empty = { ...edge, holds: moments.map(() => null), strength: moments.map(() => null), agreementRate: null, gated: false, heterogeneityP: null, presenceP: null, absenceP: null, variation: null };
    const c = countIndex.get(edge.target);
    if (f === undefined && c !== undefined && cpts !== undefined) return judgeCountEdge(edge, cpts.families[c]!, cpts.counts.map((perEnv) => perEnv[c]!), alpha) ?? empty;
    if (f === undefined) return empty;
    // Positions of the source's terms in [intercept, terms...].
    const at = families[f]!.terms.flatMap((t, i) => (t.parents.includes(edge.source) ? [i + 1] : []));
    if (at.length === 0) return empty;
    const estimates = fits.map((perEnv) => {
      const fit = perEnv[f];
      if (fit == null || fit.df < MIN_EVIDENCE_DF) return null;
      const m = fit.coef.length;
      const b = at.map((i) => fit.coef[i]!);
      const v = block(fit.covariance, m, at);
      const precision = invert(v, at.length);
      return precision === null ? null : { b, v, precision, df: fit.df };
    });
    const strength = estimates.map((estimate, e) => (estimate === null ? null : standardised(estimate.b, estimate.precision, at, moments[e]![f]!)));
    const present = estimates.filter((x) => x !== null);
    const heterogeneityP = cochranQ(present);
    const absenceP = present.length === 0 ? null : chiSquareSurvival(present.reduce((s, x) => s + quadratic(x.b, x.precision), 0), present.length * at.length);
    if (at.length === 1) {
      const points = estimates.map((x) => (x === null ? null : { b: x.b[0]!, v: x.v[0]! }));
      const judgedPoints = points.filter((x) => x !== null);
      const mixture = presenceMixture(judgedPoints);
      const holds = points.map((x) => (x === null || mixture === null ? null : mixture.posterior(x.b, x.v) > 0.5));
      const presenceP = mixture === null || judgedPoints.length < 2 ? null : presenceTest(judgedPoints, mixture);
      return { ...edge, holds, strength, agreementRate: mixture === null ? null : mixture.pi, gated: false, heterogeneityP, presenceP, absenceP, variation: variationOf(judgedPoints) };
    }
    const holds = estimates.map((x) => (x === null ? null : chiSquareSurvival(quadratic(x.b, x.precision), at.length) < alpha));
    const counted = holds.filter((h) => h !== null);
    const agreementRate = counted.length === 0 ? null : counted.filter(Boolean).length / counted.length;
    // Several terms: present everywhere unless the coefficients differ and some environments show no effect.
    const presenceP = agreementRate === null || agreementRate === 1 ? null : heterogeneityP;
    return { ...edge, holds, strength, agreementRate, gated: false, heterogeneityP, presenceP, absenceP, variation: null };
  });
  const absentSomewhere = rejected(judged.map((j) => j.presenceP), alpha);
  const differs = rejected(judged.map((j) => (j.variation !== null && j.variation >= MATERIAL_VARIATION ? j.heterogeneityP : null)), alpha);
  return judged.map((j, i) => ({ ...j, gated: absentSomewhere.has(i) || differs.has(i) }));
}

/**
 * An edge into a CPT node, judged from each environment's counts (see the header). Null when the source is not
 * among the node's parents.
 */
function judgeCountEdge(edge: EdgeRef, family: CountFamily, counts: number[][][], alpha: number): EdgeJudgement | null {
  const at = family.parents.indexOf(edge.source);
  if (at < 0) return null;
  const tests = counts.map((table) => {
    const test = conditionalG(table, family, at);
    return test.df > 0 && test.n >= MIN_EVIDENCE_DF + test.df ? test : null;
  });
  const holds = tests.map((t) => (t === null ? null : chiSquareSurvival(t.g, t.df) < alpha));
  const strength = tests.map((t) => (t === null ? null : Math.sqrt(t.g / (t.g + t.n))));
  const judgedEnvironments = tests.flatMap((t, e) => (t === null ? [] : [e]));
  const counted = holds.filter((h) => h !== null);
  const agreementRate = counted.length === 0 ? null : counted.filter(Boolean).length / counted.length;
  const heterogeneityP = judgedEnvironments.length < 2 ? null : homogeneityP(judgedEnvironments.map((e) => counts[e]!));
  const gTotal = tests.reduce((s, t) => s + (t?.g ?? 0), 0);
  const dfTotal = tests.reduce((s, t) => s + (t?.df ?? 0), 0);
  return {
    ...edge, holds, strength, agreementRate, gated: false, heterogeneityP,
    presenceP: agreementRate === null || agreementRate === 1 ? null : heterogeneityP,
    absenceP: dfTotal === 0 ? null : chiSquareSurvival(gTotal, dfTotal),
    variation: null,
  };
}

/**
 * G = 2 sum n log(n n_z / (n_zs n_zc)) of the child's independence of the parent at `at` given the other parents
 * (strata z), with df = sum over strata of (observed source levels - 1)(observed classes - 1).
 */
function conditionalG(table: number[][], family: CountFamily, at: number): { g: number; df: number; n: number } {
  const radix = family.parentLevels;
  const sourceLevels = radix[at]!;
  // Configuration -> (stratum, source level): the digit at `at` taken out of the mixed-radix number.
  const below = radix.slice(at + 1).reduce((a, b) => a * b, 1);
  const strata = new Map<number, number[][]>();
  table.forEach((row, config) => {
    const high = Math.floor(config / (below * sourceLevels));
    const level = Math.floor(config / below) % sourceLevels;
    const z = high * below + (config % below);
    let stratum = strata.get(z);
    if (stratum === undefined) strata.set(z, (stratum = Array.from({ length: sourceLevels }, () => new Array<number>(family.classes).fill(0))));
    row.forEach((count, c) => (stratum![level]![c]! += count));
  });
  return sumOfTables([...strata.values()]);
}

/** p-value of the G test that every environment has the same class distribution in each parent configuration. */
function homogeneityP(tables: number[][][]): number | null {
  const { g, df } = sumOfTables(tables[0]!.map((_, config) => tables.map((t) => t[config]!)));
  return df === 0 ? null : chiSquareSurvival(g, df);
}

/**
 * G = 2 sum n log(n N / (n_row n_col)) of independence of rows and columns, summed over two-way tables (strata),
 * with df = sum of (non-empty rows - 1)(non-empty columns - 1); n counts every cell.
 */
function sumOfTables(tables: readonly number[][][]): { g: number; df: number; n: number } {
  let g = 0;
  let df = 0;
  let n = 0;
  for (const table of tables) {
    const byRow = table.map((row) => row.reduce((a, b) => a + b, 0));
    const byColumn = table[0]!.map((_, c) => table.reduce((sum, row) => sum + row[c]!, 0));
    const total = byRow.reduce((a, b) => a + b, 0);
    if (total === 0) continue;
    n += total;
    table.forEach((row, r) => row.forEach((count, c) => {
      if (count > 0) g += 2 * count * Math.log((count * total) / (byRow[r]! * byColumn[c]!));
    }));
    df += (byRow.filter((x) => x > 0).length - 1) * (byColumn.filter((x) => x > 0).length - 1);
  }
  return { g, df, n };
}

/** Indices whose p-value Benjamini-Hochberg rejects at level q (null: not tested). */
function rejected(pValues: ReadonlyArray<number | null>, q: number): Set<number> {
  const tested = pValues.flatMap((p, i) => (p === null ? [] : [i]));
  const adjusted = benjaminiHochberg(Float64Array.from(tested, (i) => pValues[i]!));
  return new Set(tested.filter((_, k) => adjusted[k]! <= q));
}

/** tau / |mu| of the coefficients (DerSimonian & Laird 1986), or null without two environments. */
function variationOf(points: ReadonlyArray<{ b: number; v: number }>): number | null {
  if (points.length < 2) return null;
  const w = points.map((x) => 1 / x.v);
  const wSum = w.reduce((a, b) => a + b, 0);
  const fixed = points.reduce((s, x, i) => s + w[i]! * x.b, 0) / wSum;
  const q = points.reduce((s, x, i) => s + w[i]! * (x.b - fixed) ** 2, 0);
  const tau2 = Math.max(0, (q - (points.length - 1)) / (wSum - w.reduce((s, x) => s + x * x, 0) / wSum));
  const rw = points.map((x) => 1 / (x.v + tau2));
  const mean = points.reduce((s, x, i) => s + rw[i]! * x.b, 0) / rw.reduce((a, b) => a + b, 0);
  return Math.sqrt(tau2) / Math.max(Math.abs(mean), 1e-12);
}

/**
 * Likelihood ratio of the fitted mixture against the edge present everywhere (pi = 1: the random-effects model
 * alone, fitted by the same EM with pi held at 1). pi = 1 is on the boundary, so the statistic is referred to
 * the 50:50 mixture of chi-square(0) and chi-square(1) (Self & Liang 1987).
 */
function presenceTest(points: ReadonlyArray<{ b: number; v: number }>, mixture: ReturnType<typeof presenceMixture> & object): number {
  const everywhere = presenceMixture(points, true)!;
  const logLikelihood = (m: typeof mixture) => points.reduce((s, x) => s + Math.log(m.pi * normalDensity(x.b, m.mu, m.tau2 + x.v) + (1 - m.pi) * normalDensity(x.b, 0, x.v) + 1e-300), 0);
  const statistic = Math.max(0, 2 * (logLikelihood(mixture) - logLikelihood(everywhere)));
  return 0.5 * chiSquareSurvival(statistic, 1);
}

/** A single-term source: its coefficient times the source's standard deviation over the target's, in the environment. */
function standardised(b: number[], precision: number[], at: number[], moments: FamilyMoments): number {
  const m = moments.xty.length;
  const n = moments.n;
  const yVar = moments.yty / n - (moments.xty[0]! / n) ** 2;
  if (at.length === 1) {
    const i = at[0]!;
    const xVar = moments.xtx[i * m + i]! / n - (moments.xtx[i]! / n) ** 2;
    return yVar > 0 && xVar > 0 ? (b[0]! * Math.sqrt(xVar)) / Math.sqrt(yVar) : 0;
  }
  // Several terms: the partial correlation implied by the Wald statistic, sqrt(W / (W + n)).
  const w = quadratic(b, precision);
  return Math.sqrt(w / (w + n));
}

function quadratic(b: readonly number[], precision: readonly number[]): number {
  const pb = multiply(precision, b, b.length);
  return b.reduce((s, x, i) => s + x * pb[i]!, 0);
}

/** Cochran's Q = sum_e (b_e - b)' V_e^-1 (b_e - b) about the precision-weighted mean b; chi-square((E - 1) k). */
function cochranQ(estimates: Array<{ b: number[]; precision: number[] }>): number | null {
  if (estimates.length < 2) return null;
  const k = estimates[0]!.b.length;
  const total = new Array<number>(k * k).fill(0);
  const weighted = new Array<number>(k).fill(0);
  for (const { b, precision } of estimates) {
    precision.forEach((p, i) => (total[i]! += p));
    multiply(precision, b, k).forEach((x, i) => (weighted[i]! += x));
  }
  const inverse = invert(total, k);
  if (inverse === null) return null;
  const mean = multiply(inverse, weighted, k);
  const q = estimates.reduce((s, { b, precision }) => s + quadratic(b.map((x, i) => x - mean[i]!), precision), 0);
  return chiSquareSurvival(q, (estimates.length - 1) * k);
}

/**
 * The spike-and-slab mixture of coefficients b_e with known sampling variances v_e, by EM: pi, mu, tau^2, and each
 * environment's posterior probability of presence. Null without environments.
 */
export function presenceMixture(points: ReadonlyArray<{ b: number; v: number }>, everywhere = false): { pi: number; mu: number; tau2: number; posterior(b: number, v: number): number } | null {
  if (points.length === 0) return null;
  const significant = points.filter((x) => Math.abs(x.b) > 1.96 * Math.sqrt(x.v));
  const start = significant.length > 0 && !everywhere ? significant : points;
  let pi = everywhere ? 1 : Math.min(0.99, Math.max(0.01, significant.length / points.length));
  let mu = start.reduce((s, x) => s + x.b, 0) / start.length;
  let tau2 = start.reduce((s, x) => s + (x.b - mu) ** 2, 0) / start.length;
  const posterior = (b: number, v: number) => {
    const present = pi * normalDensity(b, mu, tau2 + v);
    const absent = (1 - pi) * normalDensity(b, 0, v);
    return present + absent > 0 ? present / (present + absent) : pi;
  };
  for (let iteration = 0; iteration < EM_ITERATIONS; iteration++) {
    const r = points.map((x) => posterior(x.b, x.v));
    const nextPi = r.reduce((s, x) => s + x, 0) / points.length;
    let wSum = 0;
    let wbSum = 0;
    points.forEach((x, i) => {
      const w = r[i]! / (tau2 + x.v);
      wSum += w;
      wbSum += w * x.b;
    });
    const nextMu = wSum > 0 ? wbSum / wSum : mu;
    // Fixed-point step for tau^2 (the random-effects likelihood's score equation, weighted by responsibility).
    let numerator = 0;
    let denominator = 0;
    points.forEach((x, i) => {
      const w = 1 / (tau2 + x.v);
      numerator += r[i]! * w * w * ((x.b - nextMu) ** 2 - x.v);
      denominator += r[i]! * w * w;
    });
    const nextTau2 = denominator > 0 ? Math.max(0, numerator / denominator) : tau2;
    const converged = Math.abs(nextPi - pi) < 1e-7 && Math.abs(nextMu - mu) <= 1e-9 * (1 + Math.abs(mu)) && Math.abs(nextTau2 - tau2) <= 1e-9 * (1 + tau2);
    pi = everywhere ? 1 : Math.min(1, Math.max(0, nextPi));
    mu = nextMu;
    tau2 = nextTau2;
    if (converged) break;
  }
  return { pi, mu, tau2, posterior };
}

const normalDensity = (x: number, mean: number, variance: number) => Math.exp(-((x - mean) ** 2) / (2 * variance)) / Math.sqrt(2 * Math.PI * variance);
