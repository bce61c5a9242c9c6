/**
 * An extra assumption that can orient what the data's equivalence class leaves open: in a linear model with
 * non-Gaussian noise the direction of an edge is identifiable (LiNGAM, Shimizu et al. 2006). For each reversible
 * edge x - y between continuous variables, both are regressed on their shared directed parents (in a CPDAG an
 * undirected pair has the same directed parents), and the pairwise likelihood ratio of x -> y against y -> x is
 * estimated with the maximum-entropy approximation of differential entropy (Hyvärinen 1998; the pairwise measure of
 * Hyvärinen & Smith 2013): LR = J(x) + J(r_y|x) - J(y) - J(r_x|y), J the negentropy of a standardised variable.
 * Gaussian data give LR ~ 0 both ways, so an edge is oriented only when a bootstrap of LR excludes 0 at a
 * Bonferroni-corrected level; orientations are added strongest first and kept only while a DAG of the class (same
 * skeleton and v-structures, every fixed-graph edge honoured) still extends them.
 */
import { cpdagOfDag } from '../graph/cpdag.js';
import { consistentExtension } from '../graph/dag.js';
import { applyMeekRules } from '../graph/meek.js';
import { clonePdag, isDirected, isUndirected, parentsOf, sameMarks, setDirected } from '../graph/pdag.js';
import { normalQuantile } from '../inference/uncertainty.js';
import { Rng } from '../random.js';
import type { Kernels } from '../../compute/kernels.js';
import type { DiscoveryOptions, DiscoveryResult, EdgeRef, Frame } from '../types.js';
import { type BackgroundKnowledge, restrictedClass } from './class.js';

export type Assumption = NonNullable<DiscoveryOptions['assumptions']>[number];
export type AssumedEdge = NonNullable<DiscoveryResult['assumed']>[number];
export const NON_GAUSSIAN_RESIDUALS: Assumption = 'non_gaussian_residuals';

/** Rows a pair needs (complete on it and its parents); resamples of the ratio; family-wise error of the orientations. */
const MIN_ROWS = 300;
const BOOTSTRAP = 100;
const FAMILY_ALPHA = 0.01;
// Hyvärinen (1998) constants of the approximation J(u) ~ k1 (E log cosh u - gamma)^2 + k2 (E u exp(-u^2/2))^2.
const K1 = 79.047;
const K2 = 7.4129;
const GAMMA = 0.37457;

/**
 * The DAG of the class that the assumption orients (the given DAG when it orients nothing), and the edges whose
 * direction rests on it (those it oriented and those Meek's rules derived from them).
 */
export function orientByNonGaussianity(frame: Frame, edges: readonly EdgeRef[], background: BackgroundKnowledge, kernels: Kernels, seed = 1): { edges: EdgeRef[]; assumed: AssumedEdge[] } {
  const names = frame.columns.map((c) => c.name);
  const { data, restricted } = restrictedClass(names, edges, background);
  const tested: { x: number; y: number; z: number }[] = [];
  const rng = new Rng(seed);
  for (let x = 0; x < names.length; x++) for (let y = x + 1; y < names.length; y++) {
    if (!isUndirected(restricted, x, y)) continue;
    const ratio = pairRatio(frame, x, y, parentsOf(restricted, x).filter((q) => isDirected(restricted, q, y)), kernels, rng);
    if (ratio !== null) tested.push({ x, y, z: ratio });
  }
  if (tested.length === 0) return { edges: [...edges], assumed: [] };
  const critical = normalQuantile(1 - FAMILY_ALPHA / (2 * tested.length));
  let current = restricted;
  for (const t of tested.filter((t) => Math.abs(t.z) > critical).sort((a, b) => Math.abs(b.z) - Math.abs(a.z))) {
    if (!isUndirected(current, t.x, t.y)) continue; // an earlier orientation already decided it
    const next = clonePdag(current);
    if (t.z > 0) setDirected(next, t.x, t.y);
    else setDirected(next, t.y, t.x);
    applyMeekRules(next, true);
    const dag = consistentExtension(next);
    if (dag !== null && sameMarks(cpdagOfDag(dag), data)) current = next;
  }
  const dag = consistentExtension(current)!;
  const out: EdgeRef[] = [];
  const assumed: AssumedEdge[] = [];
  for (let i = 0; i < names.length; i++) for (let j = 0; j < names.length; j++) {
    if (i === j || !isDirected(dag, i, j)) continue;
    out.push({ source: names[i]!, target: names[j]! });
    if (isUndirected(restricted, i, j) && isDirected(current, i, j)) assumed.push({ source: names[i]!, target: names[j]!, assumption: NON_GAUSSIAN_RESIDUALS });
  }
  return assumed.length === 0 ? { edges: [...edges], assumed } : { edges: out, assumed };
}

