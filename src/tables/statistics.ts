import type { Static } from 'typebox';
import type { ColumnMetadataSchema } from '../../schemas/sources.js';
import type { DataStore, QueryOptions, SqlBuilder, TableRef } from '../store/data/port.js';
import { storageType } from './inference/convert.js';
import type { InferredColumn } from './inference/infer-schema.js';

export type ColumnMetadata = Static<typeof ColumnMetadataSchema>;
type Statistics = Partial<ColumnMetadata>;

const TOP_VALUES = 100;
const HISTOGRAM_BINS = 10;

/**
 * What statistics are computed over: a source's table or a dataset's query, with the parameters it binds. It is
 * read as `t`, and columns are named through it: a column called like an alias of the query (n, lo, rows...)
 * would otherwise be shadowed by the alias.
 */
export interface Rows {
  organisationId: string;
  from: SqlBuilder;
  params: Record<string, unknown>;
  options?: QueryOptions;
}

export const tableRows = (table: TableRef): Rows => ({ organisationId: table.organisationId, from: (sql) => sql.table(table.tableId), params: {} });

/**
 * Computes the spec's column statistics in the data engine, one aggregate query per column (plus one for
 * histograms and element lists): rows never come into JS.
 */
export async function computeColumnMetadata(store: DataStore, over: Rows, columns: InferredColumn[]): Promise<Record<string, ColumnMetadata>> {
  const result: Record<string, ColumnMetadata> = {};
  for (const column of columns) result[column.field] = await columnStatistics(store, over, column);
  return result;
}

async function columnStatistics(store: DataStore, over: Rows, column: InferredColumn): Promise<ColumnMetadata> {
  const org = over.organisationId;
  const type = storageType(column);
  const isArray = type.startsWith('Array');
  const [base] = await store.query<{ rows: string; nulls: string; cardinality: string }>(org, (sql) => {
    const c = `t.${sql.column(column.field)}`;
    // Array cells are never null (an empty cell is stored as []), so only scalar columns count nulls.
    return `SELECT count() AS rows, countIf(${isArray ? '0' : `isNull(${c})`}) AS nulls, uniqExact(${c}) AS cardinality FROM ${over.from(sql)} AS t`;
  }, over.params, over.options);
  const rows = Number(base!.rows);
  const metadata: ColumnMetadata = {
    dtype: type,
    cardinality: Number(base!.cardinality),
    nullFraction: rows === 0 ? 0 : Number(base!.nulls) / rows,
    processing: null,
    metadataStatus: 'complete',
  };
  if (isArray) Object.assign(metadata, await arrayStatistics(store, over, column));
  else if (column.type === 'integer' || column.type === 'decimal') Object.assign(metadata, await numericStatistics(store, over, column));
  else if (column.type === 'date' || column.type === 'datetime') Object.assign(metadata, await rangeStatistics(store, over, column));
  else Object.assign(metadata, await textStatistics(store, over, column));
  return metadata;
}

async function numericStatistics(store: DataStore, over: Rows, column: InferredColumn): Promise<Statistics> {
  const org = over.organisationId;
  const [range] = await store.query<{ lo: number | null; hi: number | null; mean: number | null }>(org, (sql) => {
    const c = `t.${sql.column(column.field)}`;
    return `SELECT min(${c}) AS lo, max(${c}) AS hi, avg(${c}) AS mean FROM ${over.from(sql)} AS t`;
  }, over.params, over.options);
  const lo = range!.lo === null ? null : Number(range!.lo);
  const hi = range!.hi === null ? null : Number(range!.hi);
  const distribution: Record<string, number> = {};
  if (lo !== null && hi !== null) {
    const width = hi > lo ? (hi - lo) / HISTOGRAM_BINS : 1;
    const bins = await store.query<{ bin: string; n: string }>(
      org,
      (sql) => {
        const c = `t.${sql.column(column.field)}`;
        return `SELECT least(toInt64(floor((${c} - {lo:Float64}) / {width:Float64})), ${HISTOGRAM_BINS - 1}) AS bin, count() AS n FROM ${over.from(sql)} AS t WHERE ${c} IS NOT NULL GROUP BY bin ORDER BY bin`;
      },
      // As text: a Float64 parameter beyond 2^53 (a UInt64 column's range) is still exact enough, but no JS integer.
      { ...over.params, lo: String(lo), width: String(width) },
      over.options,
    );
    for (const { bin, n } of bins) {
      const from = lo + Number(bin) * width;
      distribution[`${round(from)}-${round(from + width)}`] = Number(n);
    }
  }
  return { rangeFrom: lo, rangeTo: hi, mean: range!.mean === null ? null : Number(range!.mean), distribution };
}

async function rangeStatistics(store: DataStore, over: Rows, column: InferredColumn): Promise<Statistics> {
  const [range] = await store.query<{ lo: string | null; hi: string | null }>(over.organisationId, (sql) => {
    const c = `t.${sql.column(column.field)}`;
    return `SELECT toString(min(${c})) AS lo, toString(max(${c})) AS hi FROM ${over.from(sql)} AS t WHERE ${c} IS NOT NULL`;
  }, over.params, over.options);
  return { rangeFrom: range?.lo ?? null, rangeTo: range?.hi ?? null };
}

