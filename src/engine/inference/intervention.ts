/**
 * Intervention questions (spec "Intervention details"; DESIGN.md "Questions"): graph mutilation + ancestral
 * sampling with common random numbers -- the baseline and intervened arms share every unit's noise, so their
 * difference carries no between-arm sampling noise. Conditions select units on their baseline values. A range
 * sweeps its grid, each point an intervened arm against the same baseline. Intervals add the parameter
 * uncertainty of the fit (uncertainty.ts) to the Monte Carlo error.
 */
import { AppError } from '../../errors.js';
import { AbortError } from '../discovery/budget.js';
import { type Alternative, IdentificationPlan } from '../identification/plan.js';
import { Rng } from '../random.js';
import type { CbnModel, Frame } from '../types.js';
import { conditionMask } from './conditions.js';
import { type Arms, type Interval, type VariableEffect, armRecord, sweepPoints, variableEffect } from './intervention-effects.js';
import { type MetricEffect, type MetricValues, metricEffect, metricSweepPoint, metricValues } from './intervention-metrics.js';
import { describeIntervention, interventionSummary } from './intervention-summary.js';
import { type Bounds, IDENTIFIED, identificationNote, identifiedMembers } from './identified-effects.js';
import type { FamilyOutcome, InferenceContext, ResultRecord, SweepResult } from './outcome.js';
import type { Intervention, InterventionScenario } from './scenario.js';
import { type SegmentAnswer, segmentAnswers } from './intervention-segments.js';
import { both, populationNoise } from './population.js';
import { type Noise, type Scm, type Treatment, compileScm, descendantsOf, propagate } from './scm.js';
import { rangeGrid, treatmentFor } from './treatments.js';
import { parameterSampler } from './uncertainty.js';

const DEFAULT_SAMPLES = 10_000;
const MAX_SAMPLES = 1_000_000;
/** Parameter draws behind the intervals; the interval's t critical value accounts for their few degrees of freedom. */
const PARAMETER_DRAWS = 30;
/** Units per parameter draw: the draws share these units' noise, so the spread across draws is the parameters'. */
const DRAW_UNITS = 500;
const METRIC_BATCHES = 10;
/** Metric calls per metric across a sweep are held near this many by using fewer batches and draws per point. */
const METRIC_CALL_BUDGET = 200;

interface Plan {
  samples: number;
  interval: Interval;
  /** The range intervention's index, or -1. */
  rangeIndex: number;
  grid: (number | null)[];
  outcomes: number[];
}

/** The model's parts sampled under one parameter set: the baseline and each intervention's unit mask. */
interface Sampled {
  scm: Scm;
  noise: Noise;
  baseline: Frame;
  masks: Uint8Array[];
}

