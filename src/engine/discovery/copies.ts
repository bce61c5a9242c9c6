/**
 * Exact copies: a column whose values map one-to-one onto an earlier column's, row by row, with the same rows
 * missing -- a code and its label, an amount in two units (x' = a x + b), a flag stored twice. Such a pair is a
 * deterministic relation, which breaks the faithfulness the CI tests rest on (each column makes the other
 * independent of everything: Spirtes, Glymour & Scheines 2000, sec. 3.4; Lemeire, Meganck, Cartella & Liu 2012),
 * and the two fit every graph equally well whichever of them carries the other edges: the data cannot tell them
 * apart.
 *
 * Discovery therefore searches with one column of each group and joins each other member to it by one edge, whose
 * direction (like which of the two carries the other edges) the data do not decide. Background knowledge chooses
 * that column: a required edge between two members names the one that acts (its source), and a member named by an
 * edge to the rest of the graph is searched as itself. Otherwise the first column of the group is kept.
 */
import type { EdgeRef } from '../types.js';

/** The columns as discovery prepared them (prepare.ts PreparedData). */
export interface CopyCandidates {
  p: number;
  n: number;
  names: readonly string[];
  informative: Uint8Array;
  /** Dense codes 0..levels-1, -1 missing (categorical variables), else null. */
  codes: readonly (Int32Array | null)[];
  /** Values, NaN missing (continuous variables), else null. */
  values: readonly (Float64Array | null)[];
}

/** Background knowledge as discovery's options give it. */
export interface CopyKnowledge {
  required?: readonly EdgeRef[];
  forbidden?: readonly EdgeRef[];
}

/**
 * For each variable, the index of the variable of its group that stands for it in the search, else -1 (the
 * variable stands for itself). Two columns are copies when their values map one to one and repeat (a column of
 * distinct values maps one to one onto any other, which says nothing), or when both are continuous and one is an
 * affine map of the other (standardised, they agree to 1e-9 up to sign).
 */
export function exactCopies(data: CopyCandidates, knowledge: CopyKnowledge = {}): Int32Array {
  const first = firstCopies(data);
  const groups = new Map<number, number[]>();
  first.forEach((original, j) => {
    if (original >= 0) groups.set(original, [...(groups.get(original) ?? [original]), j]);
  });
  const copyOf = new Int32Array(data.p).fill(-1);
  const index = new Map(data.names.map((name, j) => [name, j]));
  const edges = [...(knowledge.required ?? []), ...(knowledge.forbidden ?? [])].map((e) => [index.get(e.source), index.get(e.target)]);
  for (const members of groups.values()) {
    const inGroup = (j: number | undefined) => j !== undefined && members.includes(j);
    const pinned = (knowledge.required ?? []).find((e) => inGroup(index.get(e.source)) && inGroup(index.get(e.target)));
    const actor = pinned === undefined ? undefined : index.get(pinned.source);
    const named = members.filter((j) => edges.some(([a, b]) => (a === j && !inGroup(b)) || (b === j && !inGroup(a))));
    const kept = actor ?? named[0] ?? members[0]!;
    for (const j of members) if (j !== kept && !named.includes(j)) copyOf[j] = kept;
  }
  return copyOf;
}

/** Each variable's first earlier copy, else -1. */
function firstCopies(data: CopyCandidates): Int32Array {
  const copyOf = new Int32Array(data.p).fill(-1);
  // Fingerprint -> the earlier variables that have it; a match is checked in full (recomputed: matches are rare).
  const buckets = new Map<string, number[]>();
  for (let j = 0; j < data.p; j++) {
    if (data.informative[j] !== 1) continue;
    // Two fingerprints, each with its full check against an earlier variable i.
    const keys: { key: string; same: (i: number) => boolean }[] = [];
    const coded = canonicalCodes(data, j, Math.floor(data.n / 2));
    if (coded) keys.push({ key: `codes ${coded.distinct} ${fingerprint(coded.canonical)}`, same: (i) => sameSequence(canonicalCodes(data, i, data.n)!.canonical, coded.canonical) });
    const z = data.values[j] ? standardised(data.values[j]!) : null;
    if (z) keys.push({ key: `affine ${z.key}`, same: (i) => sameStandardised(standardised(data.values[i]!).z, z.z) });
    let original: number | undefined;
    for (const { key, same } of keys) original ??= buckets.get(key)?.find(same);
    if (original !== undefined) copyOf[j] = original;
    else for (const { key } of keys) buckets.set(key, [...(buckets.get(key) ?? []), j]);
  }
  return copyOf;
}

