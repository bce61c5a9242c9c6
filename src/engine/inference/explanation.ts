/**
 * Explanation (spec "explanation family"), all by interventions on a simulated population with common random
 * numbers (causal-effects.ts): `discovery` ranks the causes (ancestors) of effectVariable by their total effect,
 * `impact` ranks the descendants of causeVariable by its effect on them (in their standard deviations, so
 * different units compare), `directional` splits the total effect of the cause on the effect into path-specific
 * contributions plus the direct effect. Shares: a ranked variable's squared effect over the sum of squared effects
 * (the ranking's own scale; effects of correlated causes overlap, so shares are relative weights, not a variance
 * decomposition). A segment repeats the analysis over the units whose baseline values meet its conditions; the
 * interventions stay population-wide (mean +- 1 population std), so segment effects compare with the whole.
 */
import { AppError } from '../../errors.js';
import { AbortError } from '../discovery/budget.js';
import { IdentificationPlan } from '../identification/plan.js';
import type { CbnModel, Frame } from '../types.js';
import { type CauseArms, causeArms, contrastLike, directedPaths, type Effect, effectOf, linearPathProduct, maskedMean, pathSpecificDifferences } from './causal-effects.js';
import { conditionMask } from './conditions.js';
import { identifyExplanation } from './explanation-identification.js';
import type { FamilyOutcome, InferenceContext, ResultRecord } from './outcome.js';
import type { ExplanationScenario } from './scenario.js';
import { count, populationNoise, segmentMasks } from './population.js';
import { ancestorsOf, descendantsOf, type Noise, propagate, type Scm, compileScm } from './scm.js';

/** Simulated units (common random numbers across arms make the contrasts precise well below this). */
export const EXPLANATION_SAMPLES = 5000;
/** Paths split out in directional mode; beyond this the rest is reported together as the remainder. */
const MAX_PATHS = 50;
/** Paths listed per ranked variable in discovery and impact modes. */
const LISTED_PATHS = 5;
const CONFIDENCE_LEVEL = 0.95;
const Z = 1.959963984540054;

interface Segment {
  id: string;
  description: string;
  mask: Uint8Array;
  units: number;
}

interface Setup {
  scm: Scm;
  noise: Noise;
  baseline: Frame;
  segments: Segment[];
  check: (fraction: number, state: string) => void;
}

/**
 * `alsoReport` (impact mode) adds variables to the ranking beside the cause's descendants: another DAG of the
 * class may put them downstream (identification), and there their effect is not 0.
 */
export async function runExplanation(model: CbnModel, scenario: ExplanationScenario, context: InferenceContext, alsoReport: readonly string[] = []): Promise<FamilyOutcome> {
  const scm = compileScm(model);
  const variable = (name: string | undefined, field: string) => {
    if (!name) throw new AppError('validation_failed', `explanationMode ${scenario.explanationMode} needs ${field}`);
    const i = scm.indexOf(name);
    if (i < 0) throw new AppError('validation_failed', `${field} ${name} is not a variable of the model`);
    return i;
  };
  const effect = scenario.explanationMode === 'impact' ? -1 : variable(scenario.effectVariable, 'effectVariable');
  const cause = scenario.explanationMode === 'discovery' ? -1 : variable(scenario.causeVariable, 'causeVariable');
  const { noise } = populationNoise(scm, EXPLANATION_SAMPLES, context.seed, scenario.conditions);
  const baseline = propagate(scm, noise);
  const all = new Uint8Array(baseline.nRows).fill(1);
  const segments: Segment[] = [{ id: 'all', description: scenario.conditions?.length ? 'every unit meeting the conditions' : 'every unit', mask: all, units: baseline.nRows }];
  // `segments` may overlap (each is its own question); segmentDefinitions partition the units (population.ts).
  for (const s of scenario.segments ?? []) {
    const mask = conditionMask(baseline, scm, s.conditions);
    segments.push({ id: s.id, description: s.description ?? '', mask, units: count(mask) });
  }
  const defined = scenario.segmentDefinitions ?? [];
  segmentMasks(scm, baseline, defined).forEach((mask, i) => segments.push({ id: defined[i]!.id, description: defined[i]!.description ?? '', mask, units: count(mask) }));
  const check = (fraction: number, state: string) => {
    if (context.hooks.aborted?.() === true) throw new AbortError();
    context.hooks.progress?.(fraction, state);
  };
  const setup: Setup = { scm, noise, baseline, segments, check };
  const identification = scenario.explanationMode === 'discovery' ? null : IdentificationPlan.of(model, context.identification, [scm.names[cause]!]);
  const extra = [...alsoReport, ...(identification?.possibleDescendants() ?? [])].map((name) => scm.indexOf(name)).filter((i) => i >= 0 && i !== cause);
  const outcome = scenario.explanationMode === 'discovery' ? discover(setup, effect)
    : scenario.explanationMode === 'impact' ? impact(setup, cause, extra)
      : directional(setup, cause, effect);
  if (identification !== null) {
    await identifyExplanation(identification, outcome, context, (alternative, reported) => runExplanation(alternative, scenario, { ...context, identification: undefined }, reported));
  }
  context.hooks.progress?.(1, 'done');
  return outcome;
}

