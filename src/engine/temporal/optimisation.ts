/**
 * temporal_optimisation: the settings of the decision variables, over the forecast horizon, that best meet the
 * weighted objectives within the constraints, judged on the simulated future (future.ts). A plan sets each lever
 * (do(lever = value)) from the timing's start to the end of the horizon, either one value held throughout
 * (`hold`) or a value per block of `blockSteps` steps (`schedule`). An objective on a variable is its mean over the
 * horizon's steps and paths; on SQL, the metric over the simulated future (table df: one row per path and step).
 * A metric constraint may hold over a window of the horizon, and with intervalSteps over each block of it.
 * Goals and penalties are the static family's (optimisation-goals.ts), the search its compass search
 * (optimisation-search.ts), every candidate on the same paths (common random numbers). The plan found is
 * re-simulated on fresh paths against doing nothing, and that run is what the answer reports.
 */
import { AppError } from '../../errors.js';
import { AbortError } from '../discovery/budget.js';
import type { FamilyOutcome, InferenceContext } from '../inference/outcome.js';
import { type Assessment, type GoalSpace, Goals, type Measurement } from '../inference/optimisation-goals.js';
import { type Dimension, maximise } from '../inference/optimisation-search.js';
import type { MetricConstraint } from '../inference/scenario.js';
import type { Treatment } from '../inference/scm.js';
import { normalCritical, sampleVariance } from '../inference/uncertainty.js';
import { readTime } from './timeline.js';
import type { Frame } from '../types.js';
import { futureFrom, originOf } from './forecast.js';
import type { Paths } from './future.js';
import { futureFrame } from './intervention.js';
import { type TemporalModel, stepAtTime, timeOfStep, timeText } from './model.js';
import type { TemporalOptimisationScenario } from './scenario.js';

const SEARCH_PATHS = 300;
/** Paths the found plan is re-simulated on (and the budget rule of the family counts). */
export const FINAL_PATHS = 1000;
const BUDGET = 240;
const LEVEL = 0.95;

interface Lever {
  name: string;
  kind: 'continuous' | 'categorical';
  low: number;
  high: number;
  /** Allowed values (numbers, or category codes for a categorical lever); null: the range [low, high]. */
  options: number[] | null;
  categories: string[];
}

interface Plan {
  /** Per lever, per block: the value set, or null when the lever is left alone. */
  values: Array<Array<number | null>>;
}

