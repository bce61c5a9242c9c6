/**
 * One mechanism of a temporal twin watched over a window (the causal health monitor, health.ts): its standardised
 * residuals scanned along each input, its level and its noise scale (health-scan.ts), calibrated on replicates
 * drawn from its own residuals with their persistence and the version's estimation error, and each departure
 * classified (spike, worsening, improving, sustained, normal) with its evidence.
 */
import type { modelColumns } from '../inference/calibration.js';
import { type CategoricalPlan, type ContinuousPlan, conditionalMeanInto, probabilitiesInto } from '../inference/scm-plan.js';
import { priorNoise } from '../inference/scm.js';
import { normalCritical, parameterSampler } from '../inference/uncertainty.js';
import { Rng } from '../random.js';
import type { NodeModel } from '../types.js';
import { type Direction, type Interval, bestInterval, changeStart, departure, gridOf, scanPValue, scanTail } from './health-scan.js';
import type { TemporalModel } from './model.js';
import { categoricalTail } from '../inference/calibration.js';
import { sourceOf } from './lagged.js';
import type { SampleWindow } from './window.js';

export type AlertType = 'spike' | 'worsening' | 'improving' | 'sustained' | 'normal';

/** Replicates of the scan under no change, per variable. */
const REPLICATES = 1000;

interface Bounds {
  value: number;
  lowerBound: number | null;
  upperBound: number | null;
}

export interface Evidence {
  /** What is compared: a link's coefficient, the mechanism's level (intercept), its noise std, one step's residual,
   * a categorical mechanism's fit (the mean log-probability of the classes observed, per step), or for a link into a
   * categorical variable one class's probability per unit of the input (per the input's category, for a
   * categorical input): as the version predicts it and as the window shows it, over the departure. */
  measure: 'coefficient' | 'level' | 'noiseStd' | 'residual' | 'logLikelihood' | 'classProbabilitySlope';
  /** What the version learned, and what the window shows since the departure began (intervals at confidenceLevel). */
  then: Bounds;
  now: Bounds;
  /** Where the departure begins (the record index and its time) and how many steps it spans. */
  since: { index: number; timestamp: number | null };
  steps: number;
  /** `classProbabilitySlope`: the class, and the input's category (categorical inputs). */
  category?: string;
  inputCategory?: string;
}

export interface MechanismHealth {
  alertType: AlertType;
  /** The scan's p-value for this link or variable (Bonferroni over its tests). */
  pValue: number;
  evidence: Evidence;
}

export interface LinkHealth extends MechanismHealth {
  source: string;
  target: string;
  lag: number;
}

export interface VariableHealth extends MechanismHealth {
  variable: string;
}

export interface Mechanism {
  plan: ContinuousPlan;
  node: Extract<NodeModel, { kind: 'continuous' }>;
  columns: ReturnType<typeof modelColumns>;
  /** Window rows where the mechanism can be scored, and its noise scores per window row. */
  rows: number[];
  noise: Float64Array;
}

interface Test {
  /** The link a coefficient test belongs to (null for the variable's own tests). */
  link: { source: string; lag: number } | null;
  measure: Evidence['measure'];
  term: number;
  direction: Direction;
  /** The series scanned: e for links and level, (e^2 - 1) / sd for the noise scale. */
  scale: boolean;
}