interface Ranked {
  variable: string;
  effect: number;
  standardError: number;
  /** Per unit of a continuous cause (effect / its std); null for a categorical cause. */
  perUnit: number | null;
  share: number;
  direction: 'increases' | 'decreases' | 'none' | 'contrast';
  measure: 'per_std' | 'category_contrast';
  outcomeClass?: string;
  high?: string;
  low?: string;
  paths: string[][];
}

function ranked(scm: Scm, arms: CauseArms, e: Effect, variable: number, paths: string[][]): Ranked {
  const direction = arms.kind === 'categorical' ? 'contrast' : e.effect > 0 ? 'increases' : e.effect < 0 ? 'decreases' : 'none';
  return {
    variable: scm.names[variable]!, effect: e.effect, standardError: e.standardError, perUnit: arms.kind === 'continuous' ? e.effect / arms.std : null, share: 0,
    direction, measure: arms.kind === 'continuous' ? 'per_std' : 'category_contrast',
    ...(e.outcomeClass !== undefined ? { outcomeClass: e.outcomeClass } : {}), ...(e.high !== undefined ? { high: e.high, low: e.low! } : {}), paths,
  };
}

/** Sorted by |key|, with shares of squared effect. */
function rank<T extends { effect: number; share: number }>(items: T[], key: (t: T) => number): T[] {
  const total = items.reduce((s, t) => s + key(t) ** 2, 0);
  for (const t of items) t.share = total > 0 ? key(t) ** 2 / total : 0;
  return items.sort((a, b) => Math.abs(key(b)) - Math.abs(key(a)));
}

const named = (scm: Scm, paths: number[][]) => paths.map((p) => p.map((i) => scm.names[i]!));

function discover(setup: Setup, effect: number): FamilyOutcome {
  const { scm, segments } = setup;
  const causes = [...ancestorsOf(scm, effect)].sort((a, b) => a - b);
  const perSegment: Ranked[][] = segments.map(() => []);
  causes.forEach((cause, c) => {
    setup.check(c / Math.max(1, causes.length), `effect of ${scm.names[cause]}`);
    const arms = causeArms(scm, setup.noise, setup.baseline, cause);
    const paths = named(scm, directedPaths(scm, cause, effect, LISTED_PATHS).paths);
    segments.forEach((s, i) => {
      if (s.units > 0) perSegment[i]!.push(ranked(scm, arms, effectOf(scm, arms, effect, s.mask), cause, paths));
    });
  });
  const lists = perSegment.map((list) => rank(list, (r) => r.effect));
  const name = scm.names[effect]!;
  const top = lists[0]!.slice(0, 3).map((r) => `${r.variable} (${describeEffect(r)})`);
  return {
    results: Object.fromEntries(lists[0]!.map((r) => [r.variable, [record(r.effect, r.standardError)]])),
    details: { mode: 'discovery', effectVariable: name, samples: setup.baseline.nRows, causes: lists[0], segments: segmentDetails(segments, lists, 'causes') },
    summary: {
      summary: causes.length === 0 ? `${name} has no causes in the model.` : `The strongest causes of ${name}: ${top.join(', ')}.`,
      keyPoints: lists[0]!.slice(0, 5).map((r) => `${r.variable} ${describeEffect(r)} on ${name} (${percent(r.share)} of the ranked effects).`),
    },
  };
}

