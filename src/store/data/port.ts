import type { Readable } from 'node:stream';

/**
 * The data store port (source rows, datasets, result artifacts): ClickHouse SQL, embedded on chDB or on a
 * ClickHouse server. Isolation is structural: every organisation owns one database, table names are generated
 * ids, and SQL reaches the store only through `TenantSql`, whose `table()` can name nothing outside the calling
 * organisation. Values are always bound as query parameters ({name:Type}), never spliced into the text.
 */
export interface DataStore {
  readonly kind: 'chdb' | 'clickhouse';
  /** Creates the organisation's database if needed (idempotent). */
  ensureTenant(organisationId: string): Promise<void>;
  /** MergeTree tables hold data; Log tables keep rows in insertion order (staging of a file, read once). */
  createTable(table: TableRef, columns: ColumnSpec[], orderBy: string[], engine?: 'MergeTree' | 'Log'): Promise<void>;
  dropTable(table: TableRef): Promise<void>;
  /** Inserts rows (objects keyed by column) in one batch; returns how many were sent. */
  insert(table: TableRef, rows: Array<Record<string, unknown>>): Promise<number>;
  /**
   * Inserts rows encoded in ClickHouse's RowBinary format (columns by position, little-endian, no header): the
   * cheapest way in for rows the service computed. chDB reads them from a temporary file; a server from the body.
   */
  insertRowBinary(table: TableRef, body: Uint8Array): Promise<void>;
  /** Moves every row of `from` into `to` (same columns) in one statement: how a staged batch is committed. */
  appendFrom(from: TableRef, to: TableRef): Promise<void>;
  /** INSERT INTO `to` the rows of a read built by `build` (over tables of the same organisation). */
  insertSelect(to: TableRef, build: SqlBuilder, params?: Record<string, unknown>, options?: QueryOptions): Promise<void>;
  /** Swaps two tables of one organisation atomically (a re-typed copy takes the place of the original). */
  exchangeTables(a: TableRef, b: TableRef): Promise<void>;
  /**
   * Loads a local file (e.g. an upload's temp file) into `table`, columns by position, parsed by the engine:
   * chDB reads it in place with file(); a server receives it streamed over HTTP. With `ordinal`, that column (the
   * table's first, UInt64) numbers the rows in file order from 0 and the file fills the others, so later
   * statements over the rows need not read them in order (they may run on every thread).
   */
  loadFile(table: TableRef, path: string, format: FileFormat, options?: { ordinal?: string }): Promise<void>;
  /**
   * Parses a local file with `structure` (columns by position) and inserts into `table` the rows of the SELECT
   * `build(source)` writes over it, `source` being the table function that reads the file. The rows flow in file
   * order through one stream (parsing stays parallel), so rowNumberInAllBlocks() in the SELECT numbers them from 0:
   * one statement types, converts and numbers a file. Not atomic: a statement that fails midway leaves the blocks
   * it wrote.
   */
  insertFromFile(table: TableRef, path: string, format: FileFormat, structure: ColumnSpec[], build: (source: string) => string, params?: Record<string, unknown>): Promise<void>;
  /** Deletes the rows whose integer `column` is at least `from` (takes a failed batch back out). */
  deleteRowsFrom(table: TableRef, column: string, from: number): Promise<void>;
  /** Runs a read built by `build` with bound `params`; the whole result in memory (small results only). */
  query<Row>(organisationId: string, build: SqlBuilder, params?: Record<string, unknown>, options?: QueryOptions): Promise<Row[]>;
  /** The same as a stream of rows, for results of any size. */
  stream(organisationId: string, build: SqlBuilder, params?: Record<string, unknown>, options?: QueryOptions): Promise<AsyncIterable<Record<string, unknown>>>;
  /** Raw bytes of a result in a ClickHouse output format (CSV, Parquet, ...), for exports. */
  export(organisationId: string, build: SqlBuilder, format: ExportFormat, params?: Record<string, unknown>, options?: QueryOptions): Promise<Readable>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface TableRef {
  organisationId: string;
  /** A generated id (e.g. src_...); validated and quoted, never taken from a client as SQL. */
  tableId: string;
}

export interface ColumnSpec {
  name: string;
  /** A ClickHouse type, chosen by the service (e.g. Nullable(Float64)), never by a client. */
  type: string;
}

export interface QueryOptions {
  /** Server-side limit (SETTINGS max_execution_time): the only way to stop a chDB query (DESIGN.md). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** One thread: rows are read in storage order (rowNumberInAllBlocks numbers a Log table's rows as inserted). */
  singleThreaded?: boolean;
}

export type FileFormat = 'CSVWithNames' | 'CSV' | 'Parquet' | 'RowBinary';

export type ExportFormat = 'CSV' | 'CSVWithNames' | 'JSONEachRow' | 'Parquet' | 'TabSeparatedWithNames' | 'RowBinary';

/** Gives SQL builders the qualified name of a table of the calling organisation, and nothing else. */
export interface TenantSql {
  table(tableId: string): string;
  /** Quotes a column identifier (backticks, escaped). */
  column(name: string): string;
}

export type SqlBuilder = (sql: TenantSql) => string;

const ID = /^[a-z]{2,12}_[0-9a-z]{8,40}$/;

/** Thrown when an id that should have been generated by the service is not of that shape. */
export class InvalidIdentifierError extends Error {}

export function databaseOf(organisationId: string): string {
  if (!ID.test(organisationId)) throw new InvalidIdentifierError(`not an organisation id: ${JSON.stringify(organisationId)}`);
  return `\`${organisationId}\``;
}

export function qualifiedTable({ organisationId, tableId }: TableRef): string {
  if (!ID.test(tableId)) throw new InvalidIdentifierError(`not a table id: ${JSON.stringify(tableId)}`);
  return `${databaseOf(organisationId)}.\`${tableId}\``;
}

/** Any column name a file may carry, as a safe identifier: backticks and backslashes escaped. */
export function quoteColumn(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

export function tenantSql(organisationId: string): TenantSql {
  databaseOf(organisationId);
  return { table: (tableId) => qualifiedTable({ organisationId, tableId }), column: quoteColumn };
}

/**
 * ClickHouse suggests similar names in some errors ("Maybe you meant org_x.src_y?"), which could name another
 * tenant's table: such hints are cut before an error leaves the adapter.
 */
export class DataStoreError extends Error {
  /** The query ran out of its time budget (QueryOptions.timeoutMs). */
  readonly timedOut: boolean;

  constructor(cause: unknown) {
    super(String((cause as Error)?.message ?? cause).replace(/\s*Maybe you meant[^?]*\?\.?/g, ''));
    this.name = 'DataStoreError';
    this.timedOut = /TIMEOUT_EXCEEDED|Timeout exceeded/i.test(this.message);
  }
}
