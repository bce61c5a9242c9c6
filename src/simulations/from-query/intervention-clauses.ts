/**
 * One change clause of a what-if, in its three word orders:
 * verb first ("increase marketing spend by 2000", "set region to North", "raise the probability of plan = premium
 * by 10 points", "vary price from 10 to 20"), variable first ("price rises 10%", "discount is set to 5", "price
 * doubles", "price ranges from 10 to 20", "what if discount is 5") and number first ("a 10% increase in price").
 */
import type { Intervention, ValueSpec } from '../../engine/inference/scenario.js';
import { unknownCategory, unmappable } from './problems.js';
import type { NumberRead, QueryReader, QueryVariable } from './reader.js';
import { anyCategoryAt } from './samples.js';
import { expectContinuous, expectValue, readRange, readValue } from './values.js';
import * as words from './vocabulary.js';

export interface ClauseState {
  r: QueryReader;
  /** Unknown names found where a changed variable belonged. */
  misses: string[];
  /** Whether "price is 12" here is a setting (inside an if-clause of a query that is not a prediction). */
  statesAreSettings(at: number): boolean;
}

export interface Clause {
  interventions: Intervention[];
  next: number;
}

const SET_LINKS = ['to', '=', 'at', 'as', ':'];
const STATE_LINKS = new Set(['=', ':', 'equal', 'equals', 'to', 'at']);

export function verbFirst(s: ClauseState, at: number): Clause | null {
  const { r } = s;
  const verb = r.lower(at);
  if (r.is(at, words.ADD_VERBS)) return addClause(s, at);
  const sign = r.is(at, words.RAISE_VERBS) ? 1 : r.is(at, words.LOWER_VERBS) ? -1 : 0;
  const scale = words.SCALE_VERBS[verb];
  const isSet = r.is(at, words.SET_VERBS);
  const isSweep = r.is(at, words.SWEEP_VERBS);
  if (sign === 0 && scale === undefined && !isSet && !isSweep) return null;
  const target = r.skip(at + 1, words.DETERMINERS);
  if (r.is(target, words.PROBABILITY_NOUNS) && r.is(target + 1, ['of', 'that', 'for'])) return probabilityClause(s, sign, target + 2);
  const subjects = readSubjects(r, at + 1);
  if (subjects === null) {
    noteMiss(s, r.contentAfter(at + 1));
    return null;
  }
  const k = subjects.next;
  if (scale !== undefined) return clause(subjects.variables, percentage(scale), k);
  if (sign !== 0) {
    const by = r.is(k, ['by', 'of']) ? r.numberAt(k + 1) : null;
    if (by !== null) return clause(subjects.variables, relative(by, sign), by.next);
    // "increase price from 10 to 12": the new value is the one after "to".
    if (r.is(k, 'from') && r.numberAt(k + 1) !== null && r.is(k + 2, 'to')) return setClause(r, subjects.variables, k + 3, 'to');
    if (r.is(k, 'to')) return setClause(r, subjects.variables, k + 1, 'to');
    const bare = r.numberAt(k);
    if (bare !== null) return clause(subjects.variables, relative(bare, sign), bare.next);
    const name = subjects.variables.map((v) => v.name).join(' and ');
    r.hints.push(`say by how much ${name} should change, e.g. "${sign > 0 ? 'increase' : 'decrease'} ${name} by 10%"`);
    return null;
  }
  if (isSet || isSweep) {
    const range = readRange(r, r.is(k, 'to') && r.is(k + 1, ['between', 'from']) ? k + 1 : k);
    if (range !== null && (r.is(k, ['from', 'between', 'to']) || isSweep)) return clause(subjects.variables, rangeSpec(subjects.variables, range), range.next);
    if (isSet && r.is(k, 'by')) {
      const by = r.numberAt(k + 1);
      if (by !== null) return clause(subjects.variables, relative(by, 1), by.next);
    }
    const link = r.phrase(k, 'equal to') !== -1 ? k + 2 : r.is(k, SET_LINKS) ? k + 1 : -1;
    if (isSet && link !== -1) return setClause(r, subjects.variables, link, r.lower(k));
    // "make region East": the value right after the variable.
    const bare = isSet && subjects.variables.length === 1 ? readValue(r, subjects.variables[0]!, k, new Set()) : null;
    if (bare !== null) return { interventions: [{ variable: subjects.variables[0]!.name, valueSpec: { type: 'set_value', value: bare.value } }], next: bare.next };
  }
  return null;
}

/** "what if all customers were on the premium plan": a category label as the new state, inside an if-clause. */
export function labelFirst(s: ClauseState, at: number): Clause | null {
  const { r } = s;
  const labelled = anyCategoryAt(r, at);
  if (labelled === null || !s.statesAreSettings(at)) return null;
  let before = at - 1;
  while (before >= 0 && (r.is(before, words.DETERMINERS) || r.is(before, ['on', 'in', 'at', 'all']))) before--;
  if (!r.is(before, ['is', 'are', 'was', 'were', 'be', 'became', 'become'])) return null;
  return { interventions: [{ variable: labelled.variable.name, valueSpec: { type: 'set_value', value: labelled.label } }], next: labelled.next };
}

