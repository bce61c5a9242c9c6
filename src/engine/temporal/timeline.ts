/**
 * The time axis of a temporal twin: timestamps read from the time column (dates and datetimes as UTC epoch
 * milliseconds, integers as they are), the granularity inferred from the typical spacing, and the regular grid of
 * steps the model works on. Months, quarters and years step by the calendar (a month is not 30 days).
 */

export type Granularity = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year' | 'step';

export interface Timeline {
  /** `time`: epoch milliseconds (UTC); `index`: integers of the data (e.g. a period number). */
  axis: 'time' | 'index';
  granularity: Granularity;
  /** Units of the granularity per step (e.g. 15 for a 15-minute series; for `index` the integer spacing). */
  every: number;
  /** The first step's timestamp: step k is at `timestampAt(timeline, k)`. */
  origin: number;
}

const SECOND = 1000;
const FIXED: Array<[Granularity, number]> = [
  ['second', SECOND],
  ['minute', 60 * SECOND],
  ['hour', 3600 * SECOND],
  ['day', 86_400 * SECOND],
  ['week', 7 * 86_400 * SECOND],
];
const CALENDAR: Array<[Granularity, number]> = [
  ['month', 1],
  ['quarter', 3],
  ['year', 12],
];
const DAY = 86_400 * SECOND;

/** A time column's value as a number on its axis, or null when it is missing or unreadable. */
export function readTime(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    const iso = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`;
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** Months since 1970-01 of an epoch-ms time (UTC), and the day-of-month offset kept for calendar steps. */
const monthIndex = (ms: number) => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};

/**
 * The granularity of sorted distinct timestamps: the median spacing matched to the nearest calendar unit (within
 * 15%); multiples of a unit are kept as `every` (a 15-minute series is `minute` x 15).
 */
export function inferTimeline(times: readonly number[], axis: Timeline['axis']): Timeline {
  const origin = times[0] ?? 0;
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push(times[i]! - times[i - 1]!);
  gaps.sort((a, b) => a - b);
  const median = gaps.length === 0 ? 1 : gaps[Math.floor(gaps.length / 2)]!;
  if (axis === 'index') return { axis, granularity: 'step', every: Math.max(1, median), origin };
  const days = median / DAY;
  if (days >= 27) {
    const months = days / 30.436875;
    const [granularity, size] = [...CALENDAR].reverse().find(([, m]) => months >= m * 0.85 && Math.abs(months / m - Math.round(months / m)) < 0.15) ?? ['month', 1];
    return { axis, granularity, every: Math.max(1, Math.round(months / size)), origin };
  }
  const [granularity, size] = [...FIXED].reverse().find(([, ms]) => median >= ms * 0.85 && Math.abs(median / ms - Math.round(median / ms)) < 0.15) ?? ['second', SECOND];
  return { axis, granularity, every: Math.max(1, Math.round(median / size)), origin };
}

/** The step (possibly fractional for a time off the grid) of a timestamp. */
export function stepOf(timeline: Timeline, time: number): number {
  const calendar = CALENDAR.find(([g]) => g === timeline.granularity);
  if (timeline.axis === 'time' && calendar !== undefined) {
    const months = monthIndex(time) - monthIndex(timeline.origin);
    const within = (time - addMonths(timeline.origin, months)) / (31 * DAY);
    return (months + within) / (calendar[1] * timeline.every);
  }
  return (time - timeline.origin) / unitMs(timeline);
}

/** The timestamp of step k. */
export function timestampAt(timeline: Timeline, step: number): number {
  const calendar = CALENDAR.find(([g]) => g === timeline.granularity);
  if (timeline.axis === 'time' && calendar !== undefined) return addMonths(timeline.origin, step * calendar[1] * timeline.every);
  return timeline.origin + step * unitMs(timeline);
}

/** Milliseconds (or index units) per step of a fixed-size granularity. */
function unitMs(timeline: Timeline): number {
  if (timeline.axis === 'index') return timeline.every;
  const fixed = FIXED.find(([g]) => g === timeline.granularity);
  return (fixed?.[1] ?? SECOND) * timeline.every;
}

function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime();
}

/** Seasonal periods worth testing at a granularity (in steps), before the data's own periodogram peaks. */
export function calendarPeriods(timeline: Timeline): number[] {
  const per: Partial<Record<Granularity, number[]>> = {
    second: [60],
    minute: [60, 1440],
    hour: [24, 168],
    day: [7, 365.25],
    week: [52.18],
    month: [12],
    quarter: [4],
  };
  return (per[timeline.granularity] ?? []).map((p) => p / timeline.every).filter((p) => p >= 2);
}

/** The mean length of one step in milliseconds (null on an integer axis). */
export function stepLength(timeline: Timeline): number | null {
  if (timeline.axis === 'index') return null;
  const calendar = CALENDAR.find(([g]) => g === timeline.granularity);
  return calendar === undefined ? unitMs(timeline) : calendar[1] * timeline.every * 30.436875 * DAY;
}
