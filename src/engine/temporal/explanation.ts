/**
 * temporal_explanation: which past changes of which variables drive a variable, by interventions on the simulated
 * future with common random numbers (future.ts), from the end of the data.
 * - A cause's lag-specific effects are its impulse response (Sims 1980; Lütkepohl 2005, ch. 2.3): the effect on
 *   the outcome k steps after the cause is raised by one standard deviation for a single step (a categorical cause
 *   moved from its least to its most frequent class), the cause's own dynamics included. Its total effect is the
 *   effect of the change held from then on, by the end of the horizon (the long-run multiplier when the process
 *   has settled). `direct` lists the mechanism's own links from the cause at each lag.
 * - `discovery` ranks the causes (ancestors over any lag) of effectVariable by their total effect; `impact` ranks
 *   causeVariable's descendants by its total effect on them in their standard deviations; `directional` adds the
 *   split into the direct effect (every variable between the two held on its baseline path) and the effect
 *   through the others, and the paths with their lags.
 * A categorical outcome's effect is the change in the probability of its most frequent class. A segment repeats
 * the analysis over the paths whose values at the step of the change meet its conditions.
 */
import { AppError } from '../../errors.js';
import { conditionMask } from '../inference/conditions.js';
import type { FamilyOutcome, InferenceContext } from '../inference/outcome.js';
import type { Scm, Treatment } from '../inference/scm.js';
import { normalCritical, sampleVariance } from '../inference/uncertainty.js';
import { categoricalColumn, continuousColumn, frameOf } from '../frame.js';
import type { Condition } from '../inference/scenario.js';
import { futureFrom, originOf } from './forecast.js';
import { type Paths, scmOf } from './future.js';
import { lagName } from './lagged.js';
import { type TemporalModel, linked } from './model.js';
import type { TemporalExplanationScenario } from './scenario.js';

const DEFAULT_PATHS = 2000;
const LEVEL = 0.95;

interface Interval {
  effect: number;
  lowerBound: number;
  upperBound: number;
}

export interface LaggedInfluence {
  /** The cause (discovery) or the outcome (impact, directional) this entry is about. */
  variable: string;
  /** Effect of a one-step change of the cause on the outcome k steps later (k = 0 .. horizon - 1). */
  lagEffects: Array<{ lag: number } & Interval>;
  /** Effect of the change held from step 0, on the outcome at the end of the horizon. */
  totalEffect: Interval;
  /** The lag of the largest lag-specific effect. */
  peakLag: number;
  /** The outcome mechanism's own links from the cause: coefficient per lag (continuous outcome, numeric cause). */
  direct: Array<{ lag: number; coefficient: number }>;
  /** The change applied: +1 std of a numeric cause, or its least to its most frequent class. */
  change: string;
  share: number;
}

