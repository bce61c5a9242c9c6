/**
 * A batch's rows by reference, as the run reads them: how many, chunk after chunk as frames over the model's
 * variables, and where the data's columns kept beside the answers come from. Two ways in: staged once as numbered
 * rows (staged.ts), or read straight from the data chunk by chunk on its row key (keyset.ts). This module holds what
 * both read with: the SQL of the selection and of each cell, and the RowBinary decoding of a chunk.
 */
import { orderBy } from '../../datasets/compiler/operations.js';
import type { CompiledDataset } from '../../datasets/compiler/compile.js';
import { environmentKey, ROW_ENVIRONMENT } from '../../engine/panel/keys.js';
import type { PanelRouting } from '../../engine/panel/routing.js';
import type { RowShape } from '../../engine/inference/score.js';
import type { Frame, FrameColumn } from '../../engine/types.js';
import { type DataStore, type SqlBuilder, quoteColumn } from '../../store/data/port.js';

/** The data's columns kept beside each row's answers (`keepColumns`), with their storage types. */
export interface KeptInput {
  columns: Array<{ name: string; type: string }>;
  /**
   * A read of rows [from, to)'s kept columns, each row's position as `row` and its columns as keptColumn(i), over
   * tables of the run's organisation; joined to the chunk's answers on `row`. Asked once per chunk, after its read.
   */
  rows(from: number, to: number): { sql: SqlBuilder; params: Record<string, unknown> };
}

/** What a batch reads of the data: the data, filtered and limited, and what of each row. */
export interface InputPlan {
  organisationId: string;
  compiled: CompiledDataset;
  condition: string | null;
  limit: number | undefined;
  /** The data's columns kept beside the answers. */
  keep: readonly string[];
  model: RowShape;
  environments?: PanelRouting;
}

export interface BatchInput {
  /** How many rows the batch answers. */
  readonly rows: number;
  readonly kept: KeptInput | null;
  /** Rows [from, to) as a frame over the model's variables (on a panel, with ROW_ENVIRONMENT), on SharedArrayBuffers; read in order. */
  chunk(from: number, to: number, signal: AbortSignal): Promise<Frame>;
  /** On a panel: the rows read so far that name no environment of the twin (every row's, once all are read). */
  unknownEnvironmentRows(): number | undefined;
  /** Drops what the input made in the data store. */
  close(): Promise<void>;
}

/** The column of the i-th kept column of the data, in the staged input and the results table. */
export const keptColumn = (i: number) => `k${i}`;

/** The storage types of columns of the data (as the data engine reads them), by name. */
async function columnTypes(store: DataStore, organisationId: string, compiled: CompiledDataset, names: readonly string[], signal: AbortSignal): Promise<Map<string, string>> {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return new Map();
  const described = await store.query<{ type: string }>(organisationId, (sql) => `DESCRIBE (SELECT ${wanted.map((name) => `s.${quoteColumn(name)}`).join(', ')} FROM (${compiled.relation.sql(sql)}) AS s)`, compiled.params.values, { signal });
  return new Map(wanted.map((name, i) => [name, described[i]?.type ?? 'Nullable(String)']));
}

/**
 * The storage types the data engine reads, in one query: of the model's variables the data has (variableCells reads
 * each by its type) and of the kept columns.
 */
export async function inputTypes(store: DataStore, organisationId: string, compiled: CompiledDataset, model: RowShape, keep: readonly string[], signal: AbortSignal): Promise<{ variables: Map<string, string>; kept: KeptInput['columns'] }> {
  const present = new Set(compiled.relation.columns.map((c) => c.name));
  const variables = model.nodes.map((node) => node.name).filter((name) => present.has(name));
  const types = await columnTypes(store, organisationId, compiled, [...variables, ...keep], signal);
  return { variables: new Map(variables.map((name) => [name, types.get(name)!])), kept: keep.map((name) => ({ name, type: types.get(name)! })) };
}

type Sql = Parameters<CompiledDataset['relation']['sql']>[0];

/**
 * The rows a batch reads, filtered and limited: in the data's own order, or a series in time order (a panel's each
 * environment's rows together; rows without a time left out) before the data's order settles ties.
 */
export function selection(compiled: CompiledDataset, condition: string | null, limit: number | undefined, timeColumn?: string, environmentColumns: readonly string[] = []) {
  const time = timeColumn === undefined ? null : `s.${quoteColumn(timeColumn)}`;
  const where = [...(condition === null ? [] : [`(${condition})`]), ...(time === null ? [] : [`${time} IS NOT NULL`])];
  const seriesOrder = time === null ? '' : `${[...environmentColumns.map((column) => `s.${quoteColumn(column)}`), time].join(', ')}, `;
  return (sql: Sql) =>
    `SELECT * FROM (${compiled.relation.sql(sql)}) AS s${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY ${seriesOrder}${orderBy(compiled.relation, 's')}${limit === undefined ? '' : ` LIMIT ${Math.floor(limit)}`}`;
}

