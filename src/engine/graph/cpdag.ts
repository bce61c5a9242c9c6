/** The Markov equivalence class of a DAG as its CPDAG (essential graph). */
import { applyMeekRules } from './meek.js';
import { adjacent, emptyPdag, isDirected, type Pdag, type PdagEdge, pdagFromEdges, pdagToEdges, setDirected, setUndirected } from './pdag.js';
import type { EdgeRef } from '../types.js';

/**
 * CPDAG of a DAG: keep the skeleton and the v-structures, then close under Meek's rules R1-R3, which yields the
 * essential graph (Meek 1995, Theorem 2; Andersson, Madigan & Perlman 1997).
 */
export function cpdagOfDag(dag: Pdag): Pdag {
  const { p } = dag;
  const out = emptyPdag(p);
  for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) if (adjacent(dag, i, j)) setUndirected(out, i, j);
  for (let c = 0; c < p; c++) {
    for (let a = 0; a < p; a++) {
      if (!isDirected(dag, a, c)) continue;
      for (let b = a + 1; b < p; b++) {
        if (isDirected(dag, b, c) && !adjacent(dag, a, b)) {
          setDirected(out, a, c);
          setDirected(out, b, c);
        }
      }
    }
  }
  applyMeekRules(out);
  return out;
}

/** The CPDAG of a named DAG; `nodes` fixes the node set (isolated nodes included). */
export function dagToCpdag(nodes: string[], edges: readonly EdgeRef[]): PdagEdge[] {
  const dag = pdagFromEdges(nodes, edges.map((e) => ({ source: e.source, target: e.target, directed: true })));
  return pdagToEdges(nodes, cpdagOfDag(dag));
}
