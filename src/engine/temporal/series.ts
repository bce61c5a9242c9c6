/**
 * Rows of a time-indexed table as a regular series: rows sorted by time, each placed on the nearest step of the
 * inferred granularity; several rows on one step are aggregated (the mean of a numeric variable, the most frequent
 * category of a categorical one); steps without rows are gaps (missing values); rows without a readable time are
 * left out and counted. A series too irregular to grid (more than 3 empty steps per observed one) keeps one step
 * per distinct timestamp instead, and says so.
 */
import { categoricalColumn, continuousColumn, frameOf } from '../frame.js';
import type { Frame, FrameColumn } from '../types.js';
import { type Timeline, inferTimeline, readTime, stepOf, timestampAt } from './timeline.js';

export interface TemporalSeries {
  timeline: Timeline;
  /** One row per step 0..steps-1; a step without data has missing values. With `irregular`, step k is the k-th
   * distinct timestamp, at `stepTimes[k]`. */
  frame: Frame;
  stepTimes: number[];
  profile: SeriesProfile;
}

/** What the version records of its series (`timeSeriesMetadata`). */
export interface SeriesProfile {
  axis: Timeline['axis'];
  granularity: Timeline['granularity'];
  every: number;
  start: string | number;
  end: string | number;
  steps: number;
  observedSteps: number;
  rowsWithoutTime: number;
  duplicateTimestampRows: number;
  aggregation: string;
  irregular: boolean;
  gaps: { count: number; missingSteps: number; longestSteps: number; missingShare: number };
  /** Share of missing values per variable over the observed steps. */
  missingShare: Record<string, number>;
  seasonalPeriods?: Array<{ variable: string; period: number; strength: number }>;
}

const IRREGULAR_RATIO = 3;

/** How the rows that fall in one step are combined (numbers; a categorical variable takes its most frequent class). */
export type StepCombine = 'mean' | 'sum';

export const formatTime = (timeline: Timeline, time: number): string | number => (timeline.axis === 'time' ? new Date(time).toISOString() : time);

/**
 * Rows on a grid of steps. By default the grid is the data's own (inferTimeline), each row on its nearest step. With
 * `grid`, a coarser step given (another series' timeline): each row falls in the step of that grid it lies in (a
 * day's hours in its day), the series starting at the grid step of its first row, and a step's rows are combined by
 * `grid.combine` (`mean` or `sum` of the numbers; the most frequent class either way).
 */
export function buildSeries(times: readonly unknown[], columns: readonly FrameColumn[], axis: Timeline['axis'], grid?: { timeline: Timeline; combine: StepCombine }): TemporalSeries {
  const read = times.map(readTime);
  const rows = read.map((t, i) => [t, i] as const).filter(([t]) => t !== null) as Array<readonly [number, number]>;
  rows.sort((a, b) => a[0] - b[0]);
  const distinct: number[] = [];
  for (const [t] of rows) if (distinct.at(-1) !== t) distinct.push(t);
  const timeline = grid === undefined ? inferTimeline(distinct, axis) : startingAt(grid.timeline, distinct[0]);
  const gridSteps = distinct.length === 0 ? 0 : Math.round(stepOf(timeline, distinct.at(-1)!)) + 1;
  const irregular = grid === undefined && gridSteps > IRREGULAR_RATIO * distinct.length + 100;
  const stepOfRow = new Int32Array(rows.length);
  let steps: number;
  let stepTimes: number[];
  if (grid !== undefined) {
    rows.forEach(([t], r) => (stepOfRow[r] = Math.max(0, Math.floor(stepOf(timeline, t) + 1e-9))));
    steps = rows.length === 0 ? 0 : stepOfRow[rows.length - 1]! + 1;
    stepTimes = Array.from({ length: steps }, (_, k) => timestampAt(timeline, k));
  } else if (irregular) {
    let k = -1;
    let last = Number.NaN;
    rows.forEach(([t], r) => {
      if (t !== last) k++;
      last = t;
      stepOfRow[r] = k;
    });
    steps = distinct.length;
    stepTimes = distinct;
  } else {
    rows.forEach(([t], r) => (stepOfRow[r] = Math.max(0, Math.round(stepOf(timeline, t)))));
    steps = gridSteps;
    stepTimes = Array.from({ length: steps }, (_, k) => timestampAt(timeline, k));
  }
  const observed = new Uint8Array(steps);
  for (const k of stepOfRow) observed[k] = 1;
  const gridded = columns.map((column) => aggregate(column, rows, stepOfRow, steps, grid?.combine ?? 'mean'));
  const frame = frameOf(gridded);
  return { timeline, frame, stepTimes, profile: profileOf(timeline, frame, observed, stepTimes, { rows: rows.length, distinct: distinct.length, withoutTime: times.length - rows.length, irregular, combine: grid?.combine ?? 'mean' }) };
}

