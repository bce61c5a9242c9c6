import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { SqlCredentials } from '../../../schemas/connectors.js';
import { jsonSafe } from './csv.js';
import { type SqlEndpoint, sqlEndpoint } from './endpoint.js';
import type { DriverOptions } from './network.js';
import { type BrowseEntry, type ConnectorDriver, type DeclaredColumn, type DeclaredKind, type ReadTarget, EXTRACT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, SourceError, cancelledError } from './port.js';

/** Schemas of the server itself, never offered. */
const SYSTEM_SCHEMAS = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'";

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const likePattern = (search: string | undefined) => (search === undefined ? null : `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);

/** Dates and timestamps without a zone keep their text (an ISO form), so no process time zone shifts them. */
const TEXT_TYPES = { date: 1082, timestamp: 1114 } as const;
const typeParsers = {
  getTypeParser(oid: number, format?: string) {
    if (oid === TEXT_TYPES.date) return (text: string) => text;
    if (oid === TEXT_TYPES.timestamp) return (text: string) => text.replace(' ', 'T');
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/**
 * PostgreSQL. Every session is opened read-only (default_transaction_read_only) with a statement timeout and
 * UTC, every read runs in a READ ONLY transaction, and user SQL goes through the extended protocol, which
 * refuses more than one statement; so no statement can write, whatever text a caller sends.
 */
export function openPostgresDriver(credentials: SqlCredentials, options: DriverOptions): ConnectorDriver {
  const endpoint = sqlEndpoint(credentials, 5432);
  const open: pg.Client[] = [];

  const connect = async (database: string | undefined, timeoutMs: number, signal: AbortSignal): Promise<pg.Client> => {
    const address = await options.gate(endpoint.host, endpoint.port);
    if (signal.aborted) throw cancelledError();
    const client = new pg.Client({
      host: address,
      port: endpoint.port,
      database: database ?? endpoint.database,
      user: endpoint.user,
      password: endpoint.password,
      ssl: endpoint.tls,
      connectionTimeoutMillis: 15_000,
      application_name: 'causa-connector',
      options: `-c default_transaction_read_only=on -c statement_timeout=${timeoutMs} -c TimeZone=UTC -c DateStyle=ISO,YMD -c IntervalStyle=iso_8601 -c idle_in_transaction_session_timeout=${timeoutMs}`,
      types: typeParsers,
    });
    client.on('error', () => undefined); // a dropped connection surfaces on the query that needed it
    open.push(client);
    const abort = () => stop(client);
    signal.addEventListener('abort', abort, { once: true });
    try {
      await client.connect();
    } catch (error) {
      throw new SourceError('unreachable', messageOf(error, endpoint));
    }
    return client;
  };

  /** Runs `work` in a READ ONLY transaction on a fresh session; query errors become SourceError('query'). */
  const read = async <T>(database: string | undefined, signal: AbortSignal, work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = await connect(database, STATEMENT_TIMEOUT_MS, signal);
    try {
      await client.query('BEGIN READ ONLY');
      return await work(client);
    } catch (error) {
      throw error instanceof SourceError ? error : new SourceError('query', signal.aborted ? cancelledError().message : messageOf(error, endpoint));
    } finally {
      await end(client);
    }
  };

  const query = <R extends pg.QueryResultRow>(client: pg.Client, text: string, values: unknown[] = []) =>
    client.query<R>({ text, values, queryMode: 'extended' } as pg.QueryConfig);

  const selectOf = (target: ReadTarget) => {
    if (target.kind === 'path') throw new SourceError('query', 'A PostgreSQL connector reads tables or queries: send config.table or config.query');
    return target.kind === 'table' ? `SELECT * FROM ${ident(target.schema ?? 'public')}.${ident(target.table)}` : `SELECT * FROM (${trimQuery(target.query)}) AS q`;
  };
  const databaseOf = (target: ReadTarget) => (target.kind === 'table' ? target.database : undefined);

  return {
    async admitted() {
      await options.gate(endpoint.host, endpoint.port);
    },

    async test(signal) {
      return read(undefined, signal, async (client) => ({ serverVersion: (await query<{ version: string }>(client, 'SELECT version() AS version')).rows[0]!.version }));
    },

    async browse(request, signal) {
      const { level, context, limit } = request;
      const search = likePattern(request.search);
      return read(context.database, signal, async (client) => {
        switch (level) {
          case 'databases': {
            const rows = await query<{ name: string }>(
              client,
              `SELECT datname AS name FROM pg_database WHERE datallowconn AND NOT datistemplate AND ($1::text IS NULL OR datname ILIKE $1) ORDER BY datname LIMIT $2`,
              [search, limit],
            );
            return rows.rows.map((row) => ({ name: row.name, kind: 'database' }));
          }
          case 'schemas': {
            const rows = await query<{ name: string }>(
              client,
              `SELECT n.nspname AS name FROM pg_namespace n WHERE ${SYSTEM_SCHEMAS} AND ($1::text IS NULL OR n.nspname ILIKE $1) ORDER BY n.nspname LIMIT $2`,
              [search, limit],
            );
            return rows.rows.map((row) => ({ name: row.name, kind: 'schema' }));
          }
          case 'tables': {
            const rows = await query<{ name: string; relkind: string; estimate: string }>(
              client,
              `SELECT c.relname AS name, c.relkind, c.reltuples::bigint AS estimate FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ` +
                `WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ($2::text IS NULL OR c.relname ILIKE $2) ORDER BY c.relname LIMIT $3`,
              [context.schema ?? 'public', search, limit],
            );
            return rows.rows.map((row): BrowseEntry => ({
              name: row.name,
              kind: row.relkind === 'v' || row.relkind === 'm' ? 'view' : 'table',
              rowEstimate: Number(row.estimate) < 0 ? null : Number(row.estimate),
            }));
          }
          case 'columns': {
            if (context.table === undefined) throw new SourceError('query', 'Browsing columns needs the query parameter `table` (and `schema`, default public)');
            const rows = await query<{ name: string; type: string; nullable: boolean }>(
              client,
              `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable FROM pg_attribute a ` +
                `JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace ` +
                `WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped AND ($3::text IS NULL OR a.attname ILIKE $3) ORDER BY a.attnum LIMIT $4`,
              [context.schema ?? 'public', context.table, search, limit],
            );
            return rows.rows.map((row) => ({ name: row.name, kind: 'column', dataType: row.type, nullable: row.nullable }));
          }
          default:
            throw new SourceError('query', `Unknown level "${level}"; this connector browses: databases, schemas, tables (context schema), columns (context schema, table)`);
        }
      });
    },

    async preview(target, limit, signal) {
      return read(databaseOf(target), signal, async (client) => {
        const result = await query(client, `${selectOf(target)} LIMIT $1`, [limit + 1]);
        const types = await describeTypes(client, result.fields);
        return {
          columns: result.fields.map((field, i) => ({ name: field.name, type: types[i]!.sourceType })),
          rows: result.rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, jsonSafe(value)]))),
        };
      });
    },

    async extract(target, signal) {
      const client = await connect(databaseOf(target), EXTRACT_TIMEOUT_MS, signal);
      const ranges: pg.Client[] = [];
      try {
        // Repeatable read: every statement of the read (and the ranges that take its snapshot) sees the same rows.
        const begin = () => client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await begin();
        const select = selectOf(target);
        // The shape first, through the extended protocol: it proves the text is one statement before COPY runs it.
        const shape = await query(client, `${select} LIMIT 0`);
        const names = shape.fields.map((field) => field.name);
        const twice = names.find((name, i) => names.indexOf(name) !== i);
        if (twice !== undefined) throw new SourceError('query', `The result has two columns named "${twice}"; give every column its own name`);
        const declared = await describeTypes(client, shape.fields);
        const table = target.kind === 'table' ? await tableFacts(client, target) : undefined;
        const estimatedRows = table?.rows ?? null;
        // Ranges only for a table large enough, and only when the server shares its snapshot with more sessions.
        const bounds = table === undefined ? [] : pageRanges(table, options.ranges);
        const snapshot = bounds.length > 1 ? await exportSnapshot(client, begin) : null;
        ranges.push(...(snapshot === null ? [] : await joinSnapshot(snapshot, bounds.length - 1, () => connect(databaseOf(target), EXTRACT_TIMEOUT_MS, signal))));
        // A row of one null column would be an empty line, which readers skip (the row lost): a single column's null is
        // written "" instead, as csv.ts writes it, which reads back as missing all the same.
        const list = declared.map((column) => `${declared.length === 1 ? `COALESCE((${render(column)})::text, '')` : render(column)} AS ${ident(column.name)}`).join(', ');
        const copy = (reader: pg.Client, where: string, header: boolean) => {
          const stream = reader.query(copyTo(`COPY (SELECT ${list} FROM (${select}${where}) AS q) TO STDOUT WITH (FORMAT csv, HEADER ${header})`));
          const finish = () => void end(reader);
          stream.on('end', finish);
          stream.on('error', finish);
          stream.on('close', finish);
          return stream.on('error', () => undefined);
        };
        // Without the ranges (a query, a view, a small table, or a server that would not share its snapshot) one stream reads all.
        const readers = [client, ...ranges];
        const streams = readers.length === 1 ? [copy(client, '', true)] : readers.map((reader, i) => copy(reader, ` WHERE ${bounds[i]}`, i === 0));
        // A lone column's nulls are written "" (above), which no parser of a type reads as missing: it stays text.
        const described = declared.map(({ oid: _oid, category: _c, typname, ...column }) => ({ ...column, ...(declared.length > 1 && rendersCanonical(column.kind, typname) && { canonical: true }) }));
        return { stream: streams[0]!, ranges: streams.slice(1), format: 'csv', declared: described, estimatedRows };
      } catch (error) {
        await Promise.all([client, ...ranges].map(end));
        throw error instanceof SourceError ? error : new SourceError('query', messageOf(error, endpoint));
      }
    },

    async close() {
      await Promise.all(open.map(end));
    },
  };
}

interface DescribedColumn extends DeclaredColumn {
  oid: number;
  category: string;
  typname: string;
}

/** The source's type of each result column, by OID and modifier (`numeric(12,2)`), with its kind. */
async function describeTypes(client: pg.Client, fields: pg.FieldDef[]): Promise<DescribedColumn[]> {
  if (fields.length === 0) return [];
  const { rows } = await client.query<{ ord: string; type: string; typname: string; category: string; element: string | null; elementCategory: string | null }>({
    text:
      `SELECT x.ord, format_type(x.oid, NULLIF(x.mod, -1)) AS type, t.typname, t.typcategory AS category, e.typname AS element, e.typcategory AS "elementCategory" ` +
      `FROM unnest($1::oid[], $2::int[]) WITH ORDINALITY AS x(oid, mod, ord) JOIN pg_type t ON t.oid = x.oid ` +
      `LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A' ORDER BY x.ord`,
    values: [fields.map((f) => f.dataTypeID), fields.map((f) => f.dataTypeModifier)],
    queryMode: 'extended',
  } as pg.QueryConfig);
  return fields.map((field, i) => {
    const row = rows[i]!;
    const column: DescribedColumn = { name: field.name, sourceType: row.type, kind: kindOf(row.typname, row.category), oid: field.dataTypeID, category: row.category, typname: row.typname };
    if (column.kind === 'array') column.elementKind = elementKindOf(row.element ?? '', row.elementCategory ?? '');
    return column;
  });
}

