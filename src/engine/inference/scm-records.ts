/** JSON records <-> frames over a structural model's variables (labels <-> codes of node.categories). */
import type { CbnModel, Frame, FrameColumn } from '../types.js';

/**
 * JSON records -> a frame over the model's variables in model order (labels -> codes of node.categories;
 * null/absent, an unknown label, or a non-number for a continuous variable are missing).
 */
export function frameFromRecords(scm: { readonly model: CbnModel }, records: Record<string, number | string | boolean | null>[]): Frame {
  const n = records.length;
  const columns = scm.model.nodes.map((node): FrameColumn => {
    if (node.kind === 'continuous') {
      const values = new Float64Array(n);
      records.forEach((rec, r) => {
        const v = rec[node.name];
        values[r] = typeof v === 'number' && Number.isFinite(v) ? v : Number.NaN;
      });
      return { name: node.name, kind: 'continuous', values };
    }
    const index = new Map(node.categories.map((c, k) => [c, k]));
    const codes = new Int32Array(n);
    records.forEach((rec, r) => {
      const v = rec[node.name];
      codes[r] = v === null || v === undefined ? -1 : index.get(String(v)) ?? -1;
    });
    return { name: node.name, kind: 'categorical', codes, categories: [...node.categories] };
  });
  return { nRows: n, columns };
}

/**
 * The same frame from columnar JSON: each column named by the header, in the model's order; absent ones missing.
 * Read row by row (each row's array once, its cells in order), not column by column over 100k row arrays.
 */
export function frameFromTable(scm: { readonly model: CbnModel }, table: { columns: string[]; rows: Array<Array<number | string | boolean | null>> }): Frame {
  const n = table.rows.length;
  const position = new Map(table.columns.map((name, i) => [name, i]));
  const columns = scm.model.nodes.map((node): FrameColumn => (node.kind === 'continuous'
    ? { name: node.name, kind: 'continuous', values: new Float64Array(n).fill(Number.NaN) }
    : { name: node.name, kind: 'categorical', codes: new Int32Array(n).fill(-1), categories: [...node.categories] }));
  const numbers: Array<{ at: number; values: Float64Array }> = [];
  const classes: Array<{ at: number; codes: Int32Array; index: Map<string, number> }> = [];
  scm.model.nodes.forEach((node, j) => {
    const at = position.get(node.name);
    if (at === undefined) return;
    const column = columns[j]!;
    if (column.kind === 'continuous') numbers.push({ at, values: column.values });
    else classes.push({ at, codes: column.codes, index: new Map(column.categories.map((c, k) => [c, k])) });
  });
  for (let r = 0; r < n; r++) {
    const row = table.rows[r]!;
    for (const { at, values } of numbers) {
      const v = row[at];
      if (typeof v === 'number' && Number.isFinite(v)) values[r] = v;
    }
    for (const { at, codes, index } of classes) {
      const v = row[at];
      if (v !== null && v !== undefined) codes[r] = index.get(String(v)) ?? -1;
    }
  }
  return { nRows: n, columns };
}

/** Columnar JSON as records: row r's values keyed by the header (null stays null, a missing value). */
export function recordsOfTable<V>(table: { columns: readonly string[]; rows: ReadonlyArray<ReadonlyArray<V>> }): Array<Record<string, V>> {
  const { columns } = table;
  return table.rows.map((row) => {
    const record: Record<string, V> = {};
    for (let i = 0; i < columns.length; i++) record[columns[i]!] = row[i]!;
    return record;
  });
}

/** A cell as JSON: a number, a category label, or null when missing. */
export function valueAt(frame: Frame, column: number, row: number): number | string | null {
  const c = frame.columns[column];
  if (!c || row < 0 || row >= frame.nRows) throw new Error(`no cell at column ${column}, row ${row}`);
  if (c.kind === 'continuous') {
    const v = c.values[row]!;
    return Number.isNaN(v) ? null : v;
  }
  const code = c.codes[row]!;
  return code < 0 ? null : c.categories[code] ?? null;
}
