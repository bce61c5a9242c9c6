/**
 * temporal_intervention: the future with and without changes that start at given times and hold for some steps
 * (or for good), on paths that share their noise, so each path's difference is the change's effect on it. Per step
 * and outcome: the intervened forecast, and the expected effect with its interval: the Monte Carlo error of the
 * paired differences plus the parameter uncertainty, the spread of the effect over coefficient sets drawn from
 * their sampling distribution (uncertainty.ts), as static intervention effects. Which effects the data identify: a same-step link whose direction the data left open decides an
 * effect when it lies between the changed variable and the outcome.
 */
import { AppError } from '../../errors.js';
import type { FamilyOutcome, InferenceContext, ResultRecord, SweepResult } from '../inference/outcome.js';
import type { Scm } from '../inference/scm.js';
import type { ValueSpec } from '../inference/scenario.js';
import { type PointSpec, rangeGrid, treatmentFor } from '../inference/treatments.js';
import { normalCritical, parameterSampler, sampleVariance } from '../inference/uncertainty.js';
import { Rng } from '../random.js';
import type { Kernels } from '../../compute/kernels.js';
import { alternativeModels } from './alternatives.js';
import type { EdgeRef, Frame, FrameColumn } from '../types.js';
import { DEFAULT_PATHS, futureFrom, originOf, stepRecord } from './forecast.js';
import type { Paths } from './future.js';
import { type TemporalModel, linked, stepAtTime, timeOfStep, timeText } from './model.js';
import type { TemporalIntervention, TemporalInterventionScenario } from './scenario.js';

const TAIL_STEPS_AFTER_LAST_START = 10;

interface Window {
  index: number;
  from: number;
  /** Exclusive. */
  to: number;
}