export function watchMechanism(
  model: TemporalModel,
  window: SampleWindow,
  m: Mechanism,
  options: { targetFpr: number; minSteps: number; level: number; seed: number; persistence: number },
): { links: LinkHealth[]; variable: VariableHealth } {
  const { plan, node, columns, rows } = m;
  const n = rows.length;
  const all = columns[0]!.length;
  const mean = new Float64Array(all);
  conditionalMeanInto(plan, columns, all, mean);
  const x = columns[plan.index] as Float64Array;
  const e = Float64Array.from(rows, (r) => (x[r]! - mean[r]!) / plan.scale);
  const squareSd = squaredNoiseSd(plan);
  const tests: Test[] = [];
  plan.terms.forEach((term, k) => {
    const modelTerm = node.terms[k]!;
    if ((term.kind !== 'linear' && term.kind !== 'indicator') || modelTerm.parents.length !== 1) return;
    const source = sourceOf(model, modelTerm.parents[0]!);
    if (source.kind !== 'lag') return;
    tests.push({ link: { source: source.variable, lag: source.lag }, measure: 'coefficient', term: k, direction: { z: termValues(plan, k, columns, rows) }, scale: false });
  });
  tests.push({ link: null, measure: 'level', term: -1, direction: { z: null }, scale: false });
  tests.push({ link: null, measure: 'noiseStd', term: -1, direction: { z: null }, scale: true });
  const series = (residuals: Float64Array) => residuals.map((v) => (v * v - 1) / squareSd);
  const squaredE = series(e);
  const scanned = (t: Test) => (t.scale ? squaredE : e);
  const grid = gridOf(n, options.minSteps);
  const observed = tests.map((t) => bestInterval(scanned(t), t.direction, grid, options.minSteps));
  // Replicates under no change: fresh noise plus the version's estimation error.
  const rng = new Rng(options.seed ^ 0x2545f491);
  const sampler = parameterSampler({ nodes: [node] });
  const perturbation = new Float64Array(all);
  const maxima = tests.map(() => [] as number[]);
  for (let rep = 0; rep < REPLICATES; rep++) {
    const replicate = new Float64Array(n);
    if (sampler !== null) {
      const drawn = sampler.draw(rng).nodes[0] as typeof node;
      conditionalMeanInto({ ...plan, intercept: drawn.intercept - node.intercept, coefficients: Float64Array.from(drawn.coefficients, (c, k) => c - node.coefficients[k]!) }, columns, all, perturbation);
    }
    // Residuals as persistent as the version's own (an AR(1) with its lag-1 autocorrelation) plus the estimation error.
    const rho = options.persistence;
    const fresh = Math.sqrt(1 - rho * rho);
    let previous = priorNoise(plan, rng);
    for (let t = 0; t < n; t++) {
      previous = t === 0 ? previous : rho * previous + fresh * priorNoise(plan, rng);
      replicate[t] = previous + (sampler === null ? 0 : perturbation[rows[t]!]! / plan.scale);
    }
    const squared = series(replicate);
    tests.forEach((t, k) => maxima[k]!.push(bestInterval(t.scale ? squared : replicate, t.direction, grid, options.minSteps).statistic));
  }
  const pValues = tests.map((_, k) => scanPValue(observed[k]!.statistic, scanTail(maxima[k]!)));
  // One step far outside the noise: the least probable residual, Sidak over the window's steps.
  const { row: spikeRow, p: spikeP } = leastProbableStep(rows.map((r) => m.noise[r]!));
  const z = normalCritical(options.level);
  const at = sinceOf(window, rows);
  const evidenceOf = (test: Test, interval: Interval): Evidence => {
    const d = departure(scanned(test), test.direction, interval.from, interval.to);
    const sigma = plan.noiseStd;
    const base = test.measure === 'noiseStd' ? { value: sigma, lowerBound: null, upperBound: null } : learned(node, test.term, z);
    const now = (v: number) => (test.measure === 'noiseStd' ? sigma * Math.sqrt(Math.max(0, 1 + squareSd * v)) : base.value + sigma * v);
    const finite = Number.isFinite(d.se);
    return {
      measure: test.measure,
      then: base,
      now: { value: now(d.estimate), lowerBound: finite ? now(d.estimate - z * d.se) : null, upperBound: finite ? now(d.estimate + z * d.se) : null },
      since: at(interval.from),
      steps: interval.to - interval.from,
    };
  };
  const judge = (indices: number[], extra: { p: number; evidence: Evidence } | null): MechanismHealth => {
    const count = indices.length + (extra === null ? 0 : 1);
    let best = indices[0]!;
    for (const k of indices) if (pValues[k]! < pValues[best]!) best = k;
    const minimum = Math.min(...indices.map((k) => pValues[k]!), extra?.p ?? 1);
    const pValue = Math.min(1, minimum * count);
    if (extra !== null && extra.p === minimum && extra.p < pValues[best]!) {
      return { alertType: pValue <= options.targetFpr ? 'spike' : 'normal', pValue, evidence: extra.evidence };
    }
    const test = tests[best]!;
    const interval = observed[best]!;
    if (pValue > options.targetFpr) return { alertType: 'normal', pValue, evidence: evidenceOf(test, { from: 0, to: n, statistic: 0 }) };
    const alertType = classify(scanned(test), test.direction, interval, n, options.minSteps);
    // The departure's own extent: to the end unless it has faded, from its maximum-likelihood start.
    const to = alertType === 'improving' ? interval.to : n;
    const from = changeStart(scanned(test), test.direction, interval.from, to, Math.min(options.minSteps, to - interval.from));
    return { alertType, pValue, evidence: evidenceOf(test, { from, to, statistic: interval.statistic }) };
  };
  const byLink = new Map<string, number[]>();
  tests.forEach((t, k) => {
    if (t.link === null) return;
    const key = `${t.link.source}\u0000${t.link.lag}`;
    byLink.set(key, [...(byLink.get(key) ?? []), k]);
  });
  const links = [...byLink.values()].map((indices): LinkHealth => ({ source: tests[indices[0]!]!.link!.source, target: node.name, lag: tests[indices[0]!]!.link!.lag, ...judge(indices, null) }));
  const own = tests.flatMap((t, k) => (t.link === null ? [k] : []));
  const spikeEvidence: Evidence = {
    measure: 'residual',
    then: { value: 0, lowerBound: -z * plan.noiseStd, upperBound: z * plan.noiseStd },
    now: { value: e[spikeRow]! * plan.noiseStd, lowerBound: null, upperBound: null },
    since: at(spikeRow),
    steps: 1,
  };
  return { links, variable: { variable: node.name, ...judge(own, { p: spikeP, evidence: spikeEvidence }) } };
}

