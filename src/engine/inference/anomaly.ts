/**
 * Anomaly scan on a static twin (spec "anomaly detection family"): each sample's score is its calibrated tail
 * probability under the twin (calibration.ts: the least probable noise among its variables, Sidak-adjusted with a
 * Monte Carlo calibrated number of tests), so a sample drawn from the twin is flagged with probability targetFpr.
 * A flagged sample lists the variables whose own noise passes the per-variable threshold, least probable first.
 * With autoRca each flagged sample is also diagnosed (root-cause.ts): the target is the variable furthest
 * downstream (most ancestors) among those whose value is anomalous at targetFpr -- the symptom that the most of
 * the anomaly flows into -- or, when no value is anomalous on its own (only a relationship broke), the variable
 * with the least probable value. `results` is empty: the family answers per sample, not per variable.
 */
import { AbortError } from '../discovery/budget.js';
import type { CbnModel, Frame } from '../types.js';
import { DEFAULT_TARGET_FPR, ModelCalibration, modelColumns, nodeThreshold, subSeed } from './calibration.js';
import type { FamilyOutcome, InferenceContext } from './outcome.js';
import { type TargetDiagnosis, TargetDiagnostician, formatPercent, formatProbability } from './root-cause.js';
import type { AnomalyScenario } from './scenario.js';
import { type Scm, ancestorsOf, compileScm, frameFromRecords } from './scm.js';

/** At most this many anomalous variables are listed per sample. */
const MAX_VARIABLES = 10;

export interface AnomalousVariable {
  variable: string;
  /** Tail probability of the variable's own noise given its parents. */
  score: number;
}

export interface ScannedSample {
  index: number;
  /** Calibrated tail probability of the sample (smaller = more anomalous); null when no variable could be scored. */
  score: number | null;
  isAnomaly: boolean;
  variables: AnomalousVariable[];
  /** autoRca only, on flagged samples: the diagnosed variable and its root causes. */
  rootCause?: TargetDiagnosis & { targetVariable: string };
}

export async function runAnomalyDetection(model: CbnModel, scenario: AnomalyScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const scm = compileScm(model);
  const targetFpr = scenario.targetFpr ?? DEFAULT_TARGET_FPR;
  const calibration = new ModelCalibration(scm, subSeed(context.seed, 1));
  const frame = frameFromRecords(scm, scenario.samples);
  context.hooks.progress?.(0, 'scoring samples');
  const units = calibration.scoreUnits(frame, targetFpr);
  const samples: ScannedSample[] = [];
  for (let r = 0; r < frame.nRows; r++) {
    const score = units.score[r]!;
    const threshold = units.nodeThreshold[r]!;
    const variables = scm.names
      .map((variable, j) => ({ variable, score: units.noise[j]![r]! }))
      .filter((v) => v.score <= threshold)
      .sort((a, b) => a.score - b.score)
      .slice(0, MAX_VARIABLES);
    const isAnomaly = score <= targetFpr;
    samples.push({ index: r, score: Number.isNaN(score) ? null : score, isAnomaly, variables: isAnomaly ? variables : [] });
  }
  if (scenario.autoRca === true) {
    const flagged = samples.filter((s) => s.isAnomaly);
    const diagnosticians = new Map<number, TargetDiagnostician>();
    for (const [k, sample] of flagged.entries()) {
      if (context.hooks.aborted?.() === true) throw new AbortError();
      context.hooks.progress?.(0.1 + (0.9 * k) / flagged.length, `diagnosing flagged sample ${k + 1} of ${flagged.length}`);
      const target = diagnosisTarget(scm, calibration, frame, sample.index, targetFpr);
      if (target < 0) continue;
      let diagnostician = diagnosticians.get(target);
      if (!diagnostician) diagnosticians.set(target, (diagnostician = new TargetDiagnostician(calibration, target)));
      const diagnosis = diagnostician.diagnose(frame, units.noise, sample.index, targetFpr, subSeed(context.seed, 1000 + sample.index), context.hooks, true);
      sample.rootCause = { targetVariable: scm.names[target]!, ...diagnosis };
      await Promise.resolve();
    }
  }
  context.hooks.progress?.(1, 'done');
  const complete = new Uint8Array(scm.names.length).fill(1);
  const anomalyCount = samples.filter((s) => s.isAnomaly).length;
  return {
    results: {},
    details: {
      targetFpr,
      // The per-variable noise score that flags a fully observed sample (samples with missing values use the
      // threshold of the variables they could be scored on).
      threshold: nodeThreshold(targetFpr, calibration.effectiveTests(complete, targetFpr)),
      seed: context.seed,
      anomalyCount,
      samples,
    },
    summary: anomalySummary(samples, targetFpr),
  };
}