function impact(setup: Setup, cause: number, extra: number[]): FamilyOutcome {
  const { scm, segments } = setup;
  const outcomes = [...new Set([...descendantsOf(scm, cause), ...extra])].sort((a, b) => a - b);
  setup.check(0, `effects of ${scm.names[cause]}`);
  const arms = causeArms(scm, setup.noise, setup.baseline, cause);
  const scales = outcomes.map((o) => outcomeScale(setup.baseline, o));
  const lists = segments.map((s, i) => {
    setup.check(i / segments.length, `segment ${s.id}`);
    if (s.units === 0) return [];
    const items = outcomes.map((o, k) => {
      const r = ranked(scm, arms, effectOf(scm, arms, o, s.mask), o, named(scm, directedPaths(scm, cause, o, LISTED_PATHS).paths));
      return { ...r, standardisedEffect: r.effect / scales[k]! };
    });
    return rank(items, (r) => r.standardisedEffect);
  });
  const name = scm.names[cause]!;
  return {
    results: Object.fromEntries(lists[0]!.map((r) => [r.variable, [record(r.effect, r.standardError)]])),
    details: { mode: 'impact', causeVariable: name, samples: setup.baseline.nRows, effects: lists[0], segments: segmentDetails(segments, lists, 'effects') },
    summary: {
      summary: outcomes.length === 0 ? `${name} affects no other variable in the model.` : `${name} moves ${lists[0]!.slice(0, 3).map((r) => r.variable).join(', ')} most.`,
      keyPoints: lists[0]!.slice(0, 5).map((r) => `${name} ${describeEffect({ ...r, variable: name })} on ${r.variable} (${Number(r.standardisedEffect.toPrecision(3))} of its std).`),
    },
  };
}

