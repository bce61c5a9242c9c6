/**
 * A batch run: rows given inline or read by reference, answered chunk by chunk on every worker of the pool (frames
 * on SharedArrayBuffers, row results back as columns), and written as the run's results table. While one chunk is
 * answered the next is read, and at most one chunk per worker waits, so memory stays bounded at any size. A
 * failed or cancelled batch drops every table it made: nothing half-written stays.
 */
import type { ComputePool } from '../../compute/pool.js';
import type { RowResults } from '../../engine/inference/outcome.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import { frameFromRecords, frameFromTable } from '../../engine/inference/scm.js';
import type { CbnModel, Frame, FrameColumn } from '../../engine/types.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../auth/principal.js';
import type { DataStore } from '../../store/data/port.js';
import { quoteColumn } from '../../store/data/port.js';
import { BatchResults, type ResultTarget, type RowsTableRecord, resultColumnNames } from './results.js';
import { BatchRows, type RowsFrom, type StagedRows } from './rows-from.js';
import { batchTable } from './tables.js';

/** A prediction as submitted for a batch. */
export type BatchScenario = PredictionScenario & { rowsFrom?: RowsFrom; resultsStorage?: 'inline' | 'datastore' };

/** Rows per chunk: enough that a task's overhead is nothing, few enough that a batch spreads over the workers. */
const CHUNK_MIN = 5_000;
const CHUNK_MAX = 100_000;

export interface BatchOutcome {
  record: RowsTableRecord;
  summary: { summary: string; keyPoints: string[] };
  details: { method: string; rows: number; chunks: number };
}

export interface BatchTask {
  principal: Principal;
  workspaceId: string;
  runId: string;
  model: CbnModel;
  scenario: BatchScenario;
  engine: string;
  seed: number;
  signal: AbortSignal;
  progress(fraction: number, state: string): void;
}

