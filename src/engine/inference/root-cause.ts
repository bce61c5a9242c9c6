/**
 * Root cause analysis on a static twin (spec "root cause analysis family"). For each sample: is the target's value
 * anomalous -- its two-sided tail probability under the model at most targetFpr / 2 (calibration.ts) -- or does an
 * anomalous noise upstream reach it (the other half of targetFpr; TargetDiagnostician.diagnose)? If so, its
 * anomaly score -log(tail probability) is attributed to the noise of the target and its ancestors by Shapley values
 * (noise-attribution.ts), and the contributions are credited along the graph (root-cause-ranking.ts): candidates
 * are the variables whose own noise is anomalous (at the Sidak level of targetFpr over the target and its
 * ancestors), ranked by how much of the unit's anomaly a single fault at them leaves unexplained, then by credited
 * contribution; the remaining positive contributors follow, so a target made improbable by several individually
 * unremarkable causes still gets an explanation. A variable whose noise cannot be scored (it or a parent is
 * missing) has noiseScore null; a missing variable also interrupts a cascade. A sample whose target is missing is
 * not diagnosed (null). `results` is empty: the family answers per sample, in `details`.
 */
import { AbortError } from '../discovery/budget.js';
import { AppError } from '../../errors.js';
import { selectRows } from '../frame.js';
import type { CbnModel, Frame, WorkHooks } from '../types.js';
import { DEFAULT_TARGET_FPR, ModelCalibration, modelColumns, noiseTailProbabilities, nodeThreshold, subSeed } from './calibration.js';
import { type TargetModel, attributeTargetAnomaly, targetModel } from './noise-attribution.js';
import { rankRootCauses } from './root-cause-ranking.js';
import { StandingConditions } from './standing.js';
import type { FamilyOutcome, InferenceContext } from './outcome.js';
import type { RootCauseScenario } from './scenario.js';
import { compileScm, frameFromRecords } from './scm.js';
import { MIN_TAIL_PROBABILITY } from './tail-probability.js';

/** At most this many root causes are listed per sample. */
const MAX_ROOT_CAUSES = 10;

export interface RootCause {
  variable: string;
  /** 1-based position; root causes the twin cannot tell apart share a rank. */
  rank: number;
  /** Share of the target's anomaly score (-log tail probability, natural log) this variable accounts for: for a
   * root-cause candidate its own noise's Shapley contribution plus those of the anomalies downstream of it that it
   * explains (root-cause-ranking.ts); for any other variable its own contribution. */
  contribution: number;
  /** Tail probability of the variable's own noise given its parents (smaller = more anomalous); null when unscorable. */
  noiseScore: number | null;
}

export interface TargetDiagnosis {
  /** Whether the target's own value is anomalous (its marginal tail probability at most targetFpr / 2); null
   * when the target is missing in the sample. */
  targetAnomalous: boolean | null;
  /** Whether the sample was diagnosed: the target is anomalous, or an anomaly upstream reaches it (`anomalyBasis`). */
  anomalous: boolean | null;
  /** `target`: the target's value is anomalous; `upstream`: it is not, but the noise of an ancestor is (at the
   * Sidak level of targetFpr / 2 over the target and its ancestors) and reaches it through anomalous variables --
   * a fault whose effect on the target stays within the target's normal range; null when not anomalous. */
  anomalyBasis: 'target' | 'upstream' | null;
  /** The target value's two-sided tail probability under the model. */
  targetScore: number | null;
  rootCauses: RootCause[];
  /** With a baseline: the target and its ancestors whose anomaly was already there before the incident
   * (standing.ts), set aside -- not listed as root causes, neither candidates nor links of a cascade; a target
   * listed here does not make the sample anomalous. */
  standing?: string[];
}

/**
 * Diagnoses one target of a twin. `frame` is over the model's variables in model order (frameFromRecords);
 * `noise` its noise scores (noiseTailProbabilities), shared by every target diagnosed on that frame.
 */
export class TargetDiagnostician {
  private readonly model: TargetModel;
  private readonly score: (value: number) => number;
  /** The target's position among the players. */
  private readonly position: number;

  constructor(
    private readonly calibration: ModelCalibration,
    readonly target: number,
    private readonly standing?: StandingConditions,
  ) {
    this.model = targetModel(calibration.scm, target);
    this.position = this.model.players.indexOf(target);
    // The attribution reads the target's improbability under the model, smooth in its value; whether the value
    // is anomalous at all is judged against normal operation (targetScore).
    const tail = calibration.modelValueTail(target);
    this.score = (value) => -Math.log(Math.max(tail(value), MIN_TAIL_PROBABILITY));
  }