export async function runTemporalIntervention(model: TemporalModel, asked: TemporalInterventionScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const origin = originOf(model, asked.originTimestamp);
  // A range sweeps its variable over a grid; the effects reported are at the last point (as on static twins).
  const rangeIndex = asked.interventions.findIndex((item) => item.valueSpec.type === 'range');
  const range = rangeIndex < 0 ? null : asked.interventions[rangeIndex]!;
  const grid = range === null ? [] : rangeGrid(range.variable, range.valueSpec as Extract<ValueSpec, { type: 'range' }>);
  const at = (value: number): PointScenario => ({ ...asked, interventions: asked.interventions.map((item, k) => (k === rangeIndex ? { ...item, valueSpec: { type: 'set_value', value } } : item)) as PointScenario['interventions'] });
  const scenario: PointScenario = range === null ? (asked as PointScenario) : at(grid.at(-1)!);
  const level = scenario.confidenceLevel ?? 0.95;
  const windows = scenario.interventions.map((item, index): Window => {
    const start = item.timestamp === undefined ? origin.report : stepAtTime(model, item.timestamp);
    if (start === null || start < origin.report) throw new AppError('validation_failed', `interventions[${index}].timestamp is before the forecast's first step (${timeOfStep(model, origin.report)})`);
    const from = start - origin.report;
    const lasting = item.durationSteps ?? (item.persistent === false ? 1 : Infinity);
    return { index, from, to: from + lasting };
  });
  const horizon = scenario.forecastH ?? Math.max(...windows.map((w) => w.from)) + TAIL_STEPS_AFTER_LAST_START;
  const late = windows.find((w) => w.from >= horizon);
  if (late !== undefined) throw new AppError('validation_failed', `interventions[${late.index}] starts after the ${horizon}-step horizon: raise forecastH`);
  const samples = scenario.samples ?? DEFAULT_PATHS;
  const reach = reachable(model, scenario.interventions.map((i) => i.variable));
  const targets = scenario.targetVars ?? model.variables.map((v) => v.name).filter((name) => reach.has(name));
  context.hooks.progress?.(0.1, 'simulating the future without the changes');
  const baseline = futureFrom(model, origin, horizon, { samples, seed: context.seed });
  context.hooks.progress?.(0.5, 'simulating the future with the changes');
  const treated = futureFrom(model, origin, horizon, {
    samples,
    seed: context.seed,
    treatmentsAt: activeTreatments(scenario, windows),
  });
  const times = Array.from({ length: horizon }, (_, h) => timeOfStep(model, origin.report + h));
  context.hooks.progress?.(0.7, 'parameter uncertainty');
  const spread = parameterSpread(model, origin, horizon, scenario, windows, context.seed);
  const results: Record<string, ResultRecord[]> = {};
  const baselineRecords: Record<string, ResultRecord[]> = {};
  const effects: Record<string, Array<{ stepIndex: number; timestamp: number; mean: number; lowerBound: number; upperBound: number }>> = {};
  for (const name of targets) {
    results[name] = treated[name]!.map((values, h) => stepRecord(model, name, values, times[h]!, level));
    baselineRecords[name] = baseline[name]!.map((values, h) => stepRecord(model, name, values, times[h]!, level));
    const variable = model.variables.find((v) => v.name === name)!;
    if (variable.kind === 'continuous') effects[name] = treated[name]!.map((values, h) => effectAt(values, baseline[name]![h]!, h, times[h]!, level, spread?.[name]?.[h] ?? 0));
  }
  const metrics = [];
  for (const metric of scenario.metrics ?? []) {
    const before = await context.evaluateMetric(futureFrame(model, baseline, times), metric.sqlQuery);
    const after = await context.evaluateMetric(futureFrame(model, treated, times), metric.sqlQuery);
    metrics.push({ name: metric.name, ...(metric.unit === undefined ? {} : { unit: metric.unit }), baseline: before, intervened: after, difference: after - before });
  }
  const identification = identificationOf(model, scenario, targets, context);
  const kernels = context.identification?.kernels;
  if (kernels !== undefined && Object.values(identification).some((i) => !i.identified)) {
    context.hooks.progress?.(0.75, 'the effects under the other directions of the deciding links');
    possibleDifferences(model, { origin, horizon, samples: Math.min(samples, ALTERNATIVE_PATHS), seed: context.seed, level, windows }, scenario, identification, kernels);
  }
  const keyPoints = Object.entries(effects).slice(0, 5).map(([name, steps]) => {
    const end = steps.at(-1)!;
    const peak = steps.reduce((a, b) => (Math.abs(b.mean) > Math.abs(a.mean) ? b : a));
    return `${name}: ${signed(end.mean)} by the last step (${signed(end.lowerBound)} to ${signed(end.upperBound)}); largest ${signed(peak.mean)} at step ${peak.stepIndex + 1}${identification[name]?.identified === false ? ` (not identified: the data cannot tell the direction of ${identification[name]!.decidingEdges.map((e) => `${e.source} - ${e.target}`).join(', ')}${possibleText(identification[name]!)}; pin it to decide)` : ''}`;
  });
  const changed = scenario.interventions.map((i) => i.variable).join(', ');
  let sweep: SweepResult | undefined;
  if (range !== null) {
    context.hooks.progress?.(0.8, `sweeping ${range.variable} over ${grid.length} values`);
    sweep = await sweepOf(model, { origin, horizon, samples: Math.min(samples, SWEEP_PATHS), seed: context.seed, level, windows, times }, range.variable, grid.map(at), targets, identification, context);
    keyPoints.unshift(`${range.variable} from ${grid[0]} to ${grid.at(-1)}: ${grid.length} points (GET .../sweep); the effects above are at the last point (${grid.at(-1)}).`);
  }
  return {
    results,
    ...(sweep === undefined ? {} : { sweep }),
    details: { baseline: baselineRecords, effects, metrics, identification, horizon, samples, origin: { timestamp: times[0]!, step: origin.report } },
    summary: {
      summary: `Changing ${changed} over the ${horizon}-step horizon from ${timeText(model, times[0]!)}: ${keyPoints[0] ?? 'no numeric outcome is downstream of the change'}.`,
      keyPoints,
    },
  };
}

/** Paths per alternative model when an effect is not identified. */
const ALTERNATIVE_PATHS = 500;

/**
 * For each unidentified outcome, its effect at the last step under every acyclic direction of the deciding links
 * (alternatives.ts), distinct values kept, each with its Monte Carlo interval; written onto `identification`.
 */
function possibleDifferences(
  model: TemporalModel,
  run: { origin: { report: number; simulate: number }; horizon: number; samples: number; seed: number; level: number; windows: Window[] },
  scenario: PointScenario,
  identification: Record<string, Identification>,
  kernels: Kernels,
): void {
  const deciding = Object.values(identification).flatMap((i) => i.decidingEdges).filter((e, k, all) => all.findIndex((f) => f.source === e.source && f.target === e.target) === k);
  const z = normalCritical(run.level);
  for (const alternative of alternativeModels(model, deciding, kernels)) {
    const request = { samples: run.samples, seed: run.seed };
    const before = futureFrom(alternative.model, run.origin, run.horizon, request);
    const after = futureFrom(alternative.model, run.origin, run.horizon, { ...request, treatmentsAt: activeTreatments(scenario, run.windows) });
    for (const [name, flags] of Object.entries(identification)) {
      if (flags.identified || model.variables.find((v) => v.name === name)?.kind !== 'continuous') continue;
      const diffs = Float64Array.from(after[name]!.at(-1)!, (v, r) => v - before[name]!.at(-1)![r]!);
      const difference = diffs.reduce((a, b) => a + b, 0) / diffs.length;
      const half = z * Math.sqrt(sampleVariance(diffs) / diffs.length);
      const orientation = flags.decidingEdges.map((e) => (alternative.flipped.some((f) => f.source === e.source && f.target === e.target) ? { source: e.target, target: e.source } : e));
      const list = (flags.possibleDifferences ??= []);
      const same = list.find((p) => Math.abs(p.difference - difference) <= Math.max(half, 1e-9 * Math.abs(difference)));
      if (same === undefined) list.push({ difference, lowerBound: difference - half, upperBound: difference + half, chosen: alternative.chosen, orientation });
      else if (alternative.chosen) Object.assign(same, { difference, lowerBound: difference - half, upperBound: difference + half, chosen: true, orientation });
    }
  }
}

