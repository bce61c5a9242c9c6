/**
 * Spans of time in a query as steps of a temporal twin: "14 days", "3 weeks", "10 steps", converted with the
 * twin's step length (months and years by their mean length).
 */
import type { QueryReader } from './reader.js';

const DAY = 86_400_000;
/** A unit word's length in milliseconds. */
const UNITS: Record<string, number> = {
  second: 1000, minute: 60_000, hour: 3_600_000, day: DAY, week: 7 * DAY, month: 30.436875 * DAY, quarter: 91.310625 * DAY, year: 365.2425 * DAY,
};
const STEP_WORDS = new Set(['step', 'steps', 'period', 'periods']);

/** The first unclaimed "<number> <unit>" of the query, consumed: the steps it spans and the words said. */
export function readSpan(r: QueryReader): { steps: number; said: string } | null {
  for (let i = 0; i < r.length; i++) {
    const number = r.numberAt(i);
    if (number === null || r.isConsumed(i)) continue;
    const word = r.lower(number.next).replace(/s$/, '');
    const step = r.context.stepMs;
    let steps: number;
    if (STEP_WORDS.has(r.lower(number.next))) steps = Math.round(number.value);
    else if (UNITS[word] !== undefined && step !== undefined) steps = Math.round((number.value * UNITS[word]!) / step);
    else continue;
    r.consume(i, number.next + 1);
    return { steps, said: `${number.value} ${r.lower(number.next)}` };
  }
  return null;
}