  /** The tail probability at which a player counts as anomalous: Sidak over the players, so that a normal unit
   * shows none with probability 1 - targetFpr. */
  playerLevel(targetFpr: number): number {
    return nodeThreshold(targetFpr, this.model.players.length);
  }

  /** The target value's tail probability in a row (null when missing). */
  targetScore(frame: Frame, row: number): number | null {
    const values = modelColumns(this.calibration.scm, frame)[this.target]!;
    const p = this.calibration.valueTail(this.target)(values[row]!);
    return Number.isNaN(p) ? null : p;
  }

  /**
   * The diagnosis of one row: when the target is anomalous, or when it is not but an anomalous noise upstream
   * reaches it through anomalous variables (a fault whose effect stays inside the target's normal range is still
   * the fault behind it). With `force` the attribution runs in any case (anomaly scans explain the least probable
   * variable of a flagged unit).
   */
  diagnose(frame: Frame, noise: Float64Array[], row: number, targetFpr: number, seed: number, hooks: WorkHooks, force = false): TargetDiagnosis {
    const targetScore = this.targetScore(frame, row);
    if (targetScore === null) return { targetAnomalous: null, anomalous: null, anomalyBasis: null, targetScore: null, rootCauses: [] };
    // The false-alarm budget is split between the two ways a sample can be anomalous (Bonferroni).
    const targetAnomalous = targetScore <= targetFpr / 2;
    const players = this.model.players;
    const level = this.playerLevel(targetFpr / 2);
    const target = this.position;
    const { scm } = this.calibration;
    const columns = modelColumns(scm, frame);
    const noiseTail = players.map((node) => noise[node]![row]!);
    const valueTail = players.map((node) => this.calibration.valueTail(node)(columns[node]![row]!));
    const standing = this.setAside(frame, row, noiseTail, valueTail, level, targetAnomalous);
    // A target already as anomalous in the baseline shows no new incident.
    const newTarget = targetAnomalous && standing?.has(target) !== true;
    const listed = standing === undefined ? {} : { standing: [...standing].map((j) => scm.names[players[j]!]!) };
    const quiet = { targetAnomalous, anomalous: false, anomalyBasis: null, targetScore, rootCauses: [], ...listed };
    // Without an anomalous value or noise among the players nothing upstream can reach the target.
    if (!newTarget && !force && !players.some((_, j) => j !== target && noiseTail[j]! <= level)) return quiet;
    const contributions = attributeTargetAnomaly(this.model, selectRows(frame, [row]), this.score, { seed, hooks });
    const ranking = rankRootCauses({ players, target, contributions, noiseTail, valueTail, parentsOf: (node) => scm.parentsOf(node), level });
    const upstream = !newTarget && ranking.some((c) => c.reachesTarget && c.player !== target);
    if (!newTarget && !upstream && !force) return quiet;
    const rootCauses = ranking.filter((c) => standing?.has(c.player) !== true).slice(0, MAX_ROOT_CAUSES).map((c): RootCause => {
      const p = noiseTail[c.player]!;
      return { variable: scm.names[players[c.player]!]!, rank: c.rank, contribution: c.contribution, noiseScore: Number.isNaN(p) ? null : p };
    });
    const anomalous = newTarget || upstream;
    return { targetAnomalous, anomalous, anomalyBasis: newTarget ? 'target' : upstream ? 'upstream' : null, targetScore, rootCauses, ...listed };
  }

  /**
   * With a baseline, a player's noise or value that is anomalous here but was as anomalous before (standing.ts) gets
   * tail probability 1 (in place); the players left with no anomaly of their own are answered (the target: when its
   * value is anomalous and was as anomalous before). Undefined without a baseline.
   */
  private setAside(frame: Frame, row: number, noiseTail: number[], valueTail: number[], level: number, targetAnomalous: boolean): Set<number> | undefined {
    if (!this.standing) return undefined;
    const { noise, value } = this.standing.of(frame, row);
    const out = new Set<number>();
    this.model.players.forEach((node, j) => {
      if (j === this.position) {
        if (targetAnomalous && value[node]!) out.add(j);
        return;
      }
      const anomalous = noiseTail[j]! <= level || valueTail[j]! <= level;
      if (noise[node]! && noiseTail[j]! <= level) noiseTail[j] = 1;
      if (value[node]! && valueTail[j]! <= level) valueTail[j] = 1;
      // Listed only when nothing new is left: a value further out than before still carries a cascade.
      if (anomalous && !(noiseTail[j]! <= level) && !(valueTail[j]! <= level)) out.add(j);
    });
    return out;
  }
}

export interface DiagnosedSample extends TargetDiagnosis {
  index: number;
}