/**
 * A significant departure over [from, to): `improving` when it ended at least minSteps before the window's end and
 * the steps since are back within noise; else `worsening` when its second half departs more than its first by more
 * than twice their combined standard error, `sustained` otherwise.
 */
function classify(e: Float64Array, direction: Direction, interval: Interval, n: number, minSteps: number): AlertType {
  if (interval.to <= n - minSteps) {
    const recent = departure(e, direction, interval.to, n);
    if (Math.abs(recent.estimate / recent.se) < 2) return 'improving';
  }
  const from = interval.from;
  const mid = from + Math.floor((n - from) / 2);
  if (mid - from < 2 || n - mid < 2) return 'sustained';
  const first = departure(e, direction, from, mid);
  const second = departure(e, direction, mid, n);
  const grows = Math.sign(second.estimate) === Math.sign(interval.statistic) && Math.abs(second.estimate) - Math.abs(first.estimate) > 2 * Math.hypot(first.se, second.se);
  return grows ? 'worsening' : 'sustained';
}

/** The values of one design term over the scored rows (a parent's value, or its category's indicator). */
function termValues(plan: ContinuousPlan, term: number, columns: ReturnType<typeof modelColumns>, rows: number[]): Float64Array {
  const unit = { ...plan, intercept: 0, coefficients: Float64Array.from(plan.coefficients, (_, k) => (k === term ? 1 : 0)) };
  const all = new Float64Array(columns[0]!.length);
  conditionalMeanInto(unit, columns, all.length, all);
  return Float64Array.from(rows, (r) => all[r]!);
}

/** A coefficient (term >= 0) or the intercept (-1) as learned, with its interval when the fit kept its covariance. */
function learned(node: Extract<NodeModel, { kind: 'continuous' }>, term: number, z: number): Bounds {
  const value = term < 0 ? node.intercept : node.coefficients[term]!;
  const packed = node.coefficientCovariance;
  const i = term + 1;
  const variance = packed !== undefined && packed.length === ((node.coefficients.length + 1) * (node.coefficients.length + 2)) / 2 ? packed[(i * (i + 1)) / 2 + i]! : Number.NaN;
  return Number.isFinite(variance) ? { value, lowerBound: value - z * Math.sqrt(variance), upperBound: value + z * Math.sqrt(variance) } : { value, lowerBound: null, upperBound: null };
}

/** The standard deviation of e^2 under the mechanism's noise (sqrt 2 for normal noise). */
function squaredNoiseSd(plan: ContinuousPlan): number {
  const q = plan.quantiles;
  if (q.length === 0) return Math.SQRT2;
  let m2 = 0;
  let m4 = 0;
  for (const v of q) (m2 += v * v, m4 += v ** 4);
  m2 /= q.length;
  m4 /= q.length;
  return Math.sqrt(Math.max(m4 - m2 * m2, 1e-6));
}