/** A batch goes to the data store when its rows come by reference or when asked to. */
export const isBatch = (scenario: object): scenario is BatchScenario => {
  const { rowsFrom, resultsStorage } = scenario as Partial<BatchScenario>;
  return rowsFrom !== undefined || resultsStorage === 'datastore';
};

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

  async run(task: BatchTask): Promise<BatchOutcome> {
    const { principal, runId, model, scenario, signal } = task;
    const organisationId = principal.organisationId;
    const targets = targetsOf(model, scenario.targetVars);
    let staged: StagedRows | null = null;
    try {
      task.progress(0.06, 'reading rows');
      staged = scenario.rowsFrom === undefined ? null : await this.rows.stage(principal, task.workspaceId, runId, scenario.rowsFrom, model, signal);
      const inline = staged === null ? inlineFrame(model, scenario) : null;
      const total = staged?.rows ?? inline!.nRows;
      const taken = new Set(resultColumnNames(targets));
      const clash = (staged?.keep ?? []).find((column) => taken.has(column.name));
      if (clash !== undefined) throw new AppError('validation_failed', `keepColumns: '${clash.name}' is also the name of a result column; rename it in a dataset or leave it out`);
      const writer = await this.results.create(organisationId, runId, targets, staged?.keep ?? []);
      const pool = this.compute();
      const chunkRows = Math.min(CHUNK_MAX, Math.max(CHUNK_MIN, Math.ceil(total / pool.size)));
      const question = { type: 'prediction', targetVars: scenario.targetVars, ...(scenario.confidenceLevel === undefined ? {} : { confidenceLevel: scenario.confidenceLevel }) };
      const inFlight: Array<{ offset: number; answer: Promise<RowResults> }> = [];
      let method = '';
      let done = 0;
      let chunks = 0;
      const writeOldest = async () => {
        const { offset, answer } = inFlight.shift()!;
        const results = await answer;
        await writer.write(offset, results, staged, signal);
        done += results.nRows;
        task.progress(0.1 + 0.85 * (done / Math.max(total, 1)), `predicted ${done} of ${total} rows`);
      };
      for (let offset = 0; offset < total; offset += chunkRows) {
        signal.throwIfAborted();
        const to = Math.min(total, offset + chunkRows);
        const rows = staged === null ? sliceFrame(inline!, offset, to) : await this.rows.chunk(staged, model, offset, to, signal);
        const seed = task.seed + chunks++;
        const answer = pool.run({ kind: 'question', engine: task.engine, model, scenario: question, seed, rows }, { signal }).then((outcome) => {
          method ||= String(outcome.details.method ?? '');
          if (outcome.rowResults === undefined) throw new Error('the family answered no row results for a batch');
          return outcome.rowResults;
        });
        // Settled later, in order; a rejection is never left unobserved meanwhile.
        answer.catch(() => undefined);
        inFlight.push({ offset, answer });
        if (inFlight.length >= pool.size) await writeOldest();
      }
      while (inFlight.length > 0) await writeOldest();
      await writer.finish();
      if (staged !== null) await this.data().dropTable(staged.table);
      const record: RowsTableRecord = { tableId: writer.table.tableId, rows: total, columns: writer.columns };
      const summary = await this.summarise(organisationId, record, targets, total, scenario.confidenceLevel ?? 0.95, method, staged === null);
      return { record, summary, details: { method, rows: total, chunks } };
    } catch (error) {
      await this.discard(organisationId, runId);
      throw error;
    }
  }

  /** Drops every table a batch run makes (a failed, cancelled or deleted run). */
  async discard(organisationId: string, runId: string): Promise<void> {
    for (const kind of ['input', 'chunk', 'results'] as const) await this.data().dropTable(batchTable(kind, organisationId, runId)).catch(() => undefined);
  }

  /** The plain-language summary, from the data engine's aggregates over the whole results table. */
  private async summarise(organisationId: string, record: RowsTableRecord, targets: ResultTarget[], rows: number, confidenceLevel: number, method: string, inline: boolean) {
    const points: string[] = [];
    for (const [i, target] of targets.entries()) {
      const column = quoteColumn(`t${i}_predicted`);
      if (target.kind === 'continuous') {
        const [stats] = await this.data().query<{ mean: number | null; low: number | null; high: number | null }>(organisationId, (sql) => `SELECT avg(${column}) AS mean, min(${column}) AS low, max(${column}) AS high FROM ${sql.table(record.tableId)}`);
        points.push(stats?.mean === null || stats?.mean === undefined ? `${target.name}: no rows to predict.` : `${target.name}: mean prediction ${show(stats.mean)} over ${rows} rows (from ${show(Number(stats.low))} to ${show(Number(stats.high))})`);
      } else {
        const [top] = await this.data().query<{ label: string | null; n: number | string }>(organisationId, (sql) => `SELECT ${column} AS label, count() AS n FROM ${sql.table(record.tableId)} WHERE ${column} IS NOT NULL GROUP BY label ORDER BY n DESC, label LIMIT 1`);
        points.push(top === undefined ? `${target.name}: no rows to predict.` : `${target.name}: most likely ${top.label} in ${Number(top.n)} of ${rows} rows`);
      }
    }
    const names = targets.map((t) => t.name).join(', ');
    const level = `${Math.round(confidenceLevel * 100)}%`;
    return {
      summary: `Predicted ${names} for ${rows} row${rows === 1 ? '' : 's'}${inline ? '' : ' read from the data store'}. ${points[0] ?? ''}`.trim(),
      keyPoints: [...points.slice(0, 4), `Method: ${method.replaceAll('_', ' ')}, ${level} intervals; the row results are a table in the data store (GET .../rows, .../rows/export/{format}).`],
    };
  }
}

function targetsOf(model: CbnModel, names: readonly string[]): ResultTarget[] {
  return [...new Set(names)].map((name) => {
    const node = model.nodes.find((n) => n.name === name);
    if (node === undefined) throw new AppError('validation_failed', `target ${name} is not a variable of the model`);
    return { name, kind: node.kind };
  });
}

/** The inline rows (records or columnar JSON) as a frame on SharedArrayBuffers, so chunks cross to workers uncopied. */
function inlineFrame(model: CbnModel, scenario: BatchScenario): Frame {
  const frame = scenario.sampleTable === undefined ? frameFromRecords({ model }, scenario.sample ?? []) : frameFromTable({ model }, scenario.sampleTable);
  return { nRows: frame.nRows, columns: frame.columns.map(shared) };
}

function shared(column: FrameColumn): FrameColumn {
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

function show(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return String(x);
  return Math.abs(x) >= 1e6 || Math.abs(x) < 1e-3 ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}