export async function runIntervention(model: CbnModel, scenario: InterventionScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const scm = compileScm(model);
  const identification = IdentificationPlan.of(model, context.identification, scenario.interventions.map((iv) => iv.variable));
  const plan = planOf(scm, scenario, identification?.possibleDescendants() ?? []);
  const { interval } = plan;
  const checkpoint = () => {
    if (context.hooks.aborted?.() === true) throw new AbortError();
  };
  const outcomeNames = plan.outcomes.map((c) => scm.names[c]!);
  const metrics = scenario.metrics ?? [];
  const others = identification?.alternatives([...outcomeNames, ...(metrics.length > 0 ? [null] : [])], context.seed) ?? { alternatives: [], truncated: false };
  // The chosen DAG's answer takes the first share of the progress, each other DAG of the class one more.
  const share = 1 / (1 + others.alternatives.length);
  const progress = (fraction: number, state: string) => context.hooks.progress?.(fraction * share, state);

  const { noise, share: conditionedShare } = populationNoise(scm, plan.samples, context.seed, scenario.conditions);
  const main = sample(scm, noise, scenario.interventions);
  const draws = parameterDraws(model, noise, scenario.interventions, context.seed, checkpoint);
  progress(0.1, 'sampled the baseline');

  const perPoint = Math.max(1, Math.floor((METRIC_CALL_BUDGET / plan.grid.length - 1) / 2));
  const batches = Math.min(METRIC_BATCHES, Math.max(3, perPoint));
  const metricDraws = draws.slice(0, Math.min(batches, draws.length));
  const baselineMetrics: MetricValues[] = [];
  for (const metric of metrics) {
    checkpoint();
    baselineMetrics.push(await metricValues(context, metric, main.baseline, batches, metricDraws.map((d) => d.baseline)));
  }

  const grid: { value: number | null; variables: VariableEffect[]; metrics: MetricEffect[] }[] = [];
  const curves = new Map<string, SweepResult['curves'][number]>();
  /** `outcome`: the variable the curve follows, null for a metric (metrics read every variable). */
  const curve = (name: string, outcome: string | null, unit?: string) => {
    let c = curves.get(name);
    if (!c) {
      const { identified, decidingEdges } = identification?.effectOn(outcome) ?? IDENTIFIED;
      curves.set(name, (c = { metric: name, ...(unit === undefined ? {} : { unit }), identified, decidingEdges, points: [] }));
    }
    return c;
  };
  let last: Arms | null = null;
  for (const [index, value] of plan.grid.entries()) {
    checkpoint();
    const arms: Arms = { baseline: main.baseline, intervened: intervene(main, scenario.interventions, value), draws: [] };
    for (const d of draws) {
      checkpoint();
      arms.draws.push({ baseline: d.baseline, intervened: intervene(d, scenario.interventions, value) });
    }
    const variables = plan.outcomes.map((c) => variableEffect(c, arms, interval));
    const metricEffects: MetricEffect[] = [];
    for (const [m, metric] of metrics.entries()) {
      checkpoint();
      const values = await metricValues(context, metric, arms.intervened, batches, arms.draws.slice(0, metricDraws.length).map((d) => d.intervened));
      metricEffects.push(metricEffect(metric, baselineMetrics[m]!, values, interval.confidenceLevel));
      if (value !== null) curve(metric.name, null, metric.unit).points.push(metricSweepPoint(values, value, interval.confidenceLevel));
    }
    if (value !== null) {
      for (const c of plan.outcomes) {
        const column = arms.intervened.columns[c]!;
        const points = sweepPoints(c, arms, value, interval);
        if (column.kind === 'continuous') curve(column.name, column.name).points.push(points[0]!);
        else column.categories.forEach((category, k) => curve(`${column.name}=${category}`, column.name).points.push(points[k]!));
      }
    }
    grid.push({ value, variables, metrics: metricEffects });
    last = arms;
    progress(0.1 + (0.9 * (index + 1)) / plan.grid.length, plan.grid.length > 1 ? `swept ${index + 1} of ${plan.grid.length} points` : 'sampled the intervention');
  }

  const final = grid[grid.length - 1]!;
  const lastValue = plan.grid[plan.grid.length - 1]!;
  const segments = (scenario.segmentDefinitions ?? []).length === 0 ? null : await segmentAnswers({
    scm, definitions: scenario.segmentDefinitions!, outcomes: plan.outcomes, metrics, interval, batches, metricDraws: metricDraws.length, checkpoint,
    targeted: scenario.enableSegmentInterventions !== true ? null : (rows, drawRows) => ({
      main: intervene(main, scenario.interventions, lastValue, rows),
      draws: draws.map((d, k) => intervene(d, scenario.interventions, lastValue, drawRows[k])),
    }),
  }, last!, baselineMetrics, context);
  const notes = identification === null ? [] : await identify(identification, others, final, async (alternative, k) => {
    const hooks = { ...context.hooks, progress: (f: number) => context.hooks.progress?.(share * (1 + k + f), `other graphs of the class: ${k + 1} of ${others.alternatives.length}`) };
    // Segments are the chosen DAG's detail; the other graphs answer the whole population's effects.
    const { segmentDefinitions: _segments, enableSegmentInterventions: _targeted, ...question } = scenario;
    const answer = await runIntervention(alternative.model, { ...question, targetVars: outcomeNames }, { ...context, identification: undefined, hooks });
    return answer.details as { variables: VariableEffect[]; metrics: MetricEffect[] };
  });
  const results: Record<string, ResultRecord[]> = {};
  for (const c of plan.outcomes) results[scm.names[c]!] = [armRecord(c, last!, interval)];
  const details: Record<string, unknown> = {
    samples: plan.samples, seed: context.seed, confidenceLevel: interval.confidenceLevel,
    interventions: scenario.interventions, parameterDraws: draws.length,
    variables: final.variables, metrics: final.metrics,
    ...(scenario.conditions?.length ? { conditionedShare } : {}),
    ...(segments === null ? {} : { segments }),
  };
  const outcome: FamilyOutcome = { results, details, summary: interventionSummary(scenario, plan.samples, main.masks, final) };
  if (scenario.conditions?.length) outcome.summary.keyPoints.push(`Answered for the ${percent(conditionedShare)} of units that meet the conditions.`);
  if (segments !== null) outcome.summary.keyPoints.push(...segmentPoints(segments));
  if (notes.length > 0) {
    outcome.summary.summary += ` ${notes[0]}`;
    outcome.summary.keyPoints.unshift(...notes.slice(0, 2));
    outcome.summary.keyPoints.splice(5);
  }
  if (plan.rangeIndex >= 0) {
    const range = scenario.interventions[plan.rangeIndex]!;
    details.grid = grid;
    outcome.sweep = { variable: range.variable, steps: plan.grid.length, confidenceLevel: interval.confidenceLevel, curves: [...curves.values()] };
    outcome.summary.keyPoints.unshift(`${describeIntervention(range)}: ${plan.grid.length} points; the effects above are at the last point (${String(plan.grid[plan.grid.length - 1])}).`);
    outcome.summary.keyPoints.splice(5);
  }
  return outcome;
}

