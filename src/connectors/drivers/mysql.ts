import { connect as netConnect } from 'node:net';
import type { Readable } from 'node:stream';
import mysql from 'mysql2';
import type { Connection, FieldPacket, SslOptions } from 'mysql2';
import type { SqlCredentials } from '../../../schemas/connectors.js';
import { rowsToCsv } from './csv.js';
import { describeField, previewValue, sourceValue } from './mysql-types.js';
import { type SqlEndpoint, sqlEndpoint } from './endpoint.js';
import type { DriverOptions } from './network.js';
import { type BrowseEntry, type ConnectorDriver, type ReadTarget, EXTRACT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, SourceError, cancelledError, requiredContext } from './port.js';

/** Rows an extraction buffers before the connection is paused (backpressure). */
const ROW_BUFFER = 1000;
/** The server's own databases, never offered. */
const SYSTEM_DATABASES = "('information_schema', 'performance_schema', 'mysql', 'sys')";
/** ER_PARSE_ERROR: the one refusal after which a query is tried in its other wrapper. */
const PARSE_ERROR = 1064;
const LEVELS = 'databases, tables (context database), columns (context database, table)';

const ident = (name: string) => `\`${name.replaceAll('`', '``')}\``;
/** A LIKE pattern for a substring, with `!` as the escape (backslash means something else under NO_BACKSLASH_ESCAPES). */
const likePattern = (search: string | undefined) => (search === undefined || search === '' ? null : `%${search.replace(/[!%_]/g, (c) => `!${c}`)}%`);
/** Case-insensitive LIKE on an information_schema name whatever its collation (some are binary, some utf8mb3). */
const nameLike = (column: string) => `CONVERT(${column} USING utf8mb4) COLLATE utf8mb4_general_ci LIKE ? ESCAPE '!'`;

interface Session {
  connection: Connection;
  version: string;
}

/**
 * MySQL and MariaDB. Every session is READ ONLY (session default and an explicit READ ONLY transaction around
 * each read), in UTC, with a statement timeout; a single statement per call (no multi-statements), and a custom
 * query only ever runs wrapped in a SELECT, so no text a caller sends can write, drop or administer.
 */
