/** References shared by the families: the columns of given rows, and conditions on variables. */
import type { Condition } from '../../engine/inference/scenario.js';

type Refs = Array<[string, string]>;

/** Every key of any row, located at the rows' member (a missing key in one row is fine; an unknown one is not). */
export function rowReferences(records: Record<string, unknown>[], at: string): Refs {
  const keys = new Set<string>();
  for (const record of records) for (const key of Object.keys(record)) keys.add(key);
  return [...keys].map((key) => [key, at]);
}

export function conditionReferences(list: readonly Pick<Condition, 'variable'>[] | undefined, at: string): Refs {
  return (list ?? []).map((c, i) => [c.variable, `${at}/${i}/variable`]);
}
