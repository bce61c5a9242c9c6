import { Readable, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { PARQUET_PART_ROWS, spliceParquet } from '../lib/parquet-splice.js';
import { concatenated, wholeParts } from '../lib/streams.js';
import type { DataStore, ExportFormat } from '../store/data/port.js';
import type { CompiledDataset } from './compiler/compile.js';
import { orderBy } from './compiler/operations.js';
import { Params } from './compiler/params.js';
import { type Column, type Relation, qualified } from './compiler/relation.js';
import { paramType } from './compiler/values.js';

/** Reads of a compiled dataset: counts, keyset pages, previews and exports. Nothing is materialised. */

export type CursorValue = string | number | boolean | null;

export interface RecordsPage {
  rows: Array<Record<string, unknown>>;
  /** The sort values of the last row served, for the next cursor; null when there is no next page. */
  next: CursorValue[] | null;
}

const S = 's';

/**
 * The time a read of a dataset may take in the engine (records, counts, statistics, previews): one expensive
 * definition must not hold the engine from everyone else. Exports get longer, per query.
 */
export const READ_TIMEOUT_MS = 60_000;
export const EXPORT_TIMEOUT_MS = 30 * 60_000;

export async function countRows(store: DataStore, organisationId: string, compiled: CompiledDataset): Promise<number> {
  const [row] = await store.query<{ n: number | string }>(organisationId, (sql) => `SELECT count() AS n FROM (${compiled.relation.sql(sql)})`, compiled.params.values, { timeoutMs: READ_TIMEOUT_MS });
  return Number(row?.n ?? 0);
}

/**
 * One page of records after `after` (the sort values of the previous page's last row): a keyset condition on the
 * relation's order, so page 1000 costs what page 1 does.
 */
export async function readRecords(store: DataStore, organisationId: string, compiled: CompiledDataset, limit: number, after: CursorValue[] | null): Promise<RecordsPage> {
  const relation = compiled.relation;
  const components = orderComponents(relation);
  const keyset = new Params('k');
  const where = after === null ? '' : ` WHERE ${afterCondition(components, after, keyset)}`;
  const count = keyset.bind(limit + 1, 'UInt32');
  const rows = await store.query<Record<string, unknown>>(
    organisationId,
    (sql) => `SELECT * FROM (${relation.sql(sql)}) AS ${S}${where} ORDER BY ${orderBy(relation, S)} LIMIT ${count}`,
    { ...compiled.params.values, ...keyset.values },
    { timeoutMs: READ_TIMEOUT_MS },
  );
  const hasMore = rows.length > limit;
  const served = hasMore ? rows.slice(0, limit) : rows;
  const last = served.at(-1);
  return {
    rows: served.map((row) => presentRow(relation, row)),
    next: hasMore && last !== undefined ? components.map((c) => (last[c.name] ?? null) as CursorValue) : null,
  };
}

/** A row as the API presents it: visible columns only, datetimes as ISO-8601 UTC. */
function presentRow(relation: Relation, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of relation.columns) {
    const value = row[column.name] ?? null;
    out[column.name] = column.type === 'datetime' && typeof value === 'string' ? `${value.replace(' ', 'T')}Z` : value;
  }
  return out;
}

interface Component {
  name: string;
  direction: 'asc' | 'desc';
  type: string;
  nullable: boolean;
}

function orderComponents(relation: Relation): Component[] {
  const byName = new Map<string, Column>(relation.columns.map((c) => [c.name, c]));
  return [
    ...relation.order.map((key) => {
      const column = byName.get(key.column)!;
      return { name: key.column, direction: key.direction, type: paramType(column.type === 'categorical' ? 'text' : column.type), nullable: true };
    }),
    ...relation.keys.map((key) => ({ name: key, direction: 'asc' as const, type: 'UInt64', nullable: false })),
  ];
}

/**
 * Rows strictly after `values` in the order (sort columns nulls last, then keys): for each component, either
 * equal on all before it and beyond it on this one.
 */
function afterCondition(components: Component[], values: CursorValue[], params: Params): string {
  if (values.length !== components.length) return '0';
  const parts: string[] = [];
  const equal: string[] = [];
  components.forEach((component, i) => {
    const c = qualified(S, component.name);
    const value = values[i] ?? null;
    let beyond: string;
    let same: string;
    if (value === null) {
      beyond = '0'; // nulls come last: nothing of this component lies beyond a null
      same = `${c} IS NULL`;
    } else {
      const bound = params.bind(value, component.type);
      beyond = `${c} ${component.direction === 'asc' ? '>' : '<'} ${bound}${component.nullable ? ` OR ${c} IS NULL` : ''}`;
      same = `${c} = ${bound}`;
    }
    parts.push([...equal, `(${beyond})`].join(' AND '));
    equal.push(`(${same})`);
  });
  return parts.map((part) => `(${part})`).join(' OR ');
}

