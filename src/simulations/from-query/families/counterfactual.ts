/**
 * What would it take: "what would it take for churn to be below 0.1 for a customer with price 30, tenure 5".
 * Targets are a variable with a wanted value ("churn to be below 0.1" -> orLess; "revenue to reach 1000 or more"
 * -> orMore; "revenue to be 1000 within 50" -> tolerance); the other values given are the unit's baseline row.
 */
import type { CounterfactualScenario, CounterfactualTarget } from '../../../engine/inference/scenario.js';
import { readFixed, readLeverCount } from '../bounds.js';
import { describeRow } from '../describe.js';
import { unknownCategory, unmappable } from '../problems.js';
import type { QueryReader } from '../reader.js';
import { assertNumbersClaimed, readSamples } from '../samples.js';
import { boundAfter, comparatorAt, readValue } from '../values.js';
import { MODAL_WORDS } from '../vocabulary.js';
import type { Parsed } from './parsed.js';

const ASKS = ['would it take', 'will it take', 'does it take', 'need to change', 'needs to change', 'have to change', 'has to change', 'must change', 'should change', 'what change', 'what changes', 'best action', 'best actions'];
const REACH_VERBS = new Set(['get', 'reach', 'achieve', 'hit', 'bring', 'push', 'make', 'take']);
/** Between a target variable and its wanted value: "churn to be", "revenue to reach", "latency to fall". */
const TARGET_LINKS = new Set(['to', 'be', 'is', 'get', 'gets', 'reach', 'reaches', 'go', 'goes', 'fall', 'falls', 'drop', 'drops', 'stay', 'stays', 'remain', 'remains', 'come', 'end', 'become', 'becomes', 'down', 'up', 'rise', 'rises', 'climb']);
const VALUE_LINKS = new Set(['of', 'at', '=', ':']);

export function parseCounterfactual(r: QueryReader): Parsed<CounterfactualScenario> | null {
  const ask = readAsk(r, ASKS);
  if (ask === null) return null;
  const { targets, maxChanges, fixed } = ask;
  const samples = readSamples(r);
  assertNumbersClaimed(r);
  if (samples.length === 0) {
    const target = targets[0]!.variable;
    const other = r.context.variables.find((v) => v.type === 'continuous' && v.name !== target)?.name ?? 'x';
    throw unmappable(`A what-would-it-take question needs the current values of the unit to change, e.g. "what would it take for ${target} to be ${String(targets[0]!.value)} for ${other} 30"`);
  }
  const scenario: CounterfactualScenario = { type: 'counterfactual', samples, targets };
  if (maxChanges !== undefined) scenario.maxChanges = maxChanges;
  if (fixed.length > 0) scenario.constraints = Object.fromEntries(fixed.map((name) => [name, { type: 'fixed' as const }]));
  const wanted = targets.map(describeTarget).join(' and ');
  const held = fixed.length > 0 ? `, keeping ${fixed.join(', ')} fixed` : '';
  return { scenario, interpretation: `Find the fewest changes that bring ${wanted} for ${samples.map(describeRow).join('; ')}${held}.` };
}

/**
 * A what-would-it-take question (one of `phrases`, or "how could we reach ..."): its targets, the most changes
 * and the variables held fixed; null when the query asks no such thing.
 */
export function readAsk(r: QueryReader, phrases: readonly string[]): { targets: CounterfactualTarget[]; maxChanges: number | undefined; fixed: string[] } | null {
  if (!asks(r, phrases)) return null;
  const targets: CounterfactualTarget[] = [];
  for (const mention of [...r.mentions]) {
    if (r.isConsumed(mention.start)) continue;
    const target = targetAt(r, mention.start, mention.end);
    if (target === null) continue;
    targets.push(target.target);
    r.consume(r.is(mention.start - 1, REACH_VERBS) ? mention.start - 1 : mention.start, target.next);
  }
  if (targets.length === 0) return null;
  return { targets, maxChanges: readLeverCount(r), fixed: readFixed(r) };
}

function asks(r: QueryReader, phrases: readonly string[]): boolean {
  for (let i = 0; i < r.length; i++) {
    if (phrases.some((phrase) => r.phrase(i, phrase) !== -1)) return true;
    if (r.is(i, 'how') && r.is(i + 1, MODAL_WORDS) && r.is(i + 2, ['we', 'i', 'you']) && r.is(i + 3, REACH_VERBS)) return true;
  }
  return false;
}

function targetAt(r: QueryReader, start: number, end: number): { target: CounterfactualTarget; next: number } | null {
  const variable = r.variableAt(start)?.variable;
  if (variable === undefined) return null;
  const reached = r.is(start - 1, REACH_VERBS);
  const k = r.skip(end, TARGET_LINKS);
  const comparison = comparatorAt(r, k);
  const valueAt = comparison?.next ?? k;
  if (!reached && k === end && comparison === null) return null;
  const read = readValue(r, variable, valueAt, VALUE_LINKS);
  if (read === null) {
    if (variable.type === 'categorical' && r.contentAfter(r.skip(valueAt, VALUE_LINKS)) !== null) {
      throw unknownCategory(variable.name, r.contentAfter(r.skip(valueAt, VALUE_LINKS))!.phrase, variable.categories ?? []);
    }
    return null;
  }
  let operator = comparison?.operator ?? 'eq';
  let next = read.next;
  const bound = boundAfter(r, next);
  if (bound !== null) {
    operator = bound.operator;
    next = bound.next;
  }
  const target: CounterfactualTarget = { variable: variable.name, value: read.value };
  if (variable.type === 'categorical') {
    if (operator !== 'eq') throw unmappable(`${variable.name} is categorical: a target on it is one of its categories, not a bound`);
    return { target, next };
  }
  if (operator === 'ne') throw unmappable(`a target is a value, a minimum or a maximum, not "not equal to" (${variable.name})`);
  if (operator === 'lt' || operator === 'le') target.matchMode = 'orLess';
  if (operator === 'gt' || operator === 'ge') target.matchMode = 'orMore';
  const toleranceAt = r.is(next, 'within') || r.is(next, '±') ? next + 1 : r.phrase(next, 'plus or minus');
  const tolerance = operator === 'eq' && toleranceAt !== -1 ? r.numberAt(toleranceAt) : null;
  if (tolerance !== null) {
    target.matchMode = 'tolerance';
    target.toleranceValue = Math.abs(tolerance.value);
    next = tolerance.next;
  }
  return { target, next };
}

export function describeTarget(target: CounterfactualTarget): string {
  const wanted = String(target.value);
  switch (target.matchMode) {
    case 'orLess':
      return `${target.variable} to ${wanted} or less`;
    case 'orMore':
      return `${target.variable} to ${wanted} or more`;
    case 'tolerance':
      return `${target.variable} to ${wanted} ± ${target.toleranceValue}`;
    default:
      return `${target.variable} to ${wanted}`;
  }
}
