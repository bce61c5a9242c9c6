/**
 * The causal engine's data shapes. The engine is pure: it receives typed columns, never tenants, stores or HTTP
 * (STYLE.md). Everything here is structured-cloneable so a frame can cross into a pool worker.
 */

/** A continuous column: NaN marks a missing value. */
export interface ContinuousColumn {
  name: string;
  kind: 'continuous';
  values: Float64Array;
}

/** A categorical column: codes index `categories`; -1 marks a missing value. */
export interface CategoricalColumn {
  name: string;
  kind: 'categorical';
  codes: Int32Array;
  categories: string[];
}

export type FrameColumn = ContinuousColumn | CategoricalColumn;

/** The rows a twin learns from, one typed array per column (arrays may sit on a SharedArrayBuffer). */
export interface Frame {
  nRows: number;
  columns: FrameColumn[];
}

export interface EdgeRef {
  source: string;
  target: string;
}

export interface DiscoveryOptions {
  /** Significance level of the conditional independence tests (default 0.05). */
  alpha?: number;
  /** Largest conditioning set PC tries (default: no cap beyond the data). */
  maxDepth?: number;
  /** Wall-clock budget; when it runs out the search stops at the current depth and says so (default 60 s). */
  timeBudgetMs?: number;
  /** Edges pinned present (source -> target): never removed, oriented as given. */
  required?: EdgeRef[];
  /** Edges forbidden (source -> target): never added in that direction. */
  forbidden?: EdgeRef[];
  /** Seed for every random choice (default 1). */
  seed?: number;
  /** Extra assumptions that may orient what the data's equivalence class leaves open (identification/non-gaussian.ts). */
  assumptions?: 'non_gaussian_residuals'[];
}

export interface DiscoveredEdge extends EdgeRef {
  /** Standardised effect of source on target in the fitted DAG (partial effect for continuous pairs, a
   * normalised association for categorical ones), signed where the sign is defined. */
  strength: number;
  /** true when the data alone orient the edge: it is directed in the CPDAG of the chosen DAG (before background
   * knowledge). false when the direction is one choice among Markov-equivalent DAGs (undirected in that CPDAG),
   * whether a required edge or the search made it. */
  orientationFromData: boolean;
}

export interface DiscoveryResult {
  /** The chosen DAG: every edge directed, acyclic, honouring required and forbidden edges. */
  edges: DiscoveredEdge[];
  /** The Markov equivalence class of that DAG (undirected pairs appear once, `directed` false). */
  cpdag: { source: string; target: string; directed: boolean }[];
  /** Edges whose direction rests on an assumption of `options.assumptions` (the DAG in `edges` follows them). */
  assumed?: (EdgeRef & { assumption: 'non_gaussian_residuals' })[];
  /** Columns that repeat an earlier column exactly (one-to-one, discovery/copies.ts): each joined to it by one edge, undirected in `cpdag`. */
  copies?: { column: string; copyOf: string }[];
  /** Tests run, depth reached, whether the time budget stopped the search early. */
  stats: { tests: number; depthReached: number; timedOut: boolean; millis: number };
}

/** Progress hooks: report a fraction 0..1 with a state label; `aborted()` true stops the work at the next check. */
export interface WorkHooks {
  progress?(fraction: number, state: string): void;
  aborted?(): boolean;
}

export interface FitOptions {
  /** Add a nonlinear basis (squares and pairwise products of continuous parents) to linear-Gaussian nodes. */
  nonlinear?: boolean;
  /** Laplace smoothing of categorical CPTs; unset (the default): Dirichlet rows with a prior chosen by marginal likelihood. */
  smoothing?: number;
  seed?: number;
}

/** A fitted node given its parents. */
export type NodeModel =
  | {
      name: string;
      kind: 'continuous';
      parents: string[];
      /** Design terms: parent continuous values, indicator columns of categorical parents (per category after
       * the first), and nonlinear terms when asked. */
      terms: { kind: 'linear' | 'indicator' | 'square' | 'product'; parents: string[]; category?: string }[];
      intercept: number;
      coefficients: number[];
      noiseStd: number;
      /** A sample of standardised residuals kept for abduction (at most 1000, sorted). */
      residualQuantiles: number[];
      /** Evenly spaced order statistics of the training values (at most 256, sorted): the node's margin in
       * normal operation, which anomaly scores judge a value against (calibration.ts); absent on older models. */
      valueQuantiles?: number[];
      mean: number;
      std: number;
      /** Parameter uncertainty for simulation intervals: sigma^2 (X'X)^-1 of [intercept, coefficients...] on the raw
       * scale, packed lower triangle row by row ((k+1)(k+2)/2 numbers); absent on wide nodes and older models. */
      coefficientCovariance?: number[];
    }
  | {
      name: string;
      kind: 'categorical';
      parents: string[];
      categories: string[];
      /** Smoothed CPT when every parent is categorical: one row of probabilities per parent configuration, rows in
       * mixed-radix order of the parents' category indices (last parent fastest). */
      cpt?: {
        parentCategories: string[][];
        table: number[][];
        /** Training rows behind each table row, and the smoothing: a row's posterior is
         * Dirichlet(table[row] x (rowCounts[row] + smoothing x classes)). Absent on older models. */
        rowCounts?: number[];
        smoothing?: number;
      };
      /** Multinomial logistic model when a parent is continuous: P(class c) is proportional to
       * exp(weights[c][0] + sum over t of weights[c][t + 1] * value of terms[t]) on the raw scale. */
      logistic?: { terms: { kind: 'linear' | 'indicator'; parents: string[]; category?: string }[]; weights: number[][] };
      marginal: number[];
    };

export interface CbnModel {
  /** Topological order. */
  nodes: NodeModel[];
}

export interface NodeMetrics {
  /** Temporal models: the mean squared error of the mean forecast over h = 1..H steps (continuous variables). */
  mseHorizon?: number;
  /** Temporal models: how often the most likely class forecast over h = 1..H steps was right (categorical). */
  accuracyHorizon?: number;
  mse?: number;
  mae?: number;
  mape?: number;
  r2?: number;
  accuracy?: number;
  precision?: number;
  recall?: number;
  f1Score?: number;
  auc?: number;
  brierScore?: number;
}

export interface Evaluation {
  modelType: 'cbn' | 'temporal-cbn' | 'temporal-panel-cbn';
  nodeMetrics: Record<string, NodeMetrics>;
  globalMetrics: Record<string, number>;
  skippedReason: string | null;
  skipReasons: string[];
  nEvalPoints: number;
}
