/**
 * Reading values out of a query: a variable's value (a number, or one of its category labels), comparisons
 * ("below 0.1", "at least 5"), ranges ("from 10 to 20 in 5 steps") and a confidence level ("with 90% confidence").
 */
import type { Value } from '../../engine/inference/scenario.js';
import { unknownCategory, unmappable } from './problems.js';
import type { QueryReader, QueryVariable } from './reader.js';
import { STEP_NOUNS, VALUE_LINKS } from './vocabulary.js';

export interface ValueRead {
  value: Value;
  next: number;
}

export type Operator = 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le';

/** The finest grid a range scenario takes (schemas/simulations.ts). */
const STEPS_MAX = 200;
/** "in 10 steps" when a range says nothing (spec: steps default 10). */
const DEFAULT_STEPS = 10;

/**
 * The value of `variable` spelled at `at`, after any linking words ("of", "=", "is"); null when none is. A number
 * is taken as written ("discount is 5%" is 5): the twin's data fixes the unit, and the query cannot tell it.
 */
export function readValue(r: QueryReader, variable: QueryVariable, at: number, links: ReadonlySet<string> = VALUE_LINKS): ValueRead | null {
  const start = r.skip(at, links);
  if (r.isConsumed(start)) return null;
  if (variable.type === 'continuous') {
    const number = r.numberAt(start);
    return number === null ? null : { value: number.value, next: number.next };
  }
  const category = r.categoryAt(start, variable);
  return category === null ? null : { value: category.label, next: category.next };
}

/** "North or South", "basic, plus and premium": one or more values of one variable, with no linking words. */
export function readValueList(r: QueryReader, variable: QueryVariable, at: number): { values: Value[]; next: number } | null {
  const none = new Set<string>();
  const first = readValue(r, variable, at, none);
  if (first === null) return null;
  const values = [first.value];
  let next = first.next;
  while (r.is(next, [',', 'or', 'and'])) {
    const more = readValue(r, variable, r.is(next + 1, ['or', 'and']) ? next + 2 : next + 1, none);
    if (more === null) break;
    values.push(more.value);
    next = more.next;
  }
  return { values, next };
}

/** Like readValue, but a missing value is a 422 that says what was expected where. */
export function expectValue(r: QueryReader, variable: QueryVariable, at: number, after: string): ValueRead {
  const read = readValue(r, variable, at);
  if (read !== null) return read;
  const start = r.skip(at, VALUE_LINKS);
  const found = r.tokens[start] === undefined ? null : r.text(start, start + 1);
  if (variable.type === 'categorical') {
    throw unknownCategory(variable.name, r.contentAfter(start)?.phrase ?? found ?? '', variable.categories ?? []);
  }
  throw unmappable(`${variable.name} is continuous: expected a number after "${after}"${found === null ? '' : `, found "${found}"`}`);
}

/** Numeric values of a continuous variable only: categorical variables take labels. */
export function expectContinuous(variable: QueryVariable, what: string): void {
  if (variable.type !== 'continuous') {
    throw unmappable(`${what} applies only to continuous variables; ${variable.name} is categorical (categories: ${(variable.categories ?? []).join(', ')})`);
  }
}

const COMPARATORS: [string, Operator][] = [
  ['<=', 'le'], ['>=', 'ge'], ['<', 'lt'], ['>', 'gt'], ['!=', 'ne'], ['=', 'eq'],
  ['less than or equal to', 'le'], ['greater than or equal to', 'ge'], ['no more than', 'le'], ['not more than', 'le'],
  ['no less than', 'ge'], ['not less than', 'ge'], ['at most', 'le'], ['at least', 'ge'], ['up to', 'le'],
  ['less than', 'lt'], ['lower than', 'lt'], ['fewer than', 'lt'], ['smaller than', 'lt'], ['more than', 'gt'],
  ['greater than', 'gt'], ['higher than', 'gt'], ['larger than', 'gt'], ['bigger than', 'gt'], ['equal to', 'eq'],
  ['below', 'lt'], ['under', 'lt'], ['beneath', 'lt'], ['above', 'gt'], ['over', 'gt'], ['exceeding', 'gt'],
  ['equals', 'eq'], ['exactly', 'eq'], ['not', 'ne'], ['max', 'le'], ['maximum', 'le'], ['min', 'ge'], ['minimum', 'ge'],
];

