/**
 * A window of observations given with a temporal question (root cause, anomaly scan, health monitor): records in
 * time order, one per step, each optionally carrying its time (under the twin's time column or `timestamp`), laid
 * on the twin's grid. Steps the records skip become rows with every value missing, so lags always look back whole
 * steps; without times the records are consecutive steps ending at the last step of the data.
 */
import { AppError } from '../../errors.js';
import { categoricalColumn, continuousColumn, frameOf } from '../frame.js';
import type { Frame } from '../types.js';
import type { TemporalModel } from './model.js';
import { laggedDesign } from './lagged.js';
import { readTime, stepOf, timestampAt } from './timeline.js';

type Value = number | string | boolean | null;

/** The key a record's time may be given under besides the twin's time column. */
export const TIME_KEY = 'timestamp';

/** Steps a window may span (records plus the gaps between them). */
const MAX_WINDOW_STEPS = 200_000;

export interface SampleWindow {
  /** One row per step over the model's variables (model order); a skipped step is a row of missing values. */
  frame: Frame;
  /** The series step of each row (the season's phase), and its time (null when the records carry none). */
  steps: number[];
  times: Array<number | null>;
  /** The record behind each row (-1 for a skipped step), and the row of each record. */
  recordOf: number[];
  rowOf: number[];
}

/** The keys a record's time may be under: the twin's time column when it is known, and `timestamp`. */
export const timeKeys = (column: string | undefined): string[] => [...new Set([...(column === undefined ? [] : [column]), TIME_KEY])];

/**
 * The time of each record (null when none carries one), or where the first problem is (relative to the records):
 * an unreadable time, some records timed and others not.
 */
export function recordTimes(records: readonly Record<string, Value>[], keys: readonly string[]): { times: number[] | null; problem: { location: string; message: string } | null } {
  const times: number[] = [];
  let untimed = -1;
  for (const [i, record] of records.entries()) {
    const key = keys.find((k) => record[k] !== undefined && record[k] !== null);
    if (key === undefined) {
      untimed = i;
      continue;
    }
    const time = readTime(record[key]);
    if (time === null) return { times: null, problem: { location: `/${i}/${key}`, message: 'not a time: give ms since the epoch, an ISO date, or the integer time value' } };
    times.push(time);
  }
  if (times.length === 0) return { times: null, problem: null };
  if (untimed >= 0) return { times: null, problem: { location: `/${untimed}`, message: `${times.length} of ${records.length} records carry a time (${keys.join(' or ')}); give it on every record or on none` } };
  for (let i = 1; i < times.length; i++) if (times[i]! <= times[i - 1]!) return { times: null, problem: { location: `/${i}`, message: 'records must be in time order, one per step: this one is not after the one before it' } };
  return { times, problem: null };
}

export function sampleWindow(model: TemporalModel, records: readonly Record<string, Value>[], at = '/samples'): SampleWindow {
  const placed = placeRecords(model, records);
  if ('location' in placed) throw new AppError('validation_failed', `${at}${placed.location}: ${placed.message}`);
  return windowOn(model, records, placed.steps, placed.times);
}

/**
 * The window of records at the given steps (increasing): one row per step from the first to the last, a skipped
 * step a row of missing values; times where the records carry them (a skipped step's from the grid).
 */
function windowOn(model: TemporalModel, records: readonly Record<string, Value>[], recordSteps: readonly number[], read: readonly number[] | null): SampleWindow {
  const first = recordSteps[0] ?? 0;
  const span = (recordSteps.at(-1) ?? first) - first + 1;
  const rowOf = recordSteps.map((s) => s - first);
  const recordOf = new Array<number>(span).fill(-1);
  rowOf.forEach((row, i) => (recordOf[row] = i));
  const columns = model.variables.map((v) => {
    const values = recordOf.map((i) => (i < 0 ? null : records[i]![v.name] ?? null));
    if (v.kind === 'continuous') return continuousColumn(v.name, values.map((x) => (typeof x === 'number' && Number.isFinite(x) ? x : null)));
    return categoricalColumn(v.name, values.map((x) => (x === null ? null : v.categories.includes(String(x)) ? String(x) : null)), v.categories);
  });
  const steps = Array.from({ length: span }, (_, r) => first + r);
  const times = recordOf.map((i, r) => (read === null ? null : i < 0 ? timestampAt(model.timeline, steps[r]!) : read[i]!));
  return { frame: frameOf(columns), steps, times, recordOf, rowOf };
}