export async function runTemporalOptimisation(model: TemporalModel, scenario: TemporalOptimisationScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const origin = originOf(model, scenario.originTimestamp);
  const horizon = scenario.forecastHorizon;
  const times = Array.from({ length: horizon }, (_, h) => timeOfStep(model, origin.report + h));
  const timing = scenario.interventionTiming ?? {};
  const start = timing.start === undefined ? 0 : startStep(model, origin.report, horizon, timing.start);
  const blockSteps = timing.mode === 'schedule' ? Math.max(1, timing.blockSteps ?? Math.ceil((horizon - start) / 4)) : horizon - start;
  const blocks = Math.ceil((horizon - start) / blockSteps);
  const levers = scenario.decisionVars.map((name) => leverOf(model, name, scenario));
  const space: GoalSpace = { indexOf: (name) => model.variables.findIndex((v) => v.name === name), model: { nodes: model.variables } };
  const constraints = expandConstraints(scenario.metricConstraints ?? [], times);
  const goals = new Goals(space, { ...scenario, metricConstraints: constraints.map((c) => c.constraint) });
  const frames = (paths: Paths) => {
    const whole = futureFrame(model, paths, times);
    return { whole, constraint: (i: number) => rowsOfSteps(whole, constraints[i]!.steps) };
  };
  const simulate = (plan: Plan | null, samples: number, seed: number) =>
    futureFrom(model, origin, horizon, { samples, seed, treatmentsAt: plan === null ? undefined : (h) => treatmentsOf(levers, plan, h, start, blockSteps, model, samples) });
  const measure = async (paths: Paths) => {
    const f = frames(paths);
    return goals.measure(f.whole, context, f.constraint);
  };
  context.hooks.progress?.(0.05, 'simulating the future without changes');
  const searchSeed = context.seed;
  const baselinePaths = simulate(null, SEARCH_PATHS, searchSeed);
  const searchBaseline = await measure(baselinePaths);
  goals.setBaseline(frames(baselinePaths).whole, searchBaseline);
  // The search keeps each constrained metric inside its bound by a margin of its Monte Carlo error, so the plan
  // still holds on the fresh paths it is judged on: the search's metric and the fresh paths' differ by the error of
  // both samples, sqrt(1/SEARCH_PATHS + 1/FINAL_PATHS) in units of one path's spread, and the plan found sits at the
  // bound on the search paths. MARGIN such errors leave a chance of about 1 in 400 (t with BATCHES - 1 degrees of
  // freedom) that the fresh paths land outside.
  const errors = await monteCarloErrors(model, baselinePaths, times, constraints, context);
  const judgedError = Math.sqrt(1 + SEARCH_PATHS / FINAL_PATHS);
  const searchGoals = new Goals(space, { ...scenario, metricConstraints: constraints.map((c, i) => tightened(c.constraint, MARGIN * judgedError * errors[i]!, searchBaseline.metrics[i]!)) });
  searchGoals.setBaseline(frames(baselinePaths).whole, searchBaseline);
  const maxCount = Math.min(scenario.interventionCountConfig?.maxInterventions ?? levers.length, levers.length);
  // Levers ranked by what each achieves alone; the joint search uses the best maxCount of them.
  const evaluate = async (plan: Plan) => {
    const f = frames(simulate(plan, SEARCH_PATHS, searchSeed));
    return searchGoals.assess(await searchGoals.measure(f.whole, context, f.constraint)).penalised;
  };
  let evaluations = 0;
  const alone: Array<{ lever: number; value: number; plan: Plan }> = [];
  for (const [k, lever] of levers.entries()) {
    if (context.hooks.aborted?.() === true) throw new AbortError();
    context.hooks.progress?.(0.1 + (0.3 * k) / levers.length, `searching ${lever.name} alone`);
    const only = (x: number[]) => planOf(levers.map((_, j) => (j === k ? x : null)), blocks);
    const found = await maximise(dimensionsOf([lever], blocks), (x) => evaluate(only(x)), Math.ceil(BUDGET / (2 * levers.length)), searchSeed + k);
    evaluations += found.evaluations;
    alone.push({ lever: k, value: found.value, plan: only(found.best) });
  }
  const ranked = [...alone].sort((a, b) => b.value - a.value);
  const counts = scenario.interventionCountConfig?.optimizeCount === true ? Array.from({ length: maxCount }, (_, c) => c + 1) : [maxCount];
  const byCount: Array<{ count: number; value: number; plan: Plan }> = [];
  for (const count of counts) {
    context.hooks.progress?.(0.4 + (0.4 * count) / Math.max(...counts), `searching ${count} lever${count === 1 ? '' : 's'} together`);
    const chosen = ranked.slice(0, count).map((r) => r.lever).sort((a, b) => a - b);
    if (count === 1) {
      byCount.push({ count, value: ranked[0]!.value, plan: ranked[0]!.plan });
      continue;
    }
    const join = (x: number[]) => planOf(levers.map((_, j) => (chosen.includes(j) ? x.slice(chosen.indexOf(j) * blocks, (chosen.indexOf(j) + 1) * blocks) : null)), blocks);
    const startPoint = chosen.flatMap((j) => alone[j]!.plan.values[j]!.map((v) => v ?? levers[j]!.low));
    const dims = dimensionsOf(chosen.map((j) => levers[j]!), blocks).map((d, i) => ({ ...d, start: startPoint[i]! }));
    const found = await maximise(dims, (x) => evaluate(join(x)), Math.ceil(BUDGET / counts.length), searchSeed + 100 + count);
    evaluations += found.evaluations;
    byCount.push({ count, value: Math.max(found.value, ranked[0]!.value), plan: found.value >= ranked[0]!.value ? join(found.best) : ranked[0]!.plan });
  }
  // optimizeCount: the fewest levers within 2% of the best score found (in the score's own units, at least 0.01).
  const top = byCount.reduce((a, b) => (b.value > a.value ? b : a));
  const found = byCount.find((c) => c.value >= top.value - Math.max(0.02 * Math.abs(top.value), 0.01)) ?? top;
  // A plan that does no better than leaving the levers alone is not a plan.
  const leftAlone = searchGoals.assess(searchBaseline).penalised;
  const best = found.value > leftAlone + 1e-9 ? found : { count: 0, value: leftAlone, plan: planOf(levers.map(() => null), blocks) };
  context.hooks.progress?.(0.85, 're-simulating the plan against doing nothing');
  const finalSeed = searchSeed + 7919;
  const before = simulate(null, FINAL_PATHS, finalSeed);
  const after = simulate(best.plan, FINAL_PATHS, finalSeed);
  const baseline = await measure(before);
  goals.setBaseline(frames(before).whole, baseline);
  const optimised = await measure(after);
  const assessment = goals.assess(optimised);
  return outcome(model, scenario, { levers, plan: best.plan, blocks, blockSteps, start, times, before, after, baseline, optimised, assessment, goals, constraints, evaluations, counts: byCount });
}