const INTEGERS = new Set(['int2', 'int4', 'int8', 'oid']);

function kindOf(typname: string, category: string): DeclaredKind {
  if (typname === 'json' || typname === 'jsonb') return 'object';
  switch (category) {
    case 'N':
      return INTEGERS.has(typname) ? 'integer' : typname === 'money' ? 'text' : 'decimal';
    case 'B':
      return 'boolean';
    case 'D':
      return typname === 'date' ? 'date' : typname === 'timestamp' || typname === 'timestamptz' ? 'datetime' : 'text';
    case 'A':
      return 'array';
    default:
      return 'text';
  }
}

function elementKindOf(typname: string, category: string): DeclaredColumn['elementKind'] {
  const kind = kindOf(typname, category);
  return kind === 'integer' || kind === 'decimal' || kind === 'boolean' ? kind : 'text';
}

/** A column of the COPY select, written in the form the ingest reads back (see csv.ts). */
function render(column: DescribedColumn): string {
  const c = `q.${ident(column.name)}`;
  switch (column.kind) {
    case 'decimal':
      // NaN reads as missing; infinities have no stored form either.
      return column.typname === 'numeric' || column.typname.startsWith('float') ? `NULLIF(NULLIF(${c}::text, 'Infinity'), '-Infinity')` : c;
    // ISO text (DateStyle ISO) without a zone reads as UTC; infinities have no stored form. Plain casts: to_char
    // would cost about as much as the whole COPY.
    case 'datetime':
      return `CASE WHEN isfinite(${c}) THEN ${column.typname === 'timestamptz' ? `${c} AT TIME ZONE 'UTC'` : c} END`;
    case 'date':
      return `CASE WHEN isfinite(${c}) THEN ${c} END`;
    case 'array':
      return `to_json(${c})::text`;
    case 'boolean':
      return `CASE WHEN ${c} THEN 'true' WHEN NOT ${c} THEN 'false' END`;
    default:
      return column.typname === 'bytea' ? `translate(encode(${c}, 'base64'), E'\\n', '')` : c;
  }
}

