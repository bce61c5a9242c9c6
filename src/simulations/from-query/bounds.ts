/**
 * Limits on variables, for optimisations and what-would-it-take questions: "discount at most 20", "price between
 * 10 and 20", "region in North or South", "price within 10%", "keeping tenure fixed", "without changing price",
 * and a cap on how many variables may change ("at most 2 changes").
 */
import type { Value } from '../../engine/inference/scenario.js';
import { unmappable } from './problems.js';
import type { QueryReader } from './reader.js';
import { comparatorAt, readRange, readValueList } from './values.js';

export interface Bound {
  variable: string;
  min?: number;
  max?: number;
  allowedValues?: Value[];
  maxChangePercent?: number;
  /** The variable may not change at all. */
  fixed?: boolean;
}

const FIXED_WORDS = new Set(['fixed', 'constant', 'unchanged', 'frozen', 'untouched']);
const KEEP_WORDS = new Set(['keep', 'keeping', 'kept', 'hold', 'holding', 'held', 'freeze', 'freezing']);
const STATE_WORDS = new Set(['is', 'are', 'stays', 'stay', 'remains', 'remain', 'kept', 'held', 'to', 'be', 'must', 'should', 'can', 'may']);
const NOT_CHANGING = ['without changing', 'without touching', 'not changing', 'not touching', 'cannot change', 'cant change', 'can not change', "don't change", 'dont change', 'never change'];
const LEVER_NOUNS = new Set(['change', 'changes', 'lever', 'levers', 'variable', 'variables', 'intervention', 'interventions', 'action', 'actions', 'knob', 'knobs']);
const AT_MOST = ['at most', 'up to', 'no more than', 'not more than', 'max', 'maximum', 'only'];

/** Every bound written in the query's unused tokens, one entry per variable (fixed ones included). */
export function readBounds(r: QueryReader): Bound[] {
  const bounds = new Map<string, Bound>();
  for (const mention of [...r.mentions]) {
    if (r.isConsumed(mention.start)) continue;
    const read = boundAt(r, mention.start, mention.end);
    if (read === null) continue;
    const variable = r.resolve(mention).name;
    const bound = { ...bounds.get(variable), ...read.bound, variable };
    if (bound.min !== undefined && bound.max !== undefined && bound.min > bound.max) {
      throw unmappable(`${variable} cannot be at least ${bound.min} and at most ${bound.max}`);
    }
    bounds.set(variable, bound);
    r.consume(read.start, read.next);
  }
  return [...bounds.values()];
}

/** Only the variables that may not change ("keeping tenure fixed"). */
export function readFixed(r: QueryReader): string[] {
  return readBounds(r).filter((b) => b.fixed === true).map((b) => b.variable);
}

/** "at most 2 changes", "changing only 1 variable": the cap, consumed. */
export function readLeverCount(r: QueryReader): number | undefined {
  for (let i = 0; i < r.length; i++) {
    const after = AT_MOST.map((phrase) => r.phrase(i, phrase)).find((next) => next !== -1);
    if (after === undefined) continue;
    const count = r.numberAt(after);
    if (count === null || !r.is(count.next, LEVER_NOUNS)) continue;
    if (!Number.isInteger(count.value) || count.value < 1) throw unmappable(`the number of changes is a whole number of at least 1, not ${count.value}`);
    r.consume(i, count.next + 1);
    return count.value;
  }
  return undefined;
}

function boundAt(r: QueryReader, start: number, end: number): { bound: Omit<Bound, 'variable'>; start: number; next: number } | null {
  const notChanging = NOT_CHANGING.map((phrase) => ({ phrase, at: start - phrase.split(' ').length })).find(({ phrase, at }) => at >= 0 && r.phrase(at, phrase) === start);
  if (notChanging !== undefined) return { bound: { fixed: true }, start: notChanging.at, next: end };
  const k = r.skip(end, STATE_WORDS);
  if (r.is(k, FIXED_WORDS) || (r.is(k, 'the') && r.is(k + 1, 'same'))) {
    const from = r.is(start - 1, KEEP_WORDS) ? start - 1 : start;
    return { bound: { fixed: true }, start: from, next: r.is(k, 'the') ? k + 2 : k + 1 };
  }
  if (r.is(k, ['between', 'from'])) {
    const range = readRange(r, k);
    if (range !== null) return { bound: { min: Math.min(range.from, range.to), max: Math.max(range.from, range.to) }, start, next: range.next };
  }
  const change = r.is(k, 'within') ? k + 1 : r.is(k, 'by') ? (comparatorAt(r, k + 1)?.next ?? -1) : -1;
  const percent = change === -1 ? null : r.numberAt(change);
  if (percent !== null && percent.unit === 'percent') return { bound: { maxChangePercent: Math.abs(percent.value) }, start, next: percent.next };
  const variable = r.variableAt(start)?.variable;
  if (variable?.type === 'categorical' && r.is(k, ['in', 'either', 'among', 'one'])) {
    const list = readValueList(r, variable, r.is(k, 'one') && r.is(k + 1, 'of') ? k + 2 : k + 1);
    if (list !== null) return { bound: { allowedValues: list.values }, start, next: list.next };
  }
  const comparison = comparatorAt(r, k);
  const number = comparison === null ? null : r.numberAt(comparison.next);
  if (comparison === null || number === null) return null;
  switch (comparison.operator) {
    case 'lt':
    case 'le':
      return { bound: { max: number.value }, start, next: number.next };
    case 'gt':
    case 'ge':
      return { bound: { min: number.value }, start, next: number.next };
    case 'eq':
      return { bound: { min: number.value, max: number.value }, start, next: number.next };
    case 'ne':
      throw unmappable('a bound is a minimum, a maximum or a range, not "not equal to"');
  }
}
