/**
 * temporal_root_cause_analysis: why the target was anomalous at one step of a window of observations. The model is
 * unrolled around that step (unroll.ts), so the noise of each variable at each earlier step is its own node, and
 * the static diagnosis runs on it (root-cause.ts: Shapley attribution of the target's anomaly score to the noise
 * terms, Budhathoki et al. 2022, then ranking along the graph). A shock to an upstream variable two steps earlier
 * is blamed at that variable and step; the target's own echo of it (its value carried by its own lags) is not,
 * because the target's noise at the anomalous step is ordinary.
 */
import { AppError } from '../../errors.js';
import { DEFAULT_TARGET_FPR, ModelCalibration, noiseTailProbabilities, subSeed } from '../inference/calibration.js';
import type { FamilyOutcome, InferenceContext } from '../inference/outcome.js';
import { type RootCause, type TargetDiagnosis, TargetDiagnostician, formatPercent, formatProbability } from '../inference/root-cause.js';
import { ancestorsOf, compileScm, frameFromRecords } from '../inference/scm.js';
import type { WorkHooks } from '../types.js';
import { type TemporalModel, timeText } from './model.js';
import type { TemporalRootCauseScenario } from './scenario.js';
import { type Unrolled, unroll, unrolledRecord } from './unroll.js';
import { type SampleWindow, sampleWindow } from './window.js';

/** Players (noise terms of the target and its ancestors in the unrolled model) a diagnosis keeps at most. */
const MAX_PLAYERS = 60;
/** Steps back the unrolled model reaches at most, in multiples of the model's largest lag (and at least 8). */
const DEPTH_PER_LAG = 4;

/** A root cause (root-cause.ts) placed in time: `variable` is the series, not its unrolled node. */
export interface TemporalRootCause extends RootCause {
  /** Steps before the diagnosed step at which this variable's own behaviour was unusual (0: the same step). */
  stepsBefore: number;
  /** The window's time of that step (null when the records carry no times). */
  timestamp: number | null;
}

export interface StepDiagnosis extends Pick<TargetDiagnosis, 'targetAnomalous' | 'anomalous' | 'anomalyBasis' | 'targetScore'> {
  targetVariable: string;
  /** The diagnosed record (index into samples) and its time. */
  index: number;
  timestamp: number | null;
  /** Steps back the diagnosis looked (the unrolled window). */
  depth: number;
  rootCauses: TemporalRootCause[];
}

/** Diagnoses the target at one row of a window; `force` attributes even when the target is not anomalous. */
export function diagnoseStep(
  model: TemporalModel,
  window: SampleWindow,
  row: number,
  targetVariable: string,
  options: { targetFpr: number; seed: number; hooks: WorkHooks; force?: boolean },
): StepDiagnosis {
  const unrolled = unrollFor(model, targetVariable, row, window.steps[row]!);
  const scm = compileScm(unrolled.cbn);
  const record = unrolledRecord(model, unrolled, window, row);
  const frame = frameFromRecords(scm, [record]);
  const calibration = new ModelCalibration(scm, subSeed(options.seed, 1));
  const diagnostician = new TargetDiagnostician(calibration, scm.indexOf(targetVariable));
  const diagnosis = diagnostician.diagnose(frame, noiseTailProbabilities(scm, frame), 0, options.targetFpr, subSeed(options.seed, 2), options.hooks, options.force ?? false);
  const index = window.recordOf[row]!;
  return {
    targetVariable,
    index,
    timestamp: window.times[row] ?? null,
    targetAnomalous: diagnosis.targetAnomalous,
    anomalous: diagnosis.anomalous,
    anomalyBasis: diagnosis.anomalyBasis,
    targetScore: diagnosis.targetScore,
    depth: unrolled.depth,
    rootCauses: diagnosis.rootCauses.map((cause) => {
      const { variable, stepsBefore } = unrolled.nodeOf(cause.variable);
      return { ...cause, variable, stepsBefore, timestamp: row - stepsBefore >= 0 ? (window.times[row - stepsBefore] ?? null) : null };
    }),
  };
}