/**
 * SQL of each of the model's variables of a row `s` as Float64: a number as it is (NaN when missing or not a
 * number), a category as its code in the model's list (-1 when missing or unknown), NaN for a variable the data
 * lacks. Category lists are bound into `params`.
 */
export function variableCells(model: RowShape, compiled: CompiledDataset, params: Record<string, unknown>, types: ReadonlyMap<string, string>): string[] {
  const present = new Set(compiled.relation.columns.map((c) => c.name));
  return model.nodes.map((node, i) => {
    if (!present.has(node.name)) return 'nan';
    const column = `s.${quoteColumn(node.name)}`;
    if (node.kind === 'continuous') {
      // A number column converts as a number (a 64-bit integer past 2^53 rounded, as JSON numbers are); any other
      // column is read as text, and what does not read as a number is missing.
      return NUMERIC_STORAGE.test(types.get(node.name) ?? '') ? `ifNull(toFloat64(${column}), nan)` : `ifNull(accurateCastOrNull(${column}, 'Float64'), nan)`;
    }
    params[`batch_c${i}`] = node.categories;
    return `toFloat64(indexOf({batch_c${i}:Array(String)}, toString(${column})) - 1)`;
  });
}

/** ClickHouse storage types that convert to Float64 without a text reading. */
const NUMERIC_STORAGE = /^(Nullable\()?(U?Int(8|16|32|64|128|256)|Float(32|64)|Decimal(32|64|128|256)?\([^)]*\)|Bool)\)?$/;

/**
 * SQL of a row's environment code: its key built as environmentKey builds it (`column=value` joined by `;`, with
 * `%`, `;` and `=` percent-encoded; values as text), looked up among the panel's keys; -1 when it is none of them
 * (a value missing, or an environment the twin never saw).
 */
export function environmentCode(environments: PanelRouting, params: Record<string, unknown>): string {
  const escape = (text: string) => `replaceAll(replaceAll(replaceAll(${text}, '%', '%25'), ';', '%3B'), '=', '%3D')`;
  params.batch_env_keys = environments.keys;
  const parts = environments.columns.map((column, i) => {
    params[`batch_env_p${i}`] = environmentKey([column], { [column]: '' });
    return `concat({batch_env_p${i}:String}, ${escape(`toString(s.${quoteColumn(column)})`)})`;
  });
  const key = parts.length === 1 ? parts[0]! : `concat(${parts.join(", ';', ")})`;
  return `toFloat64(indexOf({batch_env_keys:Array(String)}, ${key}) - 1)`;
}

/** Rows of a chunk transposed together (512 rows of 20 cells: 80 KB, within a core's L2 cache). */
const TRANSPOSE_ROWS = 512;

/**
 * A chunk read as RowBinary rows of Float64 cells: the model's variables, then (on a panel) the environment code,
 * then `extra` cells the caller reads itself; as a frame on SharedArrayBuffers, with the rows' cells for the caller.
 */
export function chunkFrame(bytes: Buffer, model: RowShape, environmentKeys: readonly string[] | undefined, extra = 0): { frame: Frame; cells: Float64Array; width: number } {
  const width = model.nodes.length + (environmentKeys === undefined ? 0 : 1) + extra;
  const n = Math.floor(bytes.length / (8 * width));
  // RowBinary is little-endian Float64, row after row: read in place where the bytes are aligned, else copied once.
  const cells = bytes.byteOffset % 8 === 0 ? new Float64Array(bytes.buffer, bytes.byteOffset, n * width) : new Float64Array(new Uint8Array(bytes.subarray(0, n * width * 8)).buffer);
  const columns: FrameColumn[] = model.nodes.map((node) => (node.kind === 'continuous'
    ? { name: node.name, kind: 'continuous', values: new Float64Array(new SharedArrayBuffer(n * 8)) }
    : { name: node.name, kind: 'categorical', codes: new Int32Array(new SharedArrayBuffer(n * 4)), categories: [...node.categories] }));
  if (environmentKeys !== undefined) columns.push({ name: ROW_ENVIRONMENT, kind: 'categorical', codes: new Int32Array(new SharedArrayBuffer(n * 4)), categories: [...environmentKeys] });
  const targets = columns.map((column) => (column.kind === 'continuous' ? column.values : column.codes));
  // Transposed a block of rows at a time: the block's cells stay in cache while each column takes its own (a column
  // at a time over the whole chunk read every cell's cache line once per column: 3-4x slower here).
  for (let first = 0; first < n; first += TRANSPOSE_ROWS) {
    const last = Math.min(n, first + TRANSPOSE_ROWS);
    for (let j = 0; j < targets.length; j++) {
      const target = targets[j]!;
      for (let r = first, at = first * width + j; r < last; r++, at += width) target[r] = cells[at]!;
    }
  }
  return { frame: { nRows: n, columns }, cells, width };
}

/** A readable's bytes, whole. */
export async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}
