/**
 * A batch's rows by reference (a prediction's `rowsFrom`): a dataset or source of the workspace, filtered and
 * limited, staged once in the data store as numbered rows (the model's variables as Float64: numbers as they are,
 * categories as their code in the model's list), then read back chunk by chunk as frames for the pool. The staged
 * table bounds the memory of a batch of any size: no chunk read re-runs the dataset's query.
 */
import type { Static } from 'typebox';
import type { RowsFromSchema } from '../../../schemas/simulations.js';
import type { Principal } from '../../auth/principal.js';
import { compileCondition } from '../../datasets/compiler/filter.js';
import { orderBy } from '../../datasets/compiler/operations.js';
import type { CompiledDataset } from '../../datasets/compiler/compile.js';
import type { DataBinding, DatasetService } from '../../datasets/service.js';
import { environmentKey, parseEnvironmentKey, ROW_ENVIRONMENT } from '../../engine/panel/keys.js';
import type { PanelRouting } from '../../engine/panel/routing.js';
import type { RowShape, ScoredRecord } from '../../engine/inference/score.js';
import type { Frame, FrameColumn } from '../../engine/types.js';
import { AppError } from '../../errors.js';
import { type DataStore, type TableRef, quoteColumn } from '../../store/data/port.js';
import { runTable } from './tables.js';

export type RowsFrom = Static<typeof RowsFromSchema>;

/** Where a prediction's rowsFrom is in its request (a scoring request's is `rowsFrom`). */
const SCENARIO_ROWS_FROM = 'scenario/rowsFrom';

/** A series read by reference (a temporal twin's rows): its time column, staged beside the rows in time order. */
export interface StagedSeries {
  timeColumn: string;
}

/** The staged input of a run: how many rows, and the data's columns it keeps beside the results (their storage types). */
export interface StagedRows {
  table: TableRef;
  rows: number;
  keep: Array<{ name: string; type: string }>;
  /** On a panel: its environment keys (the staged `env` column codes into them) and the rows naming none of them. */
  environments?: { keys: string[]; unknownRows: number };
  /** A series: the rows are in time order, each with its time (the `time` column, as text); rows without one are left out. */
  series?: StagedSeries;
}


/** The staged column of the i-th variable of the model, and of the i-th kept column. */
export const variableColumn = (i: number) => `v${i}`;
export const keptColumn = (i: number) => `k${i}`;
/** The staged column of a panel row's environment (a code into its keys, -1 for none of them). */
const ENVIRONMENT_COLUMN = 'env';
/** The staged column of a series row's time (as text: read back as a time key). */
const TIME_COLUMN = 'time';

/**
 * The rows a batch reads, filtered and limited: in the data's own order, or a series in time order (a panel's each
 * environment's rows together; rows without a time left out) before the data's order settles ties.
 */
function selection(compiled: CompiledDataset, condition: string | null, limit: number | undefined, timeColumn?: string, environmentColumns: readonly string[] = []) {
  const time = timeColumn === undefined ? null : `s.${quoteColumn(timeColumn)}`;
  const where = [...(condition === null ? [] : [condition]), ...(time === null ? [] : [`${time} IS NOT NULL`])];
  const seriesOrder = time === null ? '' : `${[...environmentColumns.map((column) => `s.${quoteColumn(column)}`), time].join(', ')}, `;
  return (sql: Parameters<CompiledDataset['relation']['sql']>[0]) =>
    `SELECT * FROM (${compiled.relation.sql(sql)}) AS s${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY ${seriesOrder}${orderBy(compiled.relation, 's')}${limit === undefined ? '' : ` LIMIT ${Math.floor(limit)}`}`;
}

/**
 * SQL of a row's environment code: its key built as environmentKey builds it (`column=value` joined by `;`, with
 * `%`, `;` and `=` percent-encoded; values as text), looked up among the panel's keys; -1 when it is none of them
 * (a value missing, or an environment the twin never saw).
 */
