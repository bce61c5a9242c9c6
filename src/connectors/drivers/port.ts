import type { Readable } from 'node:stream';
import type { UploadFormat } from '../../tables/readers.js';

/**
 * What every connector type implements. A driver is opened for one operation with decrypted credentials and
 * closed after it; it never stores anything and every read it makes is read-only on the source's side
 * (read-only transaction or session, plus a statement timeout).
 */
export interface ConnectorDriver {
  /** Checks that the host gate admits the source's address (nothing is connected): refused as `unreachable`. */
  admitted(): Promise<void>;
  /** Reaches the source and reads its version; modifies nothing. */
  test(signal: AbortSignal): Promise<{ serverVersion: string | null }>;
  /** One level of the source's hierarchy (e.g. databases, schemas, tables, columns, files). */
  browse(request: BrowseRequest, signal: AbortSignal): Promise<BrowseEntry[]>;
  /** The first `limit` rows of a table, query or file. */
  preview(target: ReadTarget, limit: number, signal: AbortSignal): Promise<RowsResult>;
  /**
   * The whole table, query or file as a byte stream in a file format the upload path reads (CSV with a header
   * row for SQL sources), plus the source's own column types when it has them. Streams: memory stays bounded.
   */
  extract(target: ReadTarget, signal: AbortSignal): Promise<Extract>;
  close(): Promise<void>;
}

/** Where a read points: a browsed table (with its context), a custom SQL query, or a file of a storage root. */
export type ReadTarget =
  | { kind: 'table'; table: string; database?: string; schema?: string; warehouse?: string }
  | { kind: 'query'; query: string }
  | { kind: 'path'; path: string };

export interface BrowseRequest {
  level: string;
  /** Case-insensitive substring filter on names. */
  search?: string;
  /** `database`, `schema`, `table`, `warehouse`, `path` and any other query parameter the caller sent. */
  context: Record<string, string>;
  /** At most this many entries. */
  limit: number;
}

/** One item of a browse level: its name, what it is, and what the type can say about it. */
export interface BrowseEntry {
  name: string;
  /** The level's item kind: `database`, `schema`, `table`, `view`, `column`, `file`, `directory`, ... */
  kind: string;
  /** Columns: the source's type name. */
  dataType?: string;
  nullable?: boolean;
  /** Files: size in bytes and last change; storage paths are relative to the connector's root. */
  size?: number;
  modifiedAt?: string;
  path?: string;
  /** Tables: the source's row estimate, when it keeps one. */
  rowEstimate?: number | null;
}

export interface RowsResult {
  columns: Array<{ name: string; type: string }>;
  /** JSON-safe values: 64-bit integers and exact decimals beyond 2^53 as strings, dates as ISO text, bytes as base64. */
  rows: Array<Record<string, unknown>>;
}

/** How the source typed a column, reduced to what the service stores. */
export type DeclaredKind = 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'object' | 'array' | 'text';

export interface DeclaredColumn {
  name: string;
  /** The source's own type name, e.g. `numeric(12,2)`, `timestamp with time zone`. */
  sourceType: string;
  kind: DeclaredKind;
  /** Arrays: the kind of their elements. */
  elementKind?: 'integer' | 'decimal' | 'boolean' | 'text';
  /**
   * The driver writes the cells of this column in the engine's canonical text for its kind, unquoted, a null as an
   * empty field: an integer as its digits, a decimal as a plain number or NaN, a boolean as true or false, a datetime as
   * `YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC. The load then parses it straight into its type (tables/one-pass-ingest.ts);
   * a cell in another form (PostgreSQL's `... BC`, a year past 9999) makes the load take the text path instead.
   */
  canonical?: boolean;
}

export interface Extract {
  /** The rows, CSV with a header line for SQL sources. */
  stream: Readable;
  /**
   * More streams of the same read, read side by side with `stream` (a PostgreSQL table in ranges of its pages under
   * one snapshot): CSV records of the same columns without a header line. Absent when one stream reads all.
   */
  ranges?: Readable[];
  format: UploadFormat;
  /** The source's column types (SQL sources); null when the file alone says (storage). */
  declared: DeclaredColumn[] | null;
  /** The source's estimate of the row count, when it keeps one (for progress). */
  estimatedRows?: number | null;
}

/**
 * A failure on the source's side. `unreachable`: connecting or authenticating failed (the connector's status
 * becomes `error`); `query`: the source refused the statement (bad SQL, unknown table, a write in a read-only
 * transaction, a timeout). The message is the source's own, verbatim; the service removes secrets from it.
 */
export class SourceError extends Error {
  override readonly name = 'SourceError';
  constructor(
    readonly kind: 'unreachable' | 'query',
    message: string,
  ) {
    super(message);
  }
}

/** Longest a preview, browse or test statement may run on the source. */
export const STATEMENT_TIMEOUT_MS = 30_000;

/** Longest one extraction may run on the source (the import job can be cancelled sooner). */
export const EXTRACT_TIMEOUT_MS = 6 * 3600_000;

/** What a read stopped by its caller (a cancelled job, a client gone) rejects with. */
export const cancelledError = () => new SourceError('query', 'The request was cancelled');

/** A browse context parameter the level needs; refused naming it when absent. */
export function requiredContext(value: string | undefined, name: string, level: string): string {
  if (value === undefined || value === '') throw new SourceError('query', `Browsing ${level} needs the query parameter \`${name}\``);
  return value;
}
