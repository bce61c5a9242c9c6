/**
 * One mechanism of a temporal twin watched over a window (the causal health monitor, health.ts): its standardised
 * residuals scanned along each input, its level and its noise scale (health-scan.ts), calibrated on replicates
 * drawn from its own residuals with their persistence and the version's estimation error, and each departure
 * classified (spike, worsening, improving, sustained, normal) with its evidence. Categorical mechanisms are watched
 * in health-categorical.ts, which shares the types and helpers here.
 */
import type { modelColumns } from '../inference/calibration.js';
import { type ContinuousPlan, conditionalMeanInto } from '../inference/scm-plan.js';
import { priorNoise } from '../inference/scm.js';
import { normalCritical, parameterSampler } from '../inference/uncertainty.js';
import { Rng } from '../random.js';
import type { NodeModel } from '../types.js';
import { type Direction, type Interval, bestInterval, changeStart, departure, gridOf, scanPValue, scanTail } from './health-scan.js';
import type { TemporalModel } from './model.js';
import { sourceOf } from './lagged.js';
import type { SampleWindow } from './window.js';

export type AlertType = 'spike' | 'worsening' | 'improving' | 'sustained' | 'normal';

/** Replicates of the scan under no change, per variable. */
export const REPLICATES = 1000;

export interface Bounds {
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
export function classify(e: Float64Array, direction: Direction, interval: Interval, n: number, minSteps: number): AlertType {
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
export function leastProbableStep(tails: readonly number[]): { row: number; p: number } {
  let row = 0;
  for (let t = 1; t < tails.length; t++) if (tails[t]! < tails[row]!) row = t;
  return { row, p: -Math.expm1(tails.length * Math.log1p(-Math.min(tails[row]!, 1 - 1e-16))) };
}

/** Where a departure found at scored step t begins: the record index and its time. */
export const sinceOf = (window: SampleWindow, rows: readonly number[]) => (t: number) => {
  const row = rows[Math.min(t, rows.length - 1)]!;
  return { index: window.recordOf[row]!, timestamp: window.times[row] ?? null };
};
