/**
 * A discovery's answer with the orientations its options' assumptions add (non-gaussian.ts): the DAG follows them,
 * `assumed` names them, and the edges into a node whose parents changed get their strength re-estimated (a
 * standardised regression coefficient when the node and its parents are continuous; otherwise the pair keeps the
 * association measured before, which does not depend on the direction).
 */
import type { Kernels } from '../../compute/kernels.js';
import { columnByName } from '../frame.js';
import type { DiscoveredEdge, DiscoveryOptions, DiscoveryResult, Frame } from '../types.js';
import { NON_GAUSSIAN_RESIDUALS, orientByNonGaussianity } from './non-gaussian.js';

export function withAssumedOrientations(frame: Frame, result: DiscoveryResult, options: DiscoveryOptions, kernels: Kernels): DiscoveryResult {
  if (!(options.assumptions ?? []).includes(NON_GAUSSIAN_RESIDUALS)) return result;
  const { edges, assumed } = orientByNonGaussianity(frame, result.edges, { required: options.required ?? [], forbidden: options.forbidden ?? [] }, kernels, options.seed ?? 1);
  if (assumed.length === 0) return { ...result, assumed };
  const before = new Map(result.edges.map((e) => [`${e.source}\u0000${e.target}`, e]));
  const pair = new Map(result.edges.flatMap((e) => [[`${e.source}\u0000${e.target}`, e], [`${e.target}\u0000${e.source}`, e]]));
  const parents = new Map<string, string[]>();
  for (const e of edges) parents.set(e.target, [...(parents.get(e.target) ?? []), e.source]);
  const oldParents = new Map<string, string[]>();
  for (const e of result.edges) oldParents.set(e.target, [...(oldParents.get(e.target) ?? []), e.source]);
  const refitted = new Map<string, Map<string, number> | null>();
  const out: DiscoveredEdge[] = edges.map((e) => {
    const same = before.get(`${e.source}\u0000${e.target}`);
    const ps = parents.get(e.target) ?? [];
    if (same && sameSet(ps, oldParents.get(e.target) ?? [])) return same;
    if (!refitted.has(e.target)) refitted.set(e.target, standardisedCoefficients(frame, e.target, ps, kernels));
    const strength = refitted.get(e.target)?.get(e.source) ?? pair.get(`${e.source}\u0000${e.target}`)!.strength;
    return { source: e.source, target: e.target, strength, orientationFromData: same?.orientationFromData ?? false };
  });
  return { ...result, edges: out, assumed };
}

/** Coefficients of the standardised node on its standardised parents (complete rows), or null when not all continuous. */
function standardisedCoefficients(frame: Frame, node: string, parents: string[], kernels: Kernels): Map<string, number> | null {
  const cols = [node, ...parents].map((name) => columnByName(frame, name));
  if (cols.some((c) => c.kind !== 'continuous')) return null;
  const values = cols.map((c) => (c as { values: Float64Array }).values);
  const rows: number[] = [];
  for (let r = 0; r < frame.nRows; r++) if (values.every((v) => Number.isFinite(v[r]!))) rows.push(r);
  const n = rows.length;
  const k = parents.length + 1;
  if (n <= k + 1) return null;
  const scaled = values.map((v) => {
    let mean = 0;
    for (const r of rows) mean += v[r]!;
    mean /= n;
    let ss = 0;
    for (const r of rows) ss += (v[r]! - mean) ** 2;
    const sd = Math.sqrt(ss / (n - 1)) || 1;
    return Float64Array.from(rows, (r) => (v[r]! - mean) / sd);
  });
  const design = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    design[i * k] = 1;
    for (let j = 1; j < k; j++) design[i * k + j] = scaled[j]![i]!;
  }
  const fit = kernels.leastSquares(design, scaled[0]!, n, k, 1e-9);
  if (fit.status !== 0) return null;
  return new Map(parents.map((p, j) => [p, fit.coef[j + 1]!]));
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
