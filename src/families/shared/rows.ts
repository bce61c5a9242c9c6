/** References shared by the families: the columns of given rows, and conditions on variables. */
import type { Condition } from '../../engine/inference/scenario.js';

type Refs = Array<[string, string]>;

/** Every key of any row, located at the rows' member (a missing key in one row is fine; an unknown one is not). */
export function rowReferences(records: Record<string, unknown>[], at: string): Refs {
  const keys = new Set<string>();
  for (const record of records) for (const key in record) keys.add(key);
  return [...keys].map((key) => [key, at]);
}

export function conditionReferences(list: readonly Pick<Condition, 'variable'>[] | undefined, at: string): Refs {
  return (list ?? []).map((c, i) => [c.variable, `${at}/${i}/variable`]);
}

/** A list of variables that names one twice is refused at its member. */
export function distinctNames(names: readonly string[] | undefined, location: string): Array<{ location: string; message: string }> {
  return names === undefined || new Set(names).size === names.length ? [] : [{ location, message: 'a variable is named twice' }];
}

/** Each listed variable, located by its index. */
export const listReferences = (names: readonly string[] | undefined, at: string): Array<[string, string]> => (names ?? []).map((v, i) => [v, `${at}/${i}`]);