/** The bootstrap z of LR(x -> y) for a continuous pair given shared parents, or null when it cannot be tested. */
function pairRatio(frame: Frame, x: number, y: number, parents: number[], kernels: Kernels, rng: Rng): number | null {
  const cols = [x, y, ...parents].map((i) => frame.columns[i]!);
  if (cols.some((c) => c.kind !== 'continuous')) return null;
  const values = cols.map((c) => (c as { values: Float64Array }).values);
  const rows: number[] = [];
  for (let r = 0; r < frame.nRows; r++) if (values.every((v) => Number.isFinite(v[r]!))) rows.push(r);
  if (rows.length < MIN_ROWS) return null;
  const rx = residual(values[0]!, values.slice(2), rows, kernels);
  const ry = residual(values[1]!, values.slice(2), rows, kernels);
  if (rx === null || ry === null) return null;
  const n = rows.length;
  const estimate = likelihoodRatio(rx, ry);
  let sum = 0;
  let ss = 0;
  const bx = new Float64Array(n);
  const by = new Float64Array(n);
  for (let b = 0; b < BOOTSTRAP; b++) {
    for (let i = 0; i < n; i++) {
      const k = rng.int(n);
      bx[i] = rx[k]!;
      by[i] = ry[k]!;
    }
    const v = likelihoodRatio(bx, by);
    sum += v;
    ss += v * v;
  }
  const sd = Math.sqrt(Math.max(0, (ss - (sum * sum) / BOOTSTRAP) / (BOOTSTRAP - 1)));
  return sd > 0 ? estimate / sd : 0;
}

/** The variable on the complete rows with the linear effect of the parents removed (intercept included). */
function residual(v: Float64Array, parents: Float64Array[], rows: number[], kernels: Kernels): Float64Array | null {
  const n = rows.length;
  const k = parents.length + 1;
  const design = new Float64Array(n * k);
  const y = new Float64Array(n);
  rows.forEach((r, i) => {
    design[i * k] = 1;
    parents.forEach((p, j) => (design[i * k + j + 1] = p[r]!));
    y[i] = v[r]!;
  });
  const fit = kernels.leastSquares(design, y, n, k, 1e-9);
  if (fit.status !== 0) return null;
  return y.map((value, i) => {
    let predicted = 0;
    for (let j = 0; j < k; j++) predicted += fit.coef[j]! * design[i * k + j]!;
    return value - predicted;
  });
}

/** LR(x -> y) of two centred series: positive favours x -> y. */
export function likelihoodRatio(x: Float64Array, y: Float64Array): number {
  const sx = standardised(x);
  const sy = standardised(y);
  if (sx === null || sy === null) return 0;
  const n = sx.length;
  let rho = 0;
  for (let i = 0; i < n; i++) rho += sx[i]! * sy[i]!;
  rho /= n;
  const scale = Math.sqrt(Math.max(1e-12, 1 - rho * rho));
  const ryx = sy.map((v, i) => (v - rho * sx[i]!) / scale);
  const rxy = sx.map((v, i) => (v - rho * sy[i]!) / scale);
  return negentropy(sx) + negentropy(ryx) - negentropy(sy) - negentropy(rxy);
}

/** Hyvärinen's (1998) approximation of the negentropy of a standardised variable (0 for a Gaussian). */
export function negentropy(u: Float64Array): number {
  let logCosh = 0;
  let gauss = 0;
  for (const v of u) {
    const a = Math.abs(v);
    logCosh += a + Math.log1p(Math.exp(-2 * a)) - Math.LN2; // log cosh without overflow
    gauss += v * Math.exp(-(v * v) / 2);
  }
  return K1 * (logCosh / u.length - GAMMA) ** 2 + K2 * (gauss / u.length) ** 2;
}

function standardised(v: Float64Array): Float64Array | null {
  const n = v.length;
  let mean = 0;
  for (const x of v) mean += x;
  mean /= n;
  let ss = 0;
  for (const x of v) ss += (x - mean) ** 2;
  const sd = Math.sqrt(ss / n);
  return sd > 0 ? v.map((x) => (x - mean) / sd) : null;
}

