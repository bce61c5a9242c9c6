/**
 * Graphs over nodes 0..p-1 as a p x p mark matrix, the working form of every graph algorithm in the engine:
 * m[i*p+j] = 1 and m[j*p+i] = 0 is i -> j; both 1 is the undirected edge i - j; both 0 is no edge. A DAG is a
 * PDAG with no undirected edge.
 */
export interface Pdag {
  p: number;
  m: Uint8Array;
}

/** A named edge of a CPDAG or PDAG: `directed` false means source - target with no orientation. */
export interface PdagEdge {
  source: string;
  target: string;
  directed: boolean;
}

export function emptyPdag(p: number): Pdag {
  return { p, m: new Uint8Array(p * p) };
}

export function clonePdag(g: Pdag): Pdag {
  return { p: g.p, m: g.m.slice() };
}

export const adjacent = (g: Pdag, i: number, j: number) => g.m[i * g.p + j] === 1 || g.m[j * g.p + i] === 1;
export const isDirected = (g: Pdag, i: number, j: number) => g.m[i * g.p + j] === 1 && g.m[j * g.p + i] === 0;
export const isUndirected = (g: Pdag, i: number, j: number) => g.m[i * g.p + j] === 1 && g.m[j * g.p + i] === 1;

export function setDirected(g: Pdag, i: number, j: number): void {
  g.m[i * g.p + j] = 1;
  g.m[j * g.p + i] = 0;
}

export function setUndirected(g: Pdag, i: number, j: number): void {
  g.m[i * g.p + j] = 1;
  g.m[j * g.p + i] = 1;
}

export function removeEdge(g: Pdag, i: number, j: number): void {
  g.m[i * g.p + j] = 0;
  g.m[j * g.p + i] = 0;
}

/** Parents of j: nodes i with i -> j. */
export function parentsOf(g: Pdag, j: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < g.p; i++) if (isDirected(g, i, j)) out.push(i);
  return out;
}

/** Every node adjacent to i, whatever the mark. */
export function neighboursOf(g: Pdag, i: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < g.p; j++) if (j !== i && adjacent(g, i, j)) out.push(j);
  return out;
}

/** Edges of a named graph as a mark matrix; unknown names are an error. */
export function pdagFromEdges(names: string[], edges: readonly PdagEdge[]): Pdag {
  const index = new Map(names.map((name, i) => [name, i]));
  const g = emptyPdag(names.length);
  for (const edge of edges) {
    const i = index.get(edge.source);
    const j = index.get(edge.target);
    if (i === undefined || j === undefined) throw new Error(`edge ${edge.source} -> ${edge.target} names an unknown node`);
    if (edge.directed) setDirected(g, i, j);
    else setUndirected(g, i, j);
  }
  return g;
}

/** The named edge list of a mark matrix: each undirected pair once (lower index as source). */
export function pdagToEdges(names: string[], g: Pdag): PdagEdge[] {
  const out: PdagEdge[] = [];
  for (let i = 0; i < g.p; i++) {
    for (let j = 0; j < g.p; j++) {
      if (i === j || g.m[i * g.p + j] !== 1) continue;
      const undirected = g.m[j * g.p + i] === 1;
      if (undirected && j < i) continue;
      out.push({ source: names[i]!, target: names[j]!, directed: !undirected });
    }
  }
  return out;
}

/** Whether two graphs over the same nodes have the same marks (edges and their directions). */
export const sameMarks = (a: Pdag, b: Pdag) => a.p === b.p && a.m.every((v, i) => v === b.m[i]);

export function countEdges(g: Pdag): number {
  let count = 0;
  for (let i = 0; i < g.p; i++) for (let j = i + 1; j < g.p; j++) if (adjacent(g, i, j)) count++;
  return count;
}