/** Paths per grid point of a sweep. */
const SWEEP_PATHS = 500;

/** A scenario without a range: every intervention at one value. */
type PointScenario = Omit<TemporalInterventionScenario, 'interventions'> & { interventions: Array<TemporalIntervention & { valueSpec: PointSpec }> };

/**
 * One curve per numeric outcome (its mean over the horizon's steps and paths under each grid value, with the Monte
 * Carlo interval of that mean) and per metric, flagged with the outcome's identification.
 */
async function sweepOf(
  model: TemporalModel,
  run: { origin: { report: number; simulate: number }; horizon: number; samples: number; seed: number; level: number; windows: Window[]; times: number[] },
  variable: string,
  points: PointScenario[],
  targets: readonly string[],
  identification: Record<string, Identification>,
  context: InferenceContext,
): Promise<SweepResult> {
  const numeric = targets.filter((name) => model.variables.find((v) => v.name === name)?.kind === 'continuous');
  const curves = new Map<string, SweepResult['curves'][number]>();
  const curve = (name: string, extra: Partial<SweepResult['curves'][number]> = {}) => {
    let found = curves.get(name);
    if (found === undefined) curves.set(name, (found = { metric: name, ...extra, points: [] }));
    return found;
  };
  const z = normalCritical(run.level);
  for (const point of points) {
    const value = (point.interventions.find((item) => item.variable === variable)!.valueSpec as { value: number }).value;
    const paths = futureFrom(model, run.origin, run.horizon, { samples: run.samples, seed: run.seed, treatmentsAt: activeTreatments(point, run.windows) });
    for (const name of numeric) {
      const perPath = new Float64Array(run.samples);
      for (const step of paths[name]!) step.forEach((v, r) => (perPath[r]! += v / run.horizon));
      const mean = perPath.reduce((a, b) => a + b, 0) / run.samples;
      const std = Math.sqrt(sampleVariance(perPath));
      const half = (z * std) / Math.sqrt(run.samples);
      const flags = identification[name];
      curve(name, flags === undefined ? {} : { identified: flags.identified, ...(flags.identified ? {} : { decidingEdges: flags.decidingEdges }) }).points.push({ value, mean, std, lowerBound: mean - half, upperBound: mean + half });
    }
    for (const metric of point.metrics ?? []) {
      const measured = await context.evaluateMetric(futureFrame(model, paths, run.times), metric.sqlQuery);
      curve(metric.name, metric.unit === undefined ? {} : { unit: metric.unit }).points.push({ value, mean: measured, std: 0, lowerBound: measured, upperBound: measured });
    }
  }
  return { variable, steps: points.length, confidenceLevel: run.level, curves: [...curves.values()] };
}

const possibleText = (flags: Identification) =>
  flags.possibleDifferences === undefined || flags.possibleDifferences.length < 2 ? '' : `; the effect by the last step is ${flags.possibleDifferences.map((p) => signed(p.difference)).join(' or ')}`;

const signed = (x: number) => `${x >= 0 ? '+' : ''}${Number(x.toPrecision(3))}`;

function effectAt(treated: Float64Array, baseline: Float64Array, h: number, timestamp: number, level: number, parameterVariance: number) {
  const n = treated.length;
  const diffs = Float64Array.from(treated, (v, r) => v - baseline[r]!);
  const mean = diffs.reduce((a, b) => a + b, 0) / n;
  const monteCarlo = sampleVariance(diffs) / n;
  const half = normalCritical(level) * Math.sqrt(monteCarlo + parameterVariance);
  return { stepIndex: h, timestamp, mean, lowerBound: mean - half, upperBound: mean + half };
}

/** The treatments of the interventions whose window covers forecast step h. */
const activeTreatments = (scenario: PointScenario, windows: Window[]) => (h: number, scm: Scm) =>
  scenario.interventions.flatMap((item, k) => (h >= windows[k]!.from && h < windows[k]!.to ? [treatmentFor(scm, item.variable, item.valueSpec)] : []));