/**
 * Batches of the paths the Monte Carlo error of a metric is read from (batch means: the metric is any SQL over the
 * paths, so its error is read from its spread over disjoint batches; 12 batches give the estimate 11 degrees of
 * freedom, where 4 gave 3 and underestimated it by half one time in seven).
 */
const BATCHES = 12;
/** Errors of the search-versus-judged difference a constrained metric is kept inside its bound by. */
const MARGIN = 3.5;

/** Each judged constraint's Monte Carlo standard error on the search paths: the spread of its metric over batches of them. */
async function monteCarloErrors(model: TemporalModel, paths: Paths, times: readonly number[], constraints: readonly JudgedConstraint[], context: InferenceContext): Promise<number[]> {
  if (constraints.length === 0) return [];
  const samples = paths[model.variables[0]!.name]![0]!.length;
  const size = Math.floor(samples / BATCHES);
  const batches = Array.from({ length: BATCHES }, (_, q) => futureFrame(model, Object.fromEntries(Object.entries(paths).map(([name, steps]) => [name, steps.map((v) => v.subarray(q * size, (q + 1) * size))])), times));
  const out: number[] = [];
  for (const c of constraints) {
    if (c.constraint.constraintType === 'fixed_boolean') {
      out.push(0);
      continue;
    }
    const values: number[] = [];
    for (const batch of batches) values.push(await context.evaluateMetric(rowsOfSteps(batch, c.steps), c.constraint.sqlQuery));
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const spread = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1));
    // A batch's spread over sqrt(BATCHES) is the whole search sample's error.
    out.push(Number.isFinite(spread) ? spread / Math.sqrt(BATCHES) : 0);
  }
  return out;
}

/** A constraint moved `margin` inside its bound (a percentage one by the margin relative to its baseline). */
function tightened(c: MetricConstraint, margin: number, baseline: number): MetricConstraint {
  if (c.value === undefined || margin === 0) return c;
  const percent = (100 * margin) / Math.max(Math.abs(baseline), 1e-12);
  switch (c.constraintType) {
    case 'max_value': return { ...c, value: c.value - margin };
    case 'min_value': return { ...c, value: c.value + margin };
    case 'max_decrease_percent':
    case 'max_increase_percent': return { ...c, value: Math.max(0, c.value - percent) };
    default: return c;
  }
}

