import { createHash } from 'node:crypto';
import type { CategoricalColumn, ContinuousColumn, Frame, FrameColumn } from '../engine/types.js';
import type { InferredColumn } from '../tables/inference/infer-schema.js';

/** Integer columns with at most this many distinct values (over enough rows) are states, not quantities. */
const INTEGER_STATES_MAX = 10;
const INTEGER_STATES_MIN_ROWS = 50;
/** Categorical columns keep their most frequent levels; the rest are pooled into one. */
const LEVELS_MAX = 50;
const OTHER_LEVEL = '(other)';

/**
 * The columns a twin models (DESIGN.md, "data to matrix"): numbers, booleans and categories. Identifiers, free
 * text, dates, JSON and arrays cannot be causes or effects in a CBN, and the time and environment columns
 * index the data rather than describe it.
 */
export function modelledColumns(schema: InferredColumn[], excluded: Iterable<string>): InferredColumn[] {
  const skip = new Set(excluded);
  return schema.filter((column) => !skip.has(column.field) && !column.isIndex && ['integer', 'decimal', 'boolean', 'categorical'].includes(column.type));
}

/**
 * Builds the engine's frame from rows as the data engine answers them, on SharedArrayBuffers so pool workers
 * read it without copies. Columns with fewer than two distinct values carry no information and are left out
 * (named in `dropped`). The signature is a sha256 over the names, kinds and values as read.
 */
export async function buildFrame(rows: Array<Record<string, unknown>>, columns: InferredColumn[]): Promise<{ frame: Frame; dropped: string[]; signature: string }> {
  const frameColumns: FrameColumn[] = [];
  const dropped: string[] = [];
  for (const column of columns) {
    // One column at a time, letting requests through between them: this runs on the server's event loop.
    await new Promise((resolve) => setImmediate(resolve));
    const built = isStates(rows, column) ? categorical(rows, column.field) : continuous(rows, column.field);
    if (distinctCount(built) < 2) dropped.push(column.field);
    else frameColumns.push(built);
  }
  const frame: Frame = { nRows: rows.length, columns: frameColumns };
  return { frame, dropped, signature: signatureOf(frame) };
}

function isStates(rows: Array<Record<string, unknown>>, column: InferredColumn): boolean {
  if (column.type === 'boolean' || column.type === 'categorical') return true;
  if (column.type !== 'integer' || rows.length < INTEGER_STATES_MIN_ROWS) return false;
  const seen = new Set<unknown>();
  for (const row of rows) {
    const value = row[column.field];
    if (value === null || value === undefined) continue;
    seen.add(Number(value));
    if (seen.size > INTEGER_STATES_MAX) return false;
  }
  return true;
}

function continuous(rows: Array<Record<string, unknown>>, field: string): ContinuousColumn {
  const values = new Float64Array(new SharedArrayBuffer(rows.length * 8));
  rows.forEach((row, i) => {
    const value = row[field];
    const number = value === null || value === undefined || value === '' ? Number.NaN : Number(value);
    values[i] = Number.isFinite(number) ? number : Number.NaN;
  });
  return { name: field, kind: 'continuous', values };
}

function categorical(rows: Array<Record<string, unknown>>, field: string): CategoricalColumn {
  const counts = new Map<string, number>();
  const labels = rows.map((row) => {
    const value = row[field];
    if (value === null || value === undefined || value === '') return null;
    const label = String(value);
    counts.set(label, (counts.get(label) ?? 0) + 1);
    return label;
  });
  let categories = [...counts.keys()].sort(compareLabels);
  if (categories.length > LEVELS_MAX) {
    const kept = new Set([...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, LEVELS_MAX - 1).map(([label]) => label));
    categories = [...categories.filter((label) => kept.has(label)), OTHER_LEVEL];
  }
  const index = new Map(categories.map((label, i) => [label, i]));
  const other = index.get(OTHER_LEVEL) ?? -1;
  const codes = new Int32Array(new SharedArrayBuffer(rows.length * 4));
  labels.forEach((label, i) => {
    codes[i] = label === null ? -1 : (index.get(label) ?? other);
  });
  return { name: field, kind: 'categorical', codes, categories };
}

/** Numeric labels in numeric order ("2" before "10"), others alphabetically. */
function compareLabels(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (Number.isFinite(x) && Number.isFinite(y) && a.trim() !== '' && b.trim() !== '') return x - y;
  return a.localeCompare(b);
}

function distinctCount(column: FrameColumn): number {
  const seen = new Set<number>();
  const values = column.kind === 'continuous' ? column.values : column.codes;
  for (const value of values) {
    if (column.kind === 'continuous' ? Number.isNaN(value) : value < 0) continue;
    seen.add(value);
    if (seen.size >= 2) return 2;
  }
  return seen.size;
}

function signatureOf(frame: Frame): string {
  const hash = createHash('sha256');
  hash.update(String(frame.nRows));
  for (const column of frame.columns) {
    hash.update(`\u0000${column.name}\u0000${column.kind}`);
    if (column.kind === 'continuous') hash.update(new Uint8Array(column.values.buffer, column.values.byteOffset, column.values.byteLength));
    else {
      hash.update(column.categories.join('\u0001'));
      hash.update(new Uint8Array(column.codes.buffer, column.codes.byteOffset, column.codes.byteLength));
    }
  }
  return `sha256:${hash.digest('hex')}`;
}
