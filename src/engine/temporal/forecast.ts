/**
 * forecast: the simulated future from the end of the data or from an origin, one record per step and variable
 * (the mean path with its predictive interval: quantiles over the Monte Carlo paths), the observed trailing
 * window, and the changepoints of the mean path with the model input that drives each change most.
 */
import { AppError } from '../../errors.js';
import type { FamilyOutcome, InferenceContext, ResultRecord } from '../inference/outcome.js';
import { sampleVariance } from '../inference/uncertainty.js';
import { type Paths, simulateFuture, type FutureRequest } from './future.js';
import { type NodeSource, seasonValue, sourceOf } from './lagged.js';
import { type TemporalModel, stepAtTime, timeOfStep, timeText } from './model.js';
import type { ForecastScenario } from './scenario.js';

export const DEFAULT_PATHS = 1000;
const HISTORY_STEPS = 50;
/** A forecast from past the end simulates the gap first: at most this many steps. */
const MAX_GAP_STEPS = 10_000;

/** The first reported step and the first simulated one (the end of the kept history, or the origin). */
export function originOf(model: TemporalModel, originTimestamp: number | undefined): { report: number; simulate: number } {
  if (originTimestamp === undefined) return { report: model.steps, simulate: model.steps };
  const step = stepAtTime(model, originTimestamp);
  if (step === null || step < model.tail.from + model.maxLag) {
    throw new AppError('validation_failed', `originTimestamp ${originTimestamp} is before the history this version keeps; start at or after ${timeOfStep(model, model.tail.from + model.maxLag)}`);
  }
  if (step - model.steps > MAX_GAP_STEPS) throw new AppError('validation_failed', `originTimestamp is ${step - model.steps} steps past the end of the data; at most ${MAX_GAP_STEPS}`);
  return { report: step, simulate: Math.min(step, model.steps) };
}

/** Simulates from `simulate` and keeps the steps from `report` on. */
export function futureFrom(model: TemporalModel, origin: { report: number; simulate: number }, horizon: number, request: Omit<FutureRequest, 'originStep' | 'horizon'>): Paths {
  const skip = origin.report - origin.simulate;
  const paths = simulateFuture(model, { ...request, originStep: origin.simulate, horizon: horizon + skip, treatmentsAt: request.treatmentsAt && ((h, scm) => (h < skip ? [] : request.treatmentsAt!(h - skip, scm))) });
  return Object.fromEntries(Object.entries(paths).map(([name, steps]) => [name, steps.slice(skip)]));
}

export async function runForecast(model: TemporalModel, scenario: ForecastScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const origin = originOf(model, scenario.originTimestamp);
  const level = scenario.confidenceLevel ?? 0.95;
  const targets = scenario.targetVars ?? model.variables.map((v) => v.name);
  context.hooks.progress?.(0.1, 'simulating the future');
  const paths = futureFrom(model, origin, scenario.forecastH, { samples: scenario.samples ?? DEFAULT_PATHS, seed: context.seed });
  const times = Array.from({ length: scenario.forecastH }, (_, h) => timeOfStep(model, origin.report + h));
  const results: Record<string, ResultRecord[]> = {};
  for (const name of targets) results[name] = paths[name]!.map((values, h) => stepRecord(model, name, values, times[h]!, level));
  const history = historyOf(model, origin.report, targets);
  const changepoints = changepointsOf(model, paths, times, targets, origin.report);
  const actuals = actualsOf(model, origin.report, scenario.forecastH, targets);
  const first = targets[0]!;
  const end = results[first]!.at(-1)!;
  const fmt = (t: number) => timeText(model, t);
  const keyPoints = targets.slice(0, 5).map((name) => {
    const last = results[name]!.at(-1)!;
    const turns = changepoints[name]?.length ?? 0;
    return `${name}: ${describe(last)} at ${fmt(times.at(-1)!)}${turns > 0 ? `, ${turns} turning point${turns === 1 ? '' : 's'} (first driven by ${changepoints[name]![0]!.primaryDriver})` : ''}`;
  });
  return {
    results,
    history,
    changepoints,
    details: {
      origin: { timestamp: times[0]!, step: origin.report, fromEndOfData: scenario.originTimestamp === undefined },
      horizon: scenario.forecastH,
      granularity: model.timeline.granularity,
      samples: scenario.samples ?? DEFAULT_PATHS,
      ...(Object.keys(actuals).length > 0 ? { actuals } : {}),
    },
    summary: {
      summary: `Forecast of ${targets.length} variable${targets.length === 1 ? '' : 's'} over ${scenario.forecastH} step${scenario.forecastH === 1 ? '' : 's'} from ${fmt(times[0]!)}: ${first} reaches ${describe(end)} by ${fmt(times.at(-1)!)} (${Math.round(level * 100)}% interval).`,
      keyPoints,
    },
  };
}

function describe(record: ResultRecord): string {
  if (typeof record.prediction === 'number' && typeof record.lowerBound === 'number' && typeof record.upperBound === 'number') {
    return `${signif(record.prediction)} (${signif(record.lowerBound)} to ${signif(record.upperBound)})`;
  }
  return `${String(record.prediction)} (most likely)`;
}

const signif = (x: number) => Number(x.toPrecision(4));