/** The least probable of the scored steps, and its Sidak p-value over all of them (the spike test). */
function leastProbableStep(tails: readonly number[]): { row: number; p: number } {
  let row = 0;
  for (let t = 1; t < tails.length; t++) if (tails[t]! < tails[row]!) row = t;
  return { row, p: -Math.expm1(tails.length * Math.log1p(-Math.min(tails[row]!, 1 - 1e-16))) };
}

/** Where a departure found at scored step t begins: the record index and its time. */
const sinceOf = (window: SampleWindow, rows: readonly number[]) => (t: number) => {
  const row = rows[Math.min(t, rows.length - 1)]!;
  return { index: window.recordOf[row]!, timestamp: window.times[row] ?? null };
};

/**
 * A categorical mechanism, watched as a whole: at each step the log-probability of the class observed given the
 * inputs, standardised by its mean and variance under the mechanism (the negative entropy of the class
 * probabilities, and their log-probabilities' spread), is a unit-variance series with mean 0 while the mechanism
 * holds and falls when it stops fitting. It is scanned for a lasting fall or rise like a numeric level (replicates
 * draw the classes from the mechanism itself), and its least probable step is the spike test.
 */
export function watchCategorical(
  window: SampleWindow,
  m: { plan: CategoricalPlan; name: string; columns: ReturnType<typeof modelColumns>; rows: number[] },
  options: { targetFpr: number; minSteps: number; level: number; seed: number },
): VariableHealth {
  const { plan, columns, rows } = m;
  const codes = columns[plan.index] as Int32Array;
  const probabilities = rows.map((r) => {
    const out = new Float64Array(plan.classes);
    probabilitiesInto(plan, columns, r, out);
    return out;
  });
  // Per step: mean and std of the log-probability of a class drawn from the mechanism.
  const moments = probabilities.map((p) => {
    let mean = 0;
    let square = 0;
    for (const q of p) if (q > 0) (mean += q * Math.log(q), square += q * Math.log(q) ** 2);
    return { mean, sd: Math.sqrt(Math.max(square - mean * mean, 0)) };
  });
  const standardised = (classOf: (t: number) => number) => Float64Array.from(rows, (_, t) => {
    const q = probabilities[t]![classOf(t)] ?? 0;
    const { mean, sd } = moments[t]!;
    return sd > 1e-12 ? (Math.log(Math.max(q, 1e-300)) - mean) / sd : 0;
  });
  const z = standardised((t) => codes[rows[t]!]!);
  const n = rows.length;
  const grid = gridOf(n, options.minSteps);
  const direction: Direction = { z: null };
  const observed = bestInterval(z, direction, grid, options.minSteps);
  const rng = new Rng(options.seed ^ 0x2545f491);
  const maxima = Array.from({ length: REPLICATES }, () => bestInterval(standardised((t) => drawClass(probabilities[t]!, rng)), direction, grid, options.minSteps).statistic);
  const fitP = scanPValue(observed.statistic, scanTail(maxima));
  const tails = rows.map((r, t) => categoricalTail(probabilities[t]!, plan.classes, codes[r]!));
  const { row: spikeRow, p: spikeP } = leastProbableStep(tails);
  const pValue = Math.min(1, 2 * Math.min(fitP, spikeP));
  const at = sinceOf(window, rows);
  const zc = normalCritical(options.level);
  // The fit per step (mean log-probability of the classes seen) expected under the mechanism, and in the departure.
  const fit = (from: number, to: number) => {
    let seen = 0;
    let expected = 0;
    let variance = 0;
    for (let t = from; t < to; t++) {
      seen += Math.log(Math.max(probabilities[t]![codes[rows[t]!]!] ?? 0, 1e-300));
      expected += moments[t]!.mean;
      variance += moments[t]!.sd ** 2;
    }
    const k = Math.max(1, to - from);
    const half = (zc * Math.sqrt(variance)) / k;
    return { then: { value: expected / k, lowerBound: expected / k - half, upperBound: expected / k + half }, now: { value: seen / k, lowerBound: null, upperBound: null } };
  };
  if (pValue > options.targetFpr) return { variable: m.name, alertType: 'normal', pValue, evidence: { measure: 'logLikelihood', ...fit(0, n), since: at(0), steps: n } };
  if (spikeP < fitP) return { variable: m.name, alertType: 'spike', pValue, evidence: { measure: 'logLikelihood', ...fit(spikeRow, spikeRow + 1), since: at(spikeRow), steps: 1 } };
  const alertType = classify(z, direction, observed, n, options.minSteps);
  const to = alertType === 'improving' ? observed.to : n;
  const from = changeStart(z, direction, observed.from, to, Math.min(options.minSteps, to - observed.from));
  return { variable: m.name, alertType, pValue, evidence: { measure: 'logLikelihood', ...fit(from, to), since: at(from), steps: to - from } };
}

