import type { MessagePort } from 'node:worker_threads';
import type { ClassInput } from '../engine/identification/plan.js';
import type { FamilyOutcome } from '../engine/inference/outcome.js';
import type { TalliedColumns } from '../engine/inference/score-digest.js';
import type { ScoreQuestion } from '../engine/inference/scenario.js';
import type { UnknownEnvironmentRows } from '../engine/inference/score.js';
import type { ProblemCode } from '../errors.js';
import type { PanelModel } from '../engine/panel/model.js';
import type { CbnModel, Frame } from '../engine/types.js';
import type { SharedModel } from './shared-models.js';

/**
 * The typed task protocol between the main thread and pool workers (workers/engine.ts). Frames travel on
 * SharedArrayBuffer-backed typed arrays, and models once per model (WireTask), so a task costs a structured clone of
 * its small members only.
 */
export type EngineTask =
  /** A twin kind's learning step (src/compute/kind-engine.ts): `step` of the module `engine`. */
  | { kind: 'step'; engine: string; step: string; input: unknown; port?: MessagePort }
  /**
   * A simulation run's question, answered by the family engine module `engine` (src/families/<family>/engine.ts)
   * with the version's model of its twin kind; metric SQL goes back to the main thread over `port` (WorkerMessage).
   * A batch chunk brings its `rows` (InferenceContext.rows) and gets its row results back as columns.
   */
  | { kind: 'question'; engine: string; model: unknown; scenario: { type: string }; seed: number; identification?: ClassOfModel; port?: MessagePort; rows?: Frame }
  /**
   * A chunk of a scoring run's rows (frame on shared memory), the first of them row `firstRow` of the batch, scored back
   * as what the run's digest adds up and as its rows of the run's results table (ScoredChunk); on a static panel the
   * rows carry their environment (ROW_ENVIRONMENT) and each is scored by its environment's network.
   */
  | { kind: 'score'; model: CbnModel | PanelModel; question: ScoreQuestion; rows: Frame; firstRow: number; seed: number; unknownEnvironments?: UnknownEnvironmentRows; port?: MessagePort };

/** A task as it reaches a worker: its model, if it is an object, as the SharedModel of compute/shared-models.ts. */
export type WireTask = EngineTask extends infer T ? (T extends { model: unknown } ? Omit<T, 'model'> & { model: SharedModel | null } : T) : never;

/** What a question needs of its version's class of DAGs (the kernels are the worker's own). */
export type ClassOfModel = Omit<ClassInput, 'kernels'>;

export interface EngineResults {
  step: unknown;
  question: FamilyOutcome;
  score: ScoredChunk;
}

/** A scored chunk: the columns the run's digest adds up, and the chunk's rows of its results table as RowBinary
 * (compute/scored-rows.ts), encoded by the worker (the rows' drivers and changes cross only as those bytes). */
export interface ScoredChunk {
  tallied: TalliedColumns;
  rowBinary: Uint8Array;
}

/** A failure meant for the user, as it crosses a thread: a code of the one catalogue (src/errors.ts) and its message
 * (errors lose their class when they cross threads, so they are returned, not thrown). */
export interface EngineFailure {
  code: ProblemCode;
  message: string;
}

/** What a worker answers for any task: its value, or the reason meant for the user (an AppError inside the worker,
 * a failed metric) that the pool throws again as an AppError of the same code on the main thread. */
export type TaskReply<T> = { value: T } | { failure: EngineFailure };

/** A progress message a worker posts on the task's port. */
export interface ProgressMessage {
  fraction: number;
  state: string;
}

/** What a worker posts on a task's port: progress, or a metric to evaluate (answered with a MetricReply). */
export type WorkerMessage = ({ type: 'progress' } & ProgressMessage) | { type: 'metric'; id: number; frame: Frame; sql: string };

export type MetricReply = { id: number; value: number } | { id: number; error: EngineFailure };
