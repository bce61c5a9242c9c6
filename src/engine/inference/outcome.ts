/**
 * What a question answers, and what it may ask of its caller while it runs. The service keys `results` and
 * `details` by the version label in the run's outputs, stores `sweep` for its read endpoint and
 * shows `summary` as the run's resultsSummary.
 */
import type { ClassInput } from '../identification/plan.js';
import type { EdgeRef, Frame, WorkHooks } from '../types.js';

/** One record of a variable's result (spec "Outputs"). Continuous: prediction is a number and the bounds are
 * numbers. Categorical: prediction is the most likely class, `probabilities` follow the variable's categories
 * and the bounds are arrays aligned with them. */
export interface ResultRecord {
  timestamp: number | null;
  prediction: number | string | null;
  std: number | null;
  probabilities?: number[];
  categories?: string[];
  lowerBound: number | number[] | null;
  upperBound: number | number[] | null;
  confidenceLevel: number;
  /** The input record answered, when an environment's records are some of the rows (a panel prediction by record). */
  row?: number;
}

export interface SweepPoint {
  /** The swept variable's value at this point. */
  value: number;
  mean: number;
  std: number;
  lowerBound: number;
  upperBound: number;
}

/** A range intervention's dose-response curves: one per metric (and per outcome variable, named after it). */
export interface SweepResult {
  variable: string;
  steps: number;
  confidenceLevel: number;
  curves: {
    metric: string;
    unit?: string;
    /** Whether every DAG of the twin's class gives this curve, and if not, the edges that decide it. */
    identified?: boolean;
    decidingEdges?: EdgeRef[];
    points: SweepPoint[];
  }[];
}

export interface ScoreChange {
  variable: string;
  from: number | string | null;
  to: number | string;
}

/** A scored row as a reader sees it (GET .../score). */
export interface ScoredRow {
  index: number;
  /** `meets`: every target met by the prediction; `misses`: some target missed; `unscorable`: inputs missing. */
  verdict: Verdict;
  predictions: Record<string, number | string | null>;
  /** The variables that moved this row's targets most from the model's average (signed contributions). */
  drivers: { variable: string; contribution: number }[];
  /** For a row that misses: the fewest changes (re-simulated) that meet the targets, or [] when none were found. */
  changes: ScoreChange[];
  reachable: boolean | null;
}