export function openMySqlDriver(credentials: SqlCredentials, options: DriverOptions): ConnectorDriver {
  const open = new Set<Connection>();
  let parsed: SqlEndpoint | undefined;

  const endpointOf = () => (parsed ??= mysqlEndpoint(credentials));

  const connect = async (timeoutMs: number, signal: AbortSignal): Promise<Session> => {
    const endpoint = endpointOf();
    const { host, port } = endpoint;
    const address = await options.gate(host, port);
    if (signal.aborted) throw cancelledError();
    const connection = mysql.createConnection({
      // The socket goes to the address the gate approved; `host` stays the name, which TLS verifies.
      host,
      port,
      stream: () => netConnect({ host: address, port }),
      user: endpoint.user,
      password: endpoint.password,
      database: endpoint.database === '' ? undefined : endpoint.database,
      ssl: sslOptions(endpoint),
      connectTimeout: 15_000,
      multipleStatements: false,
      flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
    });
    connection.on('error', () => undefined); // a dropped connection surfaces on the command that needed it
    open.add(connection);
    signal.addEventListener('abort', () => release(connection, true), { once: true });
    try {
      await untilAborted(signal, new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve()))));
      const [row] = (await untilAborted(signal, run(connection, 'SELECT VERSION() AS version'))).rows as Array<{ version: string }>;
      const version = row?.version ?? '';
      const timeout = version.includes('MariaDB') ? `max_statement_time = ${timeoutMs / 1000}` : `MAX_EXECUTION_TIME = ${timeoutMs}`;
      await untilAborted(signal, run(connection, `SET SESSION time_zone = '+00:00', SESSION ${timeout}`));
      await untilAborted(signal, run(connection, 'SET SESSION TRANSACTION READ ONLY'));
      return { connection, version };
    } catch (error) {
      release(connection, true);
      throw signal.aborted ? cancelledError() : error instanceof SourceError ? error : new SourceError('unreachable', messageOf(error, endpoint));
    }
  };

  const release = (connection: Connection, destroy: boolean) => {
    if (!open.delete(connection)) return;
    if (destroy) return connection.destroy();
    connection.query('ROLLBACK', () => undefined);
    connection.end(() => undefined);
  };

  /** Runs `work` in a READ ONLY transaction on a fresh session; statement errors become SourceError('query'). */
  const read = async <T>(signal: AbortSignal, work: (session: Session) => Promise<T>): Promise<T> => {
    const session = await connect(STATEMENT_TIMEOUT_MS, signal);
    let failed = false;
    try {
      await untilAborted(signal, run(session.connection, 'START TRANSACTION READ ONLY'));
      return await untilAborted(signal, work(session));
    } catch (error) {
      failed = true;
      throw asQueryError(error, signal);
    } finally {
      release(session.connection, failed);
    }
  };

  const defaultDatabase = () => (endpointOf().database === '' ? undefined : endpointOf().database);

  /** The statements that read a target, in the order to try them (see `querySelects`). */
  const selects = (target: ReadTarget, limit: number | null): string[] => {
    const tail = limit === null ? '' : ` LIMIT ${limit}`;
    if (target.kind === 'path') throw new SourceError('query', 'A MySQL connector reads tables or queries: send config.table or config.query');
    if (target.kind === 'query') return querySelects(target.query, tail);
    const database = target.database ?? defaultDatabase();
    return [`SELECT * FROM ${database === undefined ? '' : `${ident(database)}.`}${ident(target.table)}${tail}`];
  };

  return {
    async admitted() {
      await options.gate(endpointOf().host, endpointOf().port);
    },

    async test(signal) {
      const session = await connect(STATEMENT_TIMEOUT_MS, signal);
      release(session.connection, false);
      return { serverVersion: session.version };
    },

    async browse(request, signal) {
      const { level, context } = request;
      const limit = Math.max(0, Math.floor(request.limit));
      const search = likePattern(request.search);
      const filter = (column: string, values: unknown[]) => (search === null ? '' : (values.push(search), ` AND ${nameLike(column)}`));
      return read(signal, async ({ connection }): Promise<BrowseEntry[]> => {
        switch (level) {
          case 'databases': {
            const values: unknown[] = [];
            const sql = `SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT IN ${SYSTEM_DATABASES}${filter('SCHEMA_NAME', values)} ORDER BY SCHEMA_NAME LIMIT ${limit}`;
            const rows = (await run(connection, sql, values)).rows as Array<{ name: string }>;
            return rows.map((row) => ({ name: row.name, kind: 'database' }));
          }
          case 'tables': {
            const values: unknown[] = [requiredContext(context.database ?? defaultDatabase(), 'database', 'tables')];
            const sql =
              `SELECT TABLE_NAME AS name, TABLE_TYPE AS type, TABLE_ROWS AS estimate FROM information_schema.TABLES ` +
              `WHERE TABLE_SCHEMA = ?${filter('TABLE_NAME', values)} ORDER BY TABLE_NAME LIMIT ${limit}`;
            const rows = (await run(connection, sql, values)).rows as Array<{ name: string; type: string; estimate: string | number | null }>;
            return rows.map((row) => ({
              name: row.name,
              kind: row.type === 'VIEW' || row.type === 'SYSTEM VIEW' ? 'view' : 'table',
              rowEstimate: row.estimate === null ? null : Number(row.estimate),
            }));
          }
          case 'columns': {
            const database = requiredContext(context.database ?? defaultDatabase(), 'database', 'columns');
            const table = requiredContext(context.table, 'table', 'columns');
            const values: unknown[] = [database, table];
            const sql =
              `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable FROM information_schema.COLUMNS ` +
              `WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?${filter('COLUMN_NAME', values)} ORDER BY ORDINAL_POSITION LIMIT ${limit}`;
            const rows = (await run(connection, sql, values)).rows as Array<{ name: string; type: string; nullable: string }>;
            if (rows.length === 0 && (await tableEstimate(connection, database, table)) === undefined) {
              throw new SourceError('query', `Table '${database}.${table}' doesn't exist`);
            }
            return rows.map((row) => ({ name: row.name, kind: 'column', dataType: row.type, nullable: row.nullable === 'YES' }));
          }
          default:
            throw new SourceError('query', `Unknown level "${level}"; this connector browses: ${LEVELS}`);
        }
      });
    },

    async preview(target, limit, signal) {
      return read(signal, async ({ connection }) => {
        const { rows, fields } = await firstAccepted(selects(target, limit + 1), (sql) => run(connection, sql, undefined, true));
        const columns = fields.map(describeField);
        return {
          columns: columns.map((column) => ({ name: column.name, type: column.sourceType })),
          rows: (rows as unknown[][]).map((row) => Object.fromEntries(columns.map((column, i) => [column.name, previewValue(column, row[i])]))),
        };
      });
    },

    async extract(target, signal) {
      const statements = selects(target, null);
      const { connection } = await connect(EXTRACT_TIMEOUT_MS, signal);
      let rows: Readable | undefined;
      try {
        await untilAborted(signal, run(connection, 'START TRANSACTION READ ONLY'));
        const estimatedRows = target.kind === 'table' ? await untilAborted(signal, tableEstimate(connection, target.database ?? defaultDatabase(), target.table)) : null;
        const opened = await untilAborted(signal, firstAccepted(statements, (sql) => openRows(connection, sql)));
        rows = opened.rows;
        const early = opened.failure();
        if (early !== undefined) throw early;
        const declared = opened.fields.map(describeField);
        const names = declared.map((column) => column.name);
        const twice = names.find((name, i) => names.indexOf(name) !== i);
        if (twice !== undefined) throw new SourceError('query', `The result has two columns named "${twice}"; give every column its own name`);

        const csv = rowsToCsv(declared, (row, i) => sourceValue(declared[i]!, (row as unknown[])[i]));
        const source = rows;
        const stop = () => csv.destroy(cancelledError());
        signal.addEventListener('abort', stop, { once: true });
        source.on('error', (error) => csv.destroy(asQueryError(error, signal)));
        csv.once('close', () => {
          signal.removeEventListener('abort', stop);
          if (!source.destroyed) source.destroy();
          release(connection, !csv.writableFinished);
        });
        source.pipe(csv);
        return { stream: csv, format: 'csv', declared, estimatedRows: estimatedRows ?? null };
      } catch (error) {
        rows?.destroy();
        release(connection, true);
        throw asQueryError(error, signal);
      }
    },

    async close() {
      for (const connection of [...open]) release(connection, true);
    },
  };
}

