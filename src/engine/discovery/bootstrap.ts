/**
 * Edge confidence by resampling (Friedman, Goldszmidt & Wyner 1999): discovery reruns on resamples of the rows (the
 * pool runs them in parallel); an edge's confidence is its share of resamples. The resamples are half-samples
 * drawn without replacement (subsampling, as in stability selection: Meinshausen & Buhlmann 2010) rather than
 * n rows drawn with replacement: duplicated rows make count tests see dependence that is not there in sparse
 * strata, so PC keeps more edges, tests larger conditioning sets and ran 25x longer on hepar2 (52 s against 2 s).
 */
import { selectRows } from '../frame.js';
import { Rng } from '../random.js';
import type { DiscoveryResult, EdgeRef, Frame } from '../types.js';

/** Half of the frame's rows, drawn without replacement and kept in their order; the same seed gives the same half. */
export function resampleFrame(frame: Frame, seed: number): Frame {
  const rng = new Rng(seed);
  const order = Int32Array.from({ length: frame.nRows }, (_, i) => i);
  const size = Math.max(1, Math.floor(frame.nRows / 2));
  // A partial Fisher-Yates shuffle: the first `size` places hold a uniform random subset.
  for (let i = 0; i < size; i++) {
    const j = i + rng.int(frame.nRows - i);
    const held = order[i]!;
    order[i] = order[j]!;
    order[j] = held;
  }
  return selectRows(frame, order.subarray(0, size).sort());
}

/**
 * For each edge source -> target, its share of the results whose CPDAG holds it with the same orientation,
 * counting an undirected CPDAG edge between the two as half (the data could not choose that direction over the
 * other) and a reversed or absent edge as nothing. An empty list of results answers 0.
 */
export function edgeConfidence(results: ReadonlyArray<Pick<DiscoveryResult, 'cpdag'>>, edges: readonly EdgeRef[]): number[] {
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
