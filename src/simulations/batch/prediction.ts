/**
 * A batch prediction (the prediction family's rows): every chunk predicted on the pool by the family's engine, the
 * row results back as columns; written inline as the outputs' records or as the run's results table, with per
 * target `<target>_predicted`, `_std`, `_lower`, `_upper` (a categorical target: `<target>_predicted`, the most
 * likely class, and `<target>_probability`).
 */
import type { ComputePool } from '../../compute/pool.js';
import type { RowResults } from '../../engine/inference/outcome.js';
import { type PredictionMethod, PredictionTally } from '../../engine/inference/prediction-summary.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import { frameFromRecords, frameFromTable } from '../../engine/inference/scm.js';
import type { PanelModel } from '../../engine/panel/model.js';
import type { CbnModel, Frame } from '../../engine/types.js';
import { AppError } from '../../errors.js';
import { InlineRows } from './inline.js';
import type { ResultColumn, RowsTableRecord } from './results.js';
import { RowBinaryWriter } from '../../lib/row-binary.js';
import type { RowsFrom } from './rows-from.js';
import type { BatchExecution, BatchTask, ChunkAnswers } from './run.js';

/** A prediction as submitted: the engine's scenario, where its rows come from and where their results go. */
export type BatchScenario = PredictionScenario & { rowsFrom?: RowsFrom; resultsStorage?: 'inline' | 'datastore' };

/** The results of a batch go to the data store when its rows come by reference or when asked to. */
export const isBatch = (scenario: object): scenario is BatchScenario => {
  const { rowsFrom, resultsStorage } = scenario as Partial<BatchScenario>;
  return rowsFrom !== undefined || resultsStorage === 'datastore';
};

export interface PredictionOutcome {
  /** Results in the data store: the table. */
  record?: RowsTableRecord;
  /** Results inline: the outputs' `results` as JSON text. */
  resultsJson?: string;
  summary: { summary: string; keyPoints: string[] };
  details: { method: string; rows: number; chunks: number; routing?: 'byRecord'; unknownEnvironmentRows?: number };
}

interface ResultTarget {
  name: string;
  kind: 'continuous' | 'categorical';
}

/** The columns a prediction writes per target (stored as t<i>_<suffix>), read as `<target>_<suffix>`. */
const SUFFIXES = { continuous: ['predicted', 'std', 'lower', 'upper'], categorical: ['predicted', 'probability'] } as const;

/**
 * `task.model` is the network whose variables the rows are read as; `answering` what the family's engine answers
 * with (a panel, whose rows carry their environment: task.environments), by default that network.
 */
export async function runPredictionBatch(batch: BatchExecution, task: Omit<BatchTask, 'rows'>, scenario: BatchScenario, engine: string, answering: CbnModel | PanelModel = task.model): Promise<PredictionOutcome> {
  const answers = new PredictionAnswers(task.model, answering, scenario, engine);
  const rows = scenario.rowsFrom !== undefined ? { from: scenario.rowsFrom } : { inline: () => inlineFrame(task.model, scenario) };
  const run = await batch.run({ ...task, rows }, answers);
  const confidenceLevel = scenario.confidenceLevel ?? 0.95;
  const routed = run.unknownEnvironmentRows === undefined ? {} : { routing: 'byRecord' as const, unknownEnvironmentRows: run.unknownEnvironmentRows };
  const details = { method: answers.method, rows: run.rows, chunks: run.chunks, ...routed };
  if (run.record === undefined) return { resultsJson: answers.inline!.json(), summary: answers.tally.summary(confidenceLevel, answers.method), details };
  const unknown = run.unknownEnvironmentRows ?? 0;
  const environments = run.unknownEnvironmentRows === undefined
    ? ''
    : ` Each row was predicted with the mechanisms of the environment its environment columns name${unknown > 0 ? `; ${unknown} row${unknown === 1 ? '' : 's'} named no environment of the twin and used the pooled mechanisms` : ''}.`;
  const note = `The row results are a table in the data store${run.byReference ? ' (the rows were read from it)' : ''}: GET .../simulations/{id}/rows pages them, .../rows/export/{format} streams them.${environments}`;
  return { record: run.record, summary: answers.tally.summary(confidenceLevel, answers.method, note), details };
}