/** Credential fields or a `mysql://` / `mariadb://` connection string (percent-escapes decoded); 3306 by default. */
function mysqlEndpoint(credentials: SqlCredentials): SqlEndpoint {
  if ('connectionString' in credentials) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(credentials.connectionString)?.[1]?.toLowerCase();
    if (scheme !== 'mysql' && scheme !== 'mariadb') {
      throw new SourceError('unreachable', 'A MySQL connection string starts with mysql:// or mariadb:// (mysql://user:password@host:port/database)');
    }
  }
  try {
    return sqlEndpoint(credentials, 3306);
  } catch {
    // Never echo the string: it holds the password.
    throw new SourceError('unreachable', 'The connection string is not a valid URL (mysql://user:password@host:port/database)');
  }
}

/** mysql2 takes TLS as its own options; identity is verified against the host name whenever the chain is. */
function sslOptions(endpoint: SqlEndpoint): SslOptions | undefined {
  const tls = endpoint.tls;
  if (tls === undefined) return undefined;
  const verify = tls.rejectUnauthorized !== false;
  return { rejectUnauthorized: verify, verifyIdentity: verify, ...(tls.ca === undefined ? {} : { ca: tls.ca as string }) };
}

/**
 * A custom query as statements to try: first as a parenthesised query expression, which keeps its ORDER BY
 * (MariaDB drops an ORDER BY inside a derived table), then, when the server cannot parse that (MariaDB refuses
 * a WITH in parentheses), as a derived table. Neither form accepts anything but a query. The line breaks keep a
 * trailing `-- comment` from swallowing the wrapper.
 */