function environmentCode(environments: PanelRouting, params: Record<string, unknown>): string {
  const escape = (text: string) => `replaceAll(replaceAll(replaceAll(${text}, '%', '%25'), ';', '%3B'), '=', '%3D')`;
  params.batch_env_keys = environments.keys;
  const parts = environments.columns.map((column, i) => {
    params[`batch_env_p${i}`] = environmentKey([column], { [column]: '' });
    return `concat({batch_env_p${i}:String}, ${escape(`toString(s.${quoteColumn(column)})`)})`;
  });
  const key = parts.length === 1 ? parts[0]! : `concat(${parts.join(", ';', ")})`;
  return `toFloat64(indexOf({batch_env_keys:Array(String)}, ${key}) - 1)`;
}

export class BatchRows {
  constructor(
    private readonly datasets: DatasetService,
    private readonly data: () => DataStore,
  ) {}

  /**
   * What a submit checks: the data exists in the workspace, the filter compiles, the kept columns are columns of
   * it, and at least one variable the prediction conditions on is a column (else every row would be the prior).
   */
  async check(principal: Principal, workspaceId: string, rowsFrom: RowsFrom, model: RowShape, targets: readonly string[], at = SCENARIO_ROWS_FROM, reads: { environmentColumns?: readonly string[]; timeColumn?: string } = {}): Promise<void> {
    const { compiled, condition } = await this.compile(principal, workspaceId, rowsFrom, at);
    const where = `body/${at}`;
    const columns = new Set(compiled.relation.columns.map((c) => c.name));
    const environmentColumns = reads.environmentColumns ?? [];
    const unnamed = environmentColumns.filter((name) => !columns.has(name));
    if (unnamed.length > 0) {
      const message = `the rows name their environment in the twin's environment columns (${environmentColumns.join(', ')}); the data has no ${unnamed.join(', ')}`;
      throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
    }
    if (reads.timeColumn !== undefined && !columns.has(reads.timeColumn)) {
      const message = `the rows are steps of a series placed by the twin's time column '${reads.timeColumn}'; the data has no such column`;
      throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
    }
    if (reads.timeColumn !== undefined) await this.oneRowPerTime(principal, rowsFrom, compiled, condition, reads.timeColumn, environmentColumns, where);
    const missing = (rowsFrom.keepColumns ?? []).flatMap((name, i) => (columns.has(name) ? [] : [{ location: `${where}/keepColumns/${i}`, message: `'${name}' is not a column of the data` }]));
    if (missing.length > 0) throw new AppError('validation_failed', missing[0]!.message, { errors: missing });
    // A series' targets are inputs too: their own past.
    const inputs = model.nodes.filter((node) => (reads.timeColumn !== undefined || !targets.includes(node.name)) && columns.has(node.name));
    if (inputs.length === 0) {
      const message = `none of the twin's input variables (${model.nodes.filter((n) => !targets.includes(n.name)).slice(0, 8).map((n) => n.name).join(', ')}) is a column of the data`;
      throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
    }
  }

  /**
   * A series is scored one row per step: rows that share a time (within an environment) are refused at submit,
   * naming the first such time (learning combines them; scoring answers each row, so the data must say which).
   */
  private async oneRowPerTime(principal: Principal, rowsFrom: RowsFrom, compiled: CompiledDataset, condition: string | null, timeColumn: string, environmentColumns: readonly string[], where: string): Promise<void> {
    const keys = [...environmentColumns, timeColumn].map((column) => `s.${quoteColumn(column)}`);
    const rows = selection(compiled, condition, rowsFrom.limit, timeColumn, environmentColumns);
    const [shared] = await this.data().query<{ at: string; n: number | string }>(
      principal.organisationId,
      (sql) => `SELECT toString(tuple(${keys.join(', ')})) AS at, count() AS n FROM (${rows(sql)}) AS s GROUP BY ${keys.join(', ')} HAVING n > 1 LIMIT 1`,
      compiled.params.values,
    );
    if (shared === undefined) return;
    const message = `${Number(shared.n)} rows share one time ${shared.at} (${[...environmentColumns, timeColumn].join(', ')}): a series is scored one row per step; combine them in a dataset or filter them out`;
    throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
  }

