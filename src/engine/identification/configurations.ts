/**
 * The DAGs of a class that differ where an effect is decided: the parent sets the intervened nodes can have
 * (IDA, Maathuis, Kalisch & Bühlmann 2009; joint-IDA for several interventions, Nandy, Maathuis & Richardson
 * 2017). A candidate orients every undirected edge at the intervened nodes, Meek's rules propagate it, and it is
 * kept only when a DAG of the class extends it (Dor & Tarsi 1992) with the class's own v-structures: the global
 * check, which stays exact with background knowledge where the local one does not (Perković et al. 2017).
 */
import { cpdagOfDag } from '../graph/cpdag.js';
import { consistentExtension } from '../graph/dag.js';
import { applyMeekRules } from '../graph/meek.js';
import { clonePdag, isDirected, isUndirected, type Pdag, sameMarks, setDirected } from '../graph/pdag.js';

/** Candidate orientations examined at most (products of sibling subsets), and DAGs kept at most. */
const MAX_CANDIDATES = 1024;
const MAX_CONFIGURATIONS = 64;

export interface Configuration {
  /** A DAG of the class. */
  dag: Pdag;
  /** Per intervened node (aligned with `xs`), whether each undirected neighbour became its parent. */
  parentOf: Map<string, boolean>;
}

export interface Configurations {
  configurations: Configuration[];
  /** true when the candidates or the configurations ran past their caps (the list is then a subset). */
  truncated: boolean;
}

/** Key of an undirected pair x - s as "x,s" (x intervened). */
export const pairKey = (x: number, s: number) => `${x},${s}`;

/**
 * The distinct orientations of the undirected edges at `xs` that some DAG of the class (`restricted`, with the
 * v-structures of `reference`'s CPDAG) realises, each with one such DAG.
 */
export function parentConfigurations(restricted: Pdag, reference: Pdag, xs: readonly number[]): Configurations {
  const { p } = restricted;
  const pairs: [number, number][] = [];
  const seen = new Set<string>();
  for (const x of xs) for (let s = 0; s < p; s++) {
    if (s === x || !isUndirected(restricted, x, s)) continue;
    const key = s < x ? `${s},${x}` : `${x},${s}`;
    if (seen.has(key)) continue; // an edge between two intervened nodes is one choice, not two
    seen.add(key);
    pairs.push([x, s]);
  }
  const skeletonClass = cpdagOfDag(reference);
  const candidates = Math.min(2 ** pairs.length, MAX_CANDIDATES);
  const out: Configuration[] = [];
  for (let mask = 0; mask < candidates && out.length < MAX_CONFIGURATIONS; mask++) {
    const g = clonePdag(restricted);
    pairs.forEach(([x, s], k) => (bit(mask, k) ? setDirected(g, s, x) : setDirected(g, x, s)));
    applyMeekRules(g, true);
    if (!pairs.every(([x, s], k) => (bit(mask, k) ? isDirected(g, s, x) : isDirected(g, x, s)))) continue;
    const dag = consistentExtension(g);
    if (dag === null || !sameMarks(cpdagOfDag(dag), skeletonClass)) continue;
    const parentOf = new Map<string, boolean>();
    pairs.forEach(([x, s], k) => {
      const parent = bit(mask, k);
      parentOf.set(pairKey(x, s), parent);
      parentOf.set(pairKey(s, x), !parent); // read from s's side when s is intervened too
    });
    out.push({ dag, parentOf });
  }
  return { configurations: out, truncated: 2 ** pairs.length > candidates || out.length >= MAX_CONFIGURATIONS };
}

/** Bit k of the candidate number; pairs past the cap keep one orientation (the candidates are then a subset). */
const bit = (mask: number, k: number) => k < 30 && ((mask >> k) & 1) === 1;