/**
 * Records as a window with the steps just before the first one (as many as the model's lags reach) taken from the
 * data the version keeps, where it keeps them: the past the first records' lags look into. `rowOf` and `recordOf`
 * still refer to the records given (a kept step's row has record -1).
 */
export function windowWithKeptPast(model: TemporalModel, records: readonly Record<string, Value>[], at: string): SampleWindow {
  const placed = placeRecords(model, records);
  if ('location' in placed) throw new AppError('validation_failed', `${at}${placed.location}: ${placed.message}`);
  const start = placed.steps[0];
  if (start === undefined) return windowOn(model, records, [], null);
  const kept: number[] = [];
  for (let step = Math.max(model.tail.from, start - model.maxLag); step < Math.min(start, model.steps); step++) kept.push(step);
  const past = kept.map((step) => keptRecord(model, step - model.tail.from));
  const times = placed.times === null ? null : [...kept.map((step) => model.tail.times[step - model.tail.from]!), ...placed.times];
  const window = windowOn(model, [...past, ...records], [...kept, ...placed.steps], times);
  const rowOf = window.rowOf.slice(kept.length);
  return { ...window, rowOf, recordOf: window.recordOf.map((i) => (i < kept.length ? -1 : i - kept.length)) };
}

/** What is wrong with records as a window of the model's steps (location relative to the records), or null. */
export function windowProblem(model: TemporalModel, records: readonly Record<string, Value>[]): { location: string; message: string } | null {
  const placed = placeRecords(model, records);
  return 'location' in placed ? placed : null;
}

/**
 * The step of each record: by its time on the model's grid (one record per step, in time order), or, without times,
 * consecutive steps ending at the last step of the data; the window may span at most MAX_WINDOW_STEPS.
 */
function placeRecords(model: TemporalModel, records: readonly Record<string, Value>[]): { times: number[] | null; steps: number[] } | { location: string; message: string } {
  const { times, problem } = recordTimes(records, timeKeys(model.timeColumn));
  if (problem !== null) return problem;
  const steps = times === null ? records.map((_, i) => model.steps - records.length + i) : times.map((t) => Math.round(stepOf(model.timeline, t)));
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]! <= steps[i - 1]!) return { location: `/${i}`, message: `two records fall on one ${model.timeline.granularity} step; give one record per step` };
  }
  const span = (steps.at(-1) ?? 0) - (steps[0] ?? 0) + 1;
  if (span > MAX_WINDOW_STEPS) return { location: '', message: `the records span ${span} steps; at most ${MAX_WINDOW_STEPS}` };
  return { times, steps };
}

/** The values of the kept tail's `index`-th step, by variable. */
const keptRecord = (model: TemporalModel, index: number): Record<string, Value> => Object.fromEntries(model.variables.map((v) => [v.name, model.tail.values[v.name]?.[index] ?? null]));

/** Steps [from, to) of the data the version keeps (indices into its tail), as a window on the version's own steps and times. */
export function keptWindow(model: TemporalModel, from: number, to: number): SampleWindow {
  const records = Array.from({ length: to - from }, (_, k) => keptRecord(model, from + k));
  const window = sampleWindow(model, records);
  return { ...window, steps: window.steps.map((_, r) => model.tail.from + from + r), times: model.tail.times.slice(from, to) };
}

/**
 * The model's inputs at each row of a window, as the lagged design the model was fitted on (lagged.ts), its
 * columns in the order of `model.cbn`'s nodes; missing where a lag reaches before the window.
 */
export function designOf(model: TemporalModel, window: SampleWindow): Frame {
  const periods = [...new Set(model.seasonal.map((s) => s.period))];
  const only = new Set(model.cbn.nodes.map((node) => node.name));
  const { frame } = laggedDesign(window.frame, model.maxLag, periods, { partial: true, only, stepOffset: (window.steps[0] ?? 0) + (model.phase ?? 0) });
  const byName = new Map(frame.columns.map((c) => [c.name, c]));
  return frameOf(model.cbn.nodes.map((node) => byName.get(node.name)!));
}
