import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { type LookupFunction, isIP } from 'node:net';
import { Readable } from 'node:stream';
import { type ClickHouseClient, type ClickHouseSettings, ClickHouseLogLevel, type ResultSet, type Row, createClient } from '@clickhouse/client';
import type { ClickHouseCredentials } from '../../../schemas/connectors.js';
import { rowsToCsv } from './csv.js';
import { declaredColumn, ident, previewValue, readExpression, sourceValue } from './clickhouse-types.js';
import type { DriverOptions } from './network.js';
import { type BrowseEntry, type ConnectorDriver, type ReadTarget, EXTRACT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, SourceError, cancelledError, requiredContext } from './port.js';

/** Beyond the server's own limit, how long the client waits before it gives up on an answer. */
const CLIENT_GRACE_MS = 10_000;
/** The server's own databases, never offered. */
const SYSTEM_DATABASES = "('system', 'INFORMATION_SCHEMA', 'information_schema')";
const VIEW_ENGINES = new Set(['View', 'MaterializedView', 'LiveView', 'WindowView']);
const LEVELS = 'databases, tables (context database), columns (context database, table)';
/**
 * Server error codes meaning the credentials were refused (ClickHouse src/Common/ErrorCodes.cpp): UNKNOWN_USER,
 * WRONG_PASSWORD, REQUIRED_PASSWORD, IP_ADDRESS_NOT_ALLOWED, AUTHENTICATION_FAILED.
 */
const AUTH_CODES = new Set([192, 193, 194, 195, 516]);
/** Result columns are read under these aliases: a position, never a name a source column could also have. */
const alias = (i: number) => `__causa_${i}`;

/**
 * A string literal. Bound parameters (`{db:String}`) arrived in ClickHouse 19.x; 18.16 answers "Unknown setting
 * param_db", so values are quoted here instead: inside '...' only a backslash and a quote need escaping.
 */
