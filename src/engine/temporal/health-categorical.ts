/**
 * Categorical mechanisms of a temporal twin watched over a window (the causal health monitor, health.ts): the
 * mechanism as a whole by its fit, and each link into it by how its input moves the classes. Both scans are
 * calibrated on replicates that draw the classes from the mechanism itself (health-watch.ts does the numeric ones).
 */
import { categoricalTail, type modelColumns } from '../inference/calibration.js';
import { type CategoricalPlan, probabilitiesInto } from '../inference/scm-plan.js';
import { normalCritical } from '../inference/uncertainty.js';
import { Rng } from '../random.js';
import { type Direction, bestInterval, changeStart, gridOf, scanPValue, scanTail } from './health-scan.js';
import { type Bounds, type Evidence, type LinkHealth, REPLICATES, type VariableHealth, classify, leastProbableStep, sinceOf } from './health-watch.js';
import { sourceOf } from './lagged.js';
import type { TemporalModel } from './model.js';
import type { SampleWindow } from './window.js';

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

