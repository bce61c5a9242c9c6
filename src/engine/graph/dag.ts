/** Directed acyclic graph helpers on the mark matrix (pdag.ts): order, cycles, reachability, extension. */
import { adjacent, clonePdag, isDirected, isUndirected, type Pdag, setDirected } from './pdag.js';

/** A topological order of the directed part (Kahn 1962), or null when it has a cycle. Undirected edges are ignored. */
export function topologicalOrder(g: Pdag): number[] | null {
  const { p } = g;
  const indegree = new Int32Array(p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) if (i !== j && isDirected(g, i, j)) indegree[j]!++;
  const queue: number[] = [];
  for (let j = 0; j < p; j++) if (indegree[j] === 0) queue.push(j);
  const order: number[] = [];
  while (queue.length > 0) {
    const i = queue.shift()!;
    order.push(i);
    for (let j = 0; j < p; j++) {
      if (i !== j && isDirected(g, i, j) && --indegree[j]! === 0) queue.push(j);
    }
  }
  return order.length === p ? order : null;
}

export const hasDirectedCycle = (g: Pdag) => topologicalOrder(g) === null;

/** Whether a directed path from `from` to `to` exists, optionally ignoring the single edge skipFrom -> skipTo. */
export function reaches(g: Pdag, from: number, to: number, skipFrom = -1, skipTo = -1): boolean {
  const { p, m } = g;
  const seen = new Uint8Array(p);
  const stack = [from];
  seen[from] = 1;
  while (stack.length > 0) {
    const i = stack.pop()!;
    for (let j = 0; j < p; j++) {
      if (m[i * p + j] !== 1 || m[j * p + i] === 1 || seen[j] === 1) continue;
      if (i === skipFrom && j === skipTo) continue;
      if (j === to) return true;
      seen[j] = 1;
      stack.push(j);
    }
  }
  return false;
}

/**
 * A DAG in the class of a PDAG, orienting its undirected edges without new v-structures or cycles
 * (Dor & Tarsi 1992); null when the PDAG admits no consistent extension.
 */
export function consistentExtension(pdag: Pdag): Pdag | null {
  const { p } = pdag;
  const work = clonePdag(pdag);
  const out = clonePdag(pdag);
  const alive = new Uint8Array(p).fill(1);
  for (let remaining = p; remaining > 0; remaining--) {
    let chosen = -1;
    for (let x = 0; x < p && chosen === -1; x++) {
      if (alive[x] !== 1) continue;
      let ok = true;
      for (let y = 0; y < p && ok; y++) if (alive[y] === 1 && y !== x && isDirected(work, x, y)) ok = false; // x must be a sink
      if (!ok) continue;
      const adj: number[] = [];
      for (let y = 0; y < p; y++) if (alive[y] === 1 && y !== x && adjacent(work, x, y)) adj.push(y);
      for (const y of adj) {
        if (!isUndirected(work, x, y)) continue;
        for (const z of adj) if (z !== y && !adjacent(work, y, z)) ok = false;
        if (!ok) break;
      }
      if (ok) chosen = x;
    }
    if (chosen === -1) return null;
    for (let y = 0; y < p; y++) if (alive[y] === 1 && y !== chosen && isUndirected(work, chosen, y)) setDirected(out, y, chosen);
    alive[chosen] = 0;
    for (let y = 0; y < p; y++) {
      work.m[chosen * p + y] = 0;
      work.m[y * p + chosen] = 0;
    }
  }
  return out;
}

/** Node names in a topological order of the named DAG, or null when the edges form a cycle. */
export function topologicalSort(nodes: string[], edges: readonly { source: string; target: string }[]): string[] | null {
  const index = new Map(nodes.map((name, i) => [name, i]));
  const g: Pdag = { p: nodes.length, m: new Uint8Array(nodes.length * nodes.length) };
  for (const e of edges) {
    const i = index.get(e.source);
    const j = index.get(e.target);
    if (i === undefined || j === undefined) throw new Error(`edge ${e.source} -> ${e.target} names an unknown node`);
    if (i === j || g.m[j * g.p + i] === 1) return null;
    setDirected(g, i, j);
  }
  const order = topologicalOrder(g);
  return order === null ? null : order.map((i) => nodes[i]!);
}