/**
 * Adds the identification members to every reported effect (identified-effects.ts), answering the question on each
 * other DAG of the class through `answerOn`, and returns the plain-language notes of the effects left open.
 */
async function identify(
  plan: IdentificationPlan, others: { alternatives: Alternative[]; truncated: boolean },
  final: { variables: VariableEffect[]; metrics: MetricEffect[] },
  answerOn: (alternative: Alternative, k: number) => Promise<{ variables: VariableEffect[]; metrics: MetricEffect[] }>,
): Promise<string[]> {
  const answers: { alternative: Alternative; variables: VariableEffect[]; metrics: MetricEffect[] }[] = [];
  for (const [k, alternative] of others.alternatives.entries()) answers.push({ alternative, ...(await answerOn(alternative, k)) });
  const notes: string[] = [];
  for (const v of final.variables) {
    const members = identifiedMembers(plan, v.variable, v.effect, answers.map((a) => ({ alternative: a.alternative, value: a.variables.find((w) => w.variable === v.variable)?.effect })), others.truncated);
    Object.assign(v, members);
    const note = identificationNote(plan, `the effect on ${v.variable}`, members, (d) => showDifference(d, v.categories));
    if (note !== null) notes.push(note);
  }
  for (const m of final.metrics) {
    const members = identifiedMembers(plan, null, m, answers.map((a) => ({ alternative: a.alternative, value: a.metrics.find((w) => w.name === m.name) })), others.truncated);
    Object.assign(m, members);
    const note = identificationNote(plan, `the change in ${m.name}`, members, (d) => showDifference(d));
    if (note !== null) notes.unshift(note);
  }
  return notes;
}

/** Per segment, the first reported effect within it, and (targeted) the effect of acting on it alone. */
function segmentPoints(segments: SegmentAnswer[]): string[] {
  return segments.map((s) => {
    const first = s.metrics[0] ?? s.variables[0]?.effect;
    const label = s.metrics[0]?.name ?? s.variables[0]?.variable ?? '';
    if (first === undefined || s.note !== undefined) return `Segment ${s.id} (${percent(s.share)} of units): ${s.note ?? 'no outcome to report'}.`;
    const targeted = s.targeted?.metrics[0] ?? s.targeted?.variables[0]?.effect;
    return `Segment ${s.id} (${percent(s.share)} of units): ${label} ${showDifference(first)}` +
      (targeted === undefined ? '.' : `; intervening on this segment alone changes ${label} overall by ${showDifference(targeted)}.`);
  });
}

const percent = (x: number) => `${Number((100 * x).toPrecision(3))}%`;

/** "+1.68 (1.52 to 1.84)"; a categorical effect by its largest share change in points. */
function showDifference(d: Bounds, categories?: string[]): string {
  const fmt = (x: number) => (x > 0 ? '+' : '') + String(Number(x.toPrecision(3)));
  if (!Array.isArray(d.difference)) return `${fmt(d.difference)} (${fmt(d.lowerBound as number)} to ${fmt(d.upperBound as number)})`;
  const diff = d.difference;
  const k = diff.reduce((best, x, i) => (Math.abs(x) > Math.abs(diff[best]!) ? i : best), 0);
  return `${fmt(100 * diff[k]!)} pp in ${categories?.[k] ?? `class ${k}`}`;
}

