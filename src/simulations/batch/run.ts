/**
 * A batch run: rows given inline or read by reference, answered chunk by chunk on every worker of the pool (frames
 * on SharedArrayBuffers, row results back as columns), the results written inline or as the run's results table.
 * While one chunk is answered the next is read, and at most one chunk per worker waits, so memory stays bounded at
 * any size. A failed or cancelled batch drops every table it made: nothing half-written stays.
 */
import type { ComputePool } from '../../compute/pool.js';
import type { RowResults } from '../../engine/inference/outcome.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import { frameFromRecords, frameFromTable } from '../../engine/inference/scm.js';
import type { CbnModel, Frame, FrameColumn } from '../../engine/types.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../auth/principal.js';
import type { DataStore } from '../../store/data/port.js';
import { type PredictionMethod, PredictionTally } from '../../engine/inference/prediction-summary.js';
import { InlineRows } from './inline.js';
import { BatchResults, type ResultTarget, type RowsTableRecord, resultColumnNames } from './results.js';
import { BatchRows, type RowsFrom, type StagedRows } from './rows-from.js';
import { runTable } from './tables.js';

/** A prediction as submitted: the engine's scenario, where its rows come from and where their results go. */
export type BatchScenario = PredictionScenario & { rowsFrom?: RowsFrom; resultsStorage?: 'inline' | 'datastore' };

/**
 * Rows per chunk: fixed, so that a seed answers the same whatever the number of workers (likelihood weighting
 * draws per chunk); enough rows that a task's overhead is nothing, few enough that a batch spreads over the pool.
 */
const CHUNK_ROWS = 50_000;

export interface BatchOutcome {
  /** Results in the data store: the table. */
  record?: RowsTableRecord;
  /** Results inline: the outputs' `results` as JSON text. */
  resultsJson?: string;
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

/** The results of a batch go to the data store when its rows come by reference or when asked to. */
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
      const writer = isBatch(scenario) ? await this.results.create(organisationId, runId, targets, staged?.keep ?? []) : null;
      const kept = writer === null ? new InlineRows() : null;
      const tally = new PredictionTally();
      const pool = this.compute();
      const question = { type: 'prediction', targetVars: scenario.targetVars, ...(scenario.confidenceLevel === undefined ? {} : { confidenceLevel: scenario.confidenceLevel }) };
      const inFlight: Array<{ offset: number; answer: Promise<RowResults> }> = [];
      let method: PredictionMethod = 'gaussian_conditioning';
      let done = 0;
      let chunks = 0;
      const takeOldest = async () => {
        const { offset, answer } = inFlight.shift()!;
        const results = await answer;
        tally.add(results);
        if (writer !== null) await writer.write(offset, results, staged, signal);
        else kept!.add(offset, results);
        done += results.nRows;
        task.progress(0.1 + 0.85 * (done / Math.max(total, 1)), `predicted ${done} of ${total} rows`);
      };
      // While a chunk is answered the next is read; at most one chunk per worker waits.
      for (let offset = 0; offset < total; offset += CHUNK_ROWS) {
        signal.throwIfAborted();
        const to = Math.min(total, offset + CHUNK_ROWS);
        const rows = staged === null ? sliceFrame(inline!, offset, to) : await this.rows.chunk(staged, model, offset, to, signal);
        const seed = task.seed + chunks++;
        const answer = pool.run({ kind: 'question', engine: task.engine, model, scenario: question, seed, rows }, { signal }).then((outcome) => {
          method = (outcome.details.method as PredictionMethod | undefined) ?? method;
          if (outcome.rowResults === undefined) throw new Error('the family answered no row results for a batch');
          return outcome.rowResults;
        });
        // Settled later, in order; a rejection is never left unobserved meanwhile.
        answer.catch(() => undefined);
        inFlight.push({ offset, answer });
        if (inFlight.length >= pool.size) await takeOldest();
      }
      while (inFlight.length > 0) await takeOldest();
      if (staged !== null) await this.data().dropTable(staged.table);
      const confidenceLevel = scenario.confidenceLevel ?? 0.95;
      const details = { method, rows: total, chunks };
      if (writer === null) return { resultsJson: kept!.json(), summary: tally.summary(confidenceLevel, method), details };
      await writer.finish();
      const note = `The row results are a table in the data store${staged === null ? '' : ' (the rows were read from it)'}: GET .../simulations/{id}/rows pages them, .../rows/export/{format} streams them.`;
      return { record: { tableId: writer.table.tableId, rows: total, columns: writer.columns }, summary: tally.summary(confidenceLevel, method, note), details };
    } catch (error) {
      await this.discard(organisationId, runId);
      throw error;
    }
  }

  /** Drops every table a batch run makes (a failed, cancelled or deleted run). */
  async discard(organisationId: string, runId: string): Promise<void> {
    for (const kind of ['input', 'chunk', 'results'] as const) await this.data().dropTable(runTable(kind, organisationId, runId)).catch(() => undefined);
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
