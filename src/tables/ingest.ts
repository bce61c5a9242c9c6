import { INTERNAL_PREFIX } from './reserved.js';
import { newId } from '../lib/ids.js';
import { AppError } from '../errors.js';
import type { DataStore, FileFormat, TableRef } from '../store/data/port.js';
import type { FileOnDisk } from './receive.js';
import type { BatchRow, TableReader } from './table-reader.js';
import { engineConvertible, ingestInEngine } from './engine-ingest.js';
import { ingestInOnePass, plainIntegerColumns } from './one-pass-ingest.js';
import { convertCell, refusal, storageType } from './inference/convert.js';
import { type InferredColumn, inferSchema, isNullCell } from './inference/infer-schema.js';

export type { BatchRow };

/** The column holding each row's ordinal: stable order and keyset paging of records. */
export const ROW_COLUMN = `${INTERNAL_PREFIX}row`;
/** Rows read before the schema of a first batch is decided. */
export const SAMPLE_ROWS = 10_000;
const INSERT_CHUNK = 10_000;

export interface IngestedBatch {
  columns: InferredColumn[];
  rowCount: number;
}

/** Decides a first batch's columns from its fields and a sample of their text cells (default: inferred from the cells). */
export type SchemaDecision = (fields: string[], sample: Array<Array<string | null>>) => InferredColumn[];

export interface IngestOptions {
  /** The file itself, when the engine can read it: then it loads and converts the rows if the columns allow. */
  file?: { path: string; format: FileFormat; doubledQuotes?: boolean; stopReading: () => void };
  /** Called right before the rows are committed to the table (the writer checks it still holds the source). */
  beforeCommit?: () => void;
  decide?: SchemaDecision;
  /**
   * Fields whose cells the writer put in the engine's canonical text for their declared type (a typed source's driver:
   * connectors/declared-schema.ts): the engine's parsers read them straight into that type (one-pass-ingest.ts).
   */
  canonical?: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/** A value of a record or file as the text cell inference reads (objects and arrays as JSON text). */
export function toCell(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  // Parquet's 64-bit integers arrive as bigint, inside lists too.
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? Number(inner) : inner));
}

/** The columns of inline records: the union of their keys, in order of first appearance. */
export function fieldsOf(rows: Array<Record<string, unknown>>): string[] {
  const fields = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) fields.add(key);
  return [...fields];
}

/**
 * Ingests one batch atomically: rows are converted and written to a staging table, then moved into the source's
 * table in one statement (by the engine itself when it can read the file and convert every column). A first batch (`existing` null) decides the schema from a sample and creates the table;
 * a later one must have exactly the source's columns. Any failure leaves no row of the batch behind.
 */
export async function ingestBatch(
  store: DataStore,
  table: TableRef,
  existing: InferredColumn[] | null,
  fields: string[],
  rows: AsyncIterable<BatchRow>,
  rowStart: number,
  options: IngestOptions = {},
): Promise<IngestedBatch> {
  const { file, beforeCommit = () => undefined, canonical = NONE } = options;
  const { columns, sample, rest, definitions } = await openBatch(store, table, existing, fields, rows, options.decide);
  if (file !== undefined && engineConvertible(columns)) {
    file.stopReading();
    try {
      // One pass when some column is parsed straight into its type: an integer column of plain digits, or a
      // canonical one (BENCHMARKS.md, data plane).
      const plainIntegers = plainIntegerColumns(columns, fields, sample.map((row) => row.cells));
      const onePass = plainIntegers.size > 0 || canonical.size > 0 ? await ingestInOnePass(store, table, file, fields, columns, plainIntegers, canonical, ROW_COLUMN, rowStart, beforeCommit) : null;
      return { columns, rowCount: onePass ?? (await ingestInEngine(store, table, file, fields, columns, definitions, ROW_COLUMN, rowStart, beforeCommit)) };
    } catch (error) {
      if (existing === null) await store.dropTable(table).catch(() => undefined);
      throw error;
    }
  }
  const byField = new Map(columns.map((column) => [column.field, column]));
  const ordered = fields.map((field) => byField.get(field)!);
  const staging: TableRef = { organisationId: table.organisationId, tableId: newId('stg') };
  await store.createTable(staging, definitions, [ROW_COLUMN]);
  let count = 0;
  try {
    let chunk: Array<Record<string, unknown>> = [];
    const add = async (row: BatchRow) => {
      chunk.push(toRecord(ordered, row, rowStart + count));
      count += 1;
      if (chunk.length >= INSERT_CHUNK) {
        await store.insert(staging, chunk);
        chunk = [];
      }
    };
    for (const row of sample) await add(row);
    for (let next = await rest.next(); !next.done; next = await rest.next()) await add(next.value);
    await store.insert(staging, chunk);
    beforeCommit();
    await store.appendFrom(staging, table);
  } catch (error) {
    if (existing === null) await store.dropTable(table).catch(() => undefined);
    throw error;
  } finally {
    await store.dropTable(staging).catch(() => undefined);
  }
  return { columns, rowCount: count };
}

