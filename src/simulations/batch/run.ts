/**
 * A batch run: rows given inline or read by reference, answered chunk by chunk on every worker of the pool (frames
 * on SharedArrayBuffers, row results back as columns), the results written inline or as the run's results table.
 * While chunks are answered the next are read, and at most one chunk per worker waits besides the one it answers, so
 * memory stays bounded at any size. A failed or cancelled batch drops every table it made: nothing half-written stays.
 */
import type { ComputePool } from '../../compute/pool.js';
import type { RowShape, ScoredRecord } from '../../engine/inference/score.js';
import type { CbnModel, Frame, FrameColumn } from '../../engine/types.js';
import type { Principal } from '../../auth/principal.js';
import type { DataStore } from '../../store/data/port.js';
import { AppError } from '../../errors.js';
import { BatchResults, type ResultColumn, type RowsTableRecord } from './results.js';
import type { PanelRouting } from '../../engine/panel/routing.js';
import type { BatchInput } from './input.js';
import { BatchRows, type RowsFrom } from './rows-from.js';
import type { StagedInput } from './staged.js';
import { runTable } from './tables.js';

/**
 * What a kind of batch answers of each chunk (prediction.ts, score.ts): the task it runs on the pool, the columns of
 * its answers in the results table and their RowBinary, and what it adds up over the chunks.
 */
export interface ChunkAnswers<R> {
  /** The answers' columns in the results table (after `row` and the kept columns); null: kept by `add` (inline). */
  readonly columns: readonly ResultColumn[] | null;
  /**
   * Rows per chunk: fixed per kind, so that a seed answers the same whatever the number of workers (each chunk draws
   * from its own seed); enough rows that a task's overhead is nothing, few enough that a batch spreads over the pool.
   */
  readonly chunkRows: number;
  /** The answers of a chunk's rows, the first of them row `offset` of the batch. */
  answer(pool: ComputePool, rows: Frame, offset: number, seed: number, signal: AbortSignal): Promise<R>;
  /** A chunk's `row` and answer columns as RowBinary (with `columns`). */
  encode(offset: number, results: R): Uint8Array;
  add(offset: number, results: R): void;
  /** The progress state after `done` of `total` rows. */
  progress(done: number, total: number): string;
}

export interface BatchTask {
  principal: Principal;
  workspaceId: string;
  runId: string;
  /** The network whose variables the rows are read as (a panel's pooled network). */
  model: CbnModel;
  /** A panel's environment columns and keys: each row read by reference carries its environment (ROW_ENVIRONMENT). */
  environments?: PanelRouting;
  /**
   * Rows that are steps of a series (a temporal twin's), read by reference: staged in time order as records of
   * `variables`, each chunk read with the `lookBack` rows before it and made a frame over `model` by `frame` (one
   * frame row per record), of which the chunk's own rows are answered.
   */
  series?: { timeColumn: string; lookBack: number; variables: RowShape; frame(records: ScoredRecord[]): Frame };
  /** Where the rows come from: the data store, or the request (a frame built on demand). */
  rows: { from: RowsFrom } | { inline: () => Frame };
  seed: number;
  signal: AbortSignal;
  progress(fraction: number, state: string): void;
}

export interface BatchRun {
  /** The results table (answers with columns). */
  record?: RowsTableRecord;
  rows: number;
  chunks: number;
  /** Whether the rows were read from the data store. */
  byReference: boolean;
  /** On a panel: the rows that named no environment of the twin (answered by its pooled mechanisms). */
  unknownEnvironmentRows?: number;
}

export class BatchExecution {
  readonly rows: BatchRows;
  readonly results: BatchResults;

  constructor(
    rows: BatchRows,
    private readonly data: () => DataStore,
    private readonly compute: () => ComputePool,
  ) {
    this.rows = rows;
    this.results = new BatchResults(data);
  }