  /** Stages the rows in one pass of the data engine (single-threaded, so row numbers follow the data's order). */
  async stage(principal: Principal, workspaceId: string, runId: string, rowsFrom: RowsFrom, model: RowShape, signal: AbortSignal, environments?: PanelRouting, series?: StagedSeries): Promise<StagedRows> {
    const { compiled, condition } = await this.compile(principal, workspaceId, rowsFrom);
    const present = new Set(compiled.relation.columns.map((c) => c.name));
    const store = this.data();
    const table = runTable('input', principal.organisationId, runId);
    const keepNames = rowsFrom.keepColumns ?? [];
    const inner = selection(compiled, condition, rowsFrom.limit, series?.timeColumn, environments?.columns);
    const params: Record<string, unknown> = { ...compiled.params.values };
    const variables = model.nodes.map((node, i) => {
      if (!present.has(node.name)) return 'nan';
      const column = `s.${quoteColumn(node.name)}`;
      if (node.kind === 'continuous') return `ifNull(accurateCastOrNull(${column}, 'Float64'), nan)`;
      params[`batch_c${i}`] = node.categories;
      return `toFloat64(indexOf({batch_c${i}:Array(String)}, toString(${column})) - 1)`;
    });
    const keepTypes = keepNames.length === 0 ? [] : await store.query<{ type: string }>(principal.organisationId, (sql) => `DESCRIBE (SELECT ${keepNames.map((name) => `s.${quoteColumn(name)}`).join(', ')} FROM (${compiled.relation.sql(sql)}) AS s)`, compiled.params.values);
    const keep = keepNames.map((name, i) => ({ name, type: keepTypes[i]?.type ?? 'Nullable(String)' }));
    await store.ensureTenant(principal.organisationId);
    await store.dropTable(table);
    await store.createTable(table, [
      { name: 'row', type: 'UInt64' },
      ...model.nodes.map((_, i) => ({ name: variableColumn(i), type: 'Float64' })),
      ...(environments === undefined ? [] : [{ name: ENVIRONMENT_COLUMN, type: 'Float64' }]),
      ...(series === undefined ? [] : [{ name: TIME_COLUMN, type: 'String' }]),
      ...keep.map((column, i) => ({ name: keptColumn(i), type: column.type })),
    ], ['row']);
    const select = [
      ...variables.map((expression, i) => `${expression} AS ${variableColumn(i)}`),
      ...(environments === undefined ? [] : [`${environmentCode(environments, params)} AS ${ENVIRONMENT_COLUMN}`]),
      ...(series === undefined ? [] : [`toString(s.${quoteColumn(series.timeColumn)}) AS ${TIME_COLUMN}`]),
      ...keepNames.map((name, i) => `s.${quoteColumn(name)} AS ${keptColumn(i)}`),
    ];
    await store.insertSelect(table, (sql) => `SELECT rowNumberInAllBlocks() AS row, ${select.join(', ')} FROM (${inner(sql)}) AS s`, params, { singleThreaded: true, signal });
    const unknown = environments === undefined ? '0' : `countIf(${ENVIRONMENT_COLUMN} < 0)`;
    const [counted] = await store.query<{ n: number | string; unknown: number | string }>(principal.organisationId, (sql) => `SELECT count() AS n, ${unknown} AS unknown FROM ${sql.table(table.tableId)}`, {}, { signal });
    return {
      table, rows: Number(counted?.n ?? 0), keep,
      ...(environments === undefined ? {} : { environments: { keys: environments.keys, unknownRows: Number(counted?.unknown ?? 0) } }),
      ...(series === undefined ? {} : { series }),
    };
  }