/** A scored row's verdict, and its code in ScoredColumns. */
export const VERDICTS = ['meets', 'misses', 'unscorable'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What a scoring run states of all its rows (GET .../score). */
export interface ScoreDigest {
  rows: number;
  verdicts: Record<Verdict, number>;
  topDrivers: { variable: string; meanAbsContribution: number; rows: number }[];
  rowSummaries: { index: number; verdict: Verdict; summary: string }[];
}

/**
 * A chunk of scored rows as columns (score.ts): what crosses from a worker and is written to the run's table, never
 * an object per row. Variables are model indices; categorical values are class codes.
 */
export interface ScoredColumns {
  nRows: number;
  /** Per row, its verdict's index in VERDICTS. */
  verdicts: Uint8Array;
  /** Per target, in the request's order: the prediction (a number or a class code; NaN when unscorable). */
  predictions: Float64Array[];
  /** `driversPerRow` slots per row, largest first: the variable (-1: an empty slot) and its signed contribution. */
  driversPerRow: number;
  driverNodes: Int32Array;
  driverContributions: Float64Array;
  /** Row r's changes are entries changeStart[r] to changeStart[r + 1] - 1: the variable, its value and the value proposed. */
  changeStart: Int32Array;
  changeNodes: Int32Array;
  changeFrom: Float64Array;
  changeTo: Float64Array;
  /** 1: the changes meet the targets; 0: no change within maxChanges does; -1: not searched (the row meets or is unscorable). */
  reachable: Int8Array;
  /** Per variable: the sum of |contribution| over the scored rows, and the rows it is the top driver of (added over chunks). */
  driverSums: Float64Array;
  topCounts: Int32Array;
  /** One sentence for each of the chunk's first rows (ScoreDigest.rowSummaries keeps the batch's first ones). */
  summaries: string[];
}

export interface FamilyOutcome {
  /** Per-variable records; for prediction they align positionally with the input rows. */
  results: Record<string, ResultRecord[]>;
  /** The family's own answer (e.g. baseline vs intervened effects, recommended actions, root causes). */
  details: Record<string, unknown>;
  summary: { summary: string; keyPoints: string[] };
  /** Temporal families: the observed trailing window per variable (spec Outputs `history`). */
  history?: Record<string, { timestamps: number[]; values: Array<number | string | null> }>;
  /** Temporal families: where each variable's forecast path turns, with its driver (spec Outputs `changepoints`). */
  changepoints?: Record<string, Array<{ stepIndex: number; timestamp: number; direction: 'up' | 'down'; magnitude: number; primaryDriver: string; driverContribution: number }>>;
  sweep?: SweepResult;
  /** Panel runs of forecast-shaped families: each environment's records, stored as the run's panel result artifacts (not inline). */
  panelResults?: Record<string, Record<string, ResultRecord[]>>;
  /** Panel runs: each environment's sweep (GET .../sweep?environment=). */
  sweeps?: Record<string, SweepResult>;
  /** A batch's row results as columns (InferenceContext.rows given): written to the run's results table, never inline. */
  rowResults?: RowResults;
}

/** One target's results for every row of a batch, as columns aligned with the rows (NaN: no number). */
export type RowResultColumn =
  | { name: string; kind: 'continuous'; confidenceLevel: number; prediction: Float64Array; std: Float64Array; lower: Float64Array; upper: Float64Array }
  /**
   * A categorical target: per row the most likely class (`codes`, -1 when none) and, row-major with one entry per
   * category, its probabilities and their bounds.
   */
  | { name: string; kind: 'categorical'; confidenceLevel: number; categories: string[]; codes: Int32Array; probabilities: Float64Array; lower: Float64Array; upper: Float64Array };

export interface RowResults {
  nRows: number;
  targets: RowResultColumn[];
}

/** The row records of a family's answer as columns: every number a record holds, so the records can be written again. */
export function rowResultsOf(results: Record<string, ResultRecord[]>, nRows: number): RowResults {
  const number = (value: unknown) => (typeof value === 'number' ? value : Number.NaN);
  const targets = Object.entries(results).map(([name, records]): RowResultColumn => {
    const confidenceLevel = records.find((record) => record !== undefined)?.confidenceLevel ?? 0.95;
    const categories = records.find((record) => record?.categories !== undefined)?.categories;
    if (categories !== undefined) {
      const k = categories.length;
      const columns = { codes: new Int32Array(nRows).fill(-1), probabilities: new Float64Array(nRows * k).fill(Number.NaN), lower: new Float64Array(nRows * k).fill(Number.NaN), upper: new Float64Array(nRows * k).fill(Number.NaN) };
      records.forEach((record, r) => {
        if (record === undefined) return;
        columns.codes[r] = record.prediction === null ? -1 : categories.indexOf(String(record.prediction));
        for (let c = 0; c < k; c++) {
          columns.probabilities[r * k + c] = number(record.probabilities?.[c]);
          columns.lower[r * k + c] = number((record.lowerBound as number[] | null)?.[c]);
          columns.upper[r * k + c] = number((record.upperBound as number[] | null)?.[c]);
        }
      });
      return { name, kind: 'categorical', confidenceLevel, categories: [...categories], ...columns };
    }
    const columns = { prediction: new Float64Array(nRows), std: new Float64Array(nRows), lower: new Float64Array(nRows), upper: new Float64Array(nRows) };
    for (let r = 0; r < nRows; r++) {
      const record = records[r];
      columns.prediction[r] = number(record?.prediction);
      columns.std[r] = number(record?.std);
      columns.lower[r] = number(record?.lowerBound);
      columns.upper[r] = number(record?.upperBound);
    }
    return { name, kind: 'continuous', confidenceLevel, ...columns };
  });
  return { nRows, targets };
}

/** What a question may use while it runs. */
export interface InferenceContext {
  /** Seed of every random draw: a run records it, so its answer can be reproduced. */
  seed: number;
  hooks: WorkHooks;
  /**
   * Runs a metric's SQL over a frame (registered as df, data and dataset) and answers its `value`. Provided by the
   * service (the data engine runs on the main thread); rejects with the engine's message when the SQL fails (e.g.
   * it averages a text column), which fails the run.
   */
  evaluateMetric(frame: Frame, sql: string): Promise<number>;
  /** The version's class of DAGs (reversible edges): answers then say which effects it identifies. Absent: none. */
  identification?: ClassInput;
  /**
   * A batch's rows, one column per variable of the model in its order (on SharedArrayBuffers): given, the family
   * answers these rows instead of the scenario's, and its row results travel back as columns (rowResults).
   */
  rows?: Frame;
}

/** The worker side of a question family (src/families/<family>/engine.ts): answers a validated scenario with the
 * version's model of its twin kind. */
export interface FamilyEngine<M = unknown, S = unknown> {
  run(model: M, scenario: S, context: InferenceContext): Promise<FamilyOutcome>;
}