export async function runTemporalExplanation(model: TemporalModel, scenario: TemporalExplanationScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const names = new Set(model.variables.map((v) => v.name));
  const need = (name: string | undefined, field: string) => {
    if (name === undefined) throw new AppError('validation_failed', `explanationMode ${scenario.explanationMode} needs ${field}`);
    if (!names.has(name)) throw new AppError('validation_failed', `${field} ${name} is not a variable of the twin`);
    return name;
  };
  const horizon = scenario.horizonSteps ?? Math.min(100, Math.max(12, 6 * model.maxLag));
  const run = new Runner(model, horizon, scenario.samples ?? DEFAULT_PATHS, context);
  const segments = scenario.segments ?? [];
  const masks = [{ id: 'all', description: 'every simulated path', conditions: [] as Condition[] }, ...segments.map((s) => ({ id: s.id, description: s.description ?? '', conditions: s.conditions }))]
    .map((s) => ({ ...s, mask: run.segmentMask(s.conditions) }));
  const perSegment = (compute: (mask: Uint8Array) => LaggedInfluence[], key: string) => {
    const lists = masks.map((s) => (s.mask.some((v) => v === 1) ? rankInfluences(compute(s.mask)) : []));
    const segmentDetails = masks.slice(1).map((s, i) => ({ id: s.id, description: s.description, paths: count(s.mask), [key]: lists[i + 1], ...(count(s.mask) === 0 ? { note: 'no simulated path meets the segment conditions' } : {}) }));
    return { whole: lists[0]!, segments: segmentDetails };
  };
  let outcome: FamilyOutcome;
  if (scenario.explanationMode === 'discovery') {
    const effect = need(scenario.effectVariable, 'effectVariable');
    const causes = [...linked(model, [effect], 'up')].filter((c) => c !== effect);
    const influences = causes.map((cause, k) => {
      context.hooks.progress?.(k / Math.max(1, causes.length), `effects of ${cause}`);
      return run.arms(cause);
    });
    const { whole, segments: seg } = perSegment((mask) => influences.map((arms, k) => run.influence(arms, causes[k]!, effect, causes[k]!, mask)), 'causes');
    const top = whole.slice(0, 3).map((r) => `${r.variable} (${describe(r)})`);
    outcome = {
      results: {},
      details: { mode: 'discovery', effectVariable: effect, horizon, samples: run.samples, causes: whole, segments: seg },
      summary: {
        summary: causes.length === 0 ? `${effect} has no causes in the model besides its own past.` : `The strongest drivers of ${effect}: ${top.join(', ')}.`,
        keyPoints: whole.slice(0, 5).map((r) => `${r.variable}: ${describe(r)}; largest ${signed(r.lagEffects[r.peakLag]!.effect)} after ${r.peakLag} step${r.peakLag === 1 ? '' : 's'}.`),
      },
    };
  } else if (scenario.explanationMode === 'impact') {
    const cause = need(scenario.causeVariable, 'causeVariable');
    const outcomes = [...linked(model, [cause], 'down')].filter((o) => o !== cause);
    const arms = run.arms(cause);
    const { whole, segments: seg } = perSegment((mask) => outcomes.map((o) => run.influence(arms, cause, o, o, mask, true)), 'effects');
    outcome = {
      results: {},
      details: { mode: 'impact', causeVariable: cause, horizon, samples: run.samples, effects: whole, segments: seg },
      summary: {
        summary: outcomes.length === 0 ? `${cause} affects no other variable in the model.` : `${cause} moves ${whole.slice(0, 3).map((r) => r.variable).join(', ')} most (total effects in their own standard deviations).`,
        keyPoints: whole.slice(0, 5).map((r) => `${r.variable}: ${describe(r)}; largest ${signed(r.lagEffects[r.peakLag]!.effect)} after ${r.peakLag} step${r.peakLag === 1 ? '' : 's'}.`),
      },
    };
  } else {
    const cause = need(scenario.causeVariable, 'causeVariable');
    const effect = need(scenario.effectVariable, 'effectVariable');
    const arms = run.arms(cause);
    const mediators = [...linked(model, [cause], 'down')].filter((v) => v !== cause && v !== effect && linked(model, [effect], 'up').has(v));
    const directArms = run.arms(cause, mediators);
    const analyses = masks.map((s) => {
      if (!s.mask.some((v) => v === 1)) return null;
      const total = run.influence(arms, cause, effect, effect, s.mask);
      const direct = run.influence(directArms, cause, effect, effect, s.mask);
      return { ...total, directEffect: direct.totalEffect, indirectEffect: total.totalEffect.effect - direct.totalEffect.effect };
    });
    const whole = analyses[0] ?? null;
    const paths = laggedPaths(model, cause, effect);
    outcome = {
      results: {},
      details: {
        mode: 'directional', causeVariable: cause, effectVariable: effect, horizon, samples: run.samples, ...(whole ?? {}), mediators, paths,
        segments: masks.slice(1).map((s, i) => ({ id: s.id, description: s.description, paths: count(s.mask), ...(analyses[i + 1] ?? { note: 'no simulated path meets the segment conditions' }) })),
      },
      summary: {
        summary: paths.length === 0 || whole === null ? `${cause} has no causal path to ${effect} at any lag: its effect is 0.`
          : `${cause} (${whole.change}) changes ${effect} by ${signed(whole.totalEffect.effect)} once held (${signed(whole.directEffect.effect)} directly, ${signed(whole.indirectEffect)} through ${mediators.join(', ') || 'no other variable'}); a single step's change peaks after ${whole.peakLag} step${whole.peakLag === 1 ? '' : 's'} at ${signed(whole.lagEffects[whole.peakLag]!.effect)}.`,
        keyPoints: (whole?.lagEffects ?? []).slice(0, 6).map((l) => `lag ${l.lag}: ${signed(l.effect)} (${signed(l.lowerBound)} to ${signed(l.upperBound)})`),
      },
    };
  }
  context.hooks.progress?.(1, 'done');
  return outcome;
}