/** The deepest unrolling (up to the window's start) whose target model stays within MAX_PLAYERS players. */
function unrollFor(model: TemporalModel, target: string, row: number, step: number): Unrolled {
  const cap = Math.min(row, Math.max(8, DEPTH_PER_LAG * model.maxLag));
  let chosen = unroll(model, Math.min(cap, model.maxLag), step);
  for (let depth = chosen.depth + 1; depth <= cap; depth++) {
    const candidate = unroll(model, depth, step);
    const scm = compileScm(candidate.cbn);
    if (ancestorsOf(scm, scm.indexOf(target)).size + 1 > MAX_PLAYERS) break;
    chosen = candidate;
  }
  return chosen;
}

export async function runTemporalRootCause(model: TemporalModel, scenario: TemporalRootCauseScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const window = sampleWindow(model, scenario.samples);
  const index = scenario.anomalyTimestep ?? scenario.samples.length - 1;
  if (index >= scenario.samples.length) throw new AppError('validation_failed', `anomalyTimestep ${index} is past the last sample (${scenario.samples.length - 1})`);
  const targetFpr = scenario.targetFpr ?? DEFAULT_TARGET_FPR;
  context.hooks.progress?.(0.1, `diagnosing ${scenario.targetVariable} at step ${index}`);
  const diagnosis = diagnoseStep(model, window, window.rowOf[index]!, scenario.targetVariable, { targetFpr, seed: context.seed, hooks: context.hooks });
  context.hooks.progress?.(1, 'done');
  return {
    results: {},
    details: { targetFpr, seed: context.seed, ...diagnosis },
    summary: rootCauseSummary(model, diagnosis, targetFpr),
  };
}

/** "2 steps before (2024-03-04)" or "at the same step". */
export function whenText(cause: Pick<TemporalRootCause, 'stepsBefore' | 'timestamp'>, model: TemporalModel): string {
  const at = cause.timestamp === null ? '' : ` (${timeText(model, cause.timestamp)})`;
  return cause.stepsBefore === 0 ? `at the same step${at}` : `${cause.stepsBefore} step${cause.stepsBefore === 1 ? '' : 's'} before${at}`;
}

function rootCauseSummary(model: TemporalModel, d: StepDiagnosis, targetFpr: number): FamilyOutcome['summary'] {
  const rate = `${formatPercent(targetFpr)} false-alarm rate`;
  if (d.anomalous === null) return { summary: `${d.targetVariable} has no value at step ${d.index}, so there is nothing to diagnose.`, keyPoints: [] };
  if (!d.anomalous) {
    return { summary: `${d.targetVariable} at step ${d.index} is not anomalous at a ${rate} (tail probability ${formatProbability(d.targetScore!)}), nor reached by an anomaly upstream, so nothing needed a root cause.`, keyPoints: [] };
  }
  const state = d.anomalyBasis === 'upstream'
    ? `is within its normal range (tail probability ${formatProbability(d.targetScore!)}) but reached by an anomaly upstream at a ${rate}`
    : `is anomalous at a ${rate} (tail probability ${formatProbability(d.targetScore!)})`;
  const keyPoints = d.rootCauses.slice(0, 5).map((c) => `${c.variable} ${whenText(c, model)}: contribution ${c.contribution.toFixed(2)}${c.noiseScore === null ? '' : `, own noise tail probability ${formatProbability(c.noiseScore)}`}`);
  const top = d.rootCauses[0];
  return {
    summary: `${d.targetVariable} at step ${d.index} ${state}. ${top === undefined ? 'No variable in the last ' + d.depth + ' steps pushed it towards the anomaly.' : `Leading root cause: ${top.variable} ${whenText(top, model)}.`}`,
    keyPoints,
  };
}
