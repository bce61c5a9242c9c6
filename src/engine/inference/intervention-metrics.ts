/**
 * Scenario metrics (SQL over the sampled frame, run by the service's data engine) with intervals. The point value
 * is the metric on every sampled unit. Its Monte Carlo error comes from disjoint batches of units: the batch
 * values' spread over the number of batches (paired across arms for the effect). Its parameter error comes from
 * the same metric on small frames sampled under parameter draws that share their noise. Calls stay modest: one
 * per frame, batches and draws capped by the caller.
 */
import type { Frame, FrameColumn } from '../types.js';
import type { InferenceContext, SweepPoint } from './outcome.js';
import type { Metric } from './scenario.js';
import { halfWidth, sampleVariance } from './uncertainty.js';

/** A metric's values on one arm: the whole frame, each batch of units, each parameter draw's frame. */
export interface MetricValues {
  whole: number;
  batches: number[];
  draws: number[];
}

export interface MetricEffect {
  name: string;
  unit: string | null;
  higherIsBetter: boolean;
  baseline: number;
  intervened: number;
  difference: number;
  lowerBound: number;
  upperBound: number;
  improved: boolean;
}

/** Evaluates the metric on the arm's whole frame, its first `batches` unit batches and its draw frames. */
export async function metricValues(context: InferenceContext, metric: Metric, whole: Frame, batches: number, draws: Frame[]): Promise<MetricValues> {
  const value = async (frame: Frame) => {
    const v = await context.evaluateMetric(frame, metric.sqlQuery);
    if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`metric ${metric.name} answered ${String(v)}, not a number`);
    return v;
  };
  const out: MetricValues = { whole: await value(whole), batches: [], draws: [] };
  const size = Math.floor(whole.nRows / batches);
  if (size >= 1) for (let b = 0; b < batches; b++) out.batches.push(await value(sliceRows(whole, b * size, (b + 1) * size)));
  for (const frame of draws) out.draws.push(await value(frame));
  return out;
}

/** The metric's effect: intervened minus baseline, with Monte Carlo (paired batches) and parameter variance. */
export function metricEffect(metric: Metric, baseline: MetricValues, intervened: MetricValues, confidenceLevel: number): MetricEffect {
  const difference = intervened.whole - baseline.whole;
  const half = halfWidth(confidenceLevel, parts(pairedDifferences(intervened.batches, baseline.batches), pairedDifferences(intervened.draws, baseline.draws)));
  const higherIsBetter = metric.higherIsBetter ?? true;
  return {
    name: metric.name, unit: metric.unit ?? null, higherIsBetter, baseline: baseline.whole, intervened: intervened.whole,
    difference, lowerBound: difference - half, upperBound: difference + half, improved: higherIsBetter ? difference > 0 : difference < 0,
  };
}

/** One sweep point of a metric: its value on the intervened arm, standard error as `std`, confidence interval. */
export function metricSweepPoint(values: MetricValues, value: number, confidenceLevel: number): SweepPoint {
  const variance = parts(values.batches, values.draws);
  const half = halfWidth(confidenceLevel, variance);
  const se = Math.sqrt(variance.reduce((s, p) => s + p.variance, 0));
  return { value, mean: values.whole, std: se, lowerBound: values.whole - half, upperBound: values.whole + half };
}

/** Monte Carlo variance of the whole-frame value (batch spread / batches) and parameter variance (draw spread). */
function parts(batches: number[], draws: number[]): { variance: number; df: number }[] {
  return [
    { variance: sampleVariance(batches) / Math.max(batches.length, 1), df: batches.length - 1 },
    { variance: sampleVariance(draws), df: draws.length - 1 },
  ];
}

function pairedDifferences(a: number[], b: number[]): number[] {
  return a.slice(0, b.length).map((v, i) => v - b[i]!);
}

/** Rows [from, to) as a frame of copies (a copy, not a view: a view would carry its whole buffer across threads). */
export function sliceRows(frame: Frame, from: number, to: number): Frame {
  return {
    nRows: to - from,
    columns: frame.columns.map((c): FrameColumn => c.kind === 'continuous'
      ? { name: c.name, kind: 'continuous', values: c.values.slice(from, to) }
      : { name: c.name, kind: 'categorical', codes: c.codes.slice(from, to), categories: c.categories }),
  };
}