const PARAMETER_DRAWS = 20;
const DRAW_PATHS = 200;

/** Per numeric variable and step, the variance of the expected effect over coefficient sets drawn from the fit. */
function parameterSpread(
  model: TemporalModel,
  origin: { report: number; simulate: number },
  horizon: number,
  scenario: PointScenario,
  windows: Window[],
  seed: number,
): Record<string, number[]> | null {
  const sampler = parameterSampler(model.cbn);
  if (sampler === null) return null;
  const rng = new Rng(seed ^ 0x5bd1e995);
  const effects: Record<string, number[][]> = {};
  for (let k = 0; k < PARAMETER_DRAWS; k++) {
    const drawn: TemporalModel = { ...model, cbn: sampler.draw(rng) };
    const request = { samples: DRAW_PATHS, seed: seed + 1 + k };
    const before = futureFrom(drawn, origin, horizon, request);
    const after = futureFrom(drawn, origin, horizon, {
      ...request,
      treatmentsAt: activeTreatments(scenario, windows),
    });
    for (const v of model.variables) {
      if (v.kind !== 'continuous') continue;
      const rows = (effects[v.name] ??= Array.from({ length: horizon }, () => []));
      after[v.name]!.forEach((values, h) => rows[h]!.push(values.reduce((a, b, r) => a + b - before[v.name]![h]![r]!, 0) / values.length));
    }
  }
  return Object.fromEntries(Object.entries(effects).map(([name, steps]) => [name, steps.map((draws) => sampleVariance(draws))]));
}

/** The simulated future as a table: one row per path and step, the variables plus `step` and `timestamp`. */
export function futureFrame(model: TemporalModel, paths: Paths, times: readonly number[]): Frame {
  const horizon = times.length;
  const S = paths[model.variables[0]!.name]![0]!.length;
  const rows = horizon * S;
  // Typed columns filled straight from the paths (a categorical path holds class indices): optimisation builds
  // one frame per candidate plan.
  const columns: FrameColumn[] = model.variables.map((v) => {
    if (v.kind === 'continuous') {
      const values = new Float64Array(rows);
      for (let h = 0; h < horizon; h++) values.set(paths[v.name]![h]!, h * S);
      return { name: v.name, kind: 'continuous', values };
    }
    const codes = new Int32Array(rows);
    for (let h = 0; h < horizon; h++) codes.set(paths[v.name]![h]!, h * S);
    return { name: v.name, kind: 'categorical', codes, categories: [...v.categories] };
  });
  const step = new Float64Array(rows);
  const timestamp = new Float64Array(rows);
  for (let h = 0; h < horizon; h++) (step.fill(h, h * S, (h + 1) * S), timestamp.fill(times[h]!, h * S, (h + 1) * S));
  return { nRows: rows, columns: [...columns, { name: 'step', kind: 'continuous', values: step }, { name: 'timestamp', kind: 'continuous', values: timestamp }] };
}

/** Variables a change of `sources` can reach through the model's links (any lag), the sources included. */
const reachable = (model: Pick<TemporalModel, 'edges'>, sources: readonly string[]) => new Set([...sources, ...linked(model, sources, 'down')]);

/**
 * Per outcome: the reversible same-step links (context.identification) between a changed variable and the
 * outcome -- one end reachable from the change, the outcome reachable from the other, either way round -- decide
 * the effect; with none, the effect is identified (every other link's direction is decided by time or the data).
 */
interface Identification {
  identified: boolean;
  decidingEdges: EdgeRef[];
  /** Unidentified numeric outcomes: the effect at the last step under each direction of the deciding links. */
  possibleDifferences?: Array<{ difference: number; lowerBound: number; upperBound: number; chosen: boolean; orientation: EdgeRef[] }>;
}

function identificationOf(model: TemporalModel, scenario: PointScenario, targets: readonly string[], context: InferenceContext): Record<string, Identification> {
  const reversible = context.identification?.reversible ?? [];
  const both = (e: EdgeRef) => [e, { source: e.target, target: e.source }];
  const undirected = { ...model, edges: [...model.edges.filter((e) => !reversible.some((r) => (r.source === e.source && r.target === e.target) || (r.source === e.target && r.target === e.source))), ...reversible.flatMap(both).map((e) => ({ ...e, lag: 0 }))] };
  const fromChange = reachable(undirected, scenario.interventions.map((i) => i.variable));
  const out: Record<string, Identification> = {};
  for (const target of targets) {
    const deciding = reversible.filter((e) => [e.source, e.target].some((end) => fromChange.has(end)) && [e.source, e.target].some((end) => reachable(undirected, [end]).has(target)));
    out[target] = { identified: deciding.length === 0, decidingEdges: deciding };
  }
  return out;
}
