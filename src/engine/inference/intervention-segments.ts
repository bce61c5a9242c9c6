/**
 * An intervention's answer per segment (spec Scenario `segmentDefinitions`, `enableSegmentInterventions`): the
 * same effects and metrics restricted to each segment's units (a unit is in the first segment it meets), and,
 * when segment interventions are enabled, the effect on the whole population of applying the interventions to
 * that segment alone -- the question "where should we act". Both reuse the arms' common random numbers, so a
 * segment's effect and the whole population's differ only by the units they count.
 */
import type { Frame } from '../types.js';
import { type Arms, type Interval, type VariableEffect, variableEffect } from './intervention-effects.js';
import { type MetricEffect, type MetricValues, metricEffect, metricValues } from './intervention-metrics.js';
import type { InferenceContext } from './outcome.js';
import { count, maskedRows, segmentMasks } from './population.js';
import type { Metric, Segment } from './scenario.js';
import type { Scm } from './scm.js';

export interface SegmentAnswer {
  id: string;
  description: string;
  units: number;
  share: number;
  variables: VariableEffect[];
  metrics: MetricEffect[];
  /** With enableSegmentInterventions: the whole population's effects when only this segment is intervened on. */
  targeted?: { variables: VariableEffect[]; metrics: MetricEffect[] };
  note?: string;
}

export interface SegmentQuestion {
  scm: Scm;
  definitions: readonly Segment[];
  outcomes: readonly number[];
  metrics: readonly Metric[];
  interval: Interval;
  /** Metric batches and parameter-draw frames per metric evaluation (as the whole answer uses). */
  batches: number;
  metricDraws: number;
  /** The intervened arm (main and per draw) when only the units of `rows` (main) / `drawRows` are intervened on. */
  targeted: ((rows: Uint8Array, drawRows: Uint8Array[]) => { main: Frame; draws: Frame[] }) | null;
  checkpoint: () => void;
}

/** Per segment: its effects and metrics; `baselineMetrics` are the whole population's (for the targeted answers). */
export async function segmentAnswers(q: SegmentQuestion, arms: Arms, baselineMetrics: MetricValues[], context: InferenceContext): Promise<SegmentAnswer[]> {
  const mainMasks = segmentMasks(q.scm, arms.baseline, q.definitions);
  const drawMasks = arms.draws.map((d) => segmentMasks(q.scm, d.baseline, q.definitions));
  const answers: SegmentAnswer[] = [];
  for (const [s, definition] of q.definitions.entries()) {
    q.checkpoint();
    const mask = mainMasks[s]!;
    const units = count(mask);
    const answer: SegmentAnswer = { id: definition.id, description: definition.description ?? '', units, share: units / arms.baseline.nRows, variables: [], metrics: [] };
    answers.push(answer);
    if (units < 2) {
      answer.note = 'too few simulated units meet the segment conditions to answer for it';
      continue;
    }
    const within: Arms = {
      baseline: maskedRows(arms.baseline, mask),
      intervened: maskedRows(arms.intervened, mask),
      // A draw whose baseline puts fewer than two units in the segment says nothing about its parameter spread.
      draws: arms.draws.flatMap((d, k) => (count(drawMasks[k]![s]!) < 2 ? [] : [{ baseline: maskedRows(d.baseline, drawMasks[k]![s]!), intervened: maskedRows(d.intervened, drawMasks[k]![s]!) }])),
    };
    answer.variables = q.outcomes.map((c) => variableEffect(c, within, q.interval));
    answer.metrics = await metricsOn(q, within, null, context);
    if (q.targeted !== null) {
      const only = q.targeted(mask, drawMasks.map((m) => m[s]!));
      const whole: Arms = { baseline: arms.baseline, intervened: only.main, draws: arms.draws.map((d, k) => ({ baseline: d.baseline, intervened: only.draws[k]! })) };
      answer.targeted = { variables: q.outcomes.map((c) => variableEffect(c, whole, q.interval)), metrics: await metricsOn(q, whole, baselineMetrics, context) };
    }
  }
  return answers;
}

/** Each metric's effect over the arms; `baseline` values when the baseline arm's were measured already. */
async function metricsOn(q: SegmentQuestion, arms: Arms, baseline: MetricValues[] | null, context: InferenceContext): Promise<MetricEffect[]> {
  const draws = arms.draws.slice(0, q.metricDraws);
  const out: MetricEffect[] = [];
  for (const [m, metric] of q.metrics.entries()) {
    q.checkpoint();
    const before = baseline?.[m] ?? (await metricValues(context, metric, arms.baseline, q.batches, draws.map((d) => d.baseline)));
    const after = await metricValues(context, metric, arms.intervened, q.batches, draws.map((d) => d.intervened));
    out.push(metricEffect(metric, before, after, q.interval.confidenceLevel));
  }
  return out;
}