export function variableFirst(s: ClauseState, at: number): Clause | null {
  const { r } = s;
  const subjects = readSubjects(r, at);
  if (subjects === null) return null;
  const { variables } = subjects;
  const k = subjects.next;
  if (r.is(k, words.BECOME_VERBS) && r.is(k + 1, 'to')) return setClause(r, variables, k + 2, 'to');
  const j = r.skip(k, words.AUXILIARIES);
  const scale = words.SCALE_VERBS[r.lower(j)];
  if (scale !== undefined) return clause(variables, percentage(scale), j + 1);
  if (r.is(j, words.SET_VERBS) && r.is(j + 1, SET_LINKS)) return setClause(r, variables, j + 2, r.lower(j + 1));
  const rangeAt = r.is(j, words.SWEEP_VERBS) || r.is(j, words.BECOME_VERBS) ? j + 1 : j;
  const range = r.is(rangeAt, ['from', 'between']) ? readRange(r, rangeAt) : null;
  if (range !== null) return clause(variables, rangeSpec(variables, range), range.next);
  if (r.is(j, ['change', 'changes', 'changed', 'moves', 'move', 'shifts', 'shift']) && r.is(j + 1, 'by')) {
    const by = r.numberAt(j + 2);
    if (by !== null) return clause(variables, relative(by, 1), by.next);
  }
  const direction = r.is(j, words.RISE_VERBS) ? 1 : r.is(j, words.FALL_VERBS) ? -1 : 0;
  const upDown = r.is(j + 1, ['up', 'down']) && r.is(j, ['go', 'goes', 'went', 'going']) ? (r.lower(j + 1) === 'up' ? 1 : -1) : 0;
  if (direction !== 0 || upDown !== 0) {
    const after = upDown !== 0 ? j + 2 : j + 1;
    const amount = r.numberAt(r.is(after, ['by', 'of']) ? after + 1 : after);
    if (amount !== null) return clause(variables, relative(amount, direction || upDown), amount.next);
    if (r.is(after, 'to')) return setClause(r, variables, after + 1, 'to');
    return null;
  }
  const amount = r.numberAt(j);
  const comparative = amount === null ? 0 : r.is(amount.next, words.RISE_VERBS) ? 1 : r.is(amount.next, words.FALL_VERBS) ? -1 : 0;
  if (amount !== null && comparative !== 0) return clause(variables, relative(amount, comparative), amount.next + 1);
  const linked = j > k || r.is(k, STATE_LINKS);
  if (linked && s.statesAreSettings(at)) {
    const value = readValue(r, variables[0]!, j, STATE_LINKS);
    if (value !== null && variables.length === 1) return { interventions: [{ variable: variables[0]!.name, valueSpec: { type: 'set_value', value: value.value } }], next: value.next };
  }
  return null;
}

/** "a 10% price increase", "a 10% increase in price". */
export function numberFirst(s: ClauseState, at: number): Clause | null {
  const { r } = s;
  const amount = r.numberAt(at);
  if (amount === null) return null;
  const sign = (i: number) => (r.is(i, words.RISE_NOUNS) ? 1 : r.is(i, words.FALL_NOUNS) ? -1 : 0);
  const before = readSubjects(r, amount.next);
  if (before !== null && sign(before.next) !== 0) return clause(before.variables, relative(amount, sign(before.next)), before.next + 1);
  if (sign(amount.next) !== 0 && r.is(amount.next + 1, ['in', 'of', 'to', 'on'])) {
    const after = readSubjects(r, amount.next + 2);
    if (after !== null) return clause(after.variables, relative(amount, sign(amount.next)), after.next);
  }
  return null;
}

/** A change verb whose subject is no variable ("what if cost rises 10%"): the subject is an unknown name. */
export function noteUnknownSubject(s: ClauseState, at: number): void {
  const { r } = s;
  const changes = r.is(at, words.RISE_VERBS) || r.is(at, words.FALL_VERBS) || words.SCALE_VERBS[r.lower(at)] !== undefined;
  const setTo = r.is(at, words.SET_VERBS) && r.is(at + 1, SET_LINKS);
  const ranges = r.is(at, words.SWEEP_VERBS) && r.is(at + 1, ['from', 'between']);
  if (!changes && !setTo && !ranges) return;
  if (changes && words.SCALE_VERBS[r.lower(at)] === undefined && !amountFollows(r, at + 1)) return;
  let end = at;
  while (end > 0 && r.is(end - 1, words.AUXILIARIES)) end--;
  const phrase = r.contentBefore(end);
  if (phrase !== null) s.misses.push(phrase);
}

function addClause(s: ClauseState, at: number): Clause | null {
  const { r } = s;
  const amount = r.numberAt(at + 1);
  if (amount === null || !r.is(amount.next, 'to')) return null;
  const subjects = readSubjects(r, amount.next + 1);
  if (subjects === null) {
    noteMiss(s, r.contentAfter(amount.next + 1));
    return null;
  }
  return clause(subjects.variables, relative(amount, 1), subjects.next);
}

