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
  ) {
    this.model = targetModel(calibration.scm, target);
    this.position = this.model.players.indexOf(target);
    const tail = calibration.valueTail(target);
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
    const quiet = { targetAnomalous, anomalous: false, anomalyBasis: null, targetScore, rootCauses: [] };
    // Without an anomalous value or noise among the players nothing upstream can reach the target.
    if (!targetAnomalous && !force && !players.some((node, j) => j !== target && noise[node]![row]! <= level)) return quiet;
    const contributions = attributeTargetAnomaly(this.model, selectRows(frame, [row]), this.score, { seed, hooks });
    const { scm } = this.calibration;
    const columns = modelColumns(scm, frame);
    const noiseTail = players.map((node) => noise[node]![row]!);
    const ranking = rankRootCauses({
      players,
      target,
      contributions,
      noiseTail,
      valueTail: players.map((node) => this.calibration.valueTail(node)(columns[node]![row]!)),
      parentsOf: (node) => scm.parentsOf(node),
      level,
    });
    const upstream = !targetAnomalous && ranking.some((c) => c.reachesTarget && c.player !== target);
    if (!targetAnomalous && !upstream && !force) return quiet;
    const rootCauses = ranking.slice(0, MAX_ROOT_CAUSES).map((c): RootCause => {
      const p = noiseTail[c.player]!;
      return { variable: scm.names[players[c.player]!]!, rank: c.rank, contribution: c.contribution, noiseScore: Number.isNaN(p) ? null : p };
    });
    const anomalous = targetAnomalous || upstream;
    return { targetAnomalous, anomalous, anomalyBasis: targetAnomalous ? 'target' : upstream ? 'upstream' : null, targetScore, rootCauses };
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
  const diagnostician = new TargetDiagnostician(calibration, target);
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
  if (anomalous.length === 0) {
    return { summary: `${target} was not anomalous, nor reached by an anomaly upstream, in any of the ${samples.length} samples at a ${rate}, so nothing needed a root cause.${missingNote}`, keyPoints: [] };
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
    summary: `${target} was anomalous in ${anomalous.length} of ${samples.length} samples at a ${rate}.${upstreamNote}${lead}${missingNote}`,
    keyPoints,
  };
}

export const formatPercent = (p: number) => `${Number((p * 100).toPrecision(3))}%`;
export const formatProbability = (p: number) => (p >= 0.001 ? p.toFixed(4) : p.toExponential(1));
