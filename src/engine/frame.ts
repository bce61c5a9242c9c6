/** Building and slicing frames (types.ts): plain arrays in, typed columns out; row subsets; lookups. */
import type { CategoricalColumn, ContinuousColumn, Frame, FrameColumn } from './types.js';

/** A continuous column from numbers; null, undefined and NaN become missing. */
export function continuousColumn(name: string, values: readonly (number | null | undefined)[]): ContinuousColumn {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out[i] = v === null || v === undefined ? Number.NaN : v;
  }
  return { name, kind: 'continuous', values: out };
}

/**
 * A categorical column from labels; null and undefined become missing. Categories are the distinct labels in
 * the order given, or in first-seen order.
 */
export function categoricalColumn(name: string, values: readonly (string | null | undefined)[], categories?: string[]): CategoricalColumn {
  const cats = categories ? [...categories] : [];
  const index = new Map(cats.map((c, i) => [c, i]));
  const codes = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      codes[i] = -1;
      continue;
    }
    let code = index.get(v);
    if (code === undefined) {
      if (categories) throw new Error(`column ${name}: value ${v} is not one of its categories`);
      code = cats.length;
      cats.push(v);
      index.set(v, code);
    }
    codes[i] = code;
  }
  return { name, kind: 'categorical', codes, categories: cats };
}

/** A frame from columns of equal length. */
export function frameOf(columns: FrameColumn[]): Frame {
  const nRows = columns.length === 0 ? 0 : columnLength(columns[0]!);
  const names = new Set<string>();
  for (const c of columns) {
    if (columnLength(c) !== nRows) throw new Error(`column ${c.name} has ${columnLength(c)} rows, expected ${nRows}`);
    if (names.has(c.name)) throw new Error(`column ${c.name} appears twice`);
    names.add(c.name);
  }
  return { nRows, columns };
}

export const columnLength = (c: FrameColumn) => (c.kind === 'continuous' ? c.values.length : c.codes.length);

export const columnNames = (frame: Frame) => frame.columns.map((c) => c.name);

export function columnByName(frame: Frame, name: string): FrameColumn {
  const column = frame.columns.find((c) => c.name === name);
  if (!column) throw new Error(`no column named ${name}`);
  return column;
}

export const isMissingAt = (c: FrameColumn, row: number) => (c.kind === 'continuous' ? Number.isNaN(c.values[row]!) : c.codes[row]! < 0);

/** The frame restricted to the given rows, in that order (rows may repeat, as a bootstrap resample does). */
export function selectRows(frame: Frame, rows: ArrayLike<number>): Frame {
  const columns = frame.columns.map((c): FrameColumn => {
    if (c.kind === 'continuous') {
      const values = new Float64Array(rows.length);
      for (let i = 0; i < rows.length; i++) values[i] = c.values[rows[i]!]!;
      return { name: c.name, kind: 'continuous', values };
    }
    const codes = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) codes[i] = c.codes[rows[i]!]!;
    return { name: c.name, kind: 'categorical', codes, categories: [...c.categories] };
  });
  return { nRows: rows.length, columns };
}

/** Row indices where every named column is observed. */
export function completeRows(frame: Frame, names: readonly string[]): Int32Array {
  const cols = names.map((n) => columnByName(frame, n));
  const out: number[] = [];
  for (let r = 0; r < frame.nRows; r++) if (cols.every((c) => !isMissingAt(c, r))) out.push(r);
  return Int32Array.from(out);
}

/** Share of missing cells in the frame. */
export function missingShare(frame: Frame): number {
  if (frame.nRows === 0 || frame.columns.length === 0) return 0;
  let missing = 0;
  for (const c of frame.columns) for (let r = 0; r < frame.nRows; r++) if (isMissingAt(c, r)) missing++;
  return missing / (frame.nRows * frame.columns.length);
}

/** Mean and standard deviation of the observed values; `std` is never 0 (1 for a constant, for scaling), `rawStd` may be. */
export function observedMeanAndStd(values: Float64Array): { mean: number; std: number; rawStd: number } {
  let sum = 0;
  let count = 0;
  for (const v of values) if (!Number.isNaN(v)) {
    sum += v;
    count++;
  }
  const mean = count > 0 ? sum / count : 0;
  let ss = 0;
  for (const v of values) if (!Number.isNaN(v)) ss += (v - mean) ** 2;
  const std = Math.sqrt(ss / Math.max(count - 1, 1));
  return { mean, std: std > 0 ? std : 1, rawStd: std };
}