/**
 * The links into a categorical mechanism, each watched as a numeric link's coefficient is: a change of how an input
 * moves one class's probability shows as a correlation of that class's standardised residual (1{class} - p) /
 * sqrt(p (1 - p)) with the input weighted by sqrt(p (1 - p)) (their product summed is the multinomial logit's score
 * for the input's coefficient in that class; the generalised fluctuation tests of Nyblom 1989 and Hjort & Koning
 * 2002 scan it over time). Every class but the most probable (the probabilities sum to one) is scanned along each of
 * the link's inputs (a categorical input by the indicators of its categories but the most frequent), Bonferroni over
 * the link's tests, calibrated on replicates that draw the classes from the mechanism itself. The scan centres the
 * input within each interval, so a change of the class's share alone is not read as a changed link. Where the
 * departure begins, and its evidence, are read from the unstandardised residuals, so the few steps the version was
 * most confident about do not place them: the class's probability per unit of the input (per the input's category)
 * as the version predicts it over the departure, and as the window shows it.
 */
export function watchCategoricalLinks(
  model: TemporalModel,
  window: SampleWindow,
  m: { plan: CategoricalPlan; name: string; names: readonly string[]; columns: ReturnType<typeof modelColumns>; rows: number[]; categoriesOf: (column: number) => readonly string[] | null },
  options: { targetFpr: number; minSteps: number; level: number; seed: number },
): LinkHealth[] {
  const { plan, columns, rows } = m;
  const inputs = [...new Set(plan.cpt !== null ? plan.cpt.parents : (plan.logistic?.terms ?? []).flatMap((t) => (t.other >= 0 ? [t.parent, t.other] : [t.parent])))];
  const links = new Map<string, { source: string; lag: number; inputs: number[] }>();
  for (const input of inputs) {
    const source = sourceOf(model, m.names[input]!);
    if (source.kind !== 'lag') continue;
    const key = `${source.variable}\u0000${source.lag}`;
    const link = links.get(key) ?? { source: source.variable, lag: source.lag, inputs: [] };
    link.inputs.push(input);
    links.set(key, link);
  }
  const codes = columns[plan.index] as Int32Array;
  const n = rows.length;
  const probabilities = rows.map((r) => {
    const out = new Float64Array(plan.classes);
    probabilitiesInto(plan, columns, r, out);
    return out;
  });
  const share = new Float64Array(plan.classes);
  for (const p of probabilities) p.forEach((q, c) => (share[c]! += q / n));
  const reference = share.indexOf(Math.max(...share));
  const classes = Array.from({ length: plan.classes }, (_, c) => c).filter((c) => c !== reference);
  const expected = classes.map((c) => Float64Array.from(probabilities, (p) => p[c]!));
  const spread = expected.map((p) => p.map((q) => Math.sqrt(Math.max(q * (1 - q), 1e-12))));
  const residuals = (classOf: (t: number) => number) => classes.map((c, i) => Float64Array.from(rows, (_, t) => ((classOf(t) === c ? 1 : 0) - expected[i]![t]!) / spread[i]![t]!));
  const observedResiduals = residuals((t) => codes[rows[t]!]!);
  const raw = observedResiduals.map((e, i) => e.map((v, t) => v * spread[i]![t]!));
  const tests = [...links.values()].flatMap((link, l) => link.inputs.flatMap((input) => inputDirections(columns[input]!, rows, m.categoriesOf(input)))
    .flatMap((d) => classes.map((c, i) => ({ l, i, category: plan.categories[c]!, inputCategory: d.category, input: { z: d.values }, direction: { z: d.values.map((v, t) => v * spread[i]![t]!) } }))));
  const grid = gridOf(n, options.minSteps);
  const observed = tests.map((t) => bestInterval(observedResiduals[t.i]!, t.direction, grid, options.minSteps));
  const rng = new Rng(options.seed ^ 0x5bd1e995);
  const maxima = tests.map(() => [] as number[]);
  for (let rep = 0; rep < REPLICATES; rep++) {
    const drawn = rows.map((_, t) => drawClass(probabilities[t]!, rng));
    const replicate = residuals((t) => drawn[t]!);
    tests.forEach((t, k) => maxima[k]!.push(bestInterval(replicate[t.i]!, t.direction, grid, options.minSteps).statistic));
  }
  const pValues = tests.map((_, k) => scanPValue(observed[k]!.statistic, scanTail(maxima[k]!)));
  const at = sinceOf(window, rows);
  const z = normalCritical(options.level);
  return [...links.values()].map((link, l): LinkHealth => {
    const indices = tests.flatMap((t, k) => (t.l === l ? [k] : []));
    const base = { source: link.source, target: m.name, lag: link.lag };
    const best = indices.reduce<number | undefined>((b, k) => (b === undefined || pValues[k]! < pValues[b]! ? k : b), undefined);
    // An input with one value over the window (a single category) moves nothing there: nothing to test.
    if (best === undefined) return { ...base, alertType: 'normal', pValue: 1, evidence: { measure: 'classProbabilitySlope', then: unknown, now: unknown, since: at(0), steps: n } };
    const pValue = Math.min(1, pValues[best]! * indices.length);
    const test = tests[best]!;
    const evidence = (from: number, to: number): Evidence => ({
      measure: 'classProbabilitySlope',
      ...probabilitySlopes(expected[test.i]!, raw[test.i]!, test.input.z, from, to, z),
      since: at(from),
      steps: to - from,
      category: test.category,
      ...(test.inputCategory === undefined ? {} : { inputCategory: test.inputCategory }),
    });
    if (pValue > options.targetFpr) return { ...base, alertType: 'normal', pValue, evidence: evidence(0, n) };
    const interval = observed[best]!;
    const alertType = classify(observedResiduals[test.i]!, test.direction, interval, n, options.minSteps);
    const to = alertType === 'improving' ? interval.to : n;
    const from = changeStart(raw[test.i]!, test.input, interval.from, to, Math.min(options.minSteps, to - interval.from));
    return { ...base, alertType, pValue, evidence: evidence(from, to) };
  });
}