class PredictionAnswers implements ChunkAnswers<RowResults> {
  readonly columns: ResultColumn[] | null;
  readonly chunkRows = 25_000;
  readonly tally = new PredictionTally();
  readonly inline: InlineRows | null;
  method: PredictionMethod = 'gaussian_conditioning';
  private readonly question: { type: string; targetVars: string[]; confidenceLevel?: number };

  constructor(model: CbnModel, private readonly answering: CbnModel | PanelModel, scenario: BatchScenario, private readonly engine: string) {
    const targets = targetsOf(model, scenario.targetVars);
    this.columns = isBatch(scenario)
      ? targets.flatMap((target, i) => SUFFIXES[target.kind].map((suffix) => ({
        name: `${target.name}_${suffix}`,
        column: `t${i}_${suffix}`,
        type: target.kind === 'categorical' && suffix === 'predicted' ? 'Nullable(String)' : 'Nullable(Float64)',
      })))
      : null;
    this.inline = this.columns === null ? new InlineRows() : null;
    this.question = { type: 'prediction', targetVars: scenario.targetVars, ...(scenario.confidenceLevel === undefined ? {} : { confidenceLevel: scenario.confidenceLevel }) };
  }

  async answer(pool: ComputePool, rows: Frame, _offset: number, seed: number, signal: AbortSignal): Promise<RowResults> {
    const outcome = await pool.run({ kind: 'question', engine: this.engine, model: this.answering, scenario: this.question, seed, rows }, { signal });
    this.method = (outcome.details.method as PredictionMethod | undefined) ?? this.method;
    if (outcome.rowResults === undefined) throw new Error('the family answered no row results for a batch');
    return outcome.rowResults;
  }

  add(offset: number, results: RowResults): void {
    this.tally.add(results);
    this.inline?.add(offset, results);
  }

  progress(done: number, total: number): string {
    return `predicted ${done} of ${total} rows`;
  }

  /** `row`, then per target its Nullable(Float64) columns or, for a class, Nullable(String) and its probability. */
  encode(offset: number, results: RowResults): Buffer {
    const out = new RowBinaryWriter(Math.max(1024, results.nRows * (8 + 36 * results.targets.length)));
    for (let r = 0; r < results.nRows; r++) {
      out.uint64(offset + r);
      for (const target of results.targets) {
        if (target.kind === 'continuous') {
          out.nullableFloat64(target.prediction[r]!);
          out.nullableFloat64(target.std[r]!);
          out.nullableFloat64(target.lower[r]!);
          out.nullableFloat64(target.upper[r]!);
          continue;
        }
        const code = target.codes[r]!;
        out.nullableString(code < 0 ? null : target.categories[code]!);
        out.nullableFloat64(code < 0 ? Number.NaN : target.probabilities[r * target.categories.length + code]!);
      }
    }
    return out.bytes();
  }
}

function targetsOf(model: CbnModel, names: readonly string[]): ResultTarget[] {
  return [...new Set(names)].map((name) => {
    const node = model.nodes.find((n) => n.name === name);
    if (node === undefined) throw new AppError('validation_failed', `target ${name} is not a variable of the model`);
    return { name, kind: node.kind };
  });
}

/** The inline rows (records or columnar JSON) as a frame over the model's variables. */
function inlineFrame(model: CbnModel, scenario: BatchScenario): Frame {
  return scenario.sampleTable === undefined ? frameFromRecords({ model }, scenario.sample ?? []) : frameFromTable({ model }, scenario.sampleTable);
}
