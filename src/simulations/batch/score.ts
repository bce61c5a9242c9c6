/**
 * A scoring run (POST .../versions/{vId}/score) as a batch: its rows, inline or by reference, scored chunk by chunk
 * on every worker (engine/inference/score.ts, answers back as columns) and written as the run's results table:
 * `verdict`, per target `<target>_predicted`, `drivers` and `changes` (JSON arrays, as GET .../score shows them)
 * and `reachable`. The digest is added up over the chunks (score-digest.ts).
 */
import type { ComputePool } from '../../compute/pool.js';
import type { ScoredChunk } from '../../compute/protocol.js';
import { scoredRowColumns } from '../../compute/scored-rows.js';
import type { ScoreDigest, ScoredRow, Verdict } from '../../engine/inference/outcome.js';
import type { SampleTable, ScoreQuestion } from '../../engine/inference/scenario.js';
import { recordsOfTable } from '../../engine/inference/scm-records.js';
import { ScoreTally } from '../../engine/inference/score-digest.js';
import type { ScoredRecord, Scorer, UnknownEnvironmentRows } from '../../engine/inference/score.js';
import { DEFAULT_MAX_CHANGES } from '../../engine/inference/search.js';
import { ROW_ENVIRONMENT } from '../../engine/panel/keys.js';
import type { PanelRouting } from '../../engine/panel/routing.js';
import type { CbnModel, Frame } from '../../engine/types.js';
import type { ResultColumn, RowsTableRecord } from './results.js';
import type { RowsFrom } from './rows-from.js';
import type { BatchExecution, BatchTask, ChunkAnswers } from './run.js';

/** A scoring run's input: the question, and its rows inline (records or columnar JSON) or by reference. */
export type ScoreInput = ScoreQuestion & { type: 'score'; rows?: ScoredRecord[]; rowsTable?: SampleTable; rowsFrom?: RowsFrom };

export interface ScoreOutcome {
  record: RowsTableRecord;
  digest: ScoreDigest;
  summary: { summary: string; keyPoints: string[] };
  details: { rows: number; chunks: number; routing?: 'byRecord'; unknownEnvironmentRows?: number };
}

/**
 * Rows per chunk: the change search of the rows that miss costs far more per row than a prediction, so chunks are
 * smaller than a prediction's and a batch of 100,000 rows spreads over the pool in ten.
 */
const SCORE_CHUNK_ROWS = 10_000;

/** How a kind makes inline rows a frame: from records (also a series' chunks read by reference), and from columnar JSON where it can without records. */
export interface InlineFrames {
  records(rows: ScoredRecord[]): Frame;
  table?(table: SampleTable): Frame;
}

/**
 * The rows scored by a kind's scorer: read as its network (`base.model`; on a panel with their environment, a series
 * in time order), answered by what it names on the pool, no change proposed to its fixed nodes; `inline` builds the
 * frame of inline rows (and of a series' chunks read by reference).
 */
export async function runScoreBatch(batch: BatchExecution, base: Omit<BatchTask, 'rows'>, input: ScoreInput, scorer: Scorer, inline: InlineFrames): Promise<ScoreOutcome> {
  const { rows, rowsTable, rowsFrom, type: _type, ...question } = input;
  const task = {
    ...base,
    ...(scorer.environments === undefined ? {} : { environments: scorer.environments }),
    ...(scorer.series === undefined ? {} : { series: { ...scorer.series, frame: inline.records } }),
  };
  const fixed = Object.fromEntries(scorer.fixed.map((name) => [name, { type: 'fixed' as const }]));
  const answers = new ScoreAnswers(task.model, scorer, { ...question, constraints: { ...question.constraints, ...fixed } });
  let unknownInline = 0;
  const frame = () => {
    const built = rowsTable === undefined ? inline.records(rows ?? []) : inline.table?.(rowsTable) ?? inline.records(recordsOfTable(rowsTable));
    unknownInline = countUnknown(built);
    return built;
  };
  const run = await batch.run({ ...task, rows: rowsFrom !== undefined ? { from: rowsFrom } : { inline: frame } }, answers);
  const unknown = run.unknownEnvironmentRows ?? unknownInline;
  const summary = answers.tally.summary(question.maxChanges ?? DEFAULT_MAX_CHANGES);
  const note = 'Each row\'s verdict, predictions, drivers and changes: GET .../simulations/{id}/score pages them with the digest, .../rows/export/{format} streams the table.';
  const routed = task.environments === undefined ? [] : [environmentNote(task.environments, unknown, scorer.unknownEnvironments ?? 'pooled')];
  const details = { rows: run.rows, chunks: run.chunks, ...(task.environments === undefined ? {} : { routing: 'byRecord' as const, unknownEnvironmentRows: unknown }) };
  return { record: run.record!, digest: answers.tally.digest(), summary: { ...summary, keyPoints: [...summary.keyPoints, ...routed, note] }, details };
}

