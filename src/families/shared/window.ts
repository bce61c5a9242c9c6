/** Windows of observations given with a temporal question: their columns name variables (or the time), their times read in order. */
import { recordTimes, timeKeys } from '../../engine/temporal/window.js';
import type { QuestionContext, ScenarioError } from '../family.js';
import { rowReferences } from './rows.js';

type Records = Record<string, unknown>[];

const timeKeysOf = (context: QuestionContext) => timeKeys(context.time?.column);

/** Every key of the records except the time (the twin's time column or `timestamp`). */
export function windowReferences(records: Records | undefined, at: string, context: QuestionContext): Array<[string, string]> {
  const keys = new Set(timeKeysOf(context));
  return rowReferences(records ?? [], at).filter(([key]) => !keys.has(key));
}

/** Times readable, on every record or none, strictly increasing; and an index member within the records. */
export function windowRules(records: Records | undefined, at: string, context: QuestionContext, indices: Array<[number | undefined, string]> = []): ScenarioError[] {
  if (records === undefined) return [];
  const { problem } = recordTimes(records as Parameters<typeof recordTimes>[0], timeKeysOf(context));
  return [
    ...(problem === null ? [] : [{ location: `${at}${problem.location}`, message: problem.message }]),
    ...indices.filter(([index]) => index !== undefined && index >= records.length).map(([index, location]) => ({ location, message: `${index} is past the last record of ${at.slice(1)} (${records.length - 1})` })),
  ];
}
