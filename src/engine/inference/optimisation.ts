/**
 * Optimisation (spec "optimisation family"; DESIGN.md "Questions"): the values of the decision variables, set
 * on the whole simulated population, that maximise the weighted objectives within the constraints. Every
 * candidate is simulated on the same units' noise (common random numbers), so candidates differ only by their
 * decisions and the search sees a deterministic objective (optimisation-search.ts). The interventions count:
 * maxInterventions caps how many decision variables are set (the rest keep their natural values); with
 * optimizeCount false exactly that many are set, with true any number from one up to it. Every subset of
 * levers of an allowed size is searched when there are few (MAX_ENUMERATED_SUBSETS), otherwise subsets are
 * grown greedily one lever at a time.
 */
import { AppError } from '../../errors.js';
import { AbortError } from '../discovery/budget.js';
import { IdentificationPlan } from '../identification/plan.js';
import type { CbnModel, Frame } from '../types.js';
import { type Assessment, Goals, type Measurement } from './optimisation-goals.js';
import { type Dimension, maximise } from './optimisation-search.js';
import { type DecisionLever, decisionLevers, leverTreatments, meanStd, modeOf } from './optimisation-space.js';
import { identifyOptimisation } from './optimisation-identification.js';
import type { FamilyOutcome, InferenceContext, ResultRecord } from './outcome.js';
import type { OptimisationScenario } from './scenario.js';
import { count, maskedRows, populationNoise, segmentMasks } from './population.js';
import { compileScm, propagate, type Scm } from './scm.js';

export const DEFAULT_SAMPLES = 2000;
const MIN_SAMPLES = 100;
const MAX_SAMPLES = 50_000;
/** Evaluations (one simulation each) when only variable means are scored, and when metric SQL runs (~5-20 ms a call). */
const BUDGET_SIMULATION = 600;
const BUDGET_WITH_METRICS = 200;
const MAX_ENUMERATED_SUBSETS = 16;
const CONFIDENCE_LEVEL = 0.95;

interface Candidate {
  active: number[];
  x: number[];
  penalised: number;
}

export async function runOptimisation(model: CbnModel, scenario: OptimisationScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const scm = compileScm(model);
  const samples = scenario.samples ?? DEFAULT_SAMPLES;
  if (!Number.isInteger(samples) || samples < MIN_SAMPLES || samples > MAX_SAMPLES) throw invalid(`samples must be a whole number from ${MIN_SAMPLES} to ${MAX_SAMPLES}`);
  const { noise, share } = populationNoise(scm, samples, context.seed, scenario.conditions);
  const baseline = propagate(scm, noise);
  const levers = decisionLevers(scm, scenario, baseline);
  const goals = new Goals(scm, scenario);
  goals.setBaseline(baseline, await goals.measure(baseline, context));
  const usesSql = goals.objectives.some((o) => o.sql !== null) || goals.metricConstraints.length > 0;
  const budget = usesSql ? BUDGET_WITH_METRICS : BUDGET_SIMULATION;
  let used = 0;
  const simulate = (active: number[], x: number[]) => propagate(scm, noise, active.flatMap((l, k) => leverTreatments(scm, levers[l]!, x[k]!)));
  const score = async (active: number[], x: number[]) => {
    if (context.hooks.aborted?.() === true) throw new AbortError();
    used++;
    if (used % 10 === 0) context.hooks.progress?.(Math.min(0.99, used / budget), 'searching decisions');
    return goals.assess(await goals.measure(simulate(active, x), context)).penalised;
  };
  const search = async (active: number[], share: number, start?: number[]): Promise<Candidate> => {
    const dims = active.map((l, k) => dimensionOf(levers[l]!, start?.[k]));
    const found = await maximise(dims, (x) => score(active, x), Math.max(10, Math.floor(share)), context.seed + active.reduce((s, l) => s * 31 + l + 1, 7));
    return { active, x: found.best, penalised: found.value };
  };
  const best = await searchSubsets(levers.length, scenario.interventionCountConfig, budget, search);
  const final = simulate(best.active, best.x);
  const measured = await goals.measure(final, context);
  const assessment = goals.assess(measured);
  const outcome = outcomeOf(scm, levers, goals, best, final, baseline, measured, assessment, used, samples);
  if (scenario.conditions?.length) {
    outcome.details.conditionedShare = share;
    outcome.summary.keyPoints.push(`Optimised for the ${format(100 * share)}% of units that meet the conditions.`);
  }
  if (scenario.segmentDefinitions?.length) outcome.details.segments = await segmentObjectives(scm, scenario, goals, baseline, final, context);
  const identification = IdentificationPlan.of(model, context.identification, best.active.map((l) => levers[l]!.name));
  if (identification !== null) await identifyOptimisation(identification, scenario, best, samples, { baseline, final }, outcome, context);
  context.hooks.progress?.(1, 'done');
  return outcome;
}