function directional(setup: Setup, cause: number, effect: number): FamilyOutcome {
  const { scm, segments } = setup;
  setup.check(0, `effect of ${scm.names[cause]} on ${scm.names[effect]}`);
  const arms = causeArms(scm, setup.noise, setup.baseline, cause);
  const total = effectOf(scm, arms, effect, segments[0]!.mask);
  const { paths, truncated } = directedPaths(scm, cause, effect, MAX_PATHS);
  // A linear path contributes its coefficient product per std of the cause, the same in every unit.
  const perPath = paths.map((path, p) => {
    setup.check(p / Math.max(1, paths.length), 'path-specific effects');
    const product = linearPathProduct(scm, path);
    if (product !== null && arms.kind === 'continuous') return { path, method: 'coefficients' as const, constant: product * arms.std, differences: null };
    return { path, method: 'interventional' as const, constant: 0, differences: pathSpecificDifferences(scm, setup.noise, arms, total, path) };
  });
  const analyses = segments.map((s) => {
    if (s.units === 0) return null;
    const e = contrastLike(arms, effect, total, s.mask);
    const contributions = perPath.map((p) => ({
      path: p.path.map((i) => scm.names[i]!), method: p.method,
      contribution: p.differences ? maskedMean(p.differences, s.mask) : p.constant, share: 0,
    }));
    const explained = contributions.reduce((sum, c) => sum + c.contribution, 0);
    for (const c of contributions) c.share = e.effect !== 0 ? c.contribution / e.effect : 0;
    const direct = contributions.find((c) => c.path.length === 2)?.contribution ?? 0;
    return {
      totalEffect: { effect: e.effect, standardError: e.standardError, perUnit: arms.kind === 'continuous' ? e.effect / arms.std : null, ...(e.outcomeClass !== undefined ? { outcomeClass: e.outcomeClass } : {}), ...(e.high !== undefined ? { high: e.high, low: e.low } : {}) },
      directEffect: direct,
      indirectEffect: explained - direct,
      paths: contributions.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution)),
      /** What the listed paths leave unexplained: interactions between paths, and paths beyond MAX_PATHS. */
      remainder: e.effect - explained,
    };
  });
  const whole = analyses[0]!;
  const causeName = scm.names[cause]!;
  const effectName = scm.names[effect]!;
  const measure = arms.kind === 'continuous' ? 'per std' : `from ${whole.totalEffect.low} to ${whole.totalEffect.high}`;
  return {
    results: { [effectName]: [record(whole.totalEffect.effect, whole.totalEffect.standardError)] },
    details: {
      mode: 'directional', causeVariable: causeName, effectVariable: effectName, samples: setup.baseline.nRows, measure: arms.kind === 'continuous' ? 'per_std' : 'category_contrast',
      ...whole, truncated,
      segments: segments.slice(1).map((s, i) => ({ id: s.id, description: s.description, units: s.units, ...(analyses[i + 1] ?? { note: 'no simulated unit meets the segment conditions' }) })),
    },
    summary: {
      summary: paths.length === 0 ? `${causeName} has no causal path to ${effectName}: its effect is 0.`
        : `${causeName} changes ${effectName} by ${format(whole.totalEffect.effect)} ${measure}; direct ${format(whole.directEffect)}, through other variables ${format(whole.indirectEffect)}.`,
      keyPoints: whole.paths.slice(0, 5).map((c) => `${c.path.join(' -> ')}: ${format(c.contribution)} (${percent(c.share)} of the total).`),
    },
  };
}

/** The outcome's std in the baseline population (continuous), 1 for a categorical outcome (effects are shares). */
function outcomeScale(baseline: Frame, outcome: number): number {
  const column = baseline.columns[outcome]!;
  if (column.kind !== 'continuous') return 1;
  const all = new Uint8Array(baseline.nRows).fill(1);
  const mean = maskedMean(column.values, all);
  let ss = 0;
  for (const v of column.values) ss += (v - mean) ** 2;
  return Math.sqrt(ss / Math.max(1, baseline.nRows - 1)) || 1;
}

function segmentDetails<T>(segments: Segment[], lists: T[][], key: string) {
  return segments.slice(1).map((s, i) => ({
    id: s.id, description: s.description, units: s.units, share: s.units / segments[0]!.units,
    [key]: lists[i + 1], ...(s.units === 0 ? { note: 'no simulated unit meets the segment conditions' } : {}),
  }));
}

function record(effect: number, standardError: number): ResultRecord {
  const se = Number.isFinite(standardError) ? standardError : null;
  return {
    timestamp: null, prediction: effect, std: se, lowerBound: se === null ? null : effect - Z * se, upperBound: se === null ? null : effect + Z * se, confidenceLevel: CONFIDENCE_LEVEL,
  };
}

function describeEffect(r: Ranked): string {
  const target = r.outcomeClass !== undefined ? ` the share of ${r.outcomeClass}` : '';
  if (r.measure === 'category_contrast') return `${r.low} -> ${r.high} moves${target} by ${format(r.effect)}`;
  return `${r.effect >= 0 ? 'raises' : 'lowers'}${target} by ${format(Math.abs(r.effect))} per std`;
}

const format = (v: number) => Number(v.toPrecision(3)).toString();
const percent = (v: number) => `${Math.round(v * 100)}%`;