  /** Rows [from, to) of the staged table as a frame in the model's order, on SharedArrayBuffers (RowBinary, no JSON). */
  async chunk(staged: StagedRows, model: RowShape, from: number, to: number, signal: AbortSignal): Promise<Frame> {
    const read = [...model.nodes.map((_, i) => variableColumn(i)), ...(staged.environments === undefined ? [] : [ENVIRONMENT_COLUMN])];
    const width = read.length;
    const stream = await this.data().export(
      staged.table.organisationId,
      (sql) => `SELECT ${read.join(', ')} FROM ${sql.table(staged.table.tableId)} WHERE row >= {from:UInt64} AND row < {to:UInt64} ORDER BY row`,
      'RowBinary',
      { from, to },
      { signal },
    );
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    const bytes = Buffer.concat(parts);
    const n = Math.floor(bytes.length / (8 * width));
    // Copied once into an aligned buffer: RowBinary is little-endian Float64, row after row.
    const cells = new Float64Array(n * width);
    new Uint8Array(cells.buffer).set(bytes.subarray(0, n * width * 8));
    const columns = model.nodes.map((node, j): FrameColumn => {
      if (node.kind === 'continuous') {
        const values = new Float64Array(new SharedArrayBuffer(n * 8));
        for (let r = 0; r < n; r++) values[r] = cells[r * width + j]!;
        return { name: node.name, kind: 'continuous', values };
      }
      const codes = new Int32Array(new SharedArrayBuffer(n * 4));
      for (let r = 0; r < n; r++) codes[r] = cells[r * width + j]!;
      return { name: node.name, kind: 'categorical', codes, categories: [...node.categories] };
    });
    if (staged.environments !== undefined) {
      const codes = new Int32Array(new SharedArrayBuffer(n * 4));
      for (let r = 0; r < n; r++) codes[r] = cells[r * width + width - 1]!;
      columns.push({ name: ROW_ENVIRONMENT, kind: 'categorical', codes, categories: [...staged.environments.keys] });
    }
    return { nRows: n, columns };
  }

  /**
   * Rows [from, to) of a staged series as records: each variable by name (a number, a class label, or null), the
   * row's time under the series' time column and, on a panel, its environment's columns; in time order (a panel's:
   * environment after environment).
   */
  async records(staged: StagedRows, model: RowShape, from: number, to: number, signal: AbortSignal): Promise<ScoredRecord[]> {
    const timeColumn = staged.series?.timeColumn;
    if (timeColumn === undefined) throw new Error('records are read from a staged series');
    const cells = model.nodes.map((_, i) => `if(isNaN(${variableColumn(i)}), NULL, ${variableColumn(i)}) AS c${i}`);
    const keys = staged.environments?.keys;
    const rows = await this.data().query<Record<string, number | string | null>>(
      staged.table.organisationId,
      (sql) => `SELECT ${[...cells, TIME_COLUMN, ...(keys === undefined ? [] : [ENVIRONMENT_COLUMN])].join(', ')} FROM ${sql.table(staged.table.tableId)} WHERE row >= {from:UInt64} AND row < {to:UInt64} ORDER BY row`,
      { from, to },
      { signal },
    );
    return rows.map((row) => {
      // A panel's row names its environment in the environment columns (none: a row naming no environment of the twin).
      const key = keys?.[Number(row[ENVIRONMENT_COLUMN] ?? -1)];
      const record: ScoredRecord = { ...(key === undefined ? {} : parseEnvironmentKey(key)), [timeColumn]: row[TIME_COLUMN] ?? null };
      model.nodes.forEach((node, i) => {
        const cell = row[`c${i}`];
        const value = cell === null || cell === undefined ? null : Number(cell);
        record[node.name] = value === null ? null : node.kind === 'continuous' ? value : node.categories[value] ?? null;
      });
      return record;
    });
  }

  private async compile(principal: Principal, workspaceId: string, rowsFrom: RowsFrom, at = SCENARIO_ROWS_FROM): Promise<{ compiled: CompiledDataset; condition: string | null }> {
    const binding: DataBinding = rowsFrom.datasetId !== undefined ? { datasetId: rowsFrom.datasetId } : { sourceId: rowsFrom.sourceId ?? '' };
    const member = `${at}/${'datasetId' in binding ? 'datasetId' : 'sourceId'}`;
    const { compiled } = await this.datasets.learningInput(principal, workspaceId, binding, member);
    const condition = rowsFrom.filter === undefined ? null : compileCondition(rowsFrom.filter, compiled.relation, 's', compiled.params, `body/${at}/filter`);
    return { compiled, condition };
  }
}
