/**
 * A batch's rows read straight from the data, chunk after chunk, by keyset on the data's row key: each read is
 * the next `n` rows after the last key read (`key > after ORDER BY key LIMIT n`), which the engine answers from the
 * key's index, reading in order and stopping early, whatever the batch's size. Nothing is staged, so the run starts
 * answering at once and every read overlaps the pool's answers; kept columns are read again, by the chunk's key
 * range, when its answers are written. Used when each row's key is its source row (readableByKey); else staged.ts.
 * A version's rows never change (a source version ends at a recorded batch), so the reads see one set of rows. Keys
 * are row numbers, read as Float64 (exact below 2^53).
 */
import type { CompiledDataset } from '../../datasets/compiler/compile.js';
import type { Frame } from '../../engine/types.js';
import { AppError } from '../../errors.js';
import { type DataStore, quoteColumn } from '../../store/data/port.js';
import { type BatchInput, type InputPlan, type KeptInput, chunkFrame, environmentCode, inputTypes, keptColumn, readAll, variableCells } from './input.js';

/** Operations that keep each row's key the source row it came from, so the key's index answers a range of it. */
const ROW_PRESERVING = new Set(['filter', 'select', 'rename', 'derive']);

/**
 * Whether rows of the data can be read by keyset: its order is its one row key, the source's own (no sort, no join;
 * an aggregate's or a dedupe's key is computed, so each read would run the whole grouping again).
 */
export const readableByKey = (compiled: CompiledDataset) =>
  compiled.relation.order.length === 0 && compiled.relation.keys.length === 1 && compiled.steps.every((step) => ROW_PRESERVING.has(step.operation.config.type));

export class KeysetInput implements BatchInput {
  readonly kept: KeptInput | null;
  /** The key of the last row read (-1 before the first read), and the rows read. */
  private after = -1;
  private read = 0;
  private unknown = 0;
  /** The first and last key of each chunk read whose kept columns are still to be joined, by its first row. */
  private readonly ranges = new Map<number, { first: number; last: number }>();

  private constructor(
    private readonly store: DataStore,
    private readonly plan: InputPlan,
    readonly rows: number,
    private readonly sql: { cells: string[]; where: string; key: string; params: Record<string, unknown> },
    keep: KeptInput['columns'],
  ) {
    this.kept = keep.length === 0 ? null : { columns: keep, rows: (from, to) => this.keptRows(from, to) };
  }

  /** Counts the rows (one parallel pass over the filtered data) and readies the chunk query. */
  static async open(store: DataStore, plan: InputPlan, signal: AbortSignal): Promise<KeysetInput> {
    const { compiled, condition, environments } = plan;
    const params: Record<string, unknown> = { ...compiled.params.values };
    const types = await inputTypes(store, plan.organisationId, compiled, plan.model, plan.keep, signal);
    const cells = [...variableCells(plan.model, compiled, params, types.variables), ...(environments === undefined ? [] : [environmentCode(environments, params)])];
    // The filter is parenthesised: an OR group must not swallow the key's bound.
    const where = condition === null ? '' : `(${condition}) AND `;
    const [counted] = await store.query<{ n: number | string }>(plan.organisationId, (sql) => `SELECT count() AS n FROM (${compiled.relation.sql(sql)}) AS s${condition === null ? '' : ` WHERE (${condition})`}`, compiled.params.values, { signal });
    const rows = Math.min(Number(counted?.n ?? 0), plan.limit ?? Number.POSITIVE_INFINITY);
    return new KeysetInput(store, plan, rows, { cells, where, key: `s.${quoteColumn(compiled.relation.keys[0]!)}`, params }, types.kept);
  }

  async chunk(from: number, to: number, signal: AbortSignal): Promise<Frame> {
    if (from !== this.read) throw new Error(`a keyset input is read in order: rows from ${this.read}, not ${from}`);
    const { cells, where, key, params } = this.sql;
    const stream = await this.store.export(
      this.plan.organisationId,
      (sql) => `SELECT ${cells.map((cell, i) => `${cell} AS c${i}`).join(', ')}, toFloat64(${key}) AS row_key FROM (${this.plan.compiled.relation.sql(sql)}) AS s WHERE ${where}${key} > {batch_after:Int64} ORDER BY ${key} LIMIT ${to - from}`,
      'RowBinary',
      { ...params, batch_after: this.after },
      { signal },
    );
    const { frame, cells: values, width } = chunkFrame(await readAll(stream), this.plan.model, this.plan.environments?.keys, 1);
    if (frame.nRows !== to - from) {
      throw new AppError('conflict', `The data changed while the batch read it: ${this.rows} rows were counted, and only ${from + frame.nRows} were there to read`);
    }
    if (this.kept !== null && frame.nRows > 0) this.ranges.set(from, { first: values[width - 1]!, last: values[frame.nRows * width - 1]! });
    this.after = values[frame.nRows * width - 1]!;
    this.read = to;
    if (this.plan.environments !== undefined) {
      for (let r = 0; r < frame.nRows; r++) if (values[r * width + width - 2]! < 0) this.unknown++;
    }
    return frame;
  }

  /** The kept columns of a chunk read: its key range again, each row numbered from the chunk's first in key order. */
  private keptRows(from: number, to: number): ReturnType<KeptInput['rows']> {
    const range = this.ranges.get(from);
    if (range === undefined) throw new Error(`rows from ${from} were not read, or their kept columns were joined already`);
    this.ranges.delete(from);
    const { where, key } = this.sql;
    const kept = this.plan.keep.map((name, i) => `s.${quoteColumn(name)} AS ${keptColumn(i)}`);
    return {
      sql: (sql) => `SELECT toUInt64({kept_from:UInt64} + row_number() OVER (ORDER BY ${key}) - 1) AS row, ${kept.join(', ')} FROM (${this.plan.compiled.relation.sql(sql)}) AS s WHERE ${where}${key} >= {kept_first:UInt64} AND ${key} <= {kept_last:UInt64} LIMIT ${to - from}`,
      params: { ...this.plan.compiled.params.values, kept_from: from, kept_first: range.first, kept_last: range.last },
    };
  }

  unknownEnvironmentRows(): number | undefined {
    return this.plan.environments === undefined ? undefined : this.unknown;
  }

  async close(): Promise<void> {
    // Nothing was made in the data store.
  }
}
