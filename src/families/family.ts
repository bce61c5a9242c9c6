/**
 * A question family (spec "Scenario type values") as one typed registry entry: its schema, the checks a schema
 * cannot state, the metric SQL it carries, and the engine module that answers it. Adding a family is a folder
 * with an `index.ts` (this definition, loaded by the service) and an `engine.ts` (its FamilyEngine, loaded by the
 * pool workers from `engine`, so the worker never imports the service side).
 */
import type { TSchema } from 'typebox';
import type { TwinType } from '../../schemas/twins.js';
import type { FieldError } from '../errors.js';
import type { Parsed } from '../simulations/from-query/families/parsed.js';
import type { QueryReader, StepHistory } from '../simulations/from-query/reader.js';

export interface VariableInfo {
  kind: 'continuous' | 'categorical';
  categories: string[];
}

/** The version's variables, as a scenario is checked against them. */
export type Variables = ReadonlyMap<string, VariableInfo>;

/** The time axis of a temporal version, as questions about it are checked (timestamps in ms, or indices). */
export interface QuestionTime {
  axis: 'time' | 'index';
  granularity: string;
  /** The first and last step of the data, and the earliest origin a forecast can start from (it needs the lags). */
  first: number;
  last: number;
  earliestOrigin: number;
  /** The length of one step in milliseconds (months and years by their mean length); absent on an integer axis. */
  stepMs?: number;
  /** The twin's time column: records given with a question may carry their time under it (or `timestamp`). */
  column?: string;
  /** The last steps of the data the version keeps (questions read from plain English take their windows from it). */
  history?: StepHistory;
}


/** What questions see of a trained version: its variables, and its time axis when it has one. */
export interface QuestionContext {
  variables: Variables;
  time?: QuestionTime;
  /** Multi-environment versions: the environment keys a panel question may name. */
  environments?: readonly string[];
  /** Multi-environment versions: the columns an environment key is made of (a record may carry them). */
  environmentColumns?: readonly string[];
}

/** What a family's rules may ask of the twin version. */
export interface CheckContext extends QuestionContext {
  twinType: TwinType;
}

/** A location relative to the scenario (`/interventions/0/variable`) and what is wrong there. */
export type ScenarioError = FieldError;

export interface FamilyDefinition<S extends { type: string } = { type: string }> {
  type: S['type'];
  /** The twin kinds whose versions answer it. */
  twinKinds: readonly TwinType[];
  /** The scenario's shape, with `$id` (documented as an OpenAPI component). */
  schema: TSchema;
  /** Every variable the scenario names, with where it names it (relative to the scenario). */
  references(scenario: S, context: QuestionContext): Array<[variable: string, location: string]>;
  /** What a schema cannot state: ranges, kinds of change per variable kind, categories, mode requirements. */
  rules?(scenario: S, context: CheckContext): ScenarioError[];
  /** Every metric SQL text, with where it is (relative): checked by the data engine's parser at submit. */
  metricQueries?(scenario: S): Array<{ sql: string; location: string }>;
  /**
   * The twin kinds whose versions answer this family's given rows (prediction) as a batch (src/simulations/batch/):
   * chunk by chunk on every pool worker, the row results inline or as a table in the data store. `always`: the rows
   * inline or by reference (`rowsFrom`); `byReference`: only rows read by reference run as a batch (inline rows
   * take the family's own path).
   */
  batchRows?: Partial<Record<TwinType, 'always' | 'byReference'>>;
  /** scenario-from-query readers of this family, tried in ascending `order` across every family of the twin kind. */
  fromQuery?: Array<{ order: number; parse(reader: QueryReader): Parsed | null }>;
  /** The module (href) whose default export is this family's FamilyEngine. */
  engine: string;
}

/** Types a definition by its scenario (the registry holds them erased). */
export const defineFamily = <S extends { type: string }>(definition: FamilyDefinition<S>): FamilyDefinition => definition as unknown as FamilyDefinition;
