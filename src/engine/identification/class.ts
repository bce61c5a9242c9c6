/**
 * What the data decided about a DAG's edges. Every DAG of one Markov equivalence class fits observational data
 * equally well; the class is the DAG's CPDAG (essential graph, Meek 1995; Andersson, Madigan & Perlman 1997).
 * Background knowledge (edges pinned or forbidden in the fixed graph) narrows it to a maximally oriented PDAG,
 * closed under Meek's rules R1-R4 (Meek 1995; Perković, Kalisch & Maathuis 2017).
 */
import { buildKnowledge } from '../discovery/knowledge.js';
import { applyKnowledge } from '../discovery/orient-pc.js';
import { cpdagOfDag } from '../graph/cpdag.js';
import { applyMeekRules } from '../graph/meek.js';
import { clonePdag, isDirected, type Pdag, pdagFromEdges, setDirected } from '../graph/pdag.js';
import type { EdgeRef } from '../types.js';

/**
 * How an edge's direction was decided: `compelled` by the data (a v-structure, or Meek's rules from one),
 * `fixed` by the fixed graph (pinned there, or forced by pinned and forbidden edges through Meek's rules),
 * `assumed` by an extra assumption (non-gaussian.ts: those it oriented and what Meek's rules derive from them), or
 * `reversible` (the data fit the opposite direction equally well; the search chose this one).
 */
export type Orientation = 'compelled' | 'fixed' | 'assumed' | 'reversible';

export interface BackgroundKnowledge {
  required: readonly EdgeRef[];
  forbidden: readonly EdgeRef[];
}

export interface RestrictedClass {
  /** The DAG itself. */
  dag: Pdag;
  /** Its CPDAG: what the data alone decide. */
  data: Pdag;
  /** The CPDAG narrowed by the background knowledge: the class the answers range over. */
  restricted: Pdag;
}

/**
 * The equivalence class of a DAG over `names`, narrowed by knowledge on those names (others are ignored).
 * `exogenous` names variables nothing causes by design (a panel's environment indicator, CD-NOD, Huang et al.
 * 2020): what their edges orient counts as decided by the data, not by the fixed graph.
 */
export function restrictedClass(names: string[], edges: readonly EdgeRef[], background: BackgroundKnowledge, exogenous: readonly string[] = []): RestrictedClass {
  const known = new Set(names);
  const within = (e: EdgeRef) => known.has(e.source) && known.has(e.target);
  const dag = pdagFromEdges(names, edges.map((e) => ({ source: e.source, target: e.target, directed: true })));
  const data = cpdagOfDag(dag);
  if (exogenous.length > 0) {
    const into = exogenous.flatMap((x) => names.filter((n) => n !== x).map((n) => ({ source: n, target: x })));
    applyKnowledge(data, buildKnowledge(names, [], into));
    applyMeekRules(data, true);
  }
  const restricted = clonePdag(data);
  applyKnowledge(restricted, buildKnowledge(names, background.required.filter(within), background.forbidden.filter(within)));
  applyMeekRules(restricted, true);
  return { dag, data, restricted };
}

/**
 * The orientation of each edge of a DAG (aligned with `edges`). `assumed` lists the edges an assumption oriented;
 * those the DAG does not have as given (the fixed graph overrode them since) are ignored.
 */
export function edgeOrientations(names: string[], edges: readonly EdgeRef[], background: BackgroundKnowledge, assumed: readonly EdgeRef[] = [], exogenous: readonly string[] = []): Orientation[] {
  const index = new Map(names.map((n, i) => [n, i]));
  const key = (e: EdgeRef) => `${e.source}\u0000${e.target}`;
  const pinned = new Set(background.required.map(key));
  const { dag, data, restricted } = restrictedClass(names, edges, background, exogenous);
  const withAssumptions = clonePdag(restricted);
  for (const e of assumed) {
    const [i, j] = [index.get(e.source), index.get(e.target)];
    if (i !== undefined && j !== undefined && isDirected(dag, i, j) && !isDirected(restricted, j, i)) setDirected(withAssumptions, i, j);
  }
  applyMeekRules(withAssumptions, true);
  return edges.map((e) => {
    const i = index.get(e.source)!;
    const j = index.get(e.target)!;
    if (pinned.has(key(e))) return 'fixed';
    if (isDirected(data, i, j)) return 'compelled';
    if (isDirected(restricted, i, j)) return 'fixed';
    return isDirected(withAssumptions, i, j) ? 'assumed' : 'reversible';
  });
}