const literal = (value: string) => `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;

interface Endpoint {
  /** What the client requests: scheme, host name (kept for TLS verification) and port; no path. */
  url: URL;
  pathname: string | undefined;
  host: string;
  port: number;
}

/**
 * ClickHouse over its HTTP interface (8123, or 8443 with TLS). Every statement carries `readonly=1` (the server
 * refuses writes, DDL and setting changes) and `max_execution_time`; a custom query only ever runs as a subquery.
 * Reads are shaped to work on old servers (18.16) and current ones alike: JSONEachRow, DESCRIBE of a subquery,
 * datetimes converted to UTC by the server, exact decimals as text.
 */
export function openClickHouseDriver(credentials: ClickHouseCredentials, options: DriverOptions): ConnectorDriver {
  let opened: Promise<ClickHouseClient> | undefined;
  /** Settings the user's profile forbids changing: it is read-only already (the refusal says "in readonly mode"). */
  const locked = new Set<string>();
  let totalRows: Promise<boolean> | undefined;

  const open = (): Promise<ClickHouseClient> =>
    (opened ??= (async () => {
      const endpoint = clickHouseEndpoint(credentials.url);
      let address: string;
      try {
        address = await options.gate(endpoint.host, endpoint.port);
      } catch (error) {
        throw error instanceof SourceError ? error : new SourceError('unreachable', (error as Error).message);
      }
      // The socket goes to the address the gate approved; the URL keeps the name, which TLS verifies.
      const lookup = pinnedLookup(address);
      const agent = endpoint.url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, lookup }) : new HttpAgent({ keepAlive: true, lookup });
      return createClient({
        url: endpoint.url,
        ...(endpoint.pathname === undefined ? {} : { pathname: endpoint.pathname }),
        username: credentials.user ?? 'default',
        password: credentials.password ?? '',
        ...(credentials.database === undefined ? {} : { database: credentials.database }),
        http_agent: agent,
        request_timeout: EXTRACT_TIMEOUT_MS + CLIENT_GRACE_MS,
        application: 'causa-connector',
        log: { level: ClickHouseLogLevel.OFF },
      });
    })());

  /** Sends one statement; a profile that forbids a setting we send is already read-only, so it is sent without it. */
  const send = async (sql: string, timeoutMs: number, signal: AbortSignal): Promise<ResultSet<'JSONEachRow'>> => {
    const client = await open();
    for (;;) {
      const settings: ClickHouseSettings = { readonly: '1', max_execution_time: Math.ceil(timeoutMs / 1000) };
      for (const name of locked) delete settings[name as keyof ClickHouseSettings];
      try {
        return await client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: settings, abort_signal: signal });
      } catch (error) {
        const refused = lockedSetting(error);
        // Learned only from a constant probe: a caller's own `SETTINGS readonly=0` fails the same way, and must
        // never make later statements go out without readonly=1.
        if (refused === undefined || locked.has(refused) || !(await profileLocks(client, settings, refused))) throw error;
        locked.add(refused);
      }
    }
  };

  /** Every row of a small result (browse, preview, metadata), within the statement timeout. */
  const collect = (sql: string, signal: AbortSignal, timeoutMs = STATEMENT_TIMEOUT_MS) =>
    bounded(signal, timeoutMs, async (combined) => {
      const result = await send(sql, timeoutMs, combined);
      const stop = () => result.close();
      combined.addEventListener('abort', stop, { once: true });
      try {
        const rows: Array<Record<string, unknown>> = [];
        for await (const row of readRows(result)) rows.push(row);
        return rows;
      } finally {
        combined.removeEventListener('abort', stop);
      }
    });

  const hasTotalRows = (signal: AbortSignal) =>
    (totalRows ??= collect("SELECT name FROM system.columns WHERE database = 'system' AND table = 'tables' AND name = 'total_rows'", signal).then(
      (rows) => rows.length > 0,
      (error: unknown) => {
        totalRows = undefined;
        throw error;
      },
    ));

  const defaultDatabase = () => credentials.database ?? 'default';

  /** The columns a target yields (DESCRIBE of the statement: nothing runs) and the SELECT that reads them. */
  const plan = async (target: ReadTarget, limit: number | null, timeoutMs: number, signal: AbortSignal) => {
    const source = sourceSelect(target);
    const described = await collect(`DESCRIBE TABLE (\n${source}\n)`, signal, timeoutMs);
    const columns = described.map((row) => declaredColumn(String(row.name), String(row.type)));
    const names = columns.map((column) => column.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice !== undefined) throw new SourceError('query', `The result has two columns named "${twice}"; give every column its own name`);
    const list = columns.map((column, i) => `${readExpression(column)} AS ${alias(i)}`).join(', ');
    // The line breaks keep a trailing `-- comment` of the query from swallowing the wrapper.
    const select = `SELECT ${list === '' ? '*' : list} FROM (\n${source}\n)${limit === null ? '' : ` LIMIT ${limit}`}`;
    return { columns, select };
  };

  return {
    async admitted() {
      const endpoint = clickHouseEndpoint(credentials.url);
      await options.gate(endpoint.host, endpoint.port);
    },

    async test(signal) {
      try {
        const [row] = await collect('SELECT version() AS version', signal);
        return { serverVersion: row === undefined ? null : String(row.version) };
      } catch (error) {
        const failed = error as SourceError;
        // The version query cannot be refused as a statement: whatever stops it means the source is not usable.
        throw signal.aborted ? failed : new SourceError('unreachable', failed.message);
      }
    },

    async browse(request, signal) {
      const { level, context } = request;
      const limit = Math.max(0, Math.floor(request.limit));
      const filter = request.search === undefined || request.search === '' ? '' : ` AND positionCaseInsensitiveUTF8(name, ${literal(request.search)}) > 0`;
      switch (level) {
        case 'databases': {
          const rows = await collect(`SELECT name FROM system.databases WHERE name NOT IN ${SYSTEM_DATABASES}${filter} ORDER BY name LIMIT ${limit}`, signal);
          return rows.map((row): BrowseEntry => ({ name: String(row.name), kind: 'database' }));
        }
        case 'tables': {
          const database = context.database ?? defaultDatabase();
          const estimate = await hasTotalRows(signal);
          const rows = await collect(
            `SELECT name, engine${estimate ? ', total_rows' : ''} FROM system.tables WHERE database = ${literal(database)}${filter} ORDER BY name LIMIT ${limit}`,
            signal,
          );
          return rows.map(
            (row): BrowseEntry => ({
              name: String(row.name),
              kind: VIEW_ENGINES.has(String(row.engine)) ? 'view' : 'table',
              rowEstimate: row.total_rows === undefined || row.total_rows === null ? null : Number(row.total_rows),
            }),
          );
        }
        case 'columns': {
          const database = context.database ?? defaultDatabase();
          const table = requiredContext(context.table, 'table', 'columns');
          const where = `database = ${literal(database)} AND table = ${literal(table)}`;
          const rows = await collect(`SELECT name, type FROM system.columns WHERE ${where}${filter} LIMIT ${limit}`, signal);
          if (rows.length === 0) {
            const found = await collect(`SELECT name FROM system.tables WHERE database = ${literal(database)} AND name = ${literal(table)}`, signal);
            if (found.length === 0) throw new SourceError('query', `Table ${database}.${table} doesn't exist`);
          }
          return rows.map((row): BrowseEntry => {
            const type = String(row.type);
            return { name: String(row.name), kind: 'column', dataType: type, nullable: /^(LowCardinality\()?Nullable\(/.test(type) };
          });
        }
        default:
          throw new SourceError('query', `Unknown level "${level}"; this connector browses: ${LEVELS}`);
      }
    },

    async preview(target, limit, signal) {
      const { columns, select } = await plan(target, Math.max(0, Math.floor(limit)) + 1, STATEMENT_TIMEOUT_MS, signal);
      const rows = await collect(select, signal);
      return {
        columns: columns.map((column) => ({ name: column.name, type: column.sourceType })),
        rows: rows.map((row) => Object.fromEntries(columns.map((column, i) => [column.name, previewValue(column, row[alias(i)])]))),
      };
    },

    async extract(target, signal) {
      const { columns, select } = await plan(target, null, STATEMENT_TIMEOUT_MS, signal);
      let estimatedRows: number | null = null;
      if (target.kind === 'table' && (await hasTotalRows(signal))) {
        const [row] = await collect(
          `SELECT total_rows FROM system.tables WHERE database = ${literal(target.database ?? defaultDatabase())} AND name = ${literal(target.table)}`,
          signal,
        );
        estimatedRows = row?.total_rows === undefined || row.total_rows === null ? null : Number(row.total_rows);
      }
      const deadline = AbortSignal.timeout(EXTRACT_TIMEOUT_MS + CLIENT_GRACE_MS);
      const combined = AbortSignal.any([signal, deadline]);
      let result: ResultSet<'JSONEachRow'>;
      try {
        result = await send(select, EXTRACT_TIMEOUT_MS, combined);
      } catch (error) {
        throw failure(error, signal, deadline, EXTRACT_TIMEOUT_MS);
      }
      const csv = rowsToCsv(columns, (row, i) => sourceValue(columns[i]!, (row as Record<string, unknown>)[alias(i)]));
      const rows = Readable.from(readRows(result));
      const stop = () => {
        result.close();
        csv.destroy(failure(new Error('aborted'), signal, deadline, EXTRACT_TIMEOUT_MS));
      };
      combined.addEventListener('abort', stop, { once: true });
      rows.on('error', (error) => csv.destroy(failure(error, signal, deadline, EXTRACT_TIMEOUT_MS)));
      csv.once('close', () => {
        combined.removeEventListener('abort', stop);
        // Closing the response ends the statement: the server stops when its next write finds the socket gone.
        if (!csv.writableFinished) result.close();
        rows.destroy();
      });
      rows.pipe(csv);
      if (combined.aborted) stop();
      return { stream: csv, format: 'csv', declared: columns, estimatedRows };
    },

    async close() {
      const current = opened;
      opened = undefined;
      const client = await current?.catch(() => undefined);
      // With its own agent the client destroys it, and with it every socket, in use or idle.
      await client?.close();
    },
  };
}