/** A comparison spelled at `at` ("below", "at least", ">="): its operator and the index after it. */
export function comparatorAt(r: QueryReader, at: number): { operator: Operator; next: number } | null {
  for (const [phrase, operator] of COMPARATORS) {
    const next = r.phrase(at, phrase);
    if (next !== -1) return { operator, next: r.lower(next) === 'of' ? next + 1 : next };
  }
  return null;
}

/** "or less" / "or more" after a value turns an exact number into a bound. */
export function boundAfter(r: QueryReader, at: number): { operator: 'le' | 'ge'; next: number } | null {
  if (r.lower(at) !== 'or') return null;
  if (r.is(at + 1, ['less', 'lower', 'below', 'fewer', 'smaller', 'under'])) return { operator: 'le', next: at + 2 };
  if (r.is(at + 1, ['more', 'higher', 'above', 'greater', 'larger', 'over'])) return { operator: 'ge', next: at + 2 };
  return null;
}

export interface RangeRead {
  from: number;
  to: number;
  steps: number;
  next: number;
}

/** "from 10 to 20", "between 10 and 20", "10 to 20", each optionally followed by "in 5 steps". */
export function readRange(r: QueryReader, at: number): RangeRead | null {
  let i = r.is(at, ['from', 'between']) ? at + 1 : at;
  const low = r.numberAt(i);
  if (low === null) return null;
  i = low.next;
  if (!r.is(i, ['to', 'and', 'through', 'till', 'until', '-'])) return null;
  const high = r.numberAt(i + 1);
  if (high === null) return null;
  i = high.next;
  let steps = DEFAULT_STEPS;
  const countAt = r.is(i, ['in', 'with', 'using', 'over', 'across', 'at']) ? i + 1 : i;
  const count = r.numberAt(countAt);
  if (count !== null && r.is(count.next, STEP_NOUNS)) {
    if (!Number.isInteger(count.value) || count.value < 2 || count.value > STEPS_MAX) {
      throw unmappable(`a range takes a whole number of steps from 2 to ${STEPS_MAX}, not ${count.value}`);
    }
    steps = count.value;
    i = count.next + 1;
  }
  if (low.value === high.value) throw unmappable(`the range from ${low.value} to ${high.value} is empty; give two different ends`);
  return { from: low.value, to: high.value, steps, next: i };
}

/** "with 90% confidence", "at a 0.9 confidence level", "confidence level of 95%": consumed wherever it is. */
export function readConfidence(r: QueryReader): number | undefined {
  for (let i = 0; i < r.length; i++) {
    if (r.lower(i) !== 'confidence') continue;
    const before = r.numberAt(i - 1);
    const afterAt = r.skip(i + 1, new Set(['level', 'interval', 'of', 'at', '=', ':']));
    const after = before === null ? r.numberAt(afterAt) : null;
    const number = before ?? after;
    if (number === null) continue;
    const level = number.unit === 'percent' || number.value > 1 ? number.value / 100 : number.value;
    if (!(level > 0 && level < 1)) throw unmappable(`a confidence level lies strictly between 0 and 1 (or 0% and 100%), not ${number.value}`);
    const first = before === null ? i : i - 1;
    const last = before === null ? afterAt + 1 : r.is(i + 1, ['level', 'interval']) ? i + 2 : i + 1;
    r.consume(r.is(first - 1, ['with', 'at']) ? first - 1 : first, last);
    return level;
  }
  return undefined;
}
