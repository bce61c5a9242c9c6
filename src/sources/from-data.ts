import { createHash } from 'node:crypto';
import { canonicalJson } from '../lib/canonical-json.js';
import type { DataStore, TableRef } from '../store/data/port.js';
import { convertCell, storageType } from './inference/convert.js';
import { type InferredColumn, inferSchema } from './inference/infer-schema.js';

/** The column holding each row's ordinal: stable order and keyset paging of records. */
export const ROW_COLUMN = '_causa_row';

export interface IngestedBatch {
  columns: InferredColumn[];
  rowCount: number;
  bytes: number;
  hash: string;
}

/** A JSON value as the text cell inference reads (objects and arrays as JSON text). */
function toCell(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The columns of inline records: the union of their keys, in order of first appearance. */
export function fieldsOf(rows: Array<Record<string, unknown>>): string[] {
  const fields = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) fields.add(key);
  return [...fields];
}

/**
 * Infers the schema of inline records, creates the source's table and inserts them as one batch. On any
 * failure the table is dropped: nothing of the batch remains.
 */
export async function ingestRecords(store: DataStore, table: TableRef, rows: Array<Record<string, unknown>>): Promise<IngestedBatch> {
  const fields = fieldsOf(rows);
  const cells = rows.map((row) => fields.map((field) => toCell(row[field])));
  const columns = inferSchema(fields, cells);
  await store.ensureTenant(table.organisationId);
  await store.createTable(
    table,
    [{ name: ROW_COLUMN, type: 'UInt64' }, ...columns.map((column) => ({ name: column.field, type: storageType(column) }))],
    [ROW_COLUMN],
  );
  try {
    const records = cells.map((row, ordinal) => {
      const record: Record<string, unknown> = { [ROW_COLUMN]: ordinal };
      columns.forEach((column, i) => (record[column.field] = convertCell(column, row[i] ?? null)));
      return record;
    });
    await store.insert(table, records);
  } catch (error) {
    await store.dropTable(table).catch(() => undefined);
    throw error;
  }
  const text = canonicalJson(rows);
  return {
    columns,
    rowCount: rows.length,
    bytes: Buffer.byteLength(text),
    hash: createHash('sha256').update(text).digest('hex'),
  };
}