/** Checks the url: http(s) only, no credentials or query string in it; the port defaults to 8123 / 8443. */
function clickHouseEndpoint(raw: string): Endpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SourceError('unreachable', 'The url must be an http:// or https:// URL of the ClickHouse HTTP interface, e.g. https://ch.example.com:8443');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SourceError('unreachable', `The url must start with http:// or https:// (the ClickHouse HTTP interface), not ${url.protocol}//`);
  }
  if (url.username !== '' || url.password !== '') throw new SourceError('unreachable', 'The url must not hold a user or password: send them as user and password');
  if (url.search !== '' || url.hash !== '') throw new SourceError('unreachable', 'The url must not have a query string or fragment');
  const port = url.port === '' ? (url.protocol === 'https:' ? 8443 : 8123) : Number(url.port);
  const pathname = url.pathname === '/' || url.pathname === '' ? undefined : url.pathname;
  const target = new URL(`${url.protocol}//${url.host}`);
  target.port = String(port);
  return { url: target, pathname, host: url.hostname.replace(/^\[|\]$/g, ''), port };
}

/** A DNS lookup that answers the gate's address whatever name it is asked for. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address) === 6 ? 6 : 4;
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}


/** The statement a target reads: a quoted table, or the caller's query without its trailing semicolons. */
function sourceSelect(target: ReadTarget): string {
  if (target.kind === 'path') throw new SourceError('query', 'A ClickHouse connector reads tables or queries: send config.table or config.query');
  if (target.kind === 'query') return target.query.trim().replace(/[;\s]+$/, '');
  return `SELECT * FROM ${target.database === undefined ? '' : `${ident(target.database)}.`}${ident(target.table)}`;
}