async function textStatistics(store: DataStore, over: Rows, column: InferredColumn): Promise<Statistics> {
  const org = over.organisationId;
  const top = await store.query<{ v: string; n: string }>(org, (sql) => {
    const c = `t.${sql.column(column.field)}`;
    return `SELECT toString(${c}) AS v, count() AS n FROM ${over.from(sql)} AS t WHERE ${c} IS NOT NULL GROUP BY v ORDER BY n DESC, v LIMIT ${TOP_VALUES}`;
  }, over.params, over.options);
  const [shape] = await store.query<{ pattern: string | null; objects: number | null }>(org, (sql) => {
    const c = `ifNull(toString(t.${sql.column(column.field)}), '')`;
    // The most common shape: letters as A, digits as 9 (e.g. "AA-9999").
    return (
      `SELECT topK(1)(replaceRegexpAll(replaceRegexpAll(${c}, '[A-Za-z]', 'A'), '[0-9]', '9'))[1] AS pattern, ` +
      `countIf(startsWith(${c}, '{') AND isValidJSON(${c})) / count() AS objects FROM ${over.from(sql)} AS t WHERE t.${sql.column(column.field)} IS NOT NULL`
    );
  }, over.params, over.options);
  return {
    categoryOccurences: Object.fromEntries(top.map(({ v, n }) => [v, Number(n)])),
    stringPattern: shape?.pattern ?? null,
    jsonObjectFraction: Number(shape?.objects ?? 0),
  };
}

async function arrayStatistics(store: DataStore, over: Rows, column: InferredColumn): Promise<Statistics> {
  const org = over.organisationId;
  const numeric = column.subtype === 'integer' || column.subtype === 'decimal';
  const [sizes] = await store.query<Record<string, number | string>>(org, (sql) => {
    const c = `t.${sql.column(column.field)}`;
    return (
      `SELECT min(length(${c})) AS minSize, max(length(${c})) AS maxSize, avg(length(${c})) AS avgSize, ` +
      `quantileExact(0.5)(length(${c})) AS medianSize, quantileExact(0.95)(length(${c})) AS p95Size, ` +
      `countIf(empty(${c})) AS emptyCount, sum(length(${c})) AS totalElementCount, ` +
      `countIf(length(${c}) BETWEEN 1 AND 3) AS oneToThree, countIf(length(${c}) BETWEEN 4 AND 10) AS fourToTen, ` +
      `countIf(length(${c}) BETWEEN 11 AND 50) AS elevenToFifty, countIf(length(${c}) > 50) AS fiftyPlus, ` +
      `avg(length(arrayDistinct(${c}))) AS avgUniquePerRow FROM ${over.from(sql)} AS t`
    );
  }, over.params, over.options);
  const [elements] = await store.query<Record<string, number | string | null>>(org, (sql) => {
    const e = `arrayJoin(t.${sql.column(column.field)})`;
    const numbers = numeric ? `, min(x) AS elementMin, max(x) AS elementMax, avg(x) AS elementMean, sum(x) AS elementSum, stddevPop(x) AS elementStddev` : '';
    return `SELECT uniqExact(x) AS uniqueElementCount${numbers} FROM (SELECT ${e} AS x FROM ${over.from(sql)} AS t)`;
  }, over.params, over.options);
  const occurrences = await store.query<{ v: string; n: string }>(org, (sql) => {
    const e = `arrayJoin(t.${sql.column(column.field)})`;
    return `SELECT toString(x) AS v, count() AS n FROM (SELECT ${e} AS x FROM ${over.from(sql)} AS t) GROUP BY v ORDER BY n DESC, v LIMIT ${TOP_VALUES}`;
  }, over.params, over.options);
  const n = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    elementType: column.subtype,
    minSize: n(sizes!.minSize),
    maxSize: n(sizes!.maxSize),
    avgSize: n(sizes!.avgSize),
    medianSize: n(sizes!.medianSize),
    p95Size: n(sizes!.p95Size),
    nullCount: 0, // array cells are never null: an empty cell is stored as []
    emptyCount: n(sizes!.emptyCount),
    totalElementCount: n(sizes!.totalElementCount),
    sizeDistribution: {
      empty: n(sizes!.emptyCount),
      oneToThree: n(sizes!.oneToThree),
      fourToTen: n(sizes!.fourToTen),
      elevenToFifty: n(sizes!.elevenToFifty),
      fiftyPlus: n(sizes!.fiftyPlus),
    },
    uniqueElementCount: n(elements!.uniqueElementCount),
    avgUniquePerRow: n(sizes!.avgUniquePerRow),
    elementOccurences: Object.fromEntries(occurrences.map(({ v, n: count }) => [v, Number(count)])),
    ...(numeric && {
      elementMin: n(elements!.elementMin),
      elementMax: n(elements!.elementMax),
      elementMean: n(elements!.elementMean),
      elementSum: n(elements!.elementSum),
      elementStddev: n(elements!.elementStddev),
    }),
  };
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;