/** Paired arms of a cause: a one-step change and a held change, each against its contrast (common noise throughout). */
interface Arms {
  change: string;
  pulse: [Paths, Paths];
  held: [Paths, Paths];
}

class Runner {
  readonly baseline: Paths;
  private readonly origin: { report: number; simulate: number };

  constructor(
    private readonly model: TemporalModel,
    private readonly horizon: number,
    readonly samples: number,
    private readonly context: InferenceContext,
  ) {
    this.origin = originOf(model, undefined);
    this.baseline = this.future(() => []);
  }

  private future(treatmentsAt: (h: number, scm: Scm) => Treatment[]): Paths {
    return futureFrom(this.model, this.origin, this.horizon, { samples: this.samples, seed: this.context.seed, treatmentsAt });
  }

  /** The arms of a change of `cause`; `hold` keeps those variables on their baseline paths in the changed arms. */
  arms(cause: string, hold: readonly string[] = []): Arms {
    const variable = this.model.variables.find((v) => v.name === cause)!;
    const node = this.model.cbn.nodes.find((n) => n.name === cause)!;
    const held: Treatment[][] = Array.from({ length: this.horizon }, (_, h) => hold.map((name) => ({ node: name, kind: 'values' as const, values: this.baseline[name]![h]! })));
    const arm = (treatment: Treatment, steps: 'pulse' | 'held') => this.future((h) => [...(steps === 'held' || h === 0 ? [treatment] : []), ...held[h]!]);
    if (variable.kind === 'continuous' && node.kind === 'continuous') {
      // do(cause = its baseline path + 1 std): at the first step only, or at every step.
      const raised = (h: number): Treatment => ({ node: cause, kind: 'values', values: this.baseline[cause]![h]!.map((v) => v + node.std) });
      const changed = (steps: 'pulse' | 'held') => this.future((h) => [...(steps === 'held' || h === 0 ? [raised(h)] : []), ...held[h]!]);
      // Holding variables on their baseline paths leaves the baseline as it is: it is the contrast of both.
      return { change: `+1 std (${signif(node.std)})`, pulse: [changed('pulse'), this.baseline], held: [changed('held'), this.baseline] };
    }
    const marginal = node.kind === 'categorical' ? node.marginal : [];
    const order = marginal.map((p, k) => [p, k] as const).sort((a, b) => b[0] - a[0]);
    const [high, low] = [variable.categories[order[0]![1]]!, variable.categories[order.at(-1)![1]]!];
    const set = (label: string): Treatment => ({ node: cause, kind: 'set', value: label });
    return { change: `${low} -> ${high}`, pulse: [arm(set(high), 'pulse'), arm(set(low), 'pulse')], held: [arm(set(high), 'held'), arm(set(low), 'held')] };
  }