/** The variable a flagged sample's diagnosis explains (-1 when no value is observed). */
function diagnosisTarget(scm: Scm, calibration: ModelCalibration, frame: Frame, row: number, targetFpr: number): number {
  const columns = modelColumns(scm, frame);
  return diagnosisChoice(scm.names.map((_, j) => ({ tail: calibration.valueTail(j)(columns[j]![row]!), ancestors: () => ancestorsOf(scm, j).size })), targetFpr);
}

/**
 * Which of a flagged unit's variables a diagnosis explains (an index into `candidates`, -1 when none is observed):
 * among those whose value is anomalous at targetFpr, the one with the most ancestors (the symptom the most of the
 * anomaly flows into), the least probable on ties; with none, the least probable value.
 */
export function diagnosisChoice(candidates: ReadonlyArray<{ tail: number; ancestors: () => number }>, targetFpr: number): number {
  let best = -1;
  let bestDepth = -1;
  let bestTail = Number.POSITIVE_INFINITY;
  let leastProbable = -1;
  let leastTail = Number.POSITIVE_INFINITY;
  candidates.forEach(({ tail, ancestors }, j) => {
    if (Number.isNaN(tail)) return;
    if (tail < leastTail) {
      leastTail = tail;
      leastProbable = j;
    }
    if (tail > targetFpr) return;
    const depth = ancestors();
    if (depth > bestDepth || (depth === bestDepth && tail < bestTail)) {
      best = j;
      bestDepth = depth;
      bestTail = tail;
    }
  });
  return best >= 0 ? best : leastProbable;
}

function anomalySummary(samples: ScannedSample[], targetFpr: number): FamilyOutcome['summary'] {
  const flagged = samples.filter((s) => s.isAnomaly);
  const rate = `${formatPercent(targetFpr)} false-alarm rate`;
  if (flagged.length === 0) {
    return { summary: `None of the ${samples.length} samples is anomalous at a ${rate}: each is as probable under the twin as normal operation.`, keyPoints: [] };
  }
  const counts = new Map<string, number>();
  for (const s of flagged) for (const v of s.variables) counts.set(v.variable, (counts.get(v.variable) ?? 0) + 1);
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([v, c]) => `${v} (${c})`);
  const keyPoints = [...flagged].sort((a, b) => (a.score ?? 1) - (b.score ?? 1)).slice(0, 5).map((s) => {
    const variables = s.variables.slice(0, 3).map((v) => v.variable).join(', ');
    const cause = s.rootCause?.rootCauses[0] ? `; leading root cause of ${s.rootCause.targetVariable}: ${s.rootCause.rootCauses[0].variable}` : '';
    return `Sample ${s.index}: tail probability ${formatProbability(s.score ?? 1)}${variables ? `, behaving unusually: ${variables}` : ''}${cause}.`;
  });
  return {
    summary: `${flagged.length} of ${samples.length} samples are anomalous at a ${rate}.${frequent.length > 0 ? ` Variables most often behaving unusually: ${frequent.join(', ')}.` : ''}`,
    keyPoints,
  };
}
