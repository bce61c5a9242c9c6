import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import {
  DataStoreError,
  type ColumnSpec,
  type DataStore,
  type QueryOptions,
  type SqlBuilder,
  type TableRef,
  databaseOf,
  qualifiedTable,
  quoteColumn,
  tenantSql,
} from './port.js';

export { DataStoreError };

/** Statements a read may start with; anything else is a builder bug and never reaches the engine. */
const READ = /^\s*(SELECT|WITH|DESCRIBE|SHOW|EXPLAIN)\b/i;

const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    throw new DataStoreError(error);
  }
};

/**
 * The one adapter code path: everything goes through @clickhouse/client, whose connection is either chDB in
 * this process or a ClickHouse server over HTTP.
 */
export function createClickHouseDataStore(client: ClickHouseClient, kind: DataStore['kind']): DataStore {
  // Per-query settings stick to chDB's single session (found by experiment), so every query states every
  // setting it relies on, including "no time limit".
  const settings = (options: QueryOptions = {}): ClickHouseSettings => ({
    max_execution_time: options.timeoutMs === undefined ? 0 : Math.max(1, Math.ceil(options.timeoutMs / 1000)),
    max_threads: options.singleThreaded === true ? 1 : 0,
    // Files are loaded into staging tables by column position, whatever their header says.
    input_format_with_names_use_header: 0,
    // CSV exports write a missing value as an empty field (what spreadsheets and CSV readers expect), not \N.
    format_csv_null_representation: '',
    // An ingest converts every column of a file in one statement: a wide file (hundreds of columns, each a few KB
    // of conversion SQL) outgrows the default 256 KiB query and 50,000 AST elements.
    max_query_size: String(64 * 1024 * 1024),
    max_ast_elements: String(10_000_000),
    max_expanded_ast_elements: String(10_000_000),
    max_parser_backtracks: String(1_000_000_000),
  });
  const readSql = (organisationId: string, build: SqlBuilder): string => {
    const sql = build(tenantSql(organisationId));
    if (!READ.test(sql)) throw new DataStoreError(new Error('only reads may be run as queries'));
    return sql;
  };
  const run = (organisationId: string, build: SqlBuilder, params: Record<string, unknown>, options: QueryOptions) => {
    const query = readSql(organisationId, build);
    return guarded(() =>
      client.query({
        query,
        query_params: params,
        format: 'JSONEachRow',
        clickhouse_settings: settings(options),
        ...(options.signal !== undefined && { abort_signal: options.signal }),
      }),
    );
  };

  // The client's insert() takes no binary formats: RowBinary goes as the body of an INSERT statement.
  const insertBinary = async (target: string, values: Readable) => {
    const result = await guarded(() => client.exec({ query: `INSERT INTO ${target} FORMAT RowBinary`, values, clickhouse_settings: settings() }));
    result.stream.resume();
  };

  return {
    kind,
    async ensureTenant(organisationId) {
      await guarded(() => client.command({ query: `CREATE DATABASE IF NOT EXISTS ${databaseOf(organisationId)}`, clickhouse_settings: settings() }));
    },
    async createTable(table: TableRef, columns: ColumnSpec[], orderBy: string[], engine = 'MergeTree') {
      const definitions = columns.map((c) => `${quoteColumn(c.name)} ${c.type}`).join(', ');
      const order = orderBy.length === 0 ? 'tuple()' : `(${orderBy.map(quoteColumn).join(', ')})`;
      const storage = engine === 'Log' ? 'Log' : `MergeTree ORDER BY ${order}`;
      const query = `CREATE TABLE ${qualifiedTable(table)} (${definitions}) ENGINE = ${storage}`;
      await guarded(() => client.command({ query, clickhouse_settings: settings() }));
    },
    async dropTable(table) {
      const query = `DROP TABLE IF EXISTS ${qualifiedTable(table)}`;
      await guarded(() => client.command({ query, clickhouse_settings: settings() }));
    },
    async insert(table, rows) {
      if (rows.length === 0) return 0;
      const target = qualifiedTable(table);
      await guarded(() => client.insert({ table: target, values: rows, format: 'JSONEachRow', clickhouse_settings: settings() }));
      return rows.length;
    },
    async insertRowBinary(table, body) {
      if (body.length === 0) return;
      if (kind === 'chdb') {
        // chDB takes an insert's body as text: binary rows go through a file the engine reads in place.
        const dir = await mkdtemp(join(tmpdir(), 'causa-rows-'));
        try {
          await writeFile(join(dir, 'rows.bin'), body);
          await this.loadFile(table, join(dir, 'rows.bin'), 'RowBinary');
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
        return;
      }
      await insertBinary(qualifiedTable(table), Readable.from([body], { objectMode: false }));
    },
    async appendFrom(from, to) {
      if (from.organisationId !== to.organisationId) throw new DataStoreError(new Error('rows never move between organisations'));
      await this.insertSelect(to, (sql) => `SELECT * FROM ${sql.table(from.tableId)}`);
    },
    async insertSelect(to, build, params = {}, options = {}) {
      const query = `INSERT INTO ${qualifiedTable(to)} ${readSql(to.organisationId, build)}`;
      await guarded(() => client.command({ query, query_params: params, clickhouse_settings: settings(options) }));
    },
    async exchangeTables(a, b) {
      if (a.organisationId !== b.organisationId) throw new DataStoreError(new Error('tables never move between organisations'));
      await guarded(() => client.command({ query: `EXCHANGE TABLES ${qualifiedTable(a)} AND ${qualifiedTable(b)}`, clickhouse_settings: settings() }));
    },
    async loadFile(table, path, format, options = {}) {
      const target = qualifiedTable(table);
      if (kind === 'chdb' || options.ordinal !== undefined) {
        // The file's structure: every column of the target by position, but the ordinal the load writes itself.
        const structure = await this.query<ColumnSpec>(
          table.organisationId,
          () => `SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {table:String} AND name != {ordinal:String} ORDER BY position`,
          { db: table.organisationId, table: table.tableId, ordinal: options.ordinal ?? '' },
        );
        await this.insertFromFile(table, path, format, structure, (source) => `SELECT ${options.ordinal === undefined ? '' : 'rowNumberInAllBlocks(), '}* FROM ${source}`);
      } else if (format === 'RowBinary') {
        await insertBinary(target, createReadStream(path));
      } else {
        await guarded(() => client.insert({ table: target, values: createReadStream(path), format, clickhouse_settings: settings() }));
      }
    },
    async insertFromFile(table, path, format, structure, build, params = {}) {
      const target = qualifiedTable(table);
      const columns = structure.map((column) => `${quoteColumn(column.name)} ${column.type}`).join(', ');
      // Rows land and are numbered in file order: by default the engine spreads what it read over several streams
      // before inserting, and a large file's blocks were then inserted out of order (2 loads in 6 of a 3M-row CSV;
      // 0 in 6 with this setting; parsing stays parallel).
      const ordered = { ...settings(), parallelize_output_from_storages: 0 as const };
      if (kind === 'chdb') {
        // The engine reads the file in place.
        const query = `INSERT INTO ${target} ${build(`file({path:String}, '${format}', {structure:String})`)}`;
        await guarded(() => client.command({ query, query_params: { ...params, path, structure: columns }, clickhouse_settings: ordered }));
      } else {
        // A server parses the body as it arrives (the input() table function).
        const query = `INSERT INTO ${target} ${build(`input('${columns.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')`)} FORMAT ${format}`;
        const result = await guarded(() => client.exec({ query, query_params: params, values: createReadStream(path), clickhouse_settings: ordered }));
        result.stream.resume();
      }
    },
    async deleteRowsFrom(table, column, from) {
      const query = `DELETE FROM ${qualifiedTable(table)} WHERE ${quoteColumn(column)} >= {from:UInt64}`;
      await guarded(() => client.command({ query, query_params: { from }, clickhouse_settings: settings() }));
    },
    async query<Row>(organisationId: string, build: SqlBuilder, params: Record<string, unknown> = {}, options: QueryOptions = {}) {
      const result = await run(organisationId, build, params, options);
      return guarded(() => result.json<Row>());
    },
    async stream(organisationId, build, params = {}, options = {}) {
      const result = await run(organisationId, build, params, options);
      return (async function* rows() {
        for await (const batch of result.stream<Record<string, unknown>>()) {
          for (const row of batch) yield row.json<Record<string, unknown>>();
        }
      })();
    },
    async export(organisationId, build, format, params = {}, options = {}): Promise<Readable> {
      const query = `${readSql(organisationId, build)}\nFORMAT ${format}`;
      const result = await guarded(() =>
        client.exec({
          query,
          query_params: params,
          clickhouse_settings: settings(options),
          ...(options.signal !== undefined && { abort_signal: options.signal }),
        }),
      );
      return result.stream;
    },
    ping: async () => {
      const result = await client.ping();
      if (!result.success) throw result.error;
    },
    close: () => client.close(),
  };
}
