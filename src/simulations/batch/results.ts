/**
 * A batch's row results as a table in the data store: `row` (the row's position in the input, from 0), the kept
 * columns of the input, then the columns of its answers (prediction.ts, score.ts). Written chunk by chunk as
 * RowBinary; read back by keyset pages on `row` and streamed as CSV, NDJSON or Parquet.
 */
import { Readable } from 'node:stream';
import { AppError } from '../../errors.js';
import { PARQUET_PART_ROWS, spliceParquet } from '../../lib/parquet-splice.js';
import { concatenated, wholeParts } from '../../lib/streams.js';
import type { ResultColumn } from '../../lib/row-binary.js';
import { type ColumnSpec, type DataStore, type TableRef, quoteColumn } from '../../store/data/port.js';
import { type KeptInput, keptColumn } from './input.js';
import { runTable, tableExists } from './tables.js';

export type { ResultColumn };

/** What a run records of its results table (RunResult.rowsTable). */
export interface RowsTableRecord {
  tableId: string;
  rows: number;
  /** The table's columns in order: the name a reader sees, and the stored column. */
  columns: Array<{ name: string; column: string }>;
}

export type RowsExportFormat = 'csv' | 'ndjson' | 'parquet';

const EXPORTS: Record<RowsExportFormat, { format: 'CSVWithNames' | 'JSONEachRow' | 'Parquet'; type: string; extension: string }> = {
  csv: { format: 'CSVWithNames', type: 'text/csv; charset=utf-8', extension: 'csv' },
  ndjson: { format: 'JSONEachRow', type: 'application/x-ndjson', extension: 'ndjson' },
  parquet: { format: 'Parquet', type: 'application/vnd.apache.parquet', extension: 'parquet' },
};

/** Rows per query of a csv or ndjson export: the stream is cut into ranges, so the store never holds it whole. */
const EXPORT_RANGE = 200_000;

export class BatchResults {
  constructor(private readonly data: () => DataStore) {}

  /** Creates the run's results table (and its chunk table when input columns are kept beside the results). */
  async create(organisationId: string, runId: string, answers: readonly ResultColumn[], kept: KeptInput | null): Promise<ResultsWriter> {
    const keep = kept?.columns ?? [];
    const taken = new Set(['row', ...answers.map((c) => c.name)]);
    const clash = keep.find((column) => taken.has(column.name));
    if (clash !== undefined) throw new AppError('validation_failed', `keepColumns: '${clash.name}' is also the name of a result column; rename it in a dataset or leave it out`);
    const store = this.data();
    const results = runTable('results', organisationId, runId);
    const chunk = runTable('chunk', organisationId, runId);
    const answerColumns = answers.map((c) => ({ name: c.column, type: c.type }));
    await store.ensureTenant(organisationId);
    for (const table of [results, chunk]) await store.dropTable(table);
    const chunkColumns = [{ name: 'row', type: 'UInt64' }, ...answerColumns];
    await store.createTable(results, [{ name: 'row', type: 'UInt64' }, ...keep.map((column, i) => ({ name: keptColumn(i), type: column.type })), ...answerColumns], ['row']);
    if (keep.length > 0) await store.createTable(chunk, chunkColumns, ['row']);
    const columns = [
      { name: 'row', column: 'row' },
      ...keep.map((column, i) => ({ name: column.name, column: keptColumn(i) })),
      ...answers.map(({ name, column }) => ({ name, column })),
    ];
    return new ResultsWriter(store, results, kept === null || keep.length === 0 ? null : { table: chunk, columns: chunkColumns, kept }, columns);
  }

  /** One page of rows after `after` (a row number), in row order. */
  async page(organisationId: string, record: RowsTableRecord, after: number | null, limit: number): Promise<Array<Record<string, unknown>>> {
    await this.requireTable(organisationId, record);
    return this.data().query<Record<string, unknown>>(
      organisationId,
      (sql) => `SELECT ${selectList(record)} FROM ${sql.table(record.tableId)} AS r WHERE r.row > {after:Int64} ORDER BY r.row LIMIT ${Math.floor(limit)}`,
      { after: after ?? -1 },
    );
  }