/** Searches the allowed lever subsets (all of them when few, else grown greedily) and answers the best candidate. */
async function searchSubsets(
  count: number, config: OptimisationScenario['interventionCountConfig'], budget: number,
  search: (active: number[], share: number, start?: number[]) => Promise<Candidate>,
): Promise<Candidate> {
  const cap = config?.maxInterventions ?? count;
  if (!Number.isInteger(cap) || cap < 0) throw invalid('interventionCountConfig.maxInterventions must be a whole number >= 0');
  const most = Math.min(cap, count);
  const sizes = config?.optimizeCount ? Array.from({ length: most }, (_, i) => i + 1) : [most];
  if (most === 0) return { active: [], x: [], penalised: 0 };
  const subsets = sizes.flatMap((k) => combinations(count, k));
  const better = (a: Candidate, b: Candidate | null) => !b || a.penalised > b.penalised + 1e-12 || (Math.abs(a.penalised - b.penalised) <= 1e-12 && a.active.length < b.active.length);
  let best: Candidate | null = null;
  if (subsets.length <= MAX_ENUMERATED_SUBSETS) {
    for (const active of subsets) {
      const found = await search(active, budget / subsets.length);
      if (better(found, best)) best = found;
    }
    return best!;
  }
  // Greedy forward selection: half the budget grows the subset, the rest refines the chosen one.
  let active: number[] = [];
  let x: number[] = [];
  const trials = Array.from({ length: most }, (_, step) => count - step).reduce((a, b) => a + b, 0);
  for (let step = 0; step < most; step++) {
    let bestStep: Candidate | null = null;
    for (let l = 0; l < count; l++) {
      if (active.includes(l)) continue;
      const found = await search([...active, l], budget / 2 / trials, [...x]);
      if (better(found, bestStep)) bestStep = found;
    }
    if (!bestStep || (config?.optimizeCount && best && !better(bestStep, best))) break;
    best = bestStep;
    active = bestStep.active;
    x = bestStep.x;
  }
  const refined = await search(best!.active, budget / 2, best!.x);
  return better(refined, best) ? refined : best!;
}

/** The k-subsets of n levers; generation stops past MAX_ENUMERATED_SUBSETS (the greedy search takes over then). */
function combinations(n: number, k: number): number[][] {
  const out: number[][] = [];
  const walk = (start: number, chosen: number[]) => {
    if (chosen.length === k) {
      out.push(chosen);
      return;
    }
    for (let i = start; i < n && out.length <= MAX_ENUMERATED_SUBSETS; i++) walk(i + 1, [...chosen, i]);
  };
  walk(0, []);
  return out;
}

/** The search coordinate of a lever, starting at `start` or its baseline value (clamped into its domain). */
function dimensionOf(lever: DecisionLever, start?: number): Dimension {
  const from = start ?? lever.baselineValue;
  if (lever.options) {
    const options = lever.options;
    const nearest = options.reduce((b, o) => (Math.abs(o - from) < Math.abs(b - from) ? o : b), options[0]!);
    return { kind: 'discrete', options, start: lever.kind === 'categorical' ? (options.includes(from) ? from : options[0]!) : nearest };
  }
  return { kind: 'continuous', low: lever.low, high: lever.high, start: Math.min(lever.high, Math.max(lever.low, from)) };
}