/** The forecast step (from 0) at which changes may begin. */
function startStep(model: TemporalModel, report: number, horizon: number, time: number): number {
  const step = stepAtTime(model, time);
  if (step === null || step < report || step - report >= horizon) throw new AppError('validation_failed', `interventionTiming.start must fall within the forecast horizon (${timeOfStep(model, report)} to ${timeOfStep(model, report + horizon - 1)})`);
  return step - report;
}

/** A lever's allowed values: its constraint's range or set, else the range of the data the version keeps. */
function leverOf(model: TemporalModel, name: string, scenario: TemporalOptimisationScenario): Lever {
  const variable = model.variables.find((v) => v.name === name);
  if (variable === undefined) throw new AppError('validation_failed', `decision variable ${name} is not a variable of the twin`);
  const constraint = scenario.variableConstraints?.find((c) => c.variable === name);
  if (variable.kind === 'categorical') {
    const allowed = constraint?.allowedValues?.map((v) => variable.categories.indexOf(String(v))).filter((k) => k >= 0) ?? variable.categories.map((_, k) => k);
    if (allowed.length === 0) throw new AppError('validation_failed', `decision variable ${name} has no allowed value: none of allowedValues is a category of it (${variable.categories.join(', ')})`);
    return { name, kind: 'categorical', low: 0, high: variable.categories.length - 1, options: allowed, categories: variable.categories };
  }
  const observed = (model.tail.values[name] ?? []).filter((v): v is number => typeof v === 'number');
  let low = Math.min(...observed);
  let high = Math.max(...observed);
  if (constraint?.minValue !== undefined) low = constraint.minValue;
  if (constraint?.maxValue !== undefined) high = constraint.maxValue;
  if (constraint?.maxChangePercent !== undefined) {
    // Relative to the lever's last observed value.
    const last = observed.at(-1) ?? 0;
    const span = (Math.abs(last) * constraint.maxChangePercent) / 100;
    low = Math.max(low, last - span);
    high = Math.min(high, last + span);
  }
  if (!(low <= high)) throw new AppError('validation_failed', `decision variable ${name} has no allowed value: its constraints leave [${low}, ${high}]`);
  const options = constraint?.type === 'set' && constraint.allowedValues !== undefined ? constraint.allowedValues.map(Number).filter(Number.isFinite) : null;
  if (options !== null && options.length === 0) throw new AppError('validation_failed', `decision variable ${name} has no allowed value: allowedValues holds no number`);
  return { name, kind: 'continuous', low, high, options, categories: [] };
}

function dimensionsOf(levers: readonly Lever[], blocks: number): Dimension[] {
  return levers.flatMap((lever) => Array.from({ length: blocks }, (): Dimension =>
    lever.options !== null ? { kind: 'discrete', options: lever.options, start: lever.options[0]! } : { kind: 'continuous', low: lever.low, high: lever.high, start: (lever.low + lever.high) / 2 }));
}

function planOf(perLever: ReadonlyArray<number[] | null>, blocks: number): Plan {
  return { values: perLever.map((x) => (x === null ? new Array<number | null>(blocks).fill(null) : x)) };
}

/** The levers' treatments at forecast step h: each lever set to its block's value from the start on. */
function treatmentsOf(levers: readonly Lever[], plan: Plan, h: number, start: number, blockSteps: number, model: TemporalModel, samples: number): Treatment[] {
  if (h < start) return [];
  const block = Math.floor((h - start) / blockSteps);
  return levers.flatMap((lever, j) => {
    const value = plan.values[j]![block];
    if (value === null || value === undefined) return [];
    return [lever.kind === 'categorical' ? { node: lever.name, kind: 'set' as const, value: lever.categories[value]! } : { node: lever.name, kind: 'values' as const, values: new Float64Array(samples).fill(value) }];
  });
}

/** A metric constraint as judged: on the steps of its window, one per block of intervalSteps. */
interface JudgedConstraint {
  constraint: MetricConstraint;
  /** Index into the scenario's metricConstraints, and the block within its window. */
  source: number;
  block: number;
  steps: number[];
}