/** Whether render() writes a column of this kind and type in the engine's canonical text (DeclaredColumn.canonical). */
function rendersCanonical(kind: DeclaredKind, typname: string): boolean {
  switch (kind) {
    case 'integer':
      return true;
    case 'decimal':
      return typname === 'numeric' || typname.startsWith('float');
    case 'boolean':
      return true;
    case 'datetime':
      return typname === 'timestamp' || typname === 'timestamptz';
    default:
      return false;
  }
}

/** What the catalogue says of a table: its server's version, its kind, its pages (tables and materialised views) and its estimated rows. */
interface TableFacts {
  version: number;
  relkind: string;
  pages: number | null;
  rows: number | null;
}

async function tableFacts(client: pg.Client, target: Extract<ReadTarget, { kind: 'table' }>): Promise<TableFacts | undefined> {
  const { rows } = await client.query<{ version: number; relkind: string; pages: string | null; n: string | null }>({
    text:
      `SELECT current_setting('server_version_num')::int AS version, c.relkind, c.reltuples::bigint AS n, ` +
      `CASE WHEN c.relkind IN ('r', 'm') THEN pg_relation_size(c.oid) / current_setting('block_size')::int END AS pages ` +
      'FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relname = $2',
    values: [target.schema ?? 'public', target.table],
  });
  const row = rows[0];
  if (row === undefined) return undefined;
  // reltuples is -1 for a table never vacuumed or analysed: no estimate.
  const n = row.n === null ? -1 : Number(row.n);
  return { version: row.version, relkind: row.relkind, pages: row.pages === null ? null : Number(row.pages), rows: n < 0 ? null : n };
}