export async function runRootCauseAnalysis(model: CbnModel, scenario: RootCauseScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const scm = compileScm(model);
  const target = scm.indexOf(scenario.targetVariable);
  if (target < 0) throw new AppError('validation_failed', `targetVariable ${scenario.targetVariable} is not a variable of the twin`);
  const targetFpr = scenario.targetFpr ?? DEFAULT_TARGET_FPR;
  const calibration = new ModelCalibration(scm, subSeed(context.seed, 1));
  const frame = frameFromRecords(scm, scenario.samples);
  const noise = noiseTailProbabilities(scm, frame);
  const standing = scenario.baselineSamples === undefined ? undefined : new StandingConditions(calibration, frameFromRecords(scm, scenario.baselineSamples));
  const diagnostician = new TargetDiagnostician(calibration, target, standing);
  const samples: DiagnosedSample[] = [];
  for (let r = 0; r < frame.nRows; r++) {
    if (context.hooks.aborted?.() === true) throw new AbortError();
    context.hooks.progress?.(r / Math.max(frame.nRows, 1), `diagnosing sample ${r + 1} of ${frame.nRows}`);
    samples.push({ index: r, ...diagnostician.diagnose(frame, noise, r, targetFpr, subSeed(context.seed, 1000 + r), context.hooks) });
    // Yield between samples so a long diagnosis never starves the event loop.
    await Promise.resolve();
  }
  context.hooks.progress?.(1, 'done');
  return {
    results: {},
    details: {
      targetVariable: scenario.targetVariable,
      targetFpr,
      seed: context.seed,
      anomalousCount: samples.filter((s) => s.anomalous === true).length,
      samples,
    },
    summary: rootCauseSummary(scenario.targetVariable, targetFpr, samples),
  };
}

function rootCauseSummary(target: string, targetFpr: number, samples: DiagnosedSample[]): FamilyOutcome['summary'] {
  const anomalous = samples.filter((s) => s.anomalous === true);
  const upstream = anomalous.filter((s) => s.anomalyBasis === 'upstream').length;
  const missing = samples.filter((s) => s.anomalous === null).length;
  const rate = `${formatPercent(targetFpr)} false-alarm rate`;
  const missingNote = missing > 0 ? ` ${missing} sample${missing === 1 ? '' : 's'} had no value for ${target}.` : '';
  const standing = [...new Set(samples.flatMap((s) => s.standing ?? []))];
  const standingNote = standing.length > 0
    ? ` Already as anomalous in the baseline, so set aside as standing conditions: ${standing.slice(0, 5).join(', ')}${standing.length > 5 ? ` and ${standing.length - 5} more` : ''}.`
    : '';
  if (anomalous.length === 0) {
    return { summary: `${target} was not anomalous, nor reached by an anomaly upstream, in any of the ${samples.length} samples at a ${rate}, so nothing needed a root cause.${standingNote}${missingNote}`, keyPoints: [] };
  }
  const leaders = new Map<string, number>();
  for (const s of anomalous) {
    const top = s.rootCauses[0];
    if (top) leaders.set(top.variable, (leaders.get(top.variable) ?? 0) + 1);
  }
  const ranked = [...leaders.entries()].sort((a, b) => b[1] - a[1]);
  const lead = ranked[0] ? ` The most frequent leading root cause is ${ranked[0][0]} (${ranked[0][1]} of ${anomalous.length}).` : '';
  const upstreamNote = upstream > 0
    ? ` In ${upstream} of them ${target}'s own value stayed within its normal range, but an anomaly upstream reached it.`
    : '';
  const keyPoints = anomalous.slice(0, 5).map((s) => {
    const causes = s.rootCauses.slice(0, 3).map((c) => `${c.variable} (contribution ${c.contribution.toFixed(2)}${c.noiseScore === null ? '' : `, own noise tail probability ${formatProbability(c.noiseScore)}`})`);
    const basis = s.anomalyBasis === 'upstream' ? ' (within its normal range; anomalous upstream)' : '';
    return `Sample ${s.index}: ${target} tail probability ${formatProbability(s.targetScore!)}${basis}; ${causes.length > 0 ? `explained by ${causes.join(', ')}` : 'no variable pushed it towards the anomaly'}.`;
  });
  return {
    summary: `${target} was anomalous in ${anomalous.length} of ${samples.length} samples at a ${rate}.${upstreamNote}${lead}${standingNote}${missingNote}`,
    keyPoints,
  };
}

export const formatPercent = (p: number) => `${Number((p * 100).toPrecision(3))}%`;
export const formatProbability = (p: number) => (p >= 0.001 ? p.toFixed(4) : p.toExponential(1));
