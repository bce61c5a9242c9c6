/**
 * A temporal twin's model: a CBN over the lagged design in which each variable at t has its lagged parents, its
 * same-step parents and its seasonal terms as inputs (linear-Gaussian, logistic or CPT by kind, as the static
 * engine fits them), with the residual distributions kept; and the tail of the series, so forecasts start from
 * the end of the data or from an origin inside it.
 */
import type { Kernels } from '../../compute/kernels.js';
import { fitCbn } from '../cbn/fit.js';
import type { CbnModel, EdgeRef, Frame } from '../types.js';
import { lagName, laggedDesign, seasonNames } from './lagged.js';
import { type Timeline, stepOf, timestampAt } from './timeline.js';

export interface TemporalVariable {
  name: string;
  kind: 'continuous' | 'categorical';
  categories: string[];
}

/** A mechanism input: `source` at t - lag (lag 0: the same step) into `target` at t. */
export interface TemporalEdge {
  source: string;
  target: string;
  lag: number;
}

/** The links and seasonal terms a temporal model is fitted on. */
export interface TemporalStructure {
  edges: TemporalEdge[];
  seasonal: Array<{ variable: string; period: number }>;
}

export interface TemporalModel {
  kind: 'temporal';
  variables: TemporalVariable[];
  maxLag: number;
  edges: TemporalEdge[];
  seasonal: Array<{ variable: string; period: number }>;
  cbn: CbnModel;
  timeline: Timeline;
  /** Steps of the series (0 .. steps-1), and the last ones kept (`tail.from` .. steps-1) as each variable's values
   * (class labels for categorical ones, null where missing). */
  steps: number;
  stepTimes: { first: number; last: number };
  tail: { from: number; times: number[]; values: Record<string, Array<number | string | null>> };
  /** Where step 0 falls in the seasonal terms' cycle, in steps: a panel environment's offset from the panel's first
   * step (seasonalPhases), so environments that start on different dates share one seasonal phase; 0 (absent) on a
   * temporal twin. */
  phase?: number;
  /** The twin's time column: records given with a question may carry their time under it (absent on older models). */
  timeColumn?: string;
}

/** The timestamp of a step: the data's own inside the kept tail, the calendar's beyond the end. */
export function timeOfStep(model: TemporalModel, step: number): number {
  if (step >= model.tail.from && step < model.steps) return model.tail.times[step - model.tail.from]!;
  if (step >= model.steps) return timestampAt({ ...model.timeline, origin: model.stepTimes.last }, step - (model.steps - 1));
  return timestampAt(model.timeline, step);
}

/**
 * Variables reached from `starts` along the model's links at any lag (`down`: with them, `up`: against them); a
 * start is in the set only when a path leads back to it (its own past counts).
 */
export function linked(model: Pick<TemporalModel, 'edges'>, starts: readonly string[], direction: 'down' | 'up'): Set<string> {
  const next = (node: string) => model.edges.filter((e) => (direction === 'down' ? e.source : e.target) === node).map((e) => (direction === 'down' ? e.target : e.source));
  const seen = new Set<string>();
  const stack = starts.flatMap(next);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...next(node));
  }
  return seen;
}

/** A time as people read it: the date for daily and coarser steps, minutes (seconds) for finer ones; the integer on an index axis. */
export function timeText(model: Pick<TemporalModel, 'timeline'>, t: number): string {
  if (model.timeline.axis === 'index') return String(t);
  const iso = new Date(t).toISOString();
  const g = model.timeline.granularity;
  return iso.slice(0, g === 'second' ? 19 : g === 'minute' || g === 'hour' ? 16 : 10);
}

/** The first step at or after a time (within the kept tail or beyond the end); null before the kept history. */
export function stepAtTime(model: TemporalModel, time: number): number | null {
  if (time > model.stepTimes.last) return model.steps - 1 + Math.max(1, Math.ceil(stepOf({ ...model.timeline, origin: model.stepTimes.last }, time) - 1e-9));
  const times = model.tail.times;
  if (times.length === 0 || time < times[0]!) return null;
  let lo = 0;
  let hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! >= time) hi = mid;
    else lo = mid + 1;
  }
  return model.tail.from + lo;
}

/** The earliest time a forecast can start from: it needs maxLag observed steps before it, within the kept history. */
export const earliestOrigin = (model: Pick<TemporalModel, 'tail' | 'maxLag' | 'stepTimes'>): number => model.tail.times[Math.min(model.maxLag, model.tail.times.length - 1)] ?? model.stepTimes.last;

/** Steps of history a model keeps for forecasts from an origin inside the data. */
export const TAIL_STEPS = 2000;

export function fitTemporal(
  series: Frame,
  stepTimes: readonly number[],
  timeline: Timeline,
  structure: TemporalStructure,
  options: { seed?: number; to?: number },
  kernels: Kernels,
): TemporalModel {
  const { maxLag, periods, edges, used } = designEdges(series, structure);
  const design = laggedDesign(series, maxLag, periods, { only: used, ...(options.to === undefined ? {} : { to: options.to }) });
  const cbn = fitCbn(design.frame, edges, { ...(options.seed === undefined ? {} : { seed: options.seed }) }, kernels);
  return {
    kind: 'temporal',
    variables: variablesOf(series),
    maxLag,
    edges: structure.edges,
    seasonal: structure.seasonal,
    cbn,
    ...historyOf(series, stepTimes, timeline, TAIL_STEPS),
  };
}

export const variablesOf = (series: Frame): TemporalVariable[] => series.columns.map((c) => ({ name: c.name, kind: c.kind, categories: c.kind === 'categorical' ? c.categories : [] }));

/** A series' place in time and its last `keep` steps, as a model keeps them. */
export function historyOf(series: Frame, stepTimes: readonly number[], timeline: Timeline, keep: number): Pick<TemporalModel, 'timeline' | 'steps' | 'stepTimes' | 'tail'> {
  const from = Math.max(0, series.nRows - keep);
  const values: TemporalModel['tail']['values'] = {};
  for (const column of series.columns) {
    values[column.name] = [];
    for (let t = from; t < series.nRows; t++) {
      if (column.kind === 'continuous') values[column.name]!.push(Number.isNaN(column.values[t]!) ? null : column.values[t]!);
      else values[column.name]!.push(column.codes[t]! < 0 ? null : column.categories[column.codes[t]!]!);
    }
  }
  return {
    timeline,
    steps: series.nRows,
    stepTimes: { first: stepTimes[0] ?? timeline.origin, last: stepTimes.at(-1) ?? timeline.origin },
    tail: { from, times: stepTimes.slice(from), values },
  };
}

/** The CBN edges of a structure (lagged inputs by their lag names, seasonal terms), and the design columns it uses. */
export function designEdges(series: Frame, structure: TemporalStructure): { maxLag: number; periods: number[]; edges: EdgeRef[]; used: Set<string> } {
  const maxLag = Math.max(1, ...structure.edges.map((e) => e.lag));
  const periods = [...new Set(structure.seasonal.map((s) => s.period))];
  const used = new Set(series.columns.map((c) => c.name));
  const edges: EdgeRef[] = structure.edges.map((e) => ({ source: lagName(e.source, e.lag), target: e.target }));
  for (const { variable, period } of structure.seasonal) for (const term of seasonNames(period)) edges.push({ source: term, target: variable });
  for (const e of edges) used.add(e.source);
  return { maxLag, periods, edges, used };
}