function querySelects(query: string, tail: string): string[] {
  const text = query.trim().replace(/[;\s]+$/, '');
  const derived = `SELECT * FROM (\n${text}\n) AS q${tail}`;
  // `SELECT ... INTO OUTFILE` parses as a parenthesised statement and writes a file on the database host, which a
  // read-only transaction does not stop; inside a derived table it is a syntax error. Any INTO takes that form.
  return /\binto\b/i.test(text) ? [derived] : [`(\n${text}\n)${tail}`, derived];
}


interface Result {
  rows: unknown;
  fields: FieldPacket[];
}

/** One statement; with values it is a server-side prepared statement, so values are bound, never spliced. */
function run(connection: Connection, sql: string, values?: unknown[], rowsAsArray = false): Promise<Result> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, rows: unknown, fields: FieldPacket[]) => (error ? reject(error) : resolve({ rows, fields: fields ?? [] }));
    if (values !== undefined && values.length > 0) connection.execute({ sql, values, rowsAsArray }, done);
    else connection.query({ sql, rowsAsArray }, done);
  });
}

interface RowStream {
  rows: Readable;
  fields: FieldPacket[];
  /** An error the rows met before the caller listened (between the columns and the caller's next step). */
  failure(): Error | undefined;
}

/** Starts a streaming query and answers once the server has described its columns (or refused it). */
function openRows(connection: Connection, sql: string): Promise<RowStream> {
  return new Promise((resolve, reject) => {
    const query = connection.query({ sql, rowsAsArray: true });
    const rows = query.stream({ highWaterMark: ROW_BUFFER });
    let failure: Error | undefined;
    let described = false;
    rows.on('error', (error: Error) => {
      failure ??= error;
      if (!described) reject(error);
    });
    query.once('fields', (fields: FieldPacket[]) => {
      described = true;
      resolve({ rows, fields, failure: () => failure });
    });
    // A statement without a result set (not possible through the wrappers, but never hang on one).
    query.once('end', () => setImmediate(() => reject(failure ?? new SourceError('query', 'The statement returned no columns; send a query that reads'))));
  });
}

/** Runs the statements in order until one is not a parse error; the last refusal is the one reported. */
async function firstAccepted<T>(statements: string[], attempt: (sql: string) => Promise<T>): Promise<T> {
  let refusal: unknown;
  for (const sql of statements) {
    try {
      return await attempt(sql);
    } catch (error) {
      if ((error as { errno?: number }).errno !== PARSE_ERROR) throw error;
      refusal = error;
    }
  }
  throw refusal;
}

/** The row count the server keeps for a table (undefined when there is no such table, null for a view). */
async function tableEstimate(connection: Connection, database: string | undefined, table: string): Promise<number | null | undefined> {
  if (database === undefined) return null;
  const { rows } = await run(connection, 'SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [database, table]);
  const [row] = rows as Array<{ n: string | number | null }>;
  return row === undefined ? undefined : row.n === null ? null : Number(row.n);
}

function untilAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(cancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}


/** A statement's failure: the server's refusal as `query`; a connection lost on the way as `unreachable`. */
function asQueryError(error: unknown, signal: AbortSignal): SourceError {
  if (error instanceof SourceError) return error;
  if (signal.aborted) return cancelledError();
  const e = error as { fatal?: boolean; sqlState?: string; message?: string };
  return new SourceError(e.fatal === true && e.sqlState === undefined ? 'unreachable' : 'query', e.message ?? String(error));
}

/** The server's or socket's message; never the password (the server's own messages do not carry it). */
function messageOf(error: unknown, endpoint: SqlEndpoint): string {
  const e = error as { message?: string; code?: string };
  if (e.code === 'ECONNREFUSED' || e.code === 'ETIMEDOUT' || e.code === 'ECONNRESET') return `Could not connect to ${endpoint.host}:${endpoint.port} (${e.code})`;
  return e.message ?? String(error);
}
