/** A DAG to start the score search from: a consistent extension of the PC pattern, or a greedy acyclic one. */
import { consistentExtension, reaches } from '../graph/dag.js';
import { emptyPdag, isDirected, isUndirected, type Pdag, setDirected } from '../graph/pdag.js';
import type { Knowledge } from './knowledge.js';

/**
 * Dor & Tarsi 1992 when the PDAG is extendable and the extension honours the knowledge; otherwise (conflicting
 * v-structures can make a PC pattern non-extendable) required edges first, then directed, then undirected edges,
 * each kept in the first direction that is allowed and creates no cycle.
 */
export function startingDag(pdag: Pdag, knowledge: Knowledge): Pdag {
  const { p } = pdag;
  const extension = consistentExtension(pdag);
  if (extension && honours(extension, knowledge)) return extension;
  const dag = emptyPdag(p);
  const tryAdd = (i: number, j: number): boolean => {
    if (knowledge.forbidden[i * p + j] === 1 || isDirected(dag, j, i) || reaches(dag, j, i)) return false;
    setDirected(dag, i, j);
    return true;
  };
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) if (knowledge.required[i * p + j] === 1) setDirected(dag, i, j);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) if (i !== j && isDirected(pdag, i, j) && !isDirected(dag, i, j)) tryAdd(i, j) || tryAdd(j, i);
  for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) if (isUndirected(pdag, i, j)) tryAdd(i, j) || tryAdd(j, i);
  return dag;
}

function honours(dag: Pdag, knowledge: Knowledge): boolean {
  const { p } = dag;
  for (let k = 0; k < p * p; k++) {
    if (knowledge.required[k] === 1 && dag.m[k] !== 1) return false;
    if (knowledge.forbidden[k] === 1 && dag.m[k] === 1) return false;
  }
  return true;
}