/** Validates the scenario against the model: known variables, at most one range (numeric), sample count, level.
 * Without target variables the outcomes are the intervened variables and everything downstream of them in the
 * chosen DAG or, when a class is known, in any DAG of it (`possible`). */
function planOf(scm: Scm, scenario: InterventionScenario, possible: readonly string[]): Plan {
  const invalid = (detail: string) => new AppError('validation_failed', detail);
  if (!Array.isArray(scenario.interventions) || scenario.interventions.length === 0) throw invalid('an intervention scenario needs at least one intervention');
  const samples = scenario.samples ?? DEFAULT_SAMPLES;
  if (!Number.isInteger(samples) || samples < 2 || samples > MAX_SAMPLES) throw invalid(`samples must be an integer from 2 to ${MAX_SAMPLES}`);
  const confidenceLevel = scenario.confidenceLevel ?? 0.95;
  if (!(confidenceLevel > 0 && confidenceLevel < 1)) throw invalid('confidenceLevel must lie strictly between 0 and 1');
  const intervened = scenario.interventions.map((iv) => {
    const i = scm.indexOf(iv.variable);
    if (i < 0) throw invalid(`intervention on ${iv.variable}, which is not a variable of the model`);
    return i;
  });
  const ranges = scenario.interventions.flatMap((iv, k) => (iv.valueSpec.type === 'range' ? [k] : []));
  if (ranges.length > 1) throw invalid('at most one range intervention per scenario');
  const rangeIndex = ranges[0] ?? -1;
  let grid: (number | null)[] = [null];
  if (rangeIndex >= 0) {
    const range = scenario.interventions[rangeIndex]!;
    if (scm.model.nodes[intervened[rangeIndex]!]!.kind !== 'continuous') throw invalid(`range on ${range.variable}: a range needs a numeric variable`);
    grid = rangeGrid(range.variable, range.valueSpec as Extract<Intervention['valueSpec'], { type: 'range' }>);
  }
  let outcomes: number[];
  if (scenario.targetVars && scenario.targetVars.length > 0) {
    outcomes = scenario.targetVars.map((name) => {
      const i = scm.indexOf(name);
      if (i < 0) throw invalid(`target ${name} is not a variable of the model`);
      return i;
    });
  } else {
    const reached = new Set(intervened);
    for (const i of intervened) for (const d of descendantsOf(scm, i)) reached.add(d);
    for (const name of possible) reached.add(scm.indexOf(name));
    outcomes = [...reached].sort((a, b) => a - b);
  }
  return { samples, interval: { confidenceLevel }, rangeIndex, grid, outcomes: [...new Set(outcomes)] };
}

function sample(scm: Scm, noise: Noise, interventions: Intervention[]): Sampled {
  const baseline = propagate(scm, noise);
  return { scm, noise, baseline, masks: interventions.map((iv) => conditionMask(baseline, scm, iv.conditions ?? [])) };
}

/** The intervened arm: every intervention on its selected units (within `only`, when given); the range (if any) at `value`. */
function intervene(s: Sampled, interventions: Intervention[], value: number | null, only?: Uint8Array): Frame {
  const treatments: Treatment[] = interventions.map((iv, k) => {
    const conditioned = iv.conditions && iv.conditions.length > 0 ? s.masks[k] : undefined;
    const rows = only === undefined ? conditioned : both(only, conditioned);
    const spec = iv.valueSpec.type === 'range' ? { type: 'set_value' as const, value: value! } : iv.valueSpec;
    return treatmentFor(s.scm, iv.variable, spec, rows);
  });
  return propagate(s.scm, s.noise, treatments, s.baseline);
}

/** Baselines under parameter draws, all on the first DRAW_UNITS units' noise (empty when the fit kept no uncertainty). */
function parameterDraws(model: CbnModel, noise: Noise, interventions: Intervention[], seed: number, checkpoint: () => void): Sampled[] {
  const sampler = parameterSampler(model);
  if (!sampler) return [];
  const units = Math.min(noise[0]?.length ?? 0, DRAW_UNITS);
  const shared = noise.map((u) => u.subarray(0, units));
  // A stream apart from the noise's own, so the draws are reproducible from the run's seed alone.
  const rng = new Rng((seed ^ 0x5bd1e995) >>> 0);
  return Array.from({ length: PARAMETER_DRAWS }, () => {
    checkpoint();
    return sample(compileScm(sampler.draw(rng)), shared, interventions);
  });
}