function outcomeOf(
  scm: Scm, levers: DecisionLever[], goals: Goals, best: Candidate, final: Frame, baseline: Frame,
  measured: Measurement, assessment: Assessment, evaluations: number, samples: number,
): FamilyOutcome {
  const base = goals.baseline;
  const label = (lever: DecisionLever, v: number) => (lever.kind === 'categorical' ? (scm.model.nodes[lever.node] as { categories: string[] }).categories[v]! : v);
  const recommendation = levers.map((lever, l) => {
    const k = best.active.indexOf(l);
    const value = k >= 0 ? best.x[k]! : lever.baselineValue;
    const change = lever.kind === 'continuous' ? value - lever.baselineValue : null;
    return {
      variable: lever.name, ...(lever.segment === undefined ? {} : { segment: lever.segment }), interventionType: lever.mode === 'shift' ? 'relative_change' : 'set_value',
      intervened: k >= 0, baselineValue: label(lever, lever.baselineValue), value: label(lever, value), change,
      changePercent: change !== null && lever.baselineValue !== 0 ? (100 * change) / Math.abs(lever.baselineValue) : null,
    };
  });
  const objectives = goals.objectives.map((o, i) => {
    const improvement = o.sign * (measured.objectives[i]! - base.objectives[i]!);
    const { direction, variable, unit, target, variablesRelevantToMetric, conceptId, conceptEditVersion } = o.spec;
    return {
      direction, ...(variable !== undefined ? { variable } : {}), ...(o.sql ? { metricSqlQuery: o.sql } : {}),
      weight: o.weight, ...(unit !== undefined ? { unit } : {}),
      ...(variablesRelevantToMetric !== undefined ? { variablesRelevantToMetric } : {}),
      ...(conceptId !== undefined ? { conceptId } : {}), ...(conceptEditVersion !== undefined ? { conceptEditVersion } : {}),
      baseline: base.objectives[i]!, optimised: measured.objectives[i]!, improvement,
      improvementPercent: base.objectives[i] !== 0 ? (100 * improvement) / Math.abs(base.objectives[i]!) : null,
      ...(target !== undefined ? { target, targetValue: goals.target(i), targetMet: goals.targetMet(i, measured.objectives[i]!) } : {}),
    };
  });
  const constraints = [
    ...goals.metricConstraints.map((c, i) => ({
      kind: 'metric', metricName: c.metricName, constraintType: c.constraintType, limit: c.constraintType === 'fixed_boolean' ? c.booleanValue! : c.value!,
      baseline: base.metrics[i]!, value: measured.metrics[i]!, satisfied: assessment.satisfied[i]!,
    })),
    ...goals.outcomeConstraints.map((c, i) => ({
      kind: 'variable', variable: c.name, constraintType: c.type, limit: c.type === 'range' ? { minValue: c.low, maxValue: c.high } : c.percent,
      baseline: base.outcomes[i]!, value: measured.outcomes[i]!, satisfied: assessment.outcomeSatisfied[i]!,
    })),
    ...best.active.map((l, k) => {
      const lever = levers[l]!;
      const v = best.x[k]!;
      const satisfied = lever.options ? lever.options.includes(v) : v >= lever.low && v <= lever.high;
      const limit = lever.options ? lever.options.map((o) => label(lever, o)) : { minValue: lever.low, maxValue: lever.high };
      return { kind: 'decision', variable: lever.name, constraintType: lever.options ? 'set' : 'range', limit, value: label(lever, v), satisfied };
    }),
  ];
  const feasible = constraints.every((c) => c.satisfied);
  const reported = new Set<number>([...levers.map((l) => l.node), ...goals.objectives.filter((o) => o.variable >= 0).map((o) => o.variable), ...goals.outcomeConstraints.map((c) => c.variable)]);
  const results = Object.fromEntries([...reported].map((i) => [scm.names[i]!, [populationRecord(final, i)]]));
  const moves = recommendation.filter((r) => r.intervened).map((r) => `${r.variable}${r.segment === undefined ? '' : ` in ${r.segment}`} ${format(r.baselineValue)} -> ${format(r.value)}`);
  return {
    results,
    details: { recommendation, objectives, constraints, feasible, evaluations, samples, interventionCount: best.active.length, baselineUnits: baseline.nRows },
    summary: {
      summary: `${moves.length > 0 ? `Set ${moves.join(', ')}` : 'No intervention'}: ${objectives.map((o) => `${o.variable ?? 'metric'} ${format(o.baseline)} -> ${format(o.optimised)}`).join(', ')}${feasible ? '' : ' (some constraints are not met)'}.`,
      keyPoints: [
        ...objectives.map((o) => `${o.direction === 'maximise' ? 'Maximise' : 'Minimise'} ${o.variable ?? o.metricSqlQuery}: ${format(o.baseline)} -> ${format(o.optimised)}${o.improvementPercent !== null ? ` (${o.improvementPercent >= 0 ? '+' : ''}${format(o.improvementPercent)}% better)` : ''}.`),
        ...objectives.filter((o) => o.targetMet === false).map((o) => `The target of ${o.variable ?? 'the metric'} (${format(o.targetValue!)}) is not reached.`),
        ...constraints.filter((c) => !c.satisfied).map((c) => `Constraint ${'metricName' in c ? c.metricName : c.variable} (${c.constraintType}) is not met.`),
        `${evaluations} candidate decisions simulated on ${samples} units.`,
      ],
    },
  };
}