function expandConstraints(constraints: readonly MetricConstraint[], times: readonly number[]): JudgedConstraint[] {
  return constraints.flatMap((constraint, source) => {
    const window = constraint.temporal ?? null;
    const bound = (ms: number | undefined, date: string | undefined, fallback: number) => (ms ?? (date === undefined ? null : readTime(date)) ?? fallback);
    const from = bound(window?.startTimestampMs, window?.startDate, -Infinity);
    const to = bound(window?.endTimestampMs, window?.endDate, Infinity);
    const steps = times.map((t, h) => [t, h] as const).filter(([t]) => t >= from && t <= to).map(([, h]) => h);
    if (steps.length === 0) throw new AppError('validation_failed', `metricConstraints[${source}].temporal selects no step of the forecast horizon`);
    const size = window?.intervalSteps ?? steps.length;
    const blocks: number[][] = [];
    for (let k = 0; k < steps.length; k += size) blocks.push(steps.slice(k, k + size));
    return blocks.map((block, b) => ({ constraint: { ...constraint, metricName: blocks.length === 1 ? constraint.metricName : `${constraint.metricName} [block ${b + 1}]` }, source, block: b, steps: block }));
  });
}

/** The rows of a future frame (paths x steps, `step` column) at the given steps. */
function rowsOfSteps(frame: Frame, steps: readonly number[]): Frame {
  const step = frame.columns.find((c) => c.name === 'step');
  if (step === undefined || step.kind !== 'continuous' || steps.length === frame.nRows) return frame;
  const wanted = new Set(steps);
  const rows: number[] = [];
  for (let r = 0; r < frame.nRows; r++) if (wanted.has(step.values[r]!)) rows.push(r);
  return {
    nRows: rows.length,
    columns: frame.columns.map((c) => (c.kind === 'continuous' ? { ...c, values: Float64Array.from(rows, (r) => c.values[r]!) } : { ...c, codes: Int32Array.from(rows, (r) => c.codes[r]!) })),
  };
}

interface Solved {
  levers: Lever[];
  plan: Plan;
  blocks: number;
  blockSteps: number;
  start: number;
  times: number[];
  before: Paths;
  after: Paths;
  baseline: Measurement;
  optimised: Measurement;
  assessment: Assessment;
  goals: Goals;
  constraints: JudgedConstraint[];
  evaluations: number;
  counts: Array<{ count: number; value: number }>;
}