/**
 * The ranges of pages a table is read in side by side, as conditions on `ctid` (a TID range scan, PostgreSQL 14 and
 * later, reads only its pages): at most `connections`, each of `minBytes` of pages at least. None for a view, a
 * partitioned table, a table too small to split (or one connection allowed), or an older server.
 */
function pageRanges(table: TableFacts, ranges: DriverOptions['ranges']): string[] {
  if (table.version < 140000 || !['r', 'm'].includes(table.relkind) || table.pages === null) return [];
  const { pages } = table;
  const count = Math.min(ranges.connections, Math.floor((pages * PAGE_BYTES) / ranges.minBytes));
  if (count < 2) return [];
  const starts = Array.from({ length: count - 1 }, (_, i) => Math.round(((i + 1) * pages) / count));
  // The first and last ranges are open: pages added after the size was read hold no row of this snapshot, but say so.
  return Array.from({ length: count }, (_, i) =>
    [i > 0 ? `ctid >= '(${starts[i - 1]},0)'::tid` : null, i < count - 1 ? `ctid < '(${starts[i]},0)'::tid` : null].filter((term) => term !== null).join(' AND '),
  );
}

/** PostgreSQL's default page size: the ranges are sized by it (a server built with another splits a little differently). */
const PAGE_BYTES = 8192;

/**
 * The snapshot of `client`'s repeatable-read transaction (fixed at its first statement), for other sessions to read
 * (pg_export_snapshot; it cannot be taken in a savepoint). Null when the server refuses it; the transaction is then
 * begun again and the read goes on over one session.
 */
async function exportSnapshot(client: pg.Client, begin: () => Promise<unknown>): Promise<string | null> {
  try {
    const { rows } = await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
    const id = rows[0]!.id;
    return /^[0-9A-F-]+$/i.test(id) ? id : null;
  } catch {
    await client.query('ROLLBACK');
    await begin();
    return null;
  }
}

/**
 * `count` more sessions reading `snapshot` (SET TRANSACTION SNAPSHOT): what they read is what its exporting
 * transaction reads, while that is open. None when they cannot all be opened (too many connections): the read goes
 * on over the exporting session alone.
 */
async function joinSnapshot(snapshot: string, count: number, connect: () => Promise<pg.Client>): Promise<pg.Client[]> {
  const joined: pg.Client[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const reader = await connect();
      joined.push(reader);
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await reader.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
    }
    return joined;
  } catch {
    await Promise.all(joined.map(end));
    return [];
  }
}

/** A query as sent, without the trailing semicolon people type (inside the wrapper it would be a syntax error). */
function trimQuery(query: string): string {
  return query.trim().replace(/;\s*$/, '');
}

function stop(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

async function end(client: pg.Client): Promise<void> {
  await client.end().catch(() => undefined);
}

/** The server's message (with its code's detail when it gives one); never the password. */
function messageOf(error: unknown, endpoint: SqlEndpoint): string {
  const e = error as { message?: string; code?: string; detail?: string };
  let message = e.message ?? String(error);
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'ETIMEDOUT') message = `Could not connect to ${endpoint.host}:${endpoint.port} (${e.code})`;
  if (e.detail !== undefined) message += ` (${e.detail})`;
  return message;
}