/** Each segment's objectives before and after the recommended decisions (its units only). */
async function segmentObjectives(scm: Scm, scenario: OptimisationScenario, goals: Goals, baseline: Frame, final: Frame, context: InferenceContext) {
  const definitions = scenario.segmentDefinitions!;
  const out = [];
  for (const [s, mask] of segmentMasks(scm, baseline, definitions).entries()) {
    const units = count(mask);
    const entry = { id: definitions[s]!.id, description: definitions[s]!.description ?? '', units, share: units / baseline.nRows };
    if (units === 0) {
      out.push({ ...entry, note: 'no simulated unit meets the segment conditions' });
      continue;
    }
    const [before, after] = [await goals.measure(maskedRows(baseline, mask), context), await goals.measure(maskedRows(final, mask), context)];
    out.push({ ...entry, objectives: goals.objectives.map((o, i) => ({ ...(o.spec.variable !== undefined ? { variable: o.spec.variable } : { metricSqlQuery: o.sql }), baseline: before.objectives[i]!, optimised: after.objectives[i]! })) });
  }
  return out;
}

/** A variable over the optimised population: mean, std and central interval (continuous), or class shares. */
function populationRecord(frame: Frame, column: number): ResultRecord {
  const c = frame.columns[column]!;
  if (c.kind === 'categorical') {
    const counts = new Float64Array(c.categories.length);
    for (const code of c.codes) if (code >= 0) counts[code]!++;
    const total = counts.reduce((a, b) => a + b, 0);
    return {
      timestamp: null, prediction: c.categories[modeOf(c.codes, c.categories.length)] ?? null, std: null, probabilities: Array.from(counts, (x) => x / total),
      categories: [...c.categories], lowerBound: null, upperBound: null, confidenceLevel: CONFIDENCE_LEVEL,
    };
  }
  const sorted = Float64Array.from(c.values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]!;
  // meanStd floors a zero spread at 1 (a scale); a population set to one value has std 0.
  const { mean } = meanStd(c.values);
  let ss = 0;
  for (const v of c.values) ss += (v - mean) ** 2;
  const std = Math.sqrt(ss / Math.max(1, c.values.length - 1));
  return { timestamp: null, prediction: mean, std, lowerBound: at((1 - CONFIDENCE_LEVEL) / 2), upperBound: at(1 - (1 - CONFIDENCE_LEVEL) / 2), confidenceLevel: CONFIDENCE_LEVEL };
}

const format = (v: number | string | null) => (typeof v === 'number' ? Number(v.toPrecision(4)).toString() : String(v));

function invalid(detail: string): AppError {
  return new AppError('validation_failed', detail);
}