export const EXPORT_FORMATS = {
  csv: { format: 'CSVWithNames', contentType: 'text/csv; charset=utf-8' },
  json: { format: 'JSONEachRow', contentType: 'application/json' },
  parquet: { format: 'Parquet', contentType: 'application/vnd.apache.parquet' },
} as const satisfies Record<string, { format: ExportFormat; contentType: string }>;
export type ExportName = keyof typeof EXPORT_FORMATS;

/** Rows per query when an export is read in parts (chDB hands over each result whole). */
export const EXPORT_CHUNK_ROWS = 100_000;

/**
 * The whole dataset in its order, streamed; json is a JSON array of row objects. A ClickHouse server streams one
 * query. chDB materialises every result in memory, so there the rows are read in keyset parts (EXPORT_CHUNK_ROWS
 * rows; PARQUET_PART_ROWS for Parquet) and memory stays bounded whatever the size: CSV and JSON parts follow each
 * other, Parquet parts (each a file of its own) are spliced into one file (parquet-splice.ts).
 */
export async function exportRows(store: DataStore, organisationId: string, compiled: CompiledDataset, name: ExportName, signal?: AbortSignal): Promise<Readable> {
  const relation = compiled.relation;
  const list = relation.columns.length === 0 ? '*' : relation.columns.map((c) => qualified(S, c.name)).join(', ');
  const options = { timeoutMs: EXPORT_TIMEOUT_MS, ...(signal !== undefined && { signal }) };
  if (store.kind !== 'chdb') {
    const stream = await store.export(
      organisationId,
      (sql) => `SELECT ${list} FROM (${relation.sql(sql)}) AS ${S} ORDER BY ${orderBy(relation, S)}`,
      EXPORT_FORMATS[name].format,
      compiled.params.values,
      options,
    );
    return name === 'json' ? stream.pipe(ndjsonToArray()) : stream;
  }
  const components = orderComponents(relation);
  const partRows = name === 'parquet' ? PARQUET_PART_ROWS : EXPORT_CHUNK_ROWS;
  const parts = async function* parts(): AsyncGenerator<Readable> {
    let after: CursorValue[] | null = null;
    for (let first = true; ; first = false) {
      const keyset = new Params('k');
      const where: string = after === null ? '' : ` WHERE ${afterCondition(components, after, keyset)}`;
      const limit = keyset.bind(partRows, 'UInt32');
      const format: ExportFormat = name === 'csv' ? (first ? 'CSVWithNames' : 'CSV') : EXPORT_FORMATS[name].format;
      yield await store.export(
        organisationId,
        (sql) => `SELECT ${list} FROM (${relation.sql(sql)}) AS ${S}${where} ORDER BY ${orderBy(relation, S)} LIMIT ${limit}`,
        format,
        { ...compiled.params.values, ...keyset.values },
        options,
      );
      // Where the next part starts (read once the part is consumed): the sort values of its last row, if it was full.
      const offset = keyset.bind(partRows - 1, 'UInt32');
      const [last]: Array<Record<string, unknown>> = await store.query<Record<string, unknown>>(
        organisationId,
        (sql) => `SELECT ${components.map((c) => qualified(S, c.name)).join(', ')} FROM (${relation.sql(sql)}) AS ${S}${where} ORDER BY ${orderBy(relation, S)} LIMIT 1 OFFSET ${offset}`,
        { ...compiled.params.values, ...keyset.values },
        options,
      );
      if (last === undefined) return;
      after = components.map((c) => (last[c.name] ?? null) as CursorValue);
    }
  };
  if (name === 'parquet') return Readable.from(spliceParquet(wholeParts(parts())), { objectMode: false });
  const stream = Readable.from(concatenated(parts()), { objectMode: false });
  return name === 'json' ? stream.pipe(ndjsonToArray()) : stream;
}

/** Turns newline-delimited JSON into one JSON array, streaming. */
function ndjsonToArray(): Transform {
  const decoder = new StringDecoder('utf8'); // a chunk may end inside a multi-byte character
  let first = true;
  let rest = '';
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const text = rest + decoder.write(chunk);
      const lines = text.split('\n');
      rest = lines.pop()!;
      let out = '';
      for (const line of lines) {
        if (line === '') continue;
        out += (first ? '[' : ',') + line;
        first = false;
      }
      done(null, out);
    },
    flush(done) {
      rest += decoder.end();
      const tail = rest.trim() === '' ? '' : (first ? '[' : ',') + rest;
      done(null, `${first && tail === '' ? '[' : ''}${tail}]`);
    },
  });
}
