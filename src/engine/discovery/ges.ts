/**
 * Greedy equivalence search (Chickering 2002, "Optimal structure identification with greedy search"): a forward
 * phase of Insert(X, Y, T) and a backward phase of Delete(X, Y, H) operators over CPDAGs, each step taking the
 * valid operator with the largest BIC gain, the class rebuilt after each step (Dor & Tarsi extension, then the
 * CPDAG of that DAG). Operators are restricted to candidate pairs; gains are computed first and validity is
 * checked lazily, best gain first, so the costly path test runs a few times per step instead of for every operator.
 */
import { consistentExtension } from '../graph/dag.js';
import { cpdagOfDag } from '../graph/cpdag.js';
import { adjacent, isDirected, isUndirected, type Pdag, removeEdge, setDirected } from '../graph/pdag.js';
import type { WorkBudget } from './budget.js';
import type { LocalScorer } from './local-score.js';

export interface GesOptions {
  /** Symmetric p x p: 1 = an edge may join the pair. */
  candidates: Uint8Array;
  /** p x p: 1 at x * p + y = inserting x -> y is not allowed. */
  forbidden: Uint8Array;
  /** Symmetric p x p: 1 = the pair's edge may never be deleted. */
  pinned: Uint8Array;
  /** Starting CPDAG. */
  start: Pdag;
  budget: WorkBudget;
  /** Largest T or H subset tried per operator (the number of subsets is otherwise exponential in the degree). */
  maxSubset?: number;
  progressSpan?: [number, number];
}

export interface GesResult {
  cpdag: Pdag;
  steps: number;
  timedOut: boolean;
}

interface Operator {
  kind: 'insert' | 'delete';
  x: number;
  y: number;
  /** T (insert) or H (delete). */
  set: number[];
  /** NA_YX: undirected neighbours of y adjacent to x. */
  na: number[];
  gain: number;
}

export function greedyEquivalenceSearch(p: number, scorer: LocalScorer, options: GesOptions): GesResult {
  let g: Pdag = { p, m: options.start.m.slice() };
  const maxSubset = options.maxSubset ?? 4;
  const [from, to] = options.progressSpan ?? [0, 1];
  let steps = 0;
  let timedOut = false;
  for (const phase of ['insert', 'delete'] as const) {
    for (;;) {
      if (options.budget.checkpoint()) {
        timedOut = true;
        break;
      }
      const operators = phase === 'insert' ? insertOperators(g, scorer, options, maxSubset) : deleteOperators(g, scorer, options, 256);
      operators.sort((a, b) => b.gain - a.gain);
      let applied = false;
      for (const op of operators) {
        if (op.kind === 'insert' && !insertIsValid(g, op)) continue;
        const next = op.kind === 'insert' ? applyInsert(g, op) : applyDelete(g, op);
        if (next === null) continue;
        g = next;
        applied = true;
        break;
      }
      if (!applied) break;
      steps++;
      if (steps % 8 === 0) options.budget.progress(from + (to - from) * Math.min(0.95, steps / (2 * p + 10)), 'refine');
    }
    if (timedOut) break;
  }
  return { cpdag: g, steps, timedOut };
}

function parentsAndNeighbours(g: Pdag, y: number): { parents: number[]; neighbours: number[] } {
  const parents: number[] = [];
  const neighbours: number[] = [];
  for (let v = 0; v < g.p; v++) {
    if (v === y) continue;
    if (isDirected(g, v, y)) parents.push(v);
    else if (isUndirected(g, v, y)) neighbours.push(v);
  }
  return { parents, neighbours };
}

function isClique(g: Pdag, nodes: readonly number[]): boolean {
  for (let a = 0; a < nodes.length; a++) for (let b = a + 1; b < nodes.length; b++) if (!adjacent(g, nodes[a]!, nodes[b]!)) return false;
  return true;
}

function insertOperators(g: Pdag, scorer: LocalScorer, options: GesOptions, maxSubset: number): Operator[] {
  const { p } = g;
  const out: Operator[] = [];
  for (let y = 0; y < p; y++) {
    const { parents, neighbours } = parentsAndNeighbours(g, y);
    for (let x = 0; x < p; x++) {
      if (x === y || options.candidates[x * p + y] !== 1 || options.forbidden[x * p + y] === 1 || adjacent(g, x, y)) continue;
      const na: number[] = [];
      const t0: number[] = [];
      for (const v of neighbours) (adjacent(g, v, x) ? na : t0).push(v);
      if (!isClique(g, na)) continue; // no T can make NA u T a clique
      const base = [...parents, ...na];
      for (const t of subsets(t0, maxSubset)) {
        if (t.length > 0 && !isClique(g, [...na, ...t])) continue;
        const gain = scorer.gain(y, [...base, ...t], x);
        if (gain > 0) out.push({ kind: 'insert', x, y, set: t, na, gain });
      }
    }
  }
  return out;
}

