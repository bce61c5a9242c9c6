/**
 * temporal_anomaly_detection: which steps of a window the twin finds improbable. A step's score is the calibrated
 * tail probability of its variables' innovations (each variable's noise given its own lags, the other variables'
 * lags, its same-step parents and the season: calibration.ts's noise scores on the lagged design), combined by
 * the smallest, Sidak-adjusted over the variables scored at that step, so a step of normal operation is flagged
 * with probability targetFpr. Scoring innovations rather than values keeps an echo (a variable still high because
 * it was high the step before) from raising a second alarm. With autoRcaTopK the K least probable flagged steps
 * are diagnosed (root-cause.ts): the target is the variable furthest downstream among those whose value is
 * anomalous at that step, else the least probable value.
 */
import { AbortError } from '../discovery/budget.js';
import { AppError } from '../../errors.js';
import { DEFAULT_TARGET_FPR, ModelCalibration, modelColumns, noiseTailProbabilities, nodeThreshold, sidakScore, subSeed } from '../inference/calibration.js';
import type { FamilyOutcome, InferenceContext } from '../inference/outcome.js';
import { diagnosisChoice } from '../inference/anomaly.js';
import { formatPercent, formatProbability } from '../inference/root-cause.js';
import { scmOf } from './future.js';
import { type TemporalModel, linked, timeText } from './model.js';
import { type StepDiagnosis, diagnoseStep, whenText } from './root-cause.js';
import type { TemporalAnomalyScenario } from './scenario.js';
import { designOf, sampleWindow } from './window.js';

const MAX_VARIABLES = 10;

export interface ScannedStep {
  /** The record (index into samples) and its time. */
  index: number;
  timestamp: number | null;
  /** Calibrated tail probability of the step (smaller = more anomalous); null when no variable could be scored. */
  score: number | null;
  isAnomaly: boolean;
  /** Flagged steps: the variables whose own innovation passes the per-variable threshold, least probable first. */
  variables: Array<{ variable: string; score: number }>;
  /** autoRcaTopK, on the K least probable flagged steps. */
  rootCause?: StepDiagnosis;
}

export async function runTemporalAnomaly(model: TemporalModel, scenario: TemporalAnomalyScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const window = sampleWindow(model, scenario.samples);
  const start = scenario.startStep ?? 0;
  const end = scenario.endStep ?? scenario.samples.length - 1;
  if (end >= scenario.samples.length || start > end) throw new AppError('validation_failed', `startStep ${start} and endStep ${end} must be indices of samples (0 to ${scenario.samples.length - 1}) with startStep <= endStep`);
  const targetFpr = scenario.targetFpr ?? DEFAULT_TARGET_FPR;
  const scm = scmOf(model);
  const calibration = new ModelCalibration(scm, subSeed(context.seed, 1));
  context.hooks.progress?.(0.05, 'scoring steps');
  const design = designOf(model, window);
  const noise = noiseTailProbabilities(scm, design);
  const own = model.variables.map((v) => scm.indexOf(v.name));
  const steps: ScannedStep[] = [];
  const mask = new Uint8Array(scm.names.length);
  for (let index = start; index <= end; index++) {
    const row = window.rowOf[index]!;
    mask.fill(0);
    let minimum = Number.POSITIVE_INFINITY;
    for (const j of own) {
      const p = noise[j]![row]!;
      if (Number.isNaN(p)) continue;
      mask[j] = 1;
      minimum = Math.min(minimum, p);
    }
    const timestamp = window.times[row] ?? null;
    if (minimum === Number.POSITIVE_INFINITY) {
      steps.push({ index, timestamp, score: null, isAnomaly: false, variables: [] });
      continue;
    }
    const tests = calibration.effectiveTests(mask, targetFpr);
    const score = sidakScore(minimum, tests);
    const threshold = nodeThreshold(targetFpr, tests);
    const isAnomaly = score <= targetFpr;
    const variables = isAnomaly
      ? own.map((j) => ({ variable: scm.names[j]!, score: noise[j]![row]! })).filter((v) => v.score <= threshold).sort((a, b) => a.score - b.score).slice(0, MAX_VARIABLES)
      : [];
    steps.push({ index, timestamp, score, isAnomaly, variables });
  }
  const flagged = steps.filter((s) => s.isAnomaly);
  const diagnosed = [...flagged].sort((a, b) => a.score! - b.score!).slice(0, scenario.autoRcaTopK ?? 0);
  const values = modelColumns(scm, design);
  for (const [k, step] of diagnosed.entries()) {
    if (context.hooks.aborted?.() === true) throw new AbortError();
    context.hooks.progress?.(0.2 + (0.8 * k) / diagnosed.length, `diagnosing flagged step ${k + 1} of ${diagnosed.length}`);
    const row = window.rowOf[step.index]!;
    const target = diagnosisTarget(model, calibration, own, values, row, targetFpr);
    if (target === null) continue;
    step.rootCause = diagnoseStep(model, window, row, target, { targetFpr, seed: subSeed(context.seed, 1000 + step.index), hooks: context.hooks, force: true });
    await Promise.resolve();
  }
  context.hooks.progress?.(1, 'done');
  return {
    results: {},
    details: {
      targetFpr,
      seed: context.seed,
      scanned: steps.length,
      anomalyCount: flagged.length,
      diagnosed: diagnosed.map((s) => s.index),
      steps,
    },
    summary: anomalySummary(model, steps, targetFpr),
  };
}

