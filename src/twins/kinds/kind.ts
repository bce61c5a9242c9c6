/**
 * A twin kind (`static`, `temporal`, ...) as one typed registry entry: what a twin of the kind needs at create,
 * how its versions learn (read the data, discover, train), and what questions see of a trained model. Adding a
 * kind is a folder here; the job shell (learning.ts), the services and the worker read the registry.
 */
import type { Discover, Train, TwinType, TwinVersion } from '../../../schemas/twins.js';
import type { ComputePool } from '../../compute/pool.js';
import type { SampleTable } from '../../engine/inference/scenario.js';
import type { ScoredRecord, Scorer } from '../../engine/inference/score.js';
import type { Frame } from '../../engine/types.js';
import type { FieldError } from '../../errors.js';
import type { QuestionContext } from '../../families/family.js';
import type { JobContext } from '../../jobs/runner.js';
import type { InferredColumn } from '../../tables/inference/infer-schema.js';
import type { EnvironmentProfile } from '../environments/profile.js';
import type { TwinRecord } from '../records.js';

/** What a learning job is submitted with (the discover / train / pipeline bodies, and the twin). */
export type LearnParams = Omit<Discover & Train, 'webhookUrl'> & { twinId: string; versionId?: string };

/** What learning records on a version; `model` is the trained model's JSON (the version's `model` column). */
export type Learned = Partial<TwinVersion> & {
  model?: string | null;
  /** Multi-environment kinds: the environments as read (kept on the stored record, not presented with the version). */
  environmentProfile?: EnvironmentProfile;
};

/** Reads the version's rows: `fields` in the data's order, at most `maxRows`. */
export type RowReader = (fields: string[], maxRows: number) => Promise<Array<Record<string, unknown>>>;

/** What a kind's learning may use: the job (params, signal, progress), the pool, and the version it derives from. */
export interface LearnIo {
  context: JobContext<LearnParams>;
  compute(): ComputePool;
  /** The version this one derives from (its changelog's base), when there is one. */
  baseVersion(version: TwinVersion): Promise<TwinVersion | null>;
}

/** The version's data as the kind learns from it, with what the version records about it. */
export interface ReadData<D> {
  data: D;
  nRows: number;
  variables: number;
  dropped: string[];
  signature: string;
  /** The modelled columns (the version's canonicalInputSchema). */
  columns: InferredColumn[];
  /** Members the reading itself fills on the version (e.g. a temporal twin's granularity and series profile). */
  recorded?: Learned;
}

export interface KindLearner<D> {
  read(twin: TwinRecord, schema: InferredColumn[], rows: RowReader, io: LearnIo): Promise<ReadData<D>>;
  /** The graph; `share` is the part of the job's progress it may use. */
  discover(io: LearnIo, data: D, version: TwinVersion, share: number): Promise<Learned>;
  /** The model on the version's graph, evaluated on held-out data. */
  train(io: LearnIo, data: D, version: TwinVersion): Promise<Learned & { model: string }>;
}

/**
 * How a kind's versions score rows (POST .../versions/{vId}/score): the network the rows are read as and scored over,
 * with what answers them on the pool (engine/inference/score.ts, or a panel's routing: engine/panel/score.ts).
 */
export interface KindScoring<M> {
  /** Why rows may not come by reference (`rowsFrom`, read in bounded chunks) for this model; null: they may. */
  byReference(model: M): string | null;
  scorer(model: M): Scorer;
  /** Members of an inline row that are not variables (a panel's environment columns, a temporal twin's time keys). */
  rowKeys(model: M): string[];
  /** What is wrong with the inline rows as the kind reads them (locations relative to `rows`); absent: nothing but their names. */
  rowRules?(model: M, rows: readonly ScoredRecord[]): FieldError[];
  /** The inline rows as a frame over the scorer's network, one row per given row (a panel's with their environment). */
  inlineFrame(model: M, rows: readonly ScoredRecord[]): Frame;
  /** Columnar inline rows (`rowsTable`) as that frame without making records of them, where the kind can. */
  tableFrame?(model: M, table: SampleTable): Frame;
}

export interface TwinKind<D = unknown, M = unknown> {
  type: TwinType;
  /** Whether its mechanisms act across time steps (fixed-graph pins may name a lag). */
  lagged: boolean;
  /** What a twin of this kind needs at create (located under body). */
  requirements(twin: Pick<TwinRecord, 'selectedTimeColumnName' | 'environmentColumns' | 'stepAggregation'>): FieldError[];
  /** Absent: the kind is recorded but not learned yet (discover, train and run-pipeline answer 422). */
  learner?: KindLearner<D>;
  /** What questions may name and ask about, from a trained model. */
  questionContext(model: M): QuestionContext;
  /** Absent: the kind's versions do not score rows (POST .../score answers 422). */
  scoring?: KindScoring<M>;
}

export const defineKind = <D, M>(kind: TwinKind<D, M>): TwinKind => kind as unknown as TwinKind;

/** stepAggregation aligns the environments of a multi-environment temporal twin; any other kind refuses it. */
export function noStepAggregation(type: TwinType, twin: Pick<TwinRecord, 'stepAggregation'>): FieldError[] {
  return twin.stepAggregation == null ? [] : [{ location: 'body/stepAggregation', message: `stepAggregation aligns the environments of a multi-environment-temporal twin; a ${type} twin has none to align` }];
}