function deleteOperators(g: Pdag, scorer: LocalScorer, options: GesOptions, maxCliques: number): Operator[] {
  const { p } = g;
  const out: Operator[] = [];
  for (let y = 0; y < p; y++) {
    const { parents, neighbours } = parentsAndNeighbours(g, y);
    for (let x = 0; x < p; x++) {
      if (x === y || options.pinned[x * p + y] === 1) continue;
      if (!isDirected(g, x, y) && !isUndirected(g, x, y)) continue;
      const na = neighbours.filter((v) => v !== x && adjacent(g, v, x));
      const others = parents.filter((v) => v !== x);
      // Delete(x, y, H) is valid when NA \ H is a clique: enumerate those cliques (C = NA \ H) directly, so a
      // large NA is not stuck behind a bound on |H|.
      for (const rest of cliqueSubsets(g, na, maxCliques)) {
        const h = na.filter((v) => !rest.includes(v));
        const gain = -scorer.gain(y, [...others, ...rest], x);
        if (gain > 0) out.push({ kind: 'delete', x, y, set: h, na, gain });
      }
    }
  }
  return out;
}

/** Chickering's second condition: every semi-directed path from y to x meets NA_YX u T. */
function insertIsValid(g: Pdag, op: Operator): boolean {
  const { p, m } = g;
  const blocked = new Uint8Array(p);
  for (const v of op.na) blocked[v] = 1;
  for (const v of op.set) blocked[v] = 1;
  const seen = new Uint8Array(p);
  const stack = [op.y];
  seen[op.y] = 1;
  while (stack.length > 0) {
    const a = stack.pop()!;
    for (let b = 0; b < p; b++) {
      if (m[a * p + b] !== 1 || seen[b] === 1) continue; // a -> b or a - b
      if (b === op.x) return false;
      if (blocked[b] === 1) continue;
      seen[b] = 1;
      stack.push(b);
    }
  }
  return true;
}

function rebuild(pdag: Pdag): Pdag | null {
  const dag = consistentExtension(pdag);
  return dag === null ? null : cpdagOfDag(dag);
}

function applyInsert(g: Pdag, op: Operator): Pdag | null {
  const next: Pdag = { p: g.p, m: g.m.slice() };
  setDirected(next, op.x, op.y);
  for (const t of op.set) setDirected(next, t, op.y);
  return rebuild(next);
}

function applyDelete(g: Pdag, op: Operator): Pdag | null {
  const next: Pdag = { p: g.p, m: g.m.slice() };
  removeEdge(next, op.x, op.y);
  for (const h of op.set) {
    setDirected(next, op.y, h);
    if (isUndirected(next, op.x, h)) setDirected(next, op.x, h);
  }
  return rebuild(next);
}

/** Subsets of `items` that are cliques of g (the empty set and singletons included), at most `limit` of them, smallest first. */
function cliqueSubsets(g: Pdag, items: readonly number[], limit: number): number[][] {
  const out: number[][] = [[]];
  let frontier: { set: number[]; next: number }[] = [{ set: [], next: 0 }];
  while (frontier.length > 0 && out.length < limit) {
    const grown: { set: number[]; next: number }[] = [];
    for (const { set, next } of frontier) {
      for (let i = next; i < items.length && out.length < limit; i++) {
        const v = items[i]!;
        if (!set.every((u) => adjacent(g, u, v))) continue;
        const s = [...set, v];
        out.push(s);
        grown.push({ set: s, next: i + 1 });
      }
    }
    frontier = grown;
  }
  return out;
}

/** Subsets of `items` with at most `maxSize` elements, smallest first (the empty set included). */
function subsets(items: readonly number[], maxSize: number): number[][] {
  const out: number[][] = [[]];
  const limit = Math.min(maxSize, items.length);
  let frontier: { set: number[]; next: number }[] = [{ set: [], next: 0 }];
  for (let size = 1; size <= limit; size++) {
    const grown: { set: number[]; next: number }[] = [];
    for (const { set, next } of frontier) {
      for (let i = next; i < items.length; i++) {
        const s = [...set, items[i]!];
        out.push(s);
        grown.push({ set: s, next: i + 1 });
      }
    }
    frontier = grown;
  }
  return out;
}