/** The grid `timeline` moved to start at the step holding `first` (its origin stays on the grid). */
function startingAt(timeline: Timeline, first: number | undefined): Timeline {
  if (first === undefined) return timeline;
  return { ...timeline, origin: timestampAt(timeline, Math.floor(stepOf(timeline, first) + 1e-9)) };
}

function aggregate(column: FrameColumn, rows: ReadonlyArray<readonly [number, number]>, stepOfRow: Int32Array, steps: number, combine: StepCombine): FrameColumn {
  if (column.kind === 'continuous') {
    const sum = new Float64Array(steps);
    const count = new Float64Array(steps);
    rows.forEach(([, i], r) => {
      const v = column.values[i]!;
      if (Number.isNaN(v)) return;
      sum[stepOfRow[r]!]! += v;
      count[stepOfRow[r]!]! += 1;
    });
    return continuousColumn(column.name, Array.from(sum, (s, k) => (count[k]! > 0 ? (combine === 'sum' ? s : s / count[k]!) : null)));
  }
  const levels = column.categories.length;
  const counts = new Float64Array(steps * levels);
  rows.forEach(([, i], r) => {
    const code = column.codes[i]!;
    if (code >= 0) counts[stepOfRow[r]! * levels + code]! += 1;
  });
  const labels = Array.from({ length: steps }, (_, k) => {
    let best = -1;
    for (let c = 0; c < levels; c++) if (counts[k * levels + c]! > 0 && (best < 0 || counts[k * levels + c]! > counts[k * levels + best]!)) best = c;
    return best < 0 ? null : column.categories[best]!;
  });
  return categoricalColumn(column.name, labels, column.categories);
}

function profileOf(
  timeline: Timeline,
  frame: Frame,
  observed: Uint8Array,
  stepTimes: number[],
  counts: { rows: number; distinct: number; withoutTime: number; irregular: boolean; combine: StepCombine },
): SeriesProfile {
  let gaps = 0;
  let missingSteps = 0;
  let longest = 0;
  let run = 0;
  for (let k = 0; k < observed.length; k++) {
    if (observed[k] === 1) {
      if (run > 0) gaps++;
      run = 0;
      continue;
    }
    run++;
    missingSteps++;
    longest = Math.max(longest, run);
  }
  const observedSteps = observed.length - missingSteps;
  const missingShare: Record<string, number> = {};
  for (const column of frame.columns) {
    let missing = 0;
    for (let k = 0; k < observed.length; k++) {
      if (observed[k] !== 1) continue;
      if (column.kind === 'continuous' ? Number.isNaN(column.values[k]!) : column.codes[k]! < 0) missing++;
    }
    missingShare[column.name] = observedSteps === 0 ? 0 : Number((missing / observedSteps).toFixed(4));
  }
  return {
    axis: timeline.axis,
    granularity: timeline.granularity,
    every: timeline.every,
    start: formatTime(timeline, stepTimes[0] ?? timeline.origin),
    end: formatTime(timeline, stepTimes.at(-1) ?? timeline.origin),
    steps: observed.length,
    observedSteps,
    rowsWithoutTime: counts.withoutTime,
    duplicateTimestampRows: counts.rows - counts.distinct,
    aggregation: `rows on one step are combined: the ${counts.combine} of a numeric variable, the most frequent category of a categorical one`,
    irregular: counts.irregular,
    gaps: { count: gaps, missingSteps, longestSteps: longest, missingShare: observed.length === 0 ? 0 : Number((missingSteps / observed.length).toFixed(4)) },
    missingShare,
  };
}