/** Whether the user's profile itself refuses `setting` (a constant statement sent with the same settings fails on it). */
async function profileLocks(client: ClickHouseClient, settings: ClickHouseSettings, setting: string): Promise<boolean> {
  try {
    await (await client.query({ query: 'SELECT 1', format: 'JSONEachRow', clickhouse_settings: settings })).json();
    return false;
  } catch (error) {
    return lockedSetting(error) === setting;
  }
}

/** The server's error code, from the client's parsed error or the text (old servers: "Code: 60, e.displayText() ..."). */
function serverCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  const match = /^Code: (\d+)[.,]/.exec(String((error as Error)?.message ?? ''));
  return match === null ? undefined : Number(match[1]);
}

/** The setting a read-only profile refused us to change ("Cannot override setting (x)" / "Cannot modify 'x' setting"). */
function lockedSetting(error: unknown): string | undefined {
  const message = String((error as Error)?.message ?? '');
  if (serverCode(error) !== 164 || !/readonly mode/.test(message)) return undefined;
  const match = /Cannot (?:override|modify) (?:setting )?[('"`]?(readonly|max_execution_time)\b/.exec(message);
  return match?.[1];
}

/** The rows of a JSONEachRow answer, parsed one by one as they stream. */
async function* readRows(result: ResultSet<'JSONEachRow'>): AsyncGenerator<Record<string, unknown>> {
  for await (const rows of result.stream()) {
    for (const row of rows as Row[]) {
      try {
        yield JSON.parse(row.text) as Record<string, unknown>;
      } catch {
        // A statement that fails after its first rows: older servers write their error in place of the next row.
        const text = row.text.trim();
        throw new SourceError('query', /^Code: \d+/.test(text) ? text : `The server's answer broke off: ${text.slice(0, 200)}`);
      }
    }
  }
}

/** Runs `work` with the caller's signal and a deadline a little past the server's own limit. */
async function bounded<T>(signal: AbortSignal, timeoutMs: number, work: (combined: AbortSignal) => Promise<T>): Promise<T> {
  if (signal.aborted) throw cancelledError();
  const deadline = AbortSignal.timeout(timeoutMs + CLIENT_GRACE_MS);
  const combined = AbortSignal.any([signal, deadline]);
  try {
    return await work(combined);
  } catch (error) {
    throw failure(error, signal, deadline, timeoutMs);
  }
}


/**
 * A failure as the service needs it: the server's refusal (an error with a server code) is `query`, verbatim,
 * unless it refused the credentials; no server answer at all (refused, reset, TLS, DNS, not ClickHouse) is
 * `unreachable`.
 */
function failure(error: unknown, signal: AbortSignal, deadline: AbortSignal, timeoutMs: number): SourceError {
  if (error instanceof SourceError) return error;
  if (signal.aborted) return cancelledError();
  if (deadline.aborted) return new SourceError('query', `ClickHouse did not finish within ${Math.ceil(timeoutMs / 1000)} s`);
  const message = String((error as Error)?.message ?? error).trim();
  const code = serverCode(error);
  if (code !== undefined) return new SourceError(AUTH_CODES.has(code) ? 'unreachable' : 'query', message);
  const errno = (error as NodeJS.ErrnoException).code;
  return new SourceError('unreachable', errno !== undefined && !message.includes(errno) ? `${message} (${errno})` : message.slice(0, 500));
}