  /** The influence of a cause's arms on an outcome over the masked paths; `scaled` divides by the outcome's std. */
  influence(arms: Arms, cause: string, outcome: string, label: string, mask: Uint8Array, scaled = false): LaggedInfluence {
    const variable = this.model.variables.find((v) => v.name === outcome)!;
    const node = this.model.cbn.nodes.find((n) => n.name === outcome)!;
    const modal = node.kind === 'categorical' ? node.marginal.indexOf(Math.max(...node.marginal)) : -1;
    const value = variable.kind === 'continuous' ? (x: number) => x : (x: number) => (x === modal ? 1 : 0);
    const scale = scaled && node.kind === 'continuous' && node.std > 0 ? node.std : 1;
    const contrast = ([treated, base]: [Paths, Paths], h: number): Interval => {
      const diffs: number[] = [];
      const a = treated[outcome]![h]!;
      const b = base[outcome]![h]!;
      for (let r = 0; r < a.length; r++) if (mask[r] === 1) diffs.push((value(a[r]!) - value(b[r]!)) / scale);
      const mean = diffs.reduce((s, d) => s + d, 0) / Math.max(1, diffs.length);
      const half = normalCritical(LEVEL) * Math.sqrt(sampleVariance(Float64Array.from(diffs)) / Math.max(1, diffs.length));
      return { effect: mean, lowerBound: mean - half, upperBound: mean + half };
    };
    const lagEffects = Array.from({ length: this.horizon }, (_, h) => ({ lag: h, ...contrast(arms.pulse, h) }));
    const peakLag = lagEffects.reduce((best, l) => (Math.abs(l.effect) > Math.abs(lagEffects[best]!.effect) ? l.lag : best), 0);
    return { variable: label, lagEffects, totalEffect: contrast(arms.held, this.horizon - 1), peakLag, direct: directLinks(this.model, cause, outcome), change: arms.change, share: 0 };
  }

  /** Paths whose values at the step of the change meet every condition. */
  segmentMask(conditions: readonly Condition[]): Uint8Array {
    if (conditions.length === 0) return new Uint8Array(this.samples).fill(1);
    const frame = frameOf(this.model.variables.map((v) => {
      const values = this.baseline[v.name]![0]!;
      return v.kind === 'continuous' ? continuousColumn(v.name, Array.from(values)) : categoricalColumn(v.name, Array.from(values, (c) => v.categories[c]!), v.categories);
    }));
    return conditionMask(frame, scmOf(this.model), conditions);
  }
}

/** The outcome mechanism's coefficients on the cause at each lag (linear terms only). */
function directLinks(model: TemporalModel, cause: string, outcome: string): Array<{ lag: number; coefficient: number }> {
  const node = model.cbn.nodes.find((n) => n.name === outcome);
  if (node?.kind !== 'continuous') return [];
  const out: Array<{ lag: number; coefficient: number }> = [];
  for (let lag = 0; lag <= model.maxLag; lag++) {
    const k = node.terms.findIndex((t) => t.kind === 'linear' && t.parents.length === 1 && t.parents[0] === lagName(cause, lag));
    if (k >= 0) out.push({ lag, coefficient: node.coefficients[k]! });
  }
  return out;
}

/** Sorted by |total effect|, with shares of the squared totals. */
function rankInfluences(items: LaggedInfluence[]): LaggedInfluence[] {
  const total = items.reduce((s, t) => s + t.totalEffect.effect ** 2, 0);
  for (const t of items) t.share = total > 0 ? t.totalEffect.effect ** 2 / total : 0;
  return items.sort((a, b) => Math.abs(b.totalEffect.effect) - Math.abs(a.totalEffect.effect));
}

/** Directed paths from cause to effect over the summary graph (each hop with its lags), at most 20, shortest first. */
function laggedPaths(model: TemporalModel, cause: string, effect: string): Array<{ path: string[]; lags: number[][] }> {
  const hops = new Map<string, Map<string, number[]>>();
  for (const e of model.edges) {
    if (e.source === e.target) continue;
    const from = hops.get(e.source) ?? new Map<string, number[]>();
    from.set(e.target, [...(from.get(e.target) ?? []), e.lag].sort((a, b) => a - b));
    hops.set(e.source, from);
  }
  const found: string[][] = [];
  const walk = (path: string[]) => {
    if (found.length >= 20) return;
    const last = path.at(-1)!;
    if (last === effect) return void found.push(path);
    for (const next of hops.get(last)?.keys() ?? []) if (!path.includes(next)) walk([...path, next]);
  };
  walk([cause]);
  return found.sort((a, b) => a.length - b.length).map((path) => ({ path, lags: path.slice(1).map((node, i) => hops.get(path[i]!)!.get(node)!) }));
}

const count = (mask: Uint8Array) => mask.reduce((s, v) => s + v, 0);
const signif = (x: number) => Number(x.toPrecision(3));
const signed = (x: number) => `${x >= 0 ? '+' : ''}${signif(x)}`;
const describe = (r: LaggedInfluence) => `${r.change} moves it by ${signed(r.totalEffect.effect)} once held`;
