/** Background knowledge (required and forbidden directed edges) as p x p masks, checked for consistency. */
import { AppError } from '../../errors.js';
import { hasDirectedCycle } from '../graph/dag.js';
import type { EdgeRef } from '../types.js';

export interface Knowledge {
  /** 1 at i * p + j: the edge i -> j must be in the DAG. */
  required: Uint8Array;
  /** 1 at i * p + j: the edge i -> j may not be in the DAG. */
  forbidden: Uint8Array;
}

export function buildKnowledge(names: string[], required: readonly EdgeRef[] = [], forbidden: readonly EdgeRef[] = []): Knowledge {
  const p = names.length;
  const index = new Map(names.map((name, i) => [name, i]));
  const locate = (e: EdgeRef, what: string): [number, number] => {
    const i = index.get(e.source);
    const j = index.get(e.target);
    if (i === undefined || j === undefined) throw new AppError('validation_failed', `${what} edge ${e.source} -> ${e.target} names a column that is not in the data`);
    if (i === j) throw new AppError('validation_failed', `${what} edge ${e.source} -> ${e.target} is a self-loop`);
    return [i, j];
  };
  const knowledge: Knowledge = { required: new Uint8Array(p * p), forbidden: new Uint8Array(p * p) };
  for (const e of forbidden) {
    const [i, j] = locate(e, 'forbidden');
    knowledge.forbidden[i * p + j] = 1;
  }
  for (const e of required) {
    const [i, j] = locate(e, 'required');
    if (knowledge.forbidden[i * p + j] === 1) throw new AppError('validation_failed', `edge ${e.source} -> ${e.target} is both required and forbidden`);
    if (knowledge.required[j * p + i] === 1) throw new AppError('validation_failed', `required edges ${e.source} -> ${e.target} and ${e.target} -> ${e.source} form a cycle`);
    knowledge.required[i * p + j] = 1;
    knowledge.forbidden[j * p + i] = 1; // a required edge rules out its reverse
  }
  if (hasDirectedCycle({ p, m: knowledge.required })) throw new AppError('validation_failed', 'the required edges form a directed cycle');
  return knowledge;
}

/** Symmetric masks for the skeleton: pairs pinned adjacent, and pairs forbidden in both directions. */
export function skeletonMasks(knowledge: Knowledge, p: number): { pinned: Uint8Array; excluded: Uint8Array } {
  const pinned = new Uint8Array(p * p);
  const excluded = new Uint8Array(p * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) {
    if (knowledge.required[i * p + j] === 1 || knowledge.required[j * p + i] === 1) pinned[i * p + j] = 1;
    if (knowledge.forbidden[i * p + j] === 1 && knowledge.forbidden[j * p + i] === 1) excluded[i * p + j] = 1;
  }
  return { pinned, excluded };
}
