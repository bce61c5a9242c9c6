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

/** The same frame from columnar JSON: each column named by the header, in the model's order; absent ones missing. */
export function frameFromTable(scm: { readonly model: CbnModel }, table: { columns: string[]; rows: Array<Array<number | string | boolean | null>> }): Frame {
  const n = table.rows.length;
  const position = new Map(table.columns.map((name, i) => [name, i]));
  const columns = scm.model.nodes.map((node): FrameColumn => {
    const at = position.get(node.name) ?? -1;
    if (node.kind === 'continuous') {
      const values = new Float64Array(n).fill(Number.NaN);
      if (at >= 0) {
        for (let r = 0; r < n; r++) {
          const v = table.rows[r]![at];
          if (typeof v === 'number' && Number.isFinite(v)) values[r] = v;
        }
      }
      return { name: node.name, kind: 'continuous', values };
    }
    const index = new Map(node.categories.map((c, k) => [c, k]));
    const codes = new Int32Array(n).fill(-1);
    if (at >= 0) {
      for (let r = 0; r < n; r++) {
        const v = table.rows[r]![at];
        if (v !== null && v !== undefined) codes[r] = index.get(String(v)) ?? -1;
      }
    }
    return { name: node.name, kind: 'categorical', codes, categories: [...node.categories] };
  });
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
