/**
 * Per-environment sufficient statistics of each continuous node's regression on its parents' design terms: the
 * cross products of [1, terms] and y over the environment's rows where the node and its terms are observed
 * (complete cases per family, as the pooled fit). One pass over the rows serves every environment of a shard.
 * From them, each environment's least-squares fit, its coefficient covariance and residual variance follow without
 * reading the rows again (regression.ts).
 */
import { termColumn, type Term } from '../cbn/design.js';
import { columnByName } from '../frame.js';
import type { CategoricalColumn, Frame } from '../types.js';

export interface Family {
  node: string;
  terms: Term[];
}

/** Cross products of one family in one environment; `m` = terms + 1 (intercept first). */
export interface FamilyMoments {
  n: number;
  /** m x m, row-major. */
  xtx: number[];
  xty: number[];
  yty: number;
}

/** Per environment (aligned with `environments`), per family (aligned with `families`). */
export function familyMoments(frame: Frame, environment: Int32Array, environments: readonly number[], families: readonly Family[]): FamilyMoments[][] {
  const slot = new Map(environments.map((e, i) => [e, i]));
  const out = environments.map(() => families.map((f) => emptyMoments(f.terms.length + 1)));
  families.forEach((family, f) => {
    const y = columnByName(frame, family.node);
    if (y.kind !== 'continuous') throw new Error(`${family.node} is not continuous`);
    const terms = family.terms.map((t) => termColumn(frame, t));
    const m = terms.length + 1;
    const x = new Float64Array(m);
    rows: for (let r = 0; r < frame.nRows; r++) {
      const s = slot.get(environment[r]!);
      const value = y.values[r]!;
      if (s === undefined || Number.isNaN(value)) continue;
      x[0] = 1;
      for (let t = 1; t < m; t++) {
        x[t] = terms[t - 1]![r]!;
        if (Number.isNaN(x[t]!)) continue rows;
      }
      const moments = out[s]![f]!;
      moments.n++;
      moments.yty += value * value;
      for (let a = 0; a < m; a++) {
        moments.xty[a]! += x[a]! * value;
        for (let b = 0; b <= a; b++) moments.xtx[a * m + b]! += x[a]! * x[b]!;
      }
    }
    for (const perEnvironment of out) {
      const { xtx } = perEnvironment[f]!;
      for (let a = 0; a < m; a++) for (let b = 0; b < a; b++) xtx[b * m + a] = xtx[a * m + b]!;
    }
  });
  return out;
}

/**
 * Class counts of a categorical node per parent configuration, per environment (CPT nodes). A continuous parent
 * enters by its bin among `cuts[parent]` (ascending; value <= cut i falls in bin i, above the last in the last bin):
 * the edges into a categorical node with a continuous input are judged from the counts as categorical inputs are.
 */
export function cptCounts(frame: Frame, environment: Int32Array, environments: readonly number[], node: string, parents: readonly string[], cuts: Readonly<Record<string, readonly number[]>> = {}): number[][][] {
  const slot = new Map(environments.map((e, i) => [e, i]));
  const column = columnByName(frame, node) as CategoricalColumn;
  const parentCodes = parents.map((p) => parentCodesOf(columnByName(frame, p), cuts[p]));
  const configurations = parentCodes.reduce((acc, c) => acc * c.levels, 1);
  const out = environments.map(() => Array.from({ length: configurations }, () => new Array<number>(column.categories.length).fill(0)));
  rows: for (let r = 0; r < frame.nRows; r++) {
    const s = slot.get(environment[r]!);
    const c = column.codes[r]!;
    if (s === undefined || c < 0) continue;
    let config = 0;
    for (const parent of parentCodes) {
      const code = parent.code(r);
      if (code < 0) continue rows;
      config = config * parent.levels + code;
    }
    out[s]![config]![c]!++;
  }
  return out;
}

/** A parent's code per row (-1: missing) and its number of levels: its categories, or its bins among `cuts`. */
function parentCodesOf(column: Frame['columns'][number], cuts: readonly number[] | undefined): { levels: number; code: (row: number) => number } {
  if (column.kind === 'categorical') return { levels: column.categories.length, code: (r) => column.codes[r]! };
  const bounds = cuts ?? [];
  return {
    levels: bounds.length + 1,
    code: (r) => {
      const value = column.values[r]!;
      if (Number.isNaN(value)) return -1;
      let bin = 0;
      while (bin < bounds.length && value > bounds[bin]!) bin++;
      return bin;
    },
  };
}

/**
 * Cut points splitting a continuous column's values into `bins` groups of about equal size (its quantiles, repeated
 * ones merged): how a continuous input of a categorical node is binned, the same in every environment.
 */
export function quantileCuts(values: Float64Array, bins: number): number[] {
  const sorted = Float64Array.from(values.filter((v) => !Number.isNaN(v))).sort();
  if (sorted.length === 0) return [];
  const cuts: number[] = [];
  for (let i = 1; i < bins; i++) {
    const cut = sorted[Math.min(sorted.length - 1, Math.floor((i * sorted.length) / bins))]!;
    if (cuts.length === 0 || cut > cuts[cuts.length - 1]!) cuts.push(cut);
  }
  // A cut at the largest value leaves its last bin empty.
  while (cuts.length > 0 && cuts[cuts.length - 1]! >= sorted[sorted.length - 1]!) cuts.pop();
  return cuts;
}

const emptyMoments = (m: number): FamilyMoments => ({ n: 0, xtx: new Array<number>(m * m).fill(0), xty: new Array<number>(m).fill(0), yty: 0 });
