/**
 * A frame turned into what discovery works on (DESIGN.md "Data to matrix"): categorical codes recoded to the
 * categories actually observed, columns without variation marked uninformative (they stay isolated nodes), and
 * for continuous and mixed data the Gaussian embedding -- continuous columns as they are, each categorical as
 * indicator columns of its categories after the first -- with its covariance.
 */
import type { Kernels } from '../../compute/kernels.js';
import { completeRows } from '../frame.js';
import type { Frame } from '../types.js';
import { type CopyKnowledge, exactCopies } from './copies.js';
import { columnMoments, type Moments } from './moments.js';
import { PairCounts } from './observed.js';

export type DataMode = 'continuous' | 'discrete' | 'mixed';

export interface PreparedData {
  names: string[];
  p: number;
  n: number;
  mode: DataMode;
  kinds: ('continuous' | 'categorical')[];
  /** Observed categories per categorical variable (0 for continuous). */
  levels: Int32Array;
  /** 0 for a variable with no variation or no observed value: kept out of every test and score. */
  informative: Uint8Array;
  values: (Float64Array | null)[];
  /** Dense codes 0..levels-1, -1 missing. */
  codes: (Int32Array | null)[];
  /** Embedded column indices of each variable (empty in discrete mode). */
  blocks: number[][];
  /** Moments of the embedding (null in discrete mode). */
  moments: Moments | null;
  /** Share of the rows complete in the variables searched (1 when none of them misses a value). */
  completeShare: number;
  /** Rows observing each pair of variables, when the variables searched miss values; else null. */
  observed: PairCounts | null;
  /** Per variable, the variable of its group of exact copies searched in its place (copies.ts; it is then not informative), else -1. */
  copyOf: Int32Array;
}

export interface PrepareOptions {
  /** Set exact copies aside (copies.ts), choosing which member of each group is searched by this knowledge. Unset: no variable is a copy. */
  copies?: CopyKnowledge;
}

export function prepareForDiscovery(frame: Frame, kernels: Kernels, options: PrepareOptions = {}): PreparedData {
  const n = frame.nRows;
  const p = frame.columns.length;
  const kinds = frame.columns.map((c) => c.kind);
  const levels = new Int32Array(p);
  const informative = new Uint8Array(p);
  const values: (Float64Array | null)[] = [];
  const codes: (Int32Array | null)[] = [];
  frame.columns.forEach((c, j) => {
    if (c.kind === 'continuous') {
      values.push(c.values);
      codes.push(null);
      informative[j] = hasVariation(c.values) ? 1 : 0;
      return;
    }
    const { dense, count } = recode(c.codes, c.categories.length);
    values.push(null);
    codes.push(dense);
    levels[j] = count;
    informative[j] = count >= 2 ? 1 : 0;
  });
  const names = frame.columns.map((c) => c.name);
  const copyOf = options.copies === undefined ? new Int32Array(p).fill(-1) : exactCopies({ p, n, names, informative, codes, values }, options.copies);
  for (let j = 0; j < p; j++) if (copyOf[j]! >= 0) informative[j] = 0;
  // The mode is that of the variables searched: a constant number column leaves categorical data discrete.
  const searched = kinds.filter((_, j) => informative[j] === 1);
  const nCategorical = searched.filter((k) => k === 'categorical').length;
  const mode: DataMode = nCategorical === 0 ? 'continuous' : nCategorical === searched.length ? 'discrete' : 'mixed';
  const blocks: number[][] = [];
  const embedded: Float64Array[] = [];
  if (mode !== 'discrete') {
    for (let j = 0; j < p; j++) {
      const block: number[] = [];
      if (informative[j] === 1) {
        if (kinds[j] === 'continuous') {
          block.push(embedded.length);
          embedded.push(values[j]!);
        } else {
          for (let k = 1; k < levels[j]!; k++) {
            block.push(embedded.length);
            embedded.push(indicator(codes[j]!, k));
          }
        }
      }
      blocks.push(block);
    }
  } else {
    for (let j = 0; j < p; j++) blocks.push([]);
  }
  const moments = mode === 'discrete' ? null : columnMoments(embedded, n, kernels);
  const complete = n === 0 ? 1 : completeRows(frame, names.filter((_, j) => informative[j] === 1)).length / n;
  return {
    names, p, n, mode, kinds, levels, informative, values, codes, blocks, moments,
    completeShare: complete, copyOf, observed: complete < 1 ? new PairCounts({ n, p, kinds, values, codes }) : null,
  };
}

function hasVariation(values: Float64Array): boolean {
  let first = Number.NaN;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (Number.isNaN(first)) first = v;
    else if (v !== first) return true;
  }
  return false;
}

function recode(codes: Int32Array, nCategories: number): { dense: Int32Array; count: number } {
  const map = new Int32Array(Math.max(nCategories, 1)).fill(-1);
  for (const c of codes) if (c >= 0 && c < nCategories) map[c] = 0;
  let count = 0;
  for (let c = 0; c < map.length; c++) if (map[c] === 0) map[c] = count++;
  const dense = new Int32Array(codes.length);
  for (let r = 0; r < codes.length; r++) {
    const c = codes[r]!;
    dense[r] = c >= 0 && c < nCategories ? map[c]! : -1;
  }
  return { dense, count };
}

function indicator(codes: Int32Array, k: number): Float64Array {
  const out = new Float64Array(codes.length);
  for (let r = 0; r < codes.length; r++) out[r] = codes[r]! < 0 ? Number.NaN : codes[r] === k ? 1 : 0;
  return out;
}