/**
 * The strength of the edge from an original into its copy (strength.ts): between two continuous columns the
 * correlation (±1 for an affine copy); else sqrt(1 - exp(-2 dLL / n)) where the original predicts the copy exactly,
 * so the log-likelihood lost without it is n times the copy's entropy (in nats) over the observed rows.
 */
export function copyStrength(data: CopyCandidates, original: number, copy: number): number {
  const [x, y] = [data.values[original], data.values[copy]];
  if (x && y) return correlation(x, y);
  const { canonical, distinct } = canonicalCodes(data, copy, data.n)!;
  const counts = new Float64Array(distinct);
  let observed = 0;
  for (const c of canonical) if (c >= 0) {
    counts[c]!++;
    observed++;
  }
  let entropy = 0;
  for (const k of counts) if (k > 0) entropy -= (k / observed) * Math.log(k / observed);
  return Math.sqrt(1 - Math.exp(-2 * entropy));
}

/**
 * A column's values relabelled 0, 1, .. in order of first appearance (missing -1): equal for two columns exactly
 * when they map one to one. null past `maxDistinct` distinct values.
 */
function canonicalCodes(data: CopyCandidates, j: number, maxDistinct: number): { canonical: Int32Array; distinct: number } | null {
  const out = new Int32Array(data.n);
  const label = new Map<number, number>();
  const codes = data.codes[j];
  const values = data.values[j];
  for (let r = 0; r < data.n; r++) {
    const v = codes ? codes[r]! : values![r]!;
    if (codes ? v < 0 : Number.isNaN(v)) {
      out[r] = -1;
      continue;
    }
    let c = label.get(v);
    if (c === undefined) {
      if (label.size >= maxDistinct) return null;
      label.set(v, (c = label.size));
    }
    out[r] = c;
  }
  return { canonical: out, distinct: label.size };
}

/** Tolerance of the affine check, on standardised values. */
const AFFINE_TOLERANCE = 1e-9;

/**
 * Values standardised to mean 0 and variance 1 (missing stay NaN), signed so the first value away from 0 is
 * positive, and a key of the missing pattern and the first values rounded coarsely (affine copies share it but for
 * a value at a rounding edge, which only loses the copy).
 */
function standardised(values: Float64Array): { z: Float64Array; key: string } {
  let n = 0;
  let mean = 0;
  for (const v of values) if (!Number.isNaN(v)) {
    n++;
    mean += v;
  }
  mean /= n;
  let ss = 0;
  for (const v of values) if (!Number.isNaN(v)) ss += (v - mean) ** 2;
  const sd = Math.sqrt(ss / n);
  const z = Float64Array.from(values, (v) => (v - mean) / sd);
  const first = z.find((v) => Math.abs(v) > 0.1) ?? 1;
  if (first < 0) for (let r = 0; r < z.length; r++) z[r] = -z[r]!;
  const head: string[] = [];
  for (let r = 0; r < z.length && head.length < 16; r++) if (!Number.isNaN(z[r]!)) head.push(`${r}:${z[r]!.toFixed(3)}`);
  return { z, key: `${n} ${head.join(' ')}` };
}

/** Two standardised, sign-normalised columns (standardised()) agree in every row, missing in the same rows. */
function sameStandardised(a: Float64Array, b: Float64Array): boolean {
  for (let r = 0; r < a.length; r++) {
    const [x, y] = [a[r]!, b[r]!];
    const missing = Number.isNaN(x);
    if (missing !== Number.isNaN(y) || (!missing && Math.abs(x - y) > AFFINE_TOLERANCE)) return false;
  }
  return true;
}

/** FNV-1a over the canonical codes (a bucket key; equality is checked in full). */
function fingerprint(codes: Int32Array): number {
  let h = 0x811c9dc5;
  for (let r = 0; r < codes.length; r++) {
    h ^= codes[r]! + 1;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function sameSequence(a: Int32Array, b: Int32Array): boolean {
  for (let r = 0; r < a.length; r++) if (a[r] !== b[r]) return false;
  return true;
}

/** Pearson correlation over the rows both observe. */
function correlation(x: Float64Array, y: Float64Array): number {
  let n = 0;
  let mx = 0;
  let my = 0;
  for (let r = 0; r < x.length; r++) if (!Number.isNaN(x[r]!) && !Number.isNaN(y[r]!)) {
    n++;
    mx += x[r]!;
    my += y[r]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let r = 0; r < x.length; r++) if (!Number.isNaN(x[r]!) && !Number.isNaN(y[r]!)) {
    sxy += (x[r]! - mx) * (y[r]! - my);
    sxx += (x[r]! - mx) ** 2;
    syy += (y[r]! - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}
