/**
 * The questions a static twin answers, as the engine receives them: the scenario of a simulation run after the
 * service validated it (schemas/simulations.ts mirrors these shapes for HTTP). Values are JSON values; a
 * categorical variable's values are its category labels.
 */

export type Value = number | string | boolean;

/** A condition on a variable of a sampled or observed row. */
export interface Condition {
  variable: string;
  operator: 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'in' | 'not_in';
  value: Value | Value[];
}

export type ValueSpec =
  | { type: 'set_value'; value: Value }
  | { type: 'relative_change'; mode: 'percentage' | 'absolute'; value: number }
  | { type: 'set_probability'; category: Value; probability: number }
  /** `delta` in percentage points: +10 means the category's probability rises by 0.10. */
  | { type: 'adjust_probability'; category: Value; delta: number }
  /** Categorical membership: the variable only takes the included categories (or all but the excluded), with
   * their relative probabilities kept; `size` caps how many categories remain (the most likely first). */
  | { type: 'set_members'; include?: Value[]; exclude?: Value[]; size?: number }
  | { type: 'range'; from: number; to: number; steps: number };

export interface Intervention {
  variable: string;
  valueSpec: ValueSpec;
  /** The intervention applies only to rows (samples) where every condition holds; others keep their values. */
  conditions?: Condition[];
}

export interface Metric {
  name: string;
  /** SQL over the sampled frame (tables df, data, dataset) yielding one row with a column `value`. */
  sqlQuery: string;
  unit?: string;
  higherIsBetter?: boolean;
}

export interface Segment {
  id: string;
  description?: string;
  conditions: Condition[];
}

/** How an optimisation moves a decision variable: every unit to the chosen value, or each unit's own value shifted. */
export type InterventionType = 'set_value' | 'relative_change';

/**
 * Members of the spec's Scenario object shared by the families that simulate a population (intervention,
 * optimisation, explanation): the population evaluated, its named segments, and how decisions are applied.
 */
export interface ScenarioScope {
  /** Only units whose baseline values meet every condition are simulated and reported. */
  conditions?: Condition[];
  segmentDefinitions?: Segment[];
  enableSegmentInterventions?: boolean;
  interventionTypes?: Record<string, InterventionType>;
}

/** Rows as one header and arrays of values (columnar JSON). */
export interface SampleTable {
  columns: string[];
  rows: Array<Array<Value | null>>;
}

/**
 * Rows to predict: records (`sample`) or columnar JSON (`sampleTable`). A batch whose rows the service reads
 * from the data store (the scenario's `rowsFrom`, a service matter) reaches the engine as `InferenceContext.rows`.
 */
export interface PredictionScenario {
  type: 'prediction';
  sample?: Record<string, Value | null>[];
  sampleTable?: SampleTable;
  targetVars: string[];
  confidenceLevel?: number;
  /** Multi-environment twins: the environments to predict in (default all). */
  environments?: string[];
}

export interface InterventionScenario extends ScenarioScope {
  type: 'intervention';
  interventions: Intervention[];
  metrics?: Metric[];
  /** Variables whose outcome is reported (default: every descendant of an intervened variable). */
  targetVars?: string[];
  confidenceLevel?: number;
  /** Monte Carlo samples per arm (default 10,000). */
  samples?: number;
}

export interface Objective {
  direction: 'maximise' | 'minimise';
  variable?: string;
  metricSqlQuery?: string;
  weight?: number;
  unit?: string;
  /** No credit past the target: `percentage` improvement over the baseline, or the `absolute` level. */
  target?: { type: 'percentage' | 'absolute'; value: number };
  /** The variables metricSqlQuery reads (identification is judged on them; default every variable). */
  variablesRelevantToMetric?: string[];
  /** Semantic-layer references, stored with the run. */
  conceptId?: string;
  conceptEditVersion?: number;
}

export interface VariableConstraint {
  variable: string;
  type: 'range' | 'set';
  minValue?: number;
  maxValue?: number;
  allowedValues?: Value[];
  maxChangePercent?: number;
  conditionalAllowedValues?: { condition: Condition; allowedValues?: Value[]; minValue?: number; maxValue?: number }[];
}

export interface MetricConstraint {
  metricName: string;
  sqlQuery: string;
  constraintType: 'min_value' | 'max_value' | 'max_decrease_percent' | 'max_increase_percent' | 'fixed_boolean';
  value?: number;
  booleanValue?: boolean;
  /** Temporal twins only (a window of the forecast); a static twin refuses a set window at submit. */
  temporal?: { startDate?: string; endDate?: string; startTimestampMs?: number; endTimestampMs?: number; intervalSteps?: number } | null;
}

export interface OptimisationScenario extends ScenarioScope {
  type: 'optimisation';
  objectives: Objective[];
  decisionVars: string[];
  variableConstraints?: VariableConstraint[];
  metricConstraints?: MetricConstraint[];
  interventionCountConfig?: { maxInterventions?: number; optimizeCount?: boolean };
  samples?: number;
}

export interface CounterfactualTarget {
  variable: string;
  value: Value;
  matchMode?: 'tolerance' | 'orMore' | 'orLess';
  toleranceValue?: number;
}

export interface CounterfactualScenario {
  type: 'counterfactual';
  samples: Record<string, Value | null>[];
  targets: CounterfactualTarget[];
  maxChanges?: number;
  constraints?: Record<string, { type: 'fixed' }>;
}

export interface ExplanationScenario extends ScenarioScope {
  type: 'explanation';
  explanationMode: 'discovery' | 'impact' | 'directional';
  effectVariable?: string;
  causeVariable?: string;
  segments?: Segment[];
}

export interface RootCauseScenario {
  type: 'root_cause_analysis';
  targetVariable: string;
  samples: Record<string, Value | null>[];
  /** Observations from just before the samples: anomalies already there are standing conditions (standing.ts). */
  baselineSamples?: Record<string, Value | null>[];
  targetFpr?: number;
}

export interface AnomalyScenario {
  type: 'anomaly_detection';
  samples: Record<string, Value | null>[];
  targetFpr?: number;
  autoRca?: boolean;
}

export type StaticScenario =
  | PredictionScenario
  | InterventionScenario
  | OptimisationScenario
  | CounterfactualScenario
  | ExplanationScenario
  | RootCauseScenario
  | AnomalyScenario;

/** Batch scoring, asked of every row: its targets predicted from its other values, judged against the wanted values. */
export interface ScoreQuestion {
  targets: CounterfactualTarget[];
  /** Most changes proposed per row that misses its targets (default 2). */
  maxChanges?: number;
  constraints?: Record<string, { type: 'fixed' }>;
}