/** "the probability of plan = premium", "the share of premium plans": a category to make more or less likely. */
function probabilityClause(s: ClauseState, sign: number, at: number): Clause | null {
  const { r } = s;
  const named = r.variableAt(at);
  let variable: QueryVariable;
  let category: string;
  let k: number;
  if (named !== null) {
    variable = named.variable;
    if (variable.type !== 'categorical') throw unmappable(`a probability applies to a category of a categorical variable; ${variable.name} is continuous`);
    const labelAt = r.skip(named.next, new Set(['=', ':', 'is', 'being', 'equal', 'to', 'equals', 'of']));
    const label = r.categoryAt(labelAt, variable);
    if (label === null) throw unknownCategory(variable.name, r.contentAfter(labelAt)?.phrase ?? r.text(labelAt, labelAt + 1), variable.categories ?? []);
    category = label.label;
    k = label.next;
  } else {
    const labelled = anyCategoryAt(r, r.skip(at, words.DETERMINERS));
    if (labelled === null) {
      noteMiss(s, r.contentAfter(at));
      return null;
    }
    variable = labelled.variable;
    category = labelled.label;
    k = labelled.next;
  }
  const to = r.is(k, 'to') ? r.numberAt(k + 1) : null;
  if (to !== null) return clause([variable], { type: 'set_probability', category, probability: probabilityOf(to) }, to.next);
  const by = r.numberAt(r.is(k, 'by') ? k + 1 : k);
  if (by === null || sign === 0) return null;
  const delta = sign * (by.unit === null && Math.abs(by.value) < 1 ? by.value * 100 : by.value);
  if (Math.abs(delta) > 100) throw unmappable(`a probability moves by at most 100 percentage points, not ${Math.abs(delta)}`);
  return clause([variable], { type: 'adjust_probability', category, delta }, by.next);
}

/** One variable, or several joined by "and" / "," ("increase price and discount by 10%"). */
function readSubjects(r: QueryReader, at: number): { variables: QueryVariable[]; next: number } | null {
  const first = r.variableAt(at);
  if (first === null) return null;
  const variables = [first.variable];
  let next = first.next;
  for (;;) {
    const joiner = r.is(next, [',']) && r.is(next + 1, ['and']) ? next + 2 : r.is(next, [',', 'and']) ? next + 1 : -1;
    const more = joiner === -1 ? null : r.variableAt(joiner);
    if (more === null) break;
    variables.push(more.variable);
    next = more.next;
  }
  return { variables, next };
}

function clause(variables: QueryVariable[], spec: ValueSpec, next: number): Clause {
  for (const variable of variables) {
    if (spec.type === 'relative_change') expectContinuous(variable, 'a relative change');
    if (spec.type === 'range') expectContinuous(variable, 'a range');
  }
  return { interventions: variables.map((v) => ({ variable: v.name, valueSpec: spec })), next };
}

/** "set price and discount to 5": each variable reads the value at `at` for its own type. */
function setClause(r: QueryReader, variables: QueryVariable[], at: number, after: string): Clause {
  const reads = variables.map((variable) => ({ variable, read: expectValue(r, variable, at, after) }));
  return {
    interventions: reads.map(({ variable, read }) => ({ variable: variable.name, valueSpec: { type: 'set_value', value: read.value } })),
    next: reads[reads.length - 1]!.read.next,
  };
}

function rangeSpec(variables: QueryVariable[], range: { from: number; to: number; steps: number }): ValueSpec {
  if (variables.length > 1) throw unmappable(`a scenario sweeps at most one variable; ${variables.map((v) => v.name).join(' and ')} were given one range`);
  return { type: 'range', from: range.from, to: range.to, steps: range.steps };
}

function relative(amount: NumberRead, sign: number): ValueSpec {
  return { type: 'relative_change', mode: amount.unit === 'percent' ? 'percentage' : 'absolute', value: sign * amount.value };
}

function percentage(value: number): ValueSpec {
  return { type: 'relative_change', mode: 'percentage', value };
}

function probabilityOf(amount: NumberRead): number {
  const p = amount.unit !== null || amount.value > 1 ? amount.value / 100 : amount.value;
  if (!(p >= 0 && p <= 1)) throw unmappable(`a probability lies between 0 and 1 (or 0% and 100%), not ${amount.value}`);
  return p;
}

/** Records an unknown name in a changed variable's place, when an amount follows it (so it reads as a what-if). */
function noteMiss(s: ClauseState, content: { phrase: string; next: number } | null): void {
  if (content === null) return;
  if (s.r.is(content.next, ['by', 'to', 'from', 'between']) || amountFollows(s.r, content.next)) s.misses.push(content.phrase);
}

function amountFollows(r: QueryReader, at: number): boolean {
  return r.numberAt(r.is(at, ['by', 'of', 'to']) ? at + 1 : at) !== null;
}
