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

/** Class counts of a categorical node per parent configuration, per environment (CPT nodes). */
export function cptCounts(frame: Frame, environment: Int32Array, environments: readonly number[], node: string, parents: readonly string[]): number[][][] {
  const slot = new Map(environments.map((e, i) => [e, i]));
  const column = columnByName(frame, node) as CategoricalColumn;
  const parentColumns = parents.map((p) => columnByName(frame, p) as CategoricalColumn);
  const configurations = parentColumns.reduce((acc, c) => acc * c.categories.length, 1);
  const out = environments.map(() => Array.from({ length: configurations }, () => new Array<number>(column.categories.length).fill(0)));
  rows: for (let r = 0; r < frame.nRows; r++) {
    const s = slot.get(environment[r]!);
    const c = column.codes[r]!;
    if (s === undefined || c < 0) continue;
    let config = 0;
    for (const parent of parentColumns) {
      const code = parent.codes[r]!;
      if (code < 0) continue rows;
      config = config * parent.categories.length + code;
    }
    out[s]![config]![c]!++;
  }
  return out;
}

const emptyMoments = (m: number): FamilyMoments => ({ n: 0, xtx: new Array<number>(m * m).fill(0), xty: new Array<number>(m).fill(0), yty: 0 });
