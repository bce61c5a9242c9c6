/**
 * Edge confidence by the nonparametric bootstrap (Friedman, Goldszmidt & Wyner 1999): discovery reruns on
 * resamples of the rows (the pool runs them in parallel); an edge's confidence is its share of resamples.
 */
import { selectRows } from '../frame.js';
import { Rng } from '../random.js';
import type { DiscoveryResult, EdgeRef, Frame } from '../types.js';

/** n rows drawn with replacement from the frame's n rows; the same seed gives the same resample. */
export function resampleFrame(frame: Frame, seed: number): Frame {
  const rng = new Rng(seed);
  const rows = new Int32Array(frame.nRows);
  for (let i = 0; i < rows.length; i++) rows[i] = rng.int(frame.nRows);
  return selectRows(frame, rows);
}

/**
 * For each edge source -> target, its share of the results whose CPDAG holds it with the same orientation,
 * counting an undirected CPDAG edge between the two as half (the data could not choose that direction over the
 * other) and a reversed or absent edge as nothing. An empty list of results answers 0.
 */
export function edgeConfidence(results: readonly DiscoveryResult[], edges: readonly EdgeRef[]): number[] {
  if (results.length === 0) return edges.map(() => 0);
  const totals = new Float64Array(edges.length);
  for (const result of results) {
    const marks = new Map<string, number>();
    for (const e of result.cpdag) {
      if (e.directed) marks.set(pairKey(e.source, e.target), 1);
      else {
        marks.set(pairKey(e.source, e.target), 0.5);
        marks.set(pairKey(e.target, e.source), 0.5);
      }
    }
    edges.forEach((e, i) => (totals[i]! += marks.get(pairKey(e.source, e.target)) ?? 0));
  }
  return Array.from(totals, (t) => t / results.length);
}

const pairKey = (source: string, target: string) => `${source}\u0000${target}`;
