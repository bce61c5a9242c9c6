/**
 * When a change over time starts, read from a query on a temporal twin with a date axis: "from June", "starting
 * 1 June 2025", "as of 2025-06-01", "beginning March 15". A date without a year is its next occurrence after the
 * twin's data ends (the first day of a month named alone). Integer time axes have no calendar: nothing is read.
 */
import { monthOf } from '../../lib/words.js';
import type { QueryReader } from './reader.js';

const LEADS = [['from'], ['starting'], ['starting', 'from'], ['beginning'], ['as', 'of']];
const ISO = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;

/** The first start date of the query, consumed: its epoch milliseconds (UTC) and the words said; null when none. */
export function readStart(r: QueryReader): { time: number; said: string } | null {
  const history = r.context.history;
  if (history?.axis !== 'time') return null;
  const end = history.times.at(-1);
  for (let i = 0; i < r.length; i++) {
    if (r.isConsumed(i)) continue;
    for (const lead of LEADS) {
      const at = r.phrase(i, lead.join(' '));
      if (at < 0) continue;
      const date = dateAt(r, at, end);
      if (date === null) continue;
      r.consume(i, date.next);
      return { time: date.time, said: r.text(at, date.next) };
    }
  }
  return null;
}

/** A date spelled from token `at`: ISO (2025-06 or 2025-06-01), or a month name with an optional day and year. */
function dateAt(r: QueryReader, at: number, end: number | undefined): { time: number; next: number } | null {
  for (const width of [5, 3]) {
    const iso = ISO.exec(r.text(at, at + width).replace(/\s+/g, ''));
    if (iso !== null && !anyConsumed(r, at, at + width)) return valid(Number(iso[1]), Number(iso[2]) - 1, iso[3] === undefined ? 1 : Number(iso[3]), at + width);
  }
  // "1 June", "June 1", "June", each optionally followed by a year.
  let k = at;
  const dayFirst = dayAt(r, k);
  if (dayFirst !== null) k++;
  const month = monthAt(r, k);
  if (month === null) return null;
  k++;
  const dayAfter = dayFirst === null ? dayAt(r, k) : null;
  if (dayAfter !== null) k++;
  const year = r.numberAt(k);
  const hasYear = year !== null && Number.isInteger(year.value) && year.value >= 1900 && year.value <= 2200;
  if (hasYear) k++;
  const day = dayFirst ?? dayAfter ?? 1;
  if (hasYear) return valid(year.value, month, day, k);
  // No year: the next such date after the data ends.
  const last = end === undefined ? Date.now() : end;
  const lastYear = new Date(last).getUTCFullYear();
  const thisYear = Date.UTC(lastYear, month, day);
  return valid(thisYear > last ? lastYear : lastYear + 1, month, day, k);
}

function valid(year: number, month: number, day: number, next: number): { time: number; next: number } | null {
  if (month < 0 || month > 11 || day < 1) return null;
  const time = Date.UTC(year, month, day);
  // Date.UTC rolls 31 June over into July: such a day is not a date.
  return new Date(time).getUTCMonth() === month ? { time, next } : null;
}

function dayAt(r: QueryReader, at: number): number | null {
  const n = r.numberAt(at);
  if (n === null || n.unit !== null || !Number.isInteger(n.value) || n.value < 1 || n.value > 31) return null;
  return n.value;
}

function monthAt(r: QueryReader, at: number): number | null {
  if (r.isConsumed(at)) return null;
  const word = r.lower(at);
  const index = monthOf(word === 'sept' ? 'sep' : word);
  return index < 0 ? null : index;
}

function anyConsumed(r: QueryReader, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (r.isConsumed(k)) return true;
  return false;
}