  /** The whole table as a file, streamed range by range (parquet: each range's file spliced into one). */
  async export(organisationId: string, record: RowsTableRecord, format: RowsExportFormat, signal?: AbortSignal): Promise<{ stream: Readable; type: string; extension: string }> {
    await this.requireTable(organisationId, record);
    const { format: engineFormat, type, extension } = EXPORTS[format];
    const store = this.data();
    const range = (from: number, to: number, header: boolean) =>
      store.export(
        organisationId,
        (sql) => `SELECT ${selectList(record)} FROM ${sql.table(record.tableId)} AS r WHERE r.row >= {from:UInt64} AND r.row < {to:UInt64} ORDER BY r.row`,
        header || engineFormat !== 'CSVWithNames' ? engineFormat : 'CSV',
        { from, to },
        signal === undefined ? {} : { signal },
      );
    const step = format === 'parquet' ? PARQUET_PART_ROWS : EXPORT_RANGE;
    const ranges = async function* (): AsyncGenerator<Readable> {
      for (let from = 0; from < Math.max(record.rows, 1); from += step) yield await range(from, from + step, from === 0);
    };
    // Each range of a Parquet export is a file of its own: spliced into one, a range in memory at a time.
    const bytes = format === 'parquet' ? spliceParquet(wholeParts(ranges())) : concatenated(ranges());
    return { stream: Readable.from(bytes, { objectMode: false }), type, extension };
  }

  async drop(organisationId: string, record: Pick<RowsTableRecord, 'tableId'>): Promise<void> {
    await this.data().dropTable({ organisationId, tableId: record.tableId });
  }

  private async requireTable(organisationId: string, record: RowsTableRecord): Promise<void> {
    if (!(await tableExists(this.data(), { organisationId, tableId: record.tableId }))) throw new AppError('not_found', 'The row results of this run are gone (its twin was deleted)');
  }
}

/**
 * The columns as a reader sees them; `row` as a 32-bit number (a batch holds at most 50 million rows), so JSON shows
 * it unquoted. Stored columns are read qualified (`r.`): a reader's name may be another stored column's (a kept
 * column named `k1`, a target named `t0`), and a bare name resolves to a same-named alias of the query first.
 */
const selectList = (record: RowsTableRecord) => record.columns.map(({ name, column }) => `${column === 'row' ? 'toUInt32(r.row)' : `r.${quoteColumn(column)}`} AS ${quoteColumn(name)}`).join(', ');

/**
 * Rows of results gathered before they are inserted: each insert costs the engine a part of its own, and a scoring
 * run's chunks are small (10,000 rows), so its chunks go in five at a time. A chunk joined with kept input columns
 * goes in alone (its input is read by the chunk's own key range).
 */
const WRITE_ROWS = 50_000;

/** Writes a run's row results chunk by chunk, in inserts of WRITE_ROWS; on failure the caller drops every table of the run. */
export class ResultsWriter {
  /** Chunks taken and not yet inserted: consecutive rows from `offset`. */
  private pending: { offset: number; rows: number; bodies: Uint8Array[] } | null = null;

  constructor(
    private readonly store: DataStore,
    readonly table: TableRef,
    /** Where a chunk waits to be joined with its kept input columns (null: nothing kept, chunks go straight in). */
    private readonly chunk: { table: TableRef; columns: ColumnSpec[]; kept: KeptInput } | null,
    readonly columns: RowsTableRecord['columns'],
  ) {}

  /** The rows [offset, offset + rows) of a chunk (the chunks in order), `body` their RowBinary (`row`, then the answers' columns). */
  async write(offset: number, rows: number, body: Uint8Array, signal: AbortSignal): Promise<void> {
    const pending = (this.pending ??= { offset, rows: 0, bodies: [] });
    pending.rows += rows;
    pending.bodies.push(body);
    if (pending.rows >= WRITE_ROWS || this.chunk !== null) await this.flush(signal);
  }

  /** Inserts what is pending; the chunk table is the writer's scratch, gone once the results are written. */
  async finish(signal: AbortSignal): Promise<void> {
    await this.flush(signal);
    if (this.chunk !== null) await this.store.dropTable(this.chunk.table);
  }

  /** Inserts the pending rows; kept input columns are joined in from the data (kept.rows). */
  private async flush(signal: AbortSignal): Promise<void> {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const body = pending.bodies.length === 1 ? pending.bodies[0]! : Buffer.concat(pending.bodies);
    if (this.chunk === null) {
      await this.store.insertRowBinary(this.table, body);
      return;
    }
    const { table: chunk, columns, kept } = this.chunk;
    await this.store.insertRowBinary(chunk, body);
    const select = ['c.row', ...kept.columns.map((_, i) => `i.${keptColumn(i)}`), ...columns.slice(1).map((c) => `c.${c.name}`)];
    const input = kept.rows(pending.offset, pending.offset + pending.rows);
    await this.store.insertSelect(
      this.table,
      (sql) => `SELECT ${select.join(', ')} FROM ${sql.table(chunk.tableId)} AS c INNER JOIN (${input.sql(sql)}) AS i ON i.row = c.row`,
      input.params,
      { signal },
    );
    // Emptied for the next insert (the port has no TRUNCATE: dropped and made again).
    await this.store.dropTable(chunk);
    await this.store.createTable(chunk, columns, ['row']);
  }
}
