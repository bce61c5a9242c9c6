/**
 * Row conditions: "region = North", "tenure above 5", "plan in basic or premium", or a bare label ("North") that
 * belongs to exactly one categorical variable. Several join with "and" or ",".
 */
import type { Condition } from '../../engine/inference/scenario.js';
import { unmappable } from './problems.js';
import type { QueryReader } from './reader.js';
import { anyCategoryAt } from './samples.js';
import { comparatorAt, readValue, readValueList } from './values.js';
import { CONDITION_FILLER } from './vocabulary.js';

/** Filler words skipped before a condition ("for customers with ..."); more and it is not a condition. */
const FILLER_MAX = 3;
const STATE_LINKS = new Set(['is', 'are', 'was', 'were']);
const LIST_LINKS = new Set(['=', ':', 'is', 'are', 'in', 'either', 'one', 'of']);

export function readConditions(r: QueryReader, at: number): { conditions: Condition[]; next: number } | null {
  const conditions: Condition[] = [];
  let i = at;
  for (;;) {
    const read = readCondition(r, i);
    if (read === null) break;
    conditions.push(read.condition);
    i = read.next;
    if (!r.is(i, ['and', ','])) break;
    const more = readCondition(r, i + 1);
    if (more === null) break;
    i += 1;
  }
  return conditions.length === 0 ? null : { conditions, next: i };
}

function readCondition(r: QueryReader, at: number): { condition: Condition; next: number } | null {
  let start = at;
  while (start - at < FILLER_MAX && r.is(start, CONDITION_FILLER) && r.mentionAt(start) === undefined) start++;
  const named = r.variableAt(start);
  if (named === null) {
    const labelled = anyCategoryAt(r, start);
    if (labelled === null) return null;
    return { condition: { variable: labelled.variable.name, operator: 'eq', value: labelled.label }, next: labelled.next };
  }
  const { variable } = named;
  const listAt = r.skip(named.next, LIST_LINKS);
  const list = readValueList(r, variable, listAt);
  if (list !== null && list.values.length > 1) return { condition: { variable: variable.name, operator: 'in', value: list.values }, next: list.next };
  const comparison = comparatorAt(r, r.skip(named.next, STATE_LINKS));
  const read = readValue(r, variable, comparison?.next ?? named.next);
  if (read === null) return null;
  const operator = comparison?.operator ?? 'eq';
  if (variable.type === 'categorical' && operator !== 'eq' && operator !== 'ne') {
    throw unmappable(`${variable.name} is categorical: a condition on it is "=", "not" or "in", not an ordering`);
  }
  return { condition: { variable: variable.name, operator, value: read.value }, next: read.next };
}
