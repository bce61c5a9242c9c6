import type { CbnModel, DiscoveryOptions, DiscoveryResult, EdgeRef, Evaluation, FitOptions, Frame } from '../engine/types.js';

/**
 * The typed task protocol between the main thread and pool workers (workers/engine.ts). Frames travel on
 * SharedArrayBuffer-backed typed arrays, so a task costs a structured clone of its small members only.
 */
export type EngineTask =
  | { kind: 'discover'; frame: Frame; options: DiscoveryOptions; progress?: MessagePort }
  | { kind: 'bootstrap'; frame: Frame; options: DiscoveryOptions; seed: number }
  | { kind: 'fit'; frame: Frame; edges: EdgeRef[]; options: FitOptions & { testFraction: number } };

export interface FitOutcome {
  /** Fitted on every row: the model versions keep. */
  model: CbnModel;
  /** Of a model fitted on the training split, on the held-out rows. */
  evaluation: Evaluation;
  nTrain: number;
  nTest: number;
}

export interface EngineResults {
  discover: DiscoveryResult;
  bootstrap: DiscoveryResult;
  fit: FitOutcome;
}

/** A progress message a worker posts on the task's port. */
export interface ProgressMessage {
  fraction: number;
  state: string;
}