const unknown: Bounds = { value: Number.NaN, lowerBound: null, upperBound: null };

/**
 * A class's probability per unit of an input over steps [from, to): the least-squares slope of what the version
 * predicts (then), and of what happened, the class's indicator (now), with its binomial interval.
 */
function probabilitySlopes(expected: Float64Array, residuals: Float64Array, input: Float64Array, from: number, to: number, z: number): Pick<Evidence, 'then' | 'now'> {
  let mean = 0;
  for (let t = from; t < to; t++) mean += input[t]! / (to - from);
  let squares = 0;
  let predicted = 0;
  let departing = 0;
  let variance = 0;
  for (let t = from; t < to; t++) {
    const x = input[t]! - mean;
    squares += x * x;
    predicted += x * expected[t]!;
    departing += x * residuals[t]!;
    variance += x * x * expected[t]! * (1 - expected[t]!);
  }
  if (!(squares > 1e-12)) return { then: unknown, now: unknown };
  const then = predicted / squares;
  const now = then + departing / squares;
  const half = (z * Math.sqrt(variance)) / squares;
  return { then: { value: then, lowerBound: null, upperBound: null }, now: { value: now, lowerBound: now - half, upperBound: now + half } };
}

/** An input as scanned directions: its values, or the indicators of its categories but the most frequent in the rows. */
function inputDirections(column: Float64Array | Int32Array, rows: readonly number[], categories: readonly string[] | null): Array<{ values: Float64Array; category: string | undefined }> {
  if (column instanceof Float64Array) return [{ values: Float64Array.from(rows, (r) => column[r]!), category: undefined }];
  const counts = new Map<number, number>();
  for (const r of rows) if (column[r]! >= 0) counts.set(column[r]!, (counts.get(column[r]!) ?? 0) + 1);
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return [...counts.keys()].filter((k) => k !== frequent).map((k) => ({ values: Float64Array.from(rows, (r) => (column[r] === k ? 1 : 0)), category: categories?.[k] }));
}

/** A class drawn from its probabilities. */
function drawClass(p: Float64Array, rng: Rng): number {
  const u = rng.uniform();
  let c = 0;
  for (let acc = p[0]!; acc < u && c < p.length - 1; acc += p[++c]!);
  return c;
}