function outcome(model: TemporalModel, scenario: TemporalOptimisationScenario, s: Solved): FamilyOutcome {
  const z = normalCritical(LEVEL);
  const show = (lever: Lever, value: number | null) => (value === null ? null : lever.kind === 'categorical' ? lever.categories[value]! : value);
  const plan = s.times.map((timestamp, h) => {
    const block = h < s.start ? -1 : Math.floor((h - s.start) / s.blockSteps);
    return { stepIndex: h, timestamp, settings: Object.fromEntries(s.levers.map((lever, j) => [lever.name, block < 0 ? null : show(lever, s.plan.values[j]![block] ?? null)])) };
  });
  const changed = s.levers.filter((_, j) => s.plan.values[j]!.some((v) => v !== null));
  // Per objective variable and step: the optimised forecast against doing nothing, paired on the same paths.
  const forecasts: Record<string, Array<{ stepIndex: number; timestamp: number; baseline: number; optimised: number; difference: number; lowerBound: number; upperBound: number }>> = {};
  for (const objective of scenario.objectives) {
    const name = objective.variable;
    if (name === undefined || model.variables.find((v) => v.name === name)?.kind !== 'continuous') continue;
    forecasts[name] = s.times.map((timestamp, h) => {
      const a = s.after[name]![h]!;
      const b = s.before[name]![h]!;
      const diffs = Float64Array.from(a, (v, r) => v - b[r]!);
      const difference = diffs.reduce((x, y) => x + y, 0) / diffs.length;
      const half = z * Math.sqrt(sampleVariance(diffs) / diffs.length);
      return { stepIndex: h, timestamp, baseline: mean(b), optimised: mean(a), difference, lowerBound: difference - half, upperBound: difference + half };
    });
  }
  const objectives = s.goals.objectives.map((o, i) => ({
    ...(o.spec.variable !== undefined ? { variable: o.spec.variable } : { metricSqlQuery: o.sql }),
    direction: o.spec.direction,
    baseline: s.baseline.objectives[i]!,
    optimised: s.optimised.objectives[i]!,
    improvement: o.sign * (s.optimised.objectives[i]! - s.baseline.objectives[i]!),
    ...(Number.isNaN(s.goals.target(i)) ? {} : { target: s.goals.target(i), targetMet: s.goals.targetMet(i, s.optimised.objectives[i]!) }),
  }));
  const constraints = (scenario.metricConstraints ?? []).map((c, source) => {
    const judged = s.constraints.map((j, i) => ({ j, i })).filter(({ j }) => j.source === source);
    return {
      metricName: c.metricName,
      constraintType: c.constraintType,
      satisfied: judged.every(({ i }) => s.assessment.satisfied[i]!),
      blocks: judged.map(({ j, i }) => ({ block: j.block, from: s.times[j.steps[0]!]!, to: s.times[j.steps.at(-1)!]!, baseline: s.baseline.metrics[i]!, optimised: s.optimised.metrics[i]!, satisfied: s.assessment.satisfied[i]! })),
    };
  });
  const feasible = constraints.every((c) => c.satisfied) && s.assessment.outcomeSatisfied.every(Boolean);
  const fmt = (x: number) => String(Number(x.toPrecision(4)));
  const keyPoints = [
    ...objectives.map((o) => `${'variable' in o ? o.variable : 'the metric'}: ${fmt(o.baseline)} doing nothing, ${fmt(o.optimised)} with the plan (${o.direction})${o.targetMet === undefined ? '' : o.targetMet ? ', target met' : ', target not met'}`),
    ...changed.map((lever) => {
      const j = s.levers.indexOf(lever);
      const values = [...new Set(s.plan.values[j]!.map((v) => show(lever, v)))].map((v) => (typeof v === 'number' ? fmt(v) : String(v)));
      return `${lever.name}: ${values.length === 1 ? `set to ${values[0]}` : `scheduled ${values.join(' -> ')}`} from ${timeText(model, s.times[s.start]!)}`;
    }),
    ...constraints.filter((c) => !c.satisfied).map((c) => `constraint ${c.metricName} is not met by the best plan found`),
  ];
  return {
    results: {},
    details: {
      plan,
      changed: changed.map((l) => l.name),
      objectives,
      forecasts,
      constraints,
      feasible,
      timing: { mode: scenario.interventionTiming?.mode ?? 'hold', start: s.times[s.start]!, blockSteps: s.blockSteps, blocks: s.blocks },
      horizon: s.times.length,
      evaluations: s.evaluations,
      ...(scenario.interventionCountConfig?.optimizeCount === true ? { scoresByCount: s.counts.map((c) => ({ count: c.count, score: c.value })) } : {}),
      samples: FINAL_PATHS,
    },
    summary: {
      summary: changed.length === 0
        ? `No change of ${scenario.decisionVars.join(', ')} beats doing nothing over the ${s.times.length}-step horizon.`
        : `Over the ${s.times.length}-step horizon from ${timeText(model, s.times[0]!)}: ${keyPoints.slice(0, objectives.length + changed.length).join('; ')}${feasible ? '' : '; some constraints are not met'} (re-simulated on ${FINAL_PATHS} fresh paths).`,
      keyPoints,
    },
  };
}

const mean = (values: Float64Array) => values.reduce((a, b) => a + b, 0) / values.length;
