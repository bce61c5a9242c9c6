/** Distances between an estimated graph and the truth, as the benchmarks report them. */
import type { PdagEdge } from './pdag.js';

type Mark = 'none' | 'forward' | 'backward' | 'undirected';

function markMap(edges: readonly PdagEdge[]): Map<string, Mark> {
  const out = new Map<string, Mark>();
  for (const e of edges) {
    const [a, b] = e.source < e.target ? [e.source, e.target] : [e.target, e.source];
    const mark: Mark = !e.directed ? 'undirected' : e.source === a ? 'forward' : 'backward';
    out.set(`${a}\u0000${b}`, mark);
  }
  return out;
}

/**
 * Structural Hamming distance between two PDAGs/CPDAGs as causal-learn counts it (causallearn.graph.SHD): for
 * every pair of nodes, a missing edge, an extra edge, or an edge present in both with different marks (reversed,
 * or directed in one and undirected in the other) each count 1.
 */
export function structuralHammingDistance(estimated: readonly PdagEdge[], truth: readonly PdagEdge[]): number {
  const est = markMap(estimated);
  const tru = markMap(truth);
  let distance = 0;
  for (const [key, mark] of est) if ((tru.get(key) ?? 'none') !== mark) distance++;
  for (const key of tru.keys()) if (!est.has(key)) distance++;
  return distance;
}

/** Precision, recall and F1 of the estimated skeleton (unordered adjacencies) against the true one. */
export function skeletonScores(estimated: readonly PdagEdge[], truth: readonly PdagEdge[]): { precision: number; recall: number; f1: number } {
  const est = markMap(estimated);
  const tru = markMap(truth);
  let hits = 0;
  for (const key of est.keys()) if (tru.has(key)) hits++;
  const precision = est.size === 0 ? (tru.size === 0 ? 1 : 0) : hits / est.size;
  const recall = tru.size === 0 ? 1 : hits / tru.size;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

export const skeletonF1 = (estimated: readonly PdagEdge[], truth: readonly PdagEdge[]) => skeletonScores(estimated, truth).f1;