/** Rows of a frame whose ROW_ENVIRONMENT names no environment of the twin. */
function countUnknown(frame: Frame): number {
  const column = frame.columns.find((c) => c.name === ROW_ENVIRONMENT);
  if (column?.kind !== 'categorical') return 0;
  let unknown = 0;
  for (const code of column.codes) if (code < 0) unknown++;
  return unknown;
}

/** How the rows were routed, and what the rows naming no environment of the twin got (`fate`). */
function environmentNote(environments: PanelRouting, unknown: number, fate: UnknownEnvironmentRows): string {
  const were = unknown === 1 ? 'was' : 'were';
  const what = fate === 'unscorable' ? `could not be scored (${were} unscorable: no environment's past to follow)` : `${were} scored with the pooled mechanisms`;
  const pooled = unknown === 0 ? '' : `; ${unknown} row${unknown === 1 ? '' : 's'} named no environment of the twin and ${what}`;
  return `Each row was scored with the mechanisms of the environment its ${environments.columns.join(', ')} name${environments.columns.length === 1 ? 's' : ''}${pooled}.`;
}

class ScoreAnswers implements ChunkAnswers<ScoredChunk> {
  readonly columns: ResultColumn[];
  readonly chunkRows = SCORE_CHUNK_ROWS;
  readonly tally: ScoreTally;

  constructor(model: CbnModel, private readonly scorer: Scorer, private readonly question: ScoreQuestion) {
    this.tally = new ScoreTally(model);
    this.columns = scoredRowColumns(model, question.targets);
  }

  answer(pool: ComputePool, rows: Frame, firstRow: number, seed: number, signal: AbortSignal): Promise<ScoredChunk> {
    const unknown = this.scorer.unknownEnvironments === undefined ? {} : { unknownEnvironments: this.scorer.unknownEnvironments };
    return pool.run({ kind: 'score', model: this.scorer.answering, question: this.question, rows, firstRow, seed, ...unknown }, { signal });
  }

  add(offset: number, chunk: ScoredChunk): void {
    this.tally.add(offset, chunk.tallied);
  }

  progress(done: number, total: number): string {
    return `scored ${done} of ${total} rows`;
  }

  /** Encoded by the worker that scored the chunk (compute/scored-rows.ts). */
  encode(_offset: number, chunk: ScoredChunk): Uint8Array {
    return chunk.rowBinary;
  }
}

/** A row of a scoring run's results table as GET .../score shows it. */
export function presentScoredRow(row: Record<string, unknown>, targets: readonly string[]): ScoredRow {
  const predictions: ScoredRow['predictions'] = {};
  for (const name of targets) predictions[name] = (row[`${name}_predicted`] ?? null) as number | string | null;
  return {
    index: Number(row.row),
    verdict: row.verdict as Verdict,
    predictions,
    drivers: JSON.parse(String(row.drivers)) as ScoredRow['drivers'],
    changes: JSON.parse(String(row.changes)) as ScoredRow['changes'],
    reachable: (row.reachable ?? null) as boolean | null,
  };
}