/** The variable a flagged step's diagnosis explains (anomaly.ts's choice, ancestors over the links at any lag); null when none is observed. */
function diagnosisTarget(model: TemporalModel, calibration: ModelCalibration, own: number[], values: ReturnType<typeof modelColumns>, row: number, targetFpr: number): string | null {
  const names = own.map((j) => calibration.scm.names[j]!);
  const chosen = diagnosisChoice(own.map((j, k) => ({
    tail: calibration.valueTail(j)(values[j]![row]!),
    ancestors: () => [...linked(model, [names[k]!], 'up')].filter((v) => v !== names[k]).length,
  })), targetFpr);
  return chosen < 0 ? null : names[chosen]!;
}

function anomalySummary(model: TemporalModel, steps: ScannedStep[], targetFpr: number): FamilyOutcome['summary'] {
  const flagged = steps.filter((s) => s.isAnomaly);
  const rate = `${formatPercent(targetFpr)} false-alarm rate`;
  if (flagged.length === 0) return { summary: `None of the ${steps.length} steps scanned is anomalous at a ${rate}: each behaves as the twin expects given the steps before it.`, keyPoints: [] };
  const counts = new Map<string, number>();
  for (const s of flagged) for (const v of s.variables) counts.set(v.variable, (counts.get(v.variable) ?? 0) + 1);
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([v, c]) => `${v} (${c})`);
  const keyPoints = [...flagged].sort((a, b) => a.score! - b.score!).slice(0, 5).map((s) => {
    const when = s.timestamp === null ? '' : ` (${timeText(model, s.timestamp)})`;
    const variables = s.variables.slice(0, 3).map((v) => v.variable).join(', ');
    const top = s.rootCause?.rootCauses[0];
    const cause = top === undefined ? '' : `; ${s.rootCause!.targetVariable} traced to ${top.variable} ${whenText(top, model)}`;
    return `Step ${s.index}${when}: tail probability ${formatProbability(s.score!)}${variables === '' ? '' : `, unusual innovation in ${variables}`}${cause}.`;
  });
  return {
    summary: `${flagged.length} of ${steps.length} steps are anomalous at a ${rate}.${frequent.length > 0 ? ` Variables most often behaving unusually: ${frequent.join(', ')}.` : ''}`,
    keyPoints,
  };
}
