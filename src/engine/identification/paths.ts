/**
 * Possibly causal paths in a maximally oriented PDAG. A path is possibly causal when none of its edges points
 * back towards its start. The total effect of X on Y is identified from the class exactly when every proper
 * possibly causal path from X to Y starts with an edge directed out of X (amenability: Perković, Textor, Kalisch &
 * Maathuis 2017; for PDAGs with background knowledge, Perković 2020). The undirected first edges of the other
 * paths are the ones whose direction decides the effect: what a user should pin.
 */
import { isDirected, isUndirected, type Pdag } from '../graph/pdag.js';

/** Nodes reached from `starts` along edges that are directed forward or undirected, never entering `blocked`. */
export function possibleDescendants(g: Pdag, starts: readonly number[], blocked: ReadonlySet<number> = new Set()): Set<number> {
  const { p } = g;
  const seen = new Set<number>();
  const stack = [...starts];
  while (stack.length > 0) {
    const a = stack.pop()!;
    for (let b = 0; b < p; b++) {
      if (b === a || seen.has(b) || blocked.has(b)) continue;
      if (isDirected(g, a, b) || isUndirected(g, a, b)) {
        seen.add(b);
        stack.push(b);
      }
    }
  }
  return seen;
}

/**
 * The undirected edges x - s (x among the intervened `xs`) that start a proper possibly causal path from the
 * intervened set to `y`: empty exactly when the effect on y is identified. Pairs are [x, s].
 */
export function decidingEdges(g: Pdag, xs: readonly number[], y: number): [number, number][] {
  const blocked = new Set(xs);
  if (blocked.has(y)) return [];
  const out: [number, number][] = [];
  for (const x of xs) {
    for (let s = 0; s < g.p; s++) {
      if (s === x || blocked.has(s) || !isUndirected(g, x, s)) continue;
      if (s === y || possibleDescendants(g, [s], blocked).has(y)) out.push([x, s]);
    }
  }
  return out;
}