  async run<R>(task: BatchTask, answers: ChunkAnswers<R>): Promise<BatchRun> {
    const { principal, runId, model, signal } = task;
    const organisationId = principal.organisationId;
    let input: BatchInput | null = null;
    // The write of the latest chunk taken: one at a time, in order, while the next chunks are read and answered.
    let writing: Promise<void> = Promise.resolve();
    try {
      task.progress(0.06, 'reading rows');
      const series = task.series;
      let staged: StagedInput | null = null;
      if ('from' in task.rows) {
        const from = task.rows.from;
        if (series === undefined) input = await this.rows.open(principal, task.workspaceId, runId, from, model, signal, task.environments);
        else input = staged = await this.rows.stageSeries(principal, task.workspaceId, runId, from, series.variables, series.timeColumn, signal, task.environments);
      }
      const inline = 'inline' in task.rows ? shared(task.rows.inline()) : null;
      const total = input?.rows ?? inline!.nRows;
      const writer = answers.columns === null ? null : await this.results.create(organisationId, runId, answers.columns, input?.kept ?? null);
      const pool = this.compute();
      const inFlight: Array<{ offset: number; rows: number; answer: Promise<R> }> = [];
      let done = 0;
      let chunks = 0;
      const takeOldest = async () => {
        const { offset, rows, answer } = inFlight.shift()!;
        const results = await answer;
        answers.add(offset, results);
        if (writer !== null) {
          const body = answers.encode(offset, results);
          await writing;
          writing = writer.write(offset, rows, body, signal);
          // Awaited before the next write and at the end; a rejection is never left unobserved meanwhile.
          writing.catch(() => undefined);
        }
        done += rows;
        task.progress(0.1 + 0.85 * (done / Math.max(total, 1)), answers.progress(done, total));
      };
      // While chunks are answered the next are read. Each worker has a chunk waiting besides the one it answers, so
      // it goes on while the main thread takes in and writes an answer.
      for (let offset = 0; offset < total; offset += answers.chunkRows) {
        signal.throwIfAborted();
        const to = Math.min(total, offset + answers.chunkRows);
        const rows = input === null ? sliceFrame(inline!, offset, to) : staged !== null ? await this.seriesChunk(staged, series!, offset, to, signal) : await input.chunk(offset, to, signal);
        const answer = answers.answer(pool, rows, offset, task.seed + chunks++, signal);
        // Settled later, in order; a rejection is never left unobserved meanwhile.
        answer.catch(() => undefined);
        inFlight.push({ offset, rows: to - offset, answer });
        if (inFlight.length >= 2 * pool.size) await takeOldest();
      }
      while (inFlight.length > 0) await takeOldest();
      await writing;
      await input?.close();
      const unknownEnvironmentRows = input?.unknownEnvironmentRows();
      const counts = { rows: total, chunks, byReference: input !== null, ...(unknownEnvironmentRows === undefined ? {} : { unknownEnvironmentRows }) };
      if (writer === null) return counts;
      await writer.finish(signal);
      return { record: { tableId: writer.table.tableId, rows: total, columns: writer.columns }, ...counts };
    } catch (error) {
      // A write still under way would otherwise insert into (or make again) a table the discard drops.
      await writing.catch(() => undefined);
      await this.discard(organisationId, runId);
      throw error;
    }
  }

  /** Rows [from, to) of a staged series as a frame over the network, the rows before them read for their lags. */
  private async seriesChunk(staged: StagedInput, series: NonNullable<BatchTask['series']>, from: number, to: number, signal: AbortSignal): Promise<Frame> {
    const start = Math.max(0, from - series.lookBack);
    const records = await staged.records(start, to, signal);
    try {
      const frame = series.frame(records);
      return shared(sliceFrame(frame, from - start, frame.nRows));
    } catch (error) {
      // A window's problem is located among this chunk's records: said of the data's rows in time order.
      if (!(error instanceof AppError)) throw error;
      const located = (i: string | undefined) => (i === undefined
        ? `the data's rows ${start + 1} to ${start + records.length} in time order`
        : `the data's row ${start + Number(i) + 1} in time order (${series.timeColumn} ${String(records[Number(i)]?.[series.timeColumn] ?? '')})`);
      throw new AppError(error.code, error.detail.replace(/^\/rows(?:\/(\d+))?/, (_, i: string | undefined) => located(i)));
    }
  }

  /** Drops every table a batch run makes (a failed, cancelled or deleted run). */
  async discard(organisationId: string, runId: string): Promise<void> {
    for (const kind of ['input', 'chunk', 'results'] as const) await this.data().dropTable(runTable(kind, organisationId, runId)).catch(() => undefined);
  }
}

/** A frame on SharedArrayBuffers, so its chunks cross to workers uncopied. */
function shared(frame: Frame): Frame {
  return { nRows: frame.nRows, columns: frame.columns.map(sharedColumn) };
}

function sharedColumn(column: FrameColumn): FrameColumn {
  if (column.kind === 'continuous') {
    const values = new Float64Array(new SharedArrayBuffer(column.values.byteLength));
    values.set(column.values);
    return { ...column, values };
  }
  const codes = new Int32Array(new SharedArrayBuffer(column.codes.byteLength));
  codes.set(column.codes);
  return { ...column, codes };
}

/** Rows [from, to) of a frame: views on the same buffers. */
function sliceFrame(frame: Frame, from: number, to: number): Frame {
  return {
    nRows: to - from,
    columns: frame.columns.map((c) => (c.kind === 'continuous' ? { ...c, values: c.values.subarray(from, to) } : { ...c, codes: c.codes.subarray(from, to) })),
  };
}