/** One step of one variable over the paths: mean and interval (continuous), class probabilities (categorical). */
export function stepRecord(model: TemporalModel, name: string, values: Float64Array, timestamp: number, level: number): ResultRecord {
  const variable = model.variables.find((v) => v.name === name)!;
  if (variable.kind === 'continuous') {
    const n = values.length;
    const mean = values.reduce((a, b) => a + b, 0) / n;
    const std = Math.sqrt(sampleVariance(values));
    const sorted = Float64Array.from(values).sort();
    const at = (p: number) => sorted[Math.min(n - 1, Math.max(0, Math.round(p * (n - 1))))]!;
    return { timestamp, prediction: mean, std, lowerBound: at((1 - level) / 2), upperBound: at(1 - (1 - level) / 2), confidenceLevel: level };
  }
  const k = variable.categories.length;
  const counts = new Float64Array(k);
  for (const v of values) counts[v]!++;
  const probabilities = Array.from(counts, (c) => c / values.length);
  const z = 1.959964;
  const best = probabilities.indexOf(Math.max(...probabilities));
  return {
    timestamp,
    prediction: variable.categories[best]!,
    std: null,
    probabilities,
    categories: variable.categories,
    lowerBound: probabilities.map((p) => Math.max(0, p - z * Math.sqrt((p * (1 - p)) / values.length))),
    upperBound: probabilities.map((p) => Math.min(1, p + z * Math.sqrt((p * (1 - p)) / values.length))),
    confidenceLevel: level,
  };
}

/** The observed trailing window before the first forecast step (spec Outputs `history`). */
function historyOf(model: TemporalModel, origin: number, targets: readonly string[]): Record<string, { timestamps: number[]; values: Array<number | string | null> }> {
  const end = Math.min(origin, model.steps);
  const start = Math.max(model.tail.from, end - HISTORY_STEPS);
  const out: Record<string, { timestamps: number[]; values: Array<number | string | null> }> = {};
  for (const name of targets) {
    const values = model.tail.values[name] ?? [];
    out[name] = { timestamps: model.tail.times.slice(start - model.tail.from, end - model.tail.from), values: values.slice(start - model.tail.from, end - model.tail.from) };
  }
  return out;
}

/** What happened at the forecast's steps, when it starts inside the data (a backtest). */
function actualsOf(model: TemporalModel, origin: number, horizon: number, targets: readonly string[]): Record<string, Array<number | string | null>> {
  if (origin >= model.steps) return {};
  const out: Record<string, Array<number | string | null>> = {};
  for (const name of targets) {
    const values = model.tail.values[name] ?? [];
    out[name] = Array.from({ length: horizon }, (_, h) => values[origin + h - model.tail.from] ?? null);
  }
  return out;
}

export interface Changepoint {
  stepIndex: number;
  timestamp: number;
  direction: 'up' | 'down';
  magnitude: number;
  primaryDriver: string;
  driverContribution: number;
}

/**
 * Where a numeric variable's mean path turns (the step-to-step change flips sign, both changes above 1% of the
 * variable's std) or jumps (a change above 3 times the path's median change and 10% of the std). The driver is the
 * model input whose change moved the variable's conditional mean most at that step: coefficient x the input's
 * change on the mean paths (the variable's own past, another variable at some lag, or the season).
 */
function changepointsOf(model: TemporalModel, paths: Paths, times: readonly number[], targets: readonly string[], origin: number): Record<string, Changepoint[]> {
  const means = Object.fromEntries(Object.entries(paths).map(([name, steps]) => [name, steps.map((v) => v.reduce((a, b) => a + b, 0) / v.length)]));
  const out: Record<string, Changepoint[]> = {};
  for (const name of targets) {
    const node = model.cbn.nodes.find((n) => n.name === name);
    if (node?.kind !== 'continuous') continue;
    const path = means[name]!;
    const deltas = path.slice(1).map((v, h) => v - path[h]!);
    const typical = [...deltas].map(Math.abs).sort((a, b) => a - b)[Math.floor(deltas.length / 2)] ?? 0;
    const points: Changepoint[] = [];
    for (let h = 1; h < path.length; h++) {
      const change = deltas[h - 1]!;
      const before = h >= 2 ? deltas[h - 2]! : 0;
      const turns = h >= 2 && Math.sign(change) !== Math.sign(before) && Math.abs(change) > 0.01 * node.std && Math.abs(before) > 0.01 * node.std;
      const jumps = Math.abs(change) > 3 * typical && Math.abs(change) > 0.1 * node.std;
      if (!turns && !jumps) continue;
      const driver = driverOf(model, node, means, h, origin);
      points.push({ stepIndex: h, timestamp: times[h]!, direction: change >= 0 ? 'up' : 'down', magnitude: change, primaryDriver: driver.name, driverContribution: driver.contribution });
    }
    out[name] = points;
  }
  return out;
}

function driverOf(model: TemporalModel, node: Extract<TemporalModel['cbn']['nodes'][number], { kind: 'continuous' }>, means: Record<string, number[]>, h: number, origin: number): { name: string; contribution: number } {
  const inputValue = (source: NodeSource, step: number): number | null => {
    if (source.kind === 'season') return seasonValue(source.period, origin + step + (model.phase ?? 0))[source.sin ? 0 : 1];
    const at = step - source.lag;
    return at >= 0 ? (means[source.variable]?.[at] ?? null) : null;
  };
  const contributions = new Map<string, number>();
  node.terms.forEach((term, k) => {
    if (term.kind !== 'linear' || term.parents.length !== 1) return;
    const input = sourceOf(model, term.parents[0]!);
    const label = input.kind === 'season' ? `season (period ${input.period})` : input.variable;
    const now = inputValue(input, h);
    const before = inputValue(input, h - 1);
    if (now === null || before === null) return;
    contributions.set(label, (contributions.get(label) ?? 0) + node.coefficients[k]! * (now - before));
  });
  let best = { name: node.name, contribution: 0 };
  for (const [name, contribution] of contributions) if (Math.abs(contribution) > Math.abs(best.contribution)) best = { name, contribution };
  return best;
}
