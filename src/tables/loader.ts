/**
 * The table-loading subsystem's one entry for its users (sources, connector imports): a file on disk or rows in
 * memory appended to a table of the data store as one batch (read by readers.ts, typed by inference/, converted and
 * loaded by ingest.ts and engine-ingest.ts), the statistics of the whole table computed after it (statistics.ts),
 * and a batch taken out again. Who owns the table and records its schema (a source's record) stays with the caller.
 */
import type { DataStore, TableRef } from '../store/data/port.js';
import type { InferredColumn } from './inference/infer-schema.js';
import { type BatchRow, type IngestOptions, ROW_COLUMN, engineReads, ingestBatch, ingestParts } from './ingest.js';
import type { PartedFile } from './parts.js';
import type { FileOnDisk } from './receive.js';
import { type TableReader, type UploadFormat, openTable } from './readers.js';
import { type RetypeTarget, retypeColumn } from './retype.js';
import { type ColumnMetadata, computeColumnMetadata, tableRows } from './statistics.js';

export interface LoadedBatch {
  /** The table's columns after the batch (a first batch decides them). */
  columns: InferredColumn[];
  rowCount: number;
  /** Statistics of every column over the whole table. */
  columnMetadata: Record<string, ColumnMetadata>;
}

export type { FileOnDisk };

export class TableLoader {
  /** Opened on first use: processes that never touch rows (the CLI) never load the data engine. */
  constructor(private readonly data: () => DataStore) {}

  /** Appends rows after the table's first `rowOffset` rows, typed by `existing` (the table's schema) or, for a first batch, decided from them. */
  async append(table: TableRef, existing: InferredColumn[] | null, fields: string[], rows: AsyncIterable<BatchRow>, rowOffset: number, options: IngestOptions = {}): Promise<LoadedBatch> {
    const batch = await ingestBatch(this.data(), table, existing, fields, rows, rowOffset, options);
    const columnMetadata = await computeColumnMetadata(this.data(), tableRows(table), batch.columns);
    return { ...batch, columnMetadata };
  }

  /**
   * Appends a file: read by the reader of its format, or loaded by the engine itself when it reads the file exactly
   * as the JS reader would (no quote left open: the engine would read on to the end; no blank lines: the JS reader
   * skips them, the engine does not).
   */
  async appendFile(table: TableRef, existing: InferredColumn[] | null, file: FileOnDisk, format: UploadFormat, rowOffset: number, options: Omit<IngestOptions, 'file'> = {}): Promise<LoadedBatch> {
    const reader = await openTable(file.path, format);
    try {
      return await this.append(table, existing, reader.fields, reader.rows, rowOffset, { ...options, file: engineFile(reader, file) });
    } finally {
      reader.close();
    }
  }

  /**
   * Appends a CSV file arriving in parts (a connector's extraction): each part is loaded as soon as it is complete,
   * while the next arrives. When the parts cannot all be loaded one by one (ingestParts), the whole file is, once it
   * has arrived, as appendFile loads it: the same rows, the same refusals.
   */
  async appendParts(table: TableRef, existing: InferredColumn[] | null, parted: PartedFile, rowOffset: number, options: Omit<IngestOptions, 'file'> = {}): Promise<LoadedBatch> {
    let pending = await parted.next();
    if (pending === null) return this.appendWhole(table, existing, parted, rowOffset, options);
    const reader = await openTable(pending.path, 'csv');
    const next = async () => {
      const part = pending ?? (await parted.next());
      pending = null;
      return part;
    };
    let batch: Awaited<ReturnType<typeof ingestParts>>;
    try {
      batch = await ingestParts(this.data(), table, existing, reader, next, rowOffset, options);
    } finally {
      reader.close();
    }
    if (batch === null) return this.appendWhole(table, existing, parted, rowOffset, options);
    const columnMetadata = await computeColumnMetadata(this.data(), tableRows(table), batch.columns);
    return { ...batch, columnMetadata };
  }

  private async appendWhole(table: TableRef, existing: InferredColumn[] | null, parted: PartedFile, rowOffset: number, options: Omit<IngestOptions, 'file'>): Promise<LoadedBatch> {
    const whole = await parted.whole();
    return this.appendFile(table, existing, whole, 'csv', rowOffset, options);
  }

  /** Takes out the rows from `fromRow` on: the whole table (dropped) when 0. */
  async cut(table: TableRef, fromRow: number): Promise<void> {
    if (fromRow === 0) await this.data().dropTable(table);
    else await this.data().deleteRowsFrom(table, ROW_COLUMN, fromRow);
  }

  async drop(table: TableRef): Promise<void> {
    await this.data().dropTable(table);
  }

  /**
   * Converts every row of a column to `type` (422 naming the first row that does not fit, nothing changed). The
   * table then holds the converted rows and `previous` the old ones, until the caller has recorded the new schema:
   * `keep` drops the old rows, `restore` puts them back.
   */
  async retype(table: TableRef, columns: InferredColumn[], field: string, type: RetypeTarget, beforeCommit: () => void) {
    const { schema, previous } = await retypeColumn(this.data(), table, columns, field, type, ROW_COLUMN, beforeCommit);
    const entry = schema.find((c) => c.field === field)!;
    const columnMetadata = await computeColumnMetadata(this.data(), tableRows(table), [entry]).catch(async (error: unknown) => {
      await this.restore(table, previous);
      throw error;
    });
    return {
      schema,
      columnMetadata,
      keep: () => this.data().dropTable(previous).catch(() => undefined),
      restore: () => this.restore(table, previous),
    };
  }

  /** The old rows back in place (if that fails too, `previous` is kept, not dropped). */
  private async restore(table: TableRef, previous: TableRef): Promise<void> {
    await this.data().exchangeTables(table, previous);
    await this.data().dropTable(previous).catch(() => undefined);
  }
}

function engineFile(reader: TableReader, file: FileOnDisk): IngestOptions['file'] {
  if (reader.engineFormat === null || !engineReads(file)) return undefined;
  return { path: file.path, format: reader.engineFormat, doubledQuotes: file.doubledQuotes, stopReading: reader.close };
}