/**
 * Ingests a file that arrives in parts (parts.ts), each part loaded in one pass (one-pass-ingest.ts) as soon as it
 * is complete, while the next still arrives. `first` is the reader of the first part (the header and the sample).
 * Answers null, with nothing of the batch left behind, when some part cannot be loaded so: a column or a part the
 * engine does not read exactly, or a cell the one pass declines; the caller then ingests the whole file, which
 * reads every cell and names a bad one.
 */
export async function ingestParts(
  store: DataStore,
  table: TableRef,
  existing: InferredColumn[] | null,
  first: TableReader,
  next: () => Promise<(FileOnDisk & { format: FileFormat }) | null>,
  rowStart: number,
  options: Omit<IngestOptions, 'file'> = {},
): Promise<IngestedBatch | null> {
  const { beforeCommit = () => undefined, canonical = NONE } = options;
  const { columns, sample } = await openBatch(store, table, existing, first.fields, first.rows, options.decide);
  first.close();
  let count = 0;
  try {
    if (first.engineFormat === null || !engineConvertible(columns)) return await declined();
    const plainIntegers = plainIntegerColumns(columns, first.fields, sample.map((row) => row.cells));
    for (let part = await next(); part !== null; part = await next()) {
      if (!engineReads(part)) return await declined();
      const rows = await ingestInOnePass(store, table, part, first.fields, columns, plainIntegers, canonical, ROW_COLUMN, rowStart + count, beforeCommit);
      if (rows === null) return await declined();
      count += rows;
    }
  } catch (error) {
    await declined();
    throw error;
  }
  return { columns, rowCount: count };

  async function declined(): Promise<null> {
    await (existing === null ? store.dropTable(table) : store.deleteRowsFrom(table, ROW_COLUMN, rowStart));
    return null;
  }
}

/** Whether the engine reads a file as the JS reader would: no quote left open (it would read on to the end), no blank lines (the JS reader skips them). */
export function engineReads(file: FileOnDisk): boolean {
  return file.quotes % 2 === 0 && !file.blankLines;
}

/**
 * The start of a batch: the sample read, the columns decided (a first batch; a later one must have the source's
 * columns) and, for a first batch, the table created. `rest` reads on after the sample.
 */
async function openBatch(store: DataStore, table: TableRef, existing: InferredColumn[] | null, fields: string[], rows: AsyncIterable<BatchRow>, decide: SchemaDecision = inferSchema) {
  const reserved = fields.find((field) => field.startsWith(INTERNAL_PREFIX));
  if (reserved !== undefined) throw invalid(`The column name ${reserved} is reserved: names starting with ${INTERNAL_PREFIX} are the service's own`);
  const rest = rows[Symbol.asyncIterator]();
  const sample: BatchRow[] = [];
  while (sample.length < SAMPLE_ROWS) {
    const next = await rest.next();
    if (next.done === true) break;
    sample.push(next.value);
  }
  if (sample.length === 0) throw invalid('The batch has no rows');
  const columns = existing ?? decide(fields, sample.map((row) => row.cells));
  if (existing !== null) assertSameColumns(existing, fields);
  const definitions = [{ name: ROW_COLUMN, type: 'UInt64' }, ...columns.map((column) => ({ name: column.field, type: storageType(column) }))];
  await store.ensureTenant(table.organisationId);
  if (existing === null) await store.createTable(table, definitions, [ROW_COLUMN]);
  return { columns, sample, rest, definitions };
}

/** Converts a row; a cell that is present but not of its column's type is refused, naming line and column. */
function toRecord(columns: InferredColumn[], row: BatchRow, ordinal: number): Record<string, unknown> {
  const record: Record<string, unknown> = { [ROW_COLUMN]: ordinal };
  columns.forEach((column, i) => {
    const cell = row.cells[i] ?? null;
    const value = convertCell(column, cell);
    if (value === null && !isNullCell(cell) && column.type !== 'text' && column.type !== 'categorical') {
      throw invalid(refusal(row.line, column, cell!));
    }
    record[column.field] = value;
  });
  return record;
}

function assertSameColumns(existing: InferredColumn[], fields: string[]): void {
  const known = new Set(existing.map((column) => column.field));
  const missing = [...known].filter((field) => !fields.includes(field));
  const extra = fields.filter((field) => !known.has(field));
  if (missing.length > 0 || extra.length > 0) {
    throw invalid(
      `The columns do not fit the source's schema:${missing.length > 0 ? ` missing ${missing.map((f) => `"${f}"`).join(', ')}` : ''}` +
        `${extra.length > 0 ? ` unknown ${extra.map((f) => `"${f}"`).join(', ')}` : ''}`,
    );
  }
}

const invalid = (detail: string) => new AppError('validation_failed', detail);
