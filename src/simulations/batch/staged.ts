/**
 * A batch's rows staged once in the data store as numbered rows (the model's variables as Float64, a panel row's
 * environment code, a series row's time, the kept columns), then read back chunk by chunk: the way in for a series
 * (read with the rows before each chunk) and for data whose rows are not read by their source row key (a dataset
 * that sorts, joins, aggregates or deduplicates them: keyset.ts readableByKey). The staged table bounds the memory of a batch of any size: no chunk read re-runs the query.
 */
import { parseEnvironmentKey } from '../../engine/panel/keys.js';
import type { RowShape, ScoredRecord } from '../../engine/inference/score.js';
import type { Frame } from '../../engine/types.js';
import { type DataStore, type TableRef, quoteColumn } from '../../store/data/port.js';
import { type BatchInput, type InputPlan, type KeptInput, chunkFrame, environmentCode, inputTypes, keptColumn, readAll, selection, variableCells } from './input.js';
import { runTable } from './tables.js';

/** What a staging reads: the batch's plan, and for a series the column that orders it. */
export interface StagingPlan extends InputPlan {
  runId: string;
  /** A series: its rows in the order of this column (rows without a time left out), each with its time. */
  timeColumn?: string;
}

/** The staged column of the i-th variable of the model. */
const variableColumn = (i: number) => `v${i}`;
/** The staged column of a panel row's environment (a code into its keys, -1 for none of them). */
const ENVIRONMENT_COLUMN = 'env';
/** The staged column of a series row's time (as text: read back as a time key). */
const TIME_COLUMN = 'time';

export class StagedInput implements BatchInput {
  private constructor(
    private readonly store: DataStore,
    private readonly table: TableRef,
    private readonly model: RowShape,
    readonly rows: number,
    readonly kept: KeptInput | null,
    private readonly environments: { keys: string[]; unknownRows: number } | undefined,
    private readonly timeColumn: string | undefined,
  ) {}

  /** Stages the rows in one pass of the data engine (single-threaded, so row numbers follow the data's order). */
  static async stage(store: DataStore, plan: StagingPlan, signal: AbortSignal): Promise<StagedInput> {
    const { organisationId, compiled, model, environments, timeColumn, keep: keepNames } = plan;
    const table = runTable('input', organisationId, plan.runId);
    const inner = selection(compiled, plan.condition, plan.limit, timeColumn, environments?.columns);
    const params: Record<string, unknown> = { ...compiled.params.values };
    const types = await inputTypes(store, organisationId, compiled, model, keepNames, signal);
    const variables = variableCells(model, compiled, params, types.variables);
    const keep = types.kept;
    await store.ensureTenant(organisationId);
    await store.dropTable(table);
    await store.createTable(table, [
      { name: 'row', type: 'UInt64' },
      ...model.nodes.map((_, i) => ({ name: variableColumn(i), type: 'Float64' })),
      ...(environments === undefined ? [] : [{ name: ENVIRONMENT_COLUMN, type: 'Float64' }]),
      ...(timeColumn === undefined ? [] : [{ name: TIME_COLUMN, type: 'String' }]),
      ...keep.map((column, i) => ({ name: keptColumn(i), type: column.type })),
    ], ['row']);
    const select = [
      ...variables.map((expression, i) => `${expression} AS ${variableColumn(i)}`),
      ...(environments === undefined ? [] : [`${environmentCode(environments, params)} AS ${ENVIRONMENT_COLUMN}`]),
      ...(timeColumn === undefined ? [] : [`toString(s.${quoteColumn(timeColumn)}) AS ${TIME_COLUMN}`]),
      ...keepNames.map((name, i) => `s.${quoteColumn(name)} AS ${keptColumn(i)}`),
    ];
    await store.insertSelect(table, (sql) => `SELECT rowNumberInAllBlocks() AS row, ${select.join(', ')} FROM (${inner(sql)}) AS s`, params, { singleThreaded: true, signal });
    const unknown = environments === undefined ? '0' : `countIf(${ENVIRONMENT_COLUMN} < 0)`;
    const [counted] = await store.query<{ n: number | string; unknown: number | string }>(organisationId, (sql) => `SELECT count() AS n, ${unknown} AS unknown FROM ${sql.table(table.tableId)}`, {}, { signal });
    return new StagedInput(
      store, table, model, Number(counted?.n ?? 0),
      keep.length === 0 ? null : {
        columns: keep,
        rows: (from, to) => ({ sql: (sql) => `SELECT row, ${keep.map((_, i) => keptColumn(i)).join(', ')} FROM ${sql.table(table.tableId)} WHERE row >= {from:UInt64} AND row < {to:UInt64}`, params: { from, to } }),
      },
      environments === undefined ? undefined : { keys: environments.keys, unknownRows: Number(counted?.unknown ?? 0) },
      timeColumn,
    );
  }

  async chunk(from: number, to: number, signal: AbortSignal): Promise<Frame> {
    const read = [...this.model.nodes.map((_, i) => variableColumn(i)), ...(this.environments === undefined ? [] : [ENVIRONMENT_COLUMN])];
    const stream = await this.store.export(
      this.table.organisationId,
      (sql) => `SELECT ${read.join(', ')} FROM ${sql.table(this.table.tableId)} WHERE row >= {from:UInt64} AND row < {to:UInt64} ORDER BY row`,
      'RowBinary',
      { from, to },
      { signal },
    );
    return chunkFrame(await readAll(stream), this.model, this.environments?.keys).frame;
  }

  /**
   * Rows [from, to) of a staged series as records: each variable by name (a number, a class label, or null), the
   * row's time under the series' time column and, on a panel, its environment's columns; in time order (a panel's:
   * environment after environment).
   */
  async records(from: number, to: number, signal: AbortSignal): Promise<ScoredRecord[]> {
    const timeColumn = this.timeColumn;
    if (timeColumn === undefined) throw new Error('records are read from a staged series');
    const model = this.model;
    const cells = model.nodes.map((_, i) => `if(isNaN(${variableColumn(i)}), NULL, ${variableColumn(i)}) AS c${i}`);
    const keys = this.environments?.keys;
    const rows = await this.store.query<Record<string, number | string | null>>(
      this.table.organisationId,
      (sql) => `SELECT ${[...cells, TIME_COLUMN, ...(keys === undefined ? [] : [ENVIRONMENT_COLUMN])].join(', ')} FROM ${sql.table(this.table.tableId)} WHERE row >= {from:UInt64} AND row < {to:UInt64} ORDER BY row`,
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

  unknownEnvironmentRows(): number | undefined {
    return this.environments?.unknownRows;
  }

  async close(): Promise<void> {
    await this.store.dropTable(this.table);
  }
}
