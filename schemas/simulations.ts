import { type Static, type TSchema, Type } from 'typebox';
import { Body, Nullable, Timestamp, literals } from './common.js';
import { FilterGroupSchema, FilterSchema } from './datasets.js';
import { ProgressSchema, WebhookUrl } from './jobs.js';

export const RUN_STATUSES = ['pending', 'configuring', 'configured', 'running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Every family name of the spec's "Scenario type values" table, per twin kind. */
export const SCENARIO_TYPES_BY_TWIN = {
  static: ['prediction', 'intervention', 'optimisation', 'counterfactual', 'explanation', 'root_cause_analysis', 'anomaly_detection'],
  temporal: ['forecast', 'temporal_intervention', 'temporal_optimisation', 'temporal_counterfactual', 'temporal_explanation', 'temporal_root_cause_analysis', 'temporal_anomaly_detection', 'causal_health_monitor'],
  'multi-environment-static': ['prediction', 'panel_intervention', 'panel_optimisation', 'panel_counterfactual', 'panel_explanation', 'static_panel_root_cause_analysis', 'static_panel_anomaly_detection'],
  'multi-environment-temporal': ['panel_forecast', 'panel_intervention', 'panel_optimisation', 'panel_counterfactual', 'panel_explanation', 'panel_root_cause_analysis', 'panel_anomaly_detection', 'panel_causal_health_monitor'],
} as const;
export const SCENARIO_TYPES = [...new Set(Object.values(SCENARIO_TYPES_BY_TWIN).flat())];

const Name = Type.String({ minLength: 1, maxLength: 256 });
const Scalar = Type.Union([Type.Number(), Type.String(), Type.Boolean()]);
const Record_ = Type.Record(Type.String(), Type.Union([Scalar, Type.Null()]), { description: 'Values keyed by variable name' });
const Records = (description: string, minItems = 1) => Type.Array(Record_, { minItems, maxItems: 100_000, description });
const Confidence = Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.95, description: 'Level of the reported intervals (default 0.95)' });
const TargetFpr = Type.Number({ minimum: 0.0001, maximum: 0.1, default: 0.01, description: 'False-alarm rate on normal data, 0.0001 to 0.1 (default 0.01; lower flags less)' });
const Samples = Type.Integer({ minimum: 100, maximum: 200_000, description: 'Monte Carlo samples per arm (default 10,000)' });

const Family = <T extends string, P extends Record<string, TSchema>>(type: T, properties: P, id: string, description: string) =>
  Type.Object({ type: Type.Literal(type), ...properties, ...ScenarioScope }, { additionalProperties: false, $id: id, title: id, description });

export const ConditionSchema = Type.Object(
  {
    variable: Name,
    operator: literals(['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'in', 'not_in'] as const),
    value: Type.Union([Scalar, Type.Array(Scalar, { maxItems: 1000 })], { description: 'An array for `in` and `not_in`' }),
  },
  { additionalProperties: false },
);

export const ValueSpecSchema = Type.Union(
  [
    Type.Object({ type: Type.Literal('set_value'), value: Scalar }, { additionalProperties: false }),
    Type.Object({ type: Type.Literal('relative_change'), mode: literals(['percentage', 'absolute'] as const), value: Type.Number() }, { additionalProperties: false }),
    Type.Object({ type: Type.Literal('set_probability'), category: Scalar, probability: Type.Number({ minimum: 0, maximum: 1 }) }, { additionalProperties: false }),
    Type.Object({ type: Type.Literal('adjust_probability'), category: Scalar, delta: Type.Number({ minimum: -100, maximum: 100, description: 'Percentage points: +10 means +10pp' }) }, { additionalProperties: false }),
    Type.Object({ type: Type.Literal('set_members'), include: Type.Optional(Type.Array(Scalar)), exclude: Type.Optional(Type.Array(Scalar)), size: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    Type.Object({ type: Type.Literal('range'), from: Type.Number(), to: Type.Number(), steps: Type.Integer({ minimum: 2, maximum: 200 }) }, { additionalProperties: false }),
  ],
  { description: 'How the variable changes (spec "Intervention details")' },
);

const InterventionItem = Type.Object(
  { variable: Name, valueSpec: ValueSpecSchema, conditions: Type.Optional(Type.Array(ConditionSchema, { maxItems: 50, description: 'The change applies only to units meeting every condition (on their baseline values)' })) },
  { additionalProperties: false },
);

const MetricItem = Type.Object(
  {
    name: Name,
    sqlQuery: Type.String({ minLength: 1, maxLength: 20_000, description: 'SQL over the sampled frame (tables `df`, `data`, `dataset`) yielding one row with a column `value`' }),
    unit: Type.Optional(Type.String({ maxLength: 64 })),
    higherIsBetter: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Target = Type.Object(
  {
    variable: Name,
    value: Scalar,
    matchMode: Type.Optional(literals(['tolerance', 'orMore', 'orLess'] as const, 'Numeric targets: within toleranceValue, at least, or at most the value')),
    toleranceValue: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const SegmentSchema = Type.Object(
  { id: Name, description: Type.Optional(Type.String({ maxLength: 1000 })), conditions: Type.Array(ConditionSchema, { maxItems: 50 }) },
  { additionalProperties: false },
);

/**
 * Members of the spec's Scenario object every static family accepts; the families that answer given samples
 * (prediction, counterfactual, root cause, anomaly) refuse the population ones with a 422 saying why.
 */
const ScenarioScope = {
  conditions: Type.Optional(Type.Array(ConditionSchema, {
    maxItems: 50,
    description: 'Restricts the evaluated population to the units whose baseline values meet every condition (intervention, optimisation, explanation). The families that answer given samples refuse it: send only the samples to answer.',
  })),
  segmentDefinitions: Type.Optional(Type.Array(SegmentSchema, {
    maxItems: 20,
    description: 'Named sub-populations (a unit belongs to the first segment whose conditions it meets). Intervention: effects and metrics per segment; optimisation: objectives per segment; explanation: the same as `segments`.',
  })),
  enableSegmentInterventions: Type.Optional(Type.Boolean({
    default: false,
    description: 'Needs segmentDefinitions. Intervention: also the effect of applying the interventions to each segment alone (`segments[].targeted`); optimisation: a separate decision per segment (units in no segment keep their own values).',
  })),
  interventionTypes: Type.Optional(Type.Record(Type.String(), literals(['set_value', 'relative_change'] as const), {
    description: 'Optimisation: per decision variable, `set_value` (default; every unit gets the chosen value) or `relative_change` (each unit keeps its own value shifted by the chosen change of the mean; numeric variables). Intervention: when given, must agree with each named intervention\'s valueSpec.type.',
  })),
};

/** A windowed metric constraint of the temporal families; a static twin has no time axis and refuses it. */
const TemporalWindow = Type.Object(
  {
    startDate: Type.Optional(Type.String({ maxLength: 64 })),
    endDate: Type.Optional(Type.String({ maxLength: 64 })),
    startTimestampMs: Type.Optional(Type.Number()),
    endTimestampMs: Type.Optional(Type.Number()),
    intervalSteps: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false, description: 'Temporal twins: the window the constraint holds over. A static twin answers 422 when any member is set.' },
);

const Fixed = Type.Record(Type.String(), Type.Object({ type: Type.Literal('fixed') }, { additionalProperties: false }), { description: 'Variables that may not change' });

/** A window of observations given with a temporal question. */
const WindowRecordsOf = (lead: string) => Type.Array(Record_, {
  minItems: 1,
  maxItems: 100_000,
  description: lead + ': observations in time order, one record per step of the twin\'s granularity, keyed by variable. Each record may carry its time under the twin\'s time column or `timestamp` '
    + '(ms since the epoch, an ISO date, or the integer time value; on every record or on none): steps the records skip are treated as missing. Without times the records are '
    + 'consecutive steps ending at the last step of the data.',
});
const WindowRecords = WindowRecordsOf('The window');

/** Multi-environment versions: the environments a question answers in (panel families and prediction). */
const Environments = Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
  minItems: 1,
  maxItems: 10_000,
  uniqueItems: true,
  description: 'Multi-environment twins: the environment keys to answer in (GET .../environments; omit for all). The request\'s `environmentGroupIds` narrow them: names and groups are intersected, '
    + 'never unioned, and an empty intersection answers 400. Single-environment twins refuse it (422).',
});

/** Most rows one batch run reads by reference (rowsFrom). */
export const BATCH_ROWS_MAX = 50_000_000;

/** Rows as one header and arrays of values: the same rows as `sample`, without a key per cell. */
export const SampleTableSchema = Type.Object(
  {
    columns: Type.Array(Name, { minItems: 1, maxItems: 2000, uniqueItems: true, description: 'Variable names, one per position of every row' }),
    rows: Type.Array(Type.Array(Type.Union([Scalar, Type.Null()]), { maxItems: 2000 }), { minItems: 1, maxItems: 100_000, description: 'Each row as many values as `columns`; null is missing' }),
  },
  { additionalProperties: false, description: 'Rows in columnar JSON: cheaper to send and to check than records for large batches' },
);

/** The rows of a dataset or a source, read by the run itself. */
export const RowsFromSchema = Type.Object(
  {
    datasetId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A dataset of the workspace (exactly one of datasetId and sourceId)' })),
    sourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A tabular source of the workspace, read as uploaded' })),
    filter: Type.Optional(Type.Union([FilterSchema, FilterGroupSchema], { description: 'Only the rows matching it (the dataset filter language)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: BATCH_ROWS_MAX, description: `The first rows only, in the data's own order (at most ${BATCH_ROWS_MAX.toLocaleString('en')})` })),
    keepColumns: Type.Optional(Type.Array(Name, { maxItems: 20, uniqueItems: true, description: 'Columns of the data copied into the results table beside each row\'s answer (e.g. an id to join back on)' })),
  },
  {
    additionalProperties: false,
    description: 'Rows by reference: the run reads them from the data store in chunks, answers them on every pool worker and writes the results as a table in the data store '
      + '(`outputsStorageType` `datastore`; read them with GET .../simulations/{id}/rows or stream them with GET .../simulations/{id}/rows/export/{format}). Columns are matched to the twin\'s variables by name.',
  },
);

export const PredictionScenarioSchema = Family(
  'prediction',
  {
    sample: Type.Optional(Records('Rows to predict, keyed by variable; targets left out')),
    sampleTable: Type.Optional(SampleTableSchema),
    rowsFrom: Type.Optional(RowsFromSchema),
    resultsStorage: Type.Optional(literals(['inline', 'datastore'] as const, 'Where the row results go: inline in the outputs (default for `sample` and `sampleTable`) or a table in the data store (always for `rowsFrom`)')),
    targetVars: Type.Array(Name, { minItems: 1, maxItems: 100 }),
    confidenceLevel: Type.Optional(Confidence),
    environments: Type.Optional(Environments),
  },
  'PredictionScenario',
  'Predicts targetVars for each given row: exactly one of `sample` (records), `sampleTable` (columnar JSON) or `rowsFrom` (a dataset or source read by the run). Inline outputs align with the rows. '
    + 'On a multi-environment twin, records that carry every environment column (e.g. `{"store": "12", ...}`) are each predicted by the mechanisms of the environment they name (`details.routing` `byRecord`, '
    + '`details.recordEnvironments`; all records or none name one, each an environment of the version, and `environments` is then left out: 422 otherwise); records without them are predicted in every environment asked and combined. '
    + 'Rows by reference (`rowsFrom`) on a multi-environment static twin must have the environment columns: each row is predicted by its environment\'s mechanisms, a row naming none of the version\'s '
    + 'environments by the pooled ones (`details.unknownEnvironmentRows`); `environments` is then left out, and inline rows on a panel keep their results inline (`resultsStorage: datastore` is for rows by reference there).',
);

export const InterventionScenarioSchema = Family(
  'intervention',
  {
    interventions: Type.Array(InterventionItem, { minItems: 1, maxItems: 50 }),
    metrics: Type.Optional(Type.Array(MetricItem, { maxItems: 20 })),
    targetVars: Type.Optional(Type.Array(Name, { maxItems: 100, description: 'Outcomes to report (default: every variable the interventions can affect)' })),
    confidenceLevel: Type.Optional(Confidence),
    samples: Type.Optional(Samples),
  },
  'InterventionScenario',
  'What if: baseline vs intervened populations with common random numbers. At most one `range` valueSpec (numeric variable): the run then sweeps it (GET .../sweep).',
);

/** The members of the optimisation families (static and temporal). */
const optimisationMembers = {
    objectives: Type.Array(
      Type.Object(
        {
          direction: literals(['maximise', 'minimise'] as const),
          variable: Type.Optional(Name),
          metricSqlQuery: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
          weight: Type.Optional(Type.Number({ minimum: 0 })),
          unit: Type.Optional(Type.String({ maxLength: 64 })),
          target: Type.Optional(Type.Object(
            { type: literals(['percentage', 'absolute'] as const, '`percentage`: an improvement of `value` % over the baseline; `absolute`: the level `value`'), value: Type.Number() },
            { additionalProperties: false, description: 'Enough is enough: the objective earns no credit past its target, so the search spends the rest on the other objectives; the answer says whether it is met' },
          )),
          variablesRelevantToMetric: Type.Optional(Type.Array(Name, { maxItems: 100, description: 'The variables metricSqlQuery reads: whether the answer is identified is judged on them alone (default: every variable)' })),
          conceptId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The semantic-layer concept the objective measures: a concept of the workspace (422 otherwise); stored with the run' })),
          conceptEditVersion: Type.Optional(Type.Integer({ minimum: 0, description: 'The concept\'s edit version the objective was written against: 409 when the concept has changed since; stored with the run' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10 },
    ),
    decisionVars: Type.Array(Name, { minItems: 1, maxItems: 20, description: 'The only levers' }),
    variableConstraints: Type.Optional(
      Type.Array(
        Type.Object(
          {
            variable: Name,
            type: literals(['range', 'set'] as const),
            minValue: Type.Optional(Type.Number()),
            maxValue: Type.Optional(Type.Number()),
            allowedValues: Type.Optional(Type.Array(Scalar)),
            maxChangePercent: Type.Optional(Type.Number({ minimum: 0 })),
            conditionalAllowedValues: Type.Optional(
              Type.Array(
                Type.Object(
                  { condition: ConditionSchema, allowedValues: Type.Optional(Type.Array(Scalar)), minValue: Type.Optional(Type.Number()), maxValue: Type.Optional(Type.Number()) },
                  { additionalProperties: false },
                ),
              ),
            ),
          },
          { additionalProperties: false },
        ),
        { maxItems: 50 },
      ),
    ),
    metricConstraints: Type.Optional(
      Type.Array(
        Type.Object(
          {
            metricName: Name,
            sqlQuery: Type.String({ minLength: 1, maxLength: 20_000 }),
            constraintType: literals(['min_value', 'max_value', 'max_decrease_percent', 'max_increase_percent', 'fixed_boolean'] as const),
            value: Type.Optional(Type.Number()),
            booleanValue: Type.Optional(Type.Boolean()),
            temporal: Type.Optional(Nullable(TemporalWindow)),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
    ),
    interventionCountConfig: Type.Optional(
      Type.Object({ maxInterventions: Type.Optional(Type.Integer({ minimum: 1 })), optimizeCount: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    ),
};

export const OptimisationScenarioSchema = Family(
  'optimisation',
  {
    ...optimisationMembers,
    samples: Type.Optional(Samples),
  },
  'OptimisationScenario',
  'Finds settings of decisionVars that best meet the weighted objectives within the constraints.',
);

export const CounterfactualScenarioSchema = Family(
  'counterfactual',
  { samples: Records('Baseline records'), targets: Type.Array(Target, { minItems: 1, maxItems: 20 }), maxChanges: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })), constraints: Type.Optional(Fixed) },
  'CounterfactualScenario',
  'Best action: the fewest changes per sample that reach the targets, verified by re-simulating the sample.',
);

export const ExplanationScenarioSchema = Family(
  'explanation',
  {
    explanationMode: literals(['discovery', 'impact', 'directional'] as const, '`discovery` needs effectVariable, `impact` causeVariable, `directional` both'),
    effectVariable: Type.Optional(Name),
    causeVariable: Type.Optional(Name),
    segments: Type.Optional(Type.Array(SegmentSchema, { maxItems: 20 })),
  },
  'ExplanationScenario',
  'Why: the causes of an effect, the effects of a cause, or the paths between the two.',
);

export const RootCauseScenarioSchema = Family(
  'root_cause_analysis',
  {
    targetVariable: Name,
    samples: Records('Observations to diagnose'),
    baselineSamples: Type.Optional(Records(
      'Observations from just before the samples (optional): a variable already as far from normal there, on the same side, is a standing condition, not a cause of what '
        + 'changed -- neither a root cause candidate nor a link of a cascade; each diagnosed sample lists such variables under `standing`',
    )),
    targetFpr: Type.Optional(TargetFpr),
  },
  'RootCauseScenario',
  'Attributes an anomalous targetVariable to the variables whose own behaviour was anomalous. `details.samples[]` {index, anomalous, anomalyBasis, targetAnomalous, '
    + 'targetScore, rootCauses[] {variable, rank, contribution, noiseScore}}: a sample is diagnosed (`anomalous`) when the target\'s value is improbable (`anomalyBasis: target`) or when '
    + 'it is not but the own behaviour of a variable upstream is, and reaches the target through anomalous variables (`upstream`: a fault whose effect stays within the '
    + 'target\'s normal range). targetFpr is the rate at which normal samples are diagnosed, split evenly between the two. Root causes come most likely first; causes the '
    + 'twin cannot tell apart share a `rank`; a cause whose anomaly cannot reach the target through anomalous variables and does not move it in the model is never listed first. '
    + 'With `baselineSamples`, anomalies already present before the incident are set aside (`standing[]` per sample).',
);

export const AnomalyScenarioSchema = Family(
  'anomaly_detection',
  { samples: Records('Observations to scan'), targetFpr: Type.Optional(TargetFpr), autoRca: Type.Optional(Type.Boolean({ description: 'Diagnose each flagged sample (root cause analysis)' })) },
  'AnomalyScenario',
  'Flags samples the twin finds improbable, calibrated so targetFpr is the false-alarm rate on normal data.',
);

/**
 * A panel family of a multi-environment static twin: the static family's members (and `environments`), answered
 * with each environment's mechanisms and combined over the environments weighted by their rows.
 */
const PanelFamily = <T extends string>(type: T, base: { properties: Record<string, TSchema> }, id: string, description: string) => {
  const { type: _type, ...members } = base.properties;
  return Type.Object({ type: Type.Literal(type), ...members, environments: Type.Optional(Environments) }, { additionalProperties: false, $id: id, title: id, description });
};
const PER_ENVIRONMENT = 'Answered in each environment with its own mechanisms (`outputs.details.environments`, keyed by environment) and combined over them weighted by their rows (`results`).';

export const PanelInterventionScenarioSchema = PanelFamily('panel_intervention', InterventionScenarioSchema, 'PanelInterventionScenario', `What if, per environment (members as InterventionScenario). ${PER_ENVIRONMENT}`);
export const PanelOptimisationScenarioSchema = PanelFamily('panel_optimisation', OptimisationScenarioSchema, 'PanelOptimisationScenario', `The best settings per environment (members as OptimisationScenario). ${PER_ENVIRONMENT}`);
export const PanelCounterfactualScenarioSchema = PanelFamily('panel_counterfactual', CounterfactualScenarioSchema, 'PanelCounterfactualScenario', `Best action per environment (members as CounterfactualScenario). ${PER_ENVIRONMENT}`);
export const PanelExplanationScenarioSchema = PanelFamily('panel_explanation', ExplanationScenarioSchema, 'PanelExplanationScenario', `Why, per environment (members as ExplanationScenario). ${PER_ENVIRONMENT}`);
export const StaticPanelRootCauseScenarioSchema = PanelFamily('static_panel_root_cause_analysis', RootCauseScenarioSchema, 'StaticPanelRootCauseScenario', `Root causes per environment (members as RootCauseScenario). ${PER_ENVIRONMENT}`);
export const StaticPanelAnomalyScenarioSchema = PanelFamily('static_panel_anomaly_detection', AnomalyScenarioSchema, 'StaticPanelAnomalyScenario', `Anomaly scan per environment (members as AnomalyScenario). ${PER_ENVIRONMENT}`);

const ForecastH = Type.Integer({ minimum: 1, maximum: 1000, description: 'Steps to forecast, in the twin\'s granularity' });
const OriginTimestamp = Type.Number({
  description: 'Where the forecast starts (ms since the epoch; the integer time value on an integer time axis): the first forecast step is the first step at or after it. '
    + 'Default: the step after the end of the data. Inside the data it forecasts from the history before it (a backtest); past the end it simulates the gap first.',
});
const Paths = Type.Integer({ minimum: 100, maximum: 20_000, description: 'Monte Carlo paths (default 1,000); paths x steps x variables may not exceed 20 million (422)' });

export const ForecastScenarioSchema = Type.Object(
  {
    type: Type.Literal('forecast'),
    forecastH: ForecastH,
    targetVars: Type.Optional(Type.Array(Name, { minItems: 1, maxItems: 100, description: 'Variables to report (default every variable)' })),
    confidenceLevel: Type.Optional(Confidence),
    originTimestamp: Type.Optional(OriginTimestamp),
    samples: Type.Optional(Paths),
  },
  {
    additionalProperties: false, $id: 'ForecastScenario', title: 'ForecastScenario',
    description: 'Temporal twins: the simulated future, step by step. Outputs: `results[var]` one record per step (prediction, std, bounds at confidenceLevel, the step\'s `timestamp`), '
      + '`history[var]` the observed trailing window, `changepoints[var]` where the mean path turns or jumps, with the model input that drives the change most.',
  },
);

const TemporalInterventionItem = Type.Object(
  {
    variable: Name,
    valueSpec: ValueSpecSchema,
    timestamp: Type.Optional(Type.Number({ description: 'When the change starts (ms since the epoch, or the integer time value); default the first forecast step' })),
    persistent: Type.Optional(Type.Boolean({ description: 'Holds to the end of the horizon (the default when durationSteps is absent); false without durationSteps: one step' })),
    durationSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Holds for this many steps' })),
  },
  { additionalProperties: false },
);

export const TemporalInterventionScenarioSchema = Type.Object(
  {
    type: Type.Literal('temporal_intervention'),
    interventions: Type.Array(TemporalInterventionItem, { minItems: 1, maxItems: 50 }),
    forecastH: Type.Optional(ForecastH),
    targetVars: Type.Optional(Type.Array(Name, { minItems: 1, maxItems: 100, description: 'Outcomes to report (default every variable the interventions can reach)' })),
    metrics: Type.Optional(Type.Array(MetricItem, { maxItems: 20, description: 'SQL over the simulated future (table `df`: one row per path and step, the variables plus `step` and `timestamp`)' })),
    confidenceLevel: Type.Optional(Confidence),
    originTimestamp: Type.Optional(OriginTimestamp),
    samples: Type.Optional(Paths),
  },
  {
    additionalProperties: false, $id: 'TemporalInterventionScenario', title: 'TemporalInterventionScenario',
    description: 'Temporal twins: what if a variable is set or shifted from a time on, for some steps or for good. Baseline and intervened futures share their noise (common random numbers); '
      + 'per step the effect on each outcome with its interval, `identified` and `decidingEdges` (same-step links whose direction the data left open); metrics over the simulated future. '
      + 'Default horizon: 10 steps past the last intervention start. One `range` valueSpec (numeric variable) sweeps it: GET .../sweep has a curve per numeric outcome (its mean over the horizon) '
      + 'and per metric; the effects reported are at the range\'s last value.',
  },
);

export const TemporalOptimisationScenarioSchema = Type.Object(
  {
    type: Type.Literal('temporal_optimisation'),
    ...optimisationMembers,
    forecastHorizon: Type.Integer({ minimum: 1, maximum: 1000, description: 'Steps of the simulated future the plan is judged over (required)' }),
    interventionTiming: Type.Optional(Type.Object(
      {
        start: Type.Optional(Type.Number({ description: 'When changes may begin (ms since the epoch, or the integer time value); default the first forecast step' })),
        mode: Type.Optional(literals(['hold', 'schedule'] as const, '`hold` (default): one value per lever from the start to the end of the horizon; `schedule`: a value per lever per block of blockSteps steps')),
        blockSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'schedule: how often a lever may change (default a quarter of the steps from the start)' })),
      },
      { additionalProperties: false, description: 'When each lever may change' },
    )),
    originTimestamp: Type.Optional(OriginTimestamp),
  },
  {
    additionalProperties: false, $id: 'TemporalOptimisationScenario', title: 'TemporalOptimisationScenario',
    description: 'Temporal twins: the settings of decisionVars over the horizon that best meet the weighted objectives within the constraints, judged on the simulated future. '
      + 'An objective on a variable is its mean over the horizon; metricSqlQuery and metric constraints run over the simulated future (table `df`: one row per path and step, the variables plus '
      + '`step` and `timestamp`); a constraint\'s `temporal` window limits it to those steps, and with intervalSteps it must hold in each block of them. Levers range over their '
      + 'variableConstraints, else over the values the data took. Answer: `details.plan[]` {stepIndex, timestamp, settings} per step, `forecasts[variable][]` per step (doing nothing, '
      + 'optimised, their paired difference with its interval), `objectives`, `constraints` per block, `feasible`, all from a re-simulation on fresh paths.',
  },
);

export const TemporalCounterfactualScenarioSchema = Type.Object(
  {
    type: Type.Literal('temporal_counterfactual'),
    samples: Type.Optional(WindowRecordsOf('The observed history (default: the data the version keeps, up to historyUntil)')),
    historyUntil: Type.Optional(Type.Number({ description: 'Without samples: the stored history up to this time (ms since the epoch, or the integer time value; default the end of the data)' })),
    targets: Type.Array(
      Type.Object({ ...Target.properties, timestamp: Type.Optional(Type.Number({ description: 'When the target should have held (a step of the history; default its last step)' })) }, { additionalProperties: false }),
      { minItems: 1, maxItems: 20 },
    ),
    changeBy: Type.Optional(Type.Number({ description: 'Changes fall at or before this time (default the step before the earliest target)' })),
    changeSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 59, description: 'How many steps up to changeBy changes may fall on (default 10)' })),
    maxChanges: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'Most changes (a variable set at one step) in the answer (default 2)' })),
    constraints: Type.Optional(Fixed),
  },
  {
    additionalProperties: false, $id: 'TemporalCounterfactualScenario', title: 'TemporalCounterfactualScenario',
    description: 'Temporal twins: the fewest changes (a variable set at one step, at or before changeBy) that would have brought the targets to the wanted values later in an observed history, '
      + 'by abduction of every variable\'s noise on the observed path. The answer is re-simulated on that path: `details.achieved`, `changes[]` {variable, index, timestamp, from, to}, '
      + '`targets[]` {variable, timestamp, target, matchMode, observed, counterfactual, met}, `changeWindow`.',
  },
);

export const TemporalExplanationScenarioSchema = Type.Object(
  {
    type: Type.Literal('temporal_explanation'),
    explanationMode: literals(['discovery', 'impact', 'directional'] as const, '`discovery` needs effectVariable, `impact` causeVariable, `directional` both'),
    effectVariable: Type.Optional(Name),
    causeVariable: Type.Optional(Name),
    segments: Type.Optional(Type.Array(SegmentSchema, { maxItems: 20, description: 'Repeats the analysis over the simulated paths whose values at the step of the change meet the conditions' })),
    horizonSteps: Type.Optional(Type.Integer({ minimum: 2, maximum: 200, description: 'Lags reported, and the steps a held change runs before its total effect is read (default max(12, 6 x maxLag))' })),
    samples: Type.Optional(Type.Integer({ minimum: 100, maximum: 20_000, description: 'Monte Carlo paths (default 2,000)' })),
  },
  {
    additionalProperties: false, $id: 'TemporalExplanationScenario', title: 'TemporalExplanationScenario',
    description: 'Temporal twins: which past changes of which variables drive a variable. Per cause and outcome: `lagEffects[]` {lag, effect, bounds} (the impulse response: the effect k steps '
      + 'after the cause is raised by 1 std for one step, or moved from its least to its most frequent class), `totalEffect` (the change held, read at the end of the horizon), `peakLag`, '
      + '`direct` (the outcome mechanism\'s coefficients on the cause per lag), `share`. `discovery` ranks the causes of effectVariable (`details.causes`), `impact` the outcomes of '
      + 'causeVariable in their own std (`details.effects`), `directional` adds `directEffect` (every variable in between held on its path), `indirectEffect`, `mediators` and the '
      + '`paths` with their lags. A categorical outcome\'s effect is the change in the probability of its most frequent class. `segments[]` repeat it per segment.',
  },
);


export const TemporalRootCauseScenarioSchema = Type.Object(
  {
    type: Type.Literal('temporal_root_cause_analysis'),
    targetVariable: Name,
    samples: WindowRecords,
    anomalyTimestep: Type.Optional(Type.Integer({ minimum: 0, description: 'The record (index into samples) whose target value is diagnosed; default the last' })),
    targetFpr: Type.Optional(TargetFpr),
  },
  {
    additionalProperties: false, $id: 'TemporalRootCauseScenario', title: 'TemporalRootCauseScenario',
    description: 'Temporal twins: why targetVariable was anomalous at one step of a window. The model is unrolled over the steps before it, so each variable at each earlier step is a '
      + 'separate suspect: `details.rootCauses[]` {variable, rank, stepsBefore, timestamp, contribution, noiseScore}, most likely first (a fault upstream in time is blamed where it happened, '
      + 'not at the target\'s echo of it); `anomalous` and `anomalyBasis` (target or upstream, as in RootCauseScenario), `targetAnomalous`, `targetScore` (tail probability), `depth` (steps looked back).',
  },
);

export const TemporalAnomalyScenarioSchema = Type.Object(
  {
    type: Type.Literal('temporal_anomaly_detection'),
    samples: WindowRecords,
    targetFpr: Type.Optional(TargetFpr),
    startStep: Type.Optional(Type.Integer({ minimum: 0, description: 'First record scanned (index into samples; default 0); earlier records still serve as lags' })),
    endStep: Type.Optional(Type.Integer({ minimum: 0, description: 'Last record scanned, included (default the last)' })),
    autoRcaTopK: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Diagnose the K least probable flagged steps (temporal root cause analysis)' })),
  },
  {
    additionalProperties: false, $id: 'TemporalAnomalyScenario', title: 'TemporalAnomalyScenario',
    description: 'Temporal twins: which steps of a window are improbable given the steps before them. A step is scored by its variables\' innovations (what each did beyond what its '
      + 'inputs predict), so a step of normal operation is flagged with probability targetFpr and an echo of an earlier shock raises no second alarm. `details.steps[]` '
      + '{index, timestamp, score, isAnomaly, variables[] (flagged steps), rootCause (autoRcaTopK)}; `anomalyCount`, `diagnosed` (indices). A stable shape for monitoring loops.',
  },
);

export const HealthMonitorScenarioSchema = Type.Object(
  {
    type: Type.Literal('causal_health_monitor'),
    samples: Type.Optional(WindowRecords),
    windowSteps: Type.Optional(Type.Integer({ minimum: 20, maximum: 2000, description: 'Without samples: watch the last windowSteps steps of the data the version keeps (default 200)' })),
    targetFpr: Type.Optional(Type.Number({ minimum: 0.0001, maximum: 0.1, default: 0.01, description: 'The chance that an unchanged link or variable raises an alert in one run (default 0.01)' })),
    minSegmentSteps: Type.Optional(Type.Integer({ minimum: 3, maximum: 500, description: 'The shortest lasting departure scanned for, in steps (default 10); single-step spikes are tested apart' })),
    confidenceLevel: Type.Optional(Confidence),
  },
  {
    additionalProperties: false, $id: 'HealthMonitorScenario', title: 'HealthMonitorScenario',
    description: 'Temporal twins: do the mechanisms the version learned still hold? Each link (its coefficient) and each numeric variable (its level, its noise, single-step outliers) gets '
      + 'an AlertType: `spike` (one step departs), `sustained` (a departure since some step that holds steady), `worsening` (a departure that grows), `improving` (a departure that has '
      + 'faded), `normal`. `details.links[]` {source, target, lag, alertType, pValue, evidence}, `details.variables[]` {variable, ...}; evidence {measure, then, now (values with '
      + 'intervals), since {index, timestamp}, steps}; `counts` per type; `unmonitored` (too few observed steps). A categorical variable is watched as a whole by its fit '
      + '(measure `logLikelihood`: the mean log-probability of the classes seen, learned against now), and each link into it by how its input moves the classes '
      + '(measure `classProbabilitySlope`: the probability of class `category` per unit of the input, or for a categorical input in its category `inputCategory` against the '
      + 'others; then as the version predicts it over the departure, now as the window shows it, with its interval).',
  },
);

/** Temporal panels: the temporal family's members and `environments`, answered with each environment's mechanisms and history. */
const TEMPORAL_PER_ENVIRONMENT = 'Multi-environment temporal twins: answered in each environment with its own mechanisms and its own history (`outputs.details.environments`, keyed by environment), '
  + 'and combined over them weighted by their steps (`results`, step by step).';

export const PanelForecastScenarioSchema = Type.Object(
  {
    ...(({ type: _type, ...members }) => members)(ForecastScenarioSchema.properties),
    type: Type.Literal('panel_forecast'),
    environments: Type.Optional(Environments),
    aggregateMode: Type.Optional(literals(['sum', 'avg', 'min', 'max'] as const, 'The statistic of the combined series over the environments at each timestamp (default avg)')),
  },
  {
    additionalProperties: false, $id: 'PanelForecastScenario', title: 'PanelForecastScenario',
    description: 'Multi-environment temporal twins: each environment\'s simulated future from the end of its own data (or from originTimestamp), and the combined series. Outputs: `results[var]` the '
      + 'combined series, one record per timestamp, its Monte Carlo paths aggregated over the environments forecasting that timestamp by aggregateMode (numeric variables; '
      + '`details.combined[var][]` {timestamp, environments} says how many); `details.environments[key]` {origin, summary}; each environment\'s records are the run\'s panel result '
      + 'artifacts: GET .../export/csv streams them as one wide file (environment, timestamp, row, then per target its value and bounds).',
  },
);

export const TemporalPanelInterventionScenarioSchema = PanelFamily('panel_intervention', TemporalInterventionScenarioSchema, 'TemporalPanelInterventionScenario', `What if over time, per environment (members as TemporalInterventionScenario). ${TEMPORAL_PER_ENVIRONMENT}`);
export const TemporalPanelOptimisationScenarioSchema = PanelFamily('panel_optimisation', TemporalOptimisationScenarioSchema, 'TemporalPanelOptimisationScenario', `The best plan per environment (members as TemporalOptimisationScenario). ${TEMPORAL_PER_ENVIRONMENT}`);
export const TemporalPanelCounterfactualScenarioSchema = PanelFamily('panel_counterfactual', TemporalCounterfactualScenarioSchema, 'TemporalPanelCounterfactualScenario', `Best action in each environment\'s history (members as TemporalCounterfactualScenario; without samples, each environment\'s own stored history). ${TEMPORAL_PER_ENVIRONMENT}`);
export const TemporalPanelExplanationScenarioSchema = PanelFamily('panel_explanation', TemporalExplanationScenarioSchema, 'TemporalPanelExplanationScenario', `Why over time, per environment (members as TemporalExplanationScenario). ${TEMPORAL_PER_ENVIRONMENT}`);

/** A window family on temporal panels: `samples` shared by every environment, or `panelSamples` per environment key. */
const PanelWindowFamily = <T extends string>(type: T, base: { properties: Record<string, TSchema> }, id: string, description: string) => {
  const { type: _type, samples: _samples, ...members } = base.properties;
  return Type.Object(
    {
      type: Type.Literal(type),
      samples: Type.Optional(WindowRecordsOf('The window, shared by every environment')),
      panelSamples: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 2000 }), WindowRecordsOf('The window of this environment'), {
        description: 'Per environment key, its own window (records as samples). Without `environments`, the environments are the keys given here; an environment named without a window of its own uses `samples`',
      })),
      ...members,
      environments: Type.Optional(Environments),
    },
    { additionalProperties: false, $id: id, title: id, description },
  );
};
const WINDOW_PER_ENVIRONMENT = 'Answered in each environment with its own mechanisms on its window (`outputs.details.environments`, keyed by environment); `results` combine them only when one window is shared.';

export const PanelRootCauseScenarioSchema = PanelWindowFamily('panel_root_cause_analysis', TemporalRootCauseScenarioSchema, 'PanelRootCauseScenario', `Root causes over time per environment (members as TemporalRootCauseScenario). ${WINDOW_PER_ENVIRONMENT}`);
export const PanelAnomalyScenarioSchema = PanelWindowFamily('panel_anomaly_detection', TemporalAnomalyScenarioSchema, 'PanelAnomalyScenario', `Anomaly scan over time per environment (members as TemporalAnomalyScenario). ${WINDOW_PER_ENVIRONMENT}`);
export const PanelHealthMonitorScenarioSchema = PanelWindowFamily('panel_causal_health_monitor', HealthMonitorScenarioSchema, 'PanelHealthMonitorScenario', `Mechanism health per environment (members as HealthMonitorScenario; without a window, each environment's own recent data). ${WINDOW_PER_ENVIRONMENT}`);

export const SubmitSimulationBody = Body({
  digitalTwinId: Name,
  digitalTwinVersionId: Name,
  scenario: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'The question: an object discriminated by `type` (spec "Scenario type values"), one of the *Scenario components of this document for the twin\'s kind. `scenarioType`, an unknown family, a family of another twin kind, unknown variables, ' +
      'a bare {variable, value} without valueSpec, more than one range or a range on a non-numeric variable answer 422.',
  }),
  environmentGroupIds: Type.Optional(Type.Array(Name, { maxItems: 100, description: 'Multi-environment twins: saved environment groups narrowing the run to their environments (several groups: the union of theirs), intersected with the scenario\'s `environments` when it names some; an empty intersection answers 400, an unknown group 422. Frozen into `environmentGroupSnapshots` at submit. Single-environment twins ignore them, unknown ids included.' })),
  webhookUrl: Type.Optional(WebhookUrl),
  userQuery: Type.Optional(Type.String({ maxLength: 4000, description: 'The question in the user’s words, kept on the run' })),
});
export type SubmitSimulation = Static<typeof SubmitSimulationBody>;

export const SimulationAcceptedSchema = Type.Object(
  {
    runId: Type.String(),
    status: literals(RUN_STATUSES),
    createdAt: Timestamp,
    links: Type.Object({ self: Type.String(), results: Type.String(), cancel: Type.String() }),
  },
  { $id: 'SimulationAccepted', title: 'SimulationAccepted' },
);
export type SimulationAccepted = Static<typeof SimulationAcceptedSchema>;

const ResultRecordSchema = Type.Object({
  timestamp: Nullable(Type.Number()),
  prediction: Nullable(Type.Union([Type.Number(), Type.String()])),
  std: Nullable(Type.Number()),
  probabilities: Type.Optional(Type.Array(Type.Number())),
  categories: Type.Optional(Type.Array(Type.String(), { description: 'The classes `probabilities` and the bounds follow' })),
  lowerBound: Nullable(Type.Union([Type.Number(), Type.Array(Type.Number())], { description: 'A number for a continuous target; per class for a categorical one' })),
  upperBound: Nullable(Type.Union([Type.Number(), Type.Array(Type.Number())])),
  confidenceLevel: Type.Number(),
  row: Type.Optional(Type.Integer({ minimum: 0, description: 'A panel prediction whose records name their environment: the input record answered' })),
});

const EdgeRefSchema = Type.Object({ source: Type.String(), target: Type.String() });

const PossibleDifferenceSchema = Type.Object({
  difference: Type.Union([Type.Number(), Type.Array(Type.Number())], { description: 'The effect on this graph (per class for a categorical outcome)' }),
  lowerBound: Type.Union([Type.Number(), Type.Array(Type.Number())]),
  upperBound: Type.Union([Type.Number(), Type.Array(Type.Number())]),
  chosen: Type.Boolean({ description: 'true for the graph the twin chose (the point answer)' }),
  orientation: Type.Array(EdgeRefSchema, { description: 'How the graphs giving this effect orient the deciding edges' }),
});

/** The members every effect of an intervention, explanation (impact, directional) and optimisation answer carries. */
export const EffectIdentificationSchema = Type.Object(
  {
    identified: Type.Boolean({ description: 'true when every graph the data (and the fixed graph) cannot tell apart from the twin\'s gives this effect' }),
    basis: literals(['identified', 'chosen_dag'] as const, '`chosen_dag`: the point answer is the one of the graph the twin chose, one of `possibleDifferences`'),
    decidingEdges: Type.Array(EdgeRefSchema, { description: 'The reversible edges, as the twin has them, whose direction decides the effect: pin the one you know in the fixed graph and retrain' }),
    possibleDifferences: Type.Optional(Type.Array(PossibleDifferenceSchema, { description: 'Unidentified effects: the distinct effects over the class (IDA, Maathuis et al. 2009), each with its interval' })),
  },
  { $id: 'EffectIdentification', title: 'EffectIdentification', description: 'Whether an effect is decided by the data, and if not, its possible values and the edges that decide it' },
);

export const VersionOutputsSchema = Type.Object({
  results: Type.Record(Type.String(), Type.Array(ResultRecordSchema), { description: 'Per variable; prediction records align with the input rows' }),
  changepoints: Type.Record(
    Type.String(),
    Type.Array(Type.Object({
      stepIndex: Type.Integer({ description: 'Forecast step (0 = the first)' }),
      timestamp: Type.Number(),
      direction: literals(['up', 'down'] as const),
      magnitude: Type.Number({ description: 'The mean path\'s change at that step' }),
      primaryDriver: Type.String({ description: 'The model input whose change moved the variable most at that step: a variable (at any lag, the variable\'s own past included) or `season (period P)`' }),
      driverContribution: Type.Number({ description: 'That input\'s share of the change: coefficient x its change on the mean paths' }),
    })),
    { description: 'Forecasts: per variable, where the mean path turns (the change flips sign) or jumps. Empty on other families and static twins' },
  ),
  history: Type.Record(Type.String(), Type.Object({ timestamps: Type.Array(Type.Number()), values: Type.Array(Nullable(Type.Union([Type.Number(), Type.String()]))) }), {
    description: 'Forecasts: per variable, the observed trailing window before the first forecast step (up to 50 steps). Empty on other families and static twins',
  }),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'The family’s own answer: intervention {variables (baseline, intervened, effect with interval), metrics, and with segmentDefinitions ' +
      'segments [{id, units, share, variables, metrics, targeted?}]}; optimisation {recommendation (per lever: segment?, interventionType), ' +
      'objectives (with target: targetValue, targetMet), constraints, feasible, segments?}; with `conditions`, conditionedShare (the share of ' +
      'simulated units that met them); counterfactual {samples with changes and re-simulated targets}; ' +
      'explanation {drivers/effects/paths, segments}; root cause {samples with ranked root causes}; anomaly {samples with scores}; ' +
      'prediction {method}; forecast {origin, horizon, granularity, samples, actuals (when it starts inside the data)}; temporal_intervention {baseline (records per step), ' +
      'effects (per numeric outcome and step: mean, lowerBound, upperBound), metrics (baseline, intervened, difference), identification (per outcome: identified, decidingEdges and, when not identified, possibleDifferences: the effect by the last step under each direction of the deciding same-step links, refitted on the kept history), horizon, origin}. Every family records its `seed`. Each effect of an intervention (variables, metrics), an explanation in ' +
      'impact or directional mode (effects, totalEffect) and an optimisation (objectives) carries the members of EffectIdentification.',
  }),
});

export const OutputsSchema = Type.Record(Type.String(), VersionOutputsSchema, { description: 'Keyed by the version label used (e.g. 1.0.0)' });
export type Outputs = Static<typeof OutputsSchema>;

const ResultsSummarySchema = Type.Object({ summary: Type.String(), keyPoints: Type.Array(Type.String()) });

const runMembers = {
  id: Type.String(),
  organisationId: Type.String(),
  workspaceId: Type.String(),
  digitalTwinId: Type.String(),
  digitalTwinVersionIds: Type.Array(Type.String()),
  scenarioType: Type.String({ description: 'The scenario’s `type` (convenience copy)' }),
  userQuery: Nullable(Type.String()),
  createdAt: Timestamp,
  timeStarted: Nullable(Timestamp),
  timeCompleted: Nullable(Timestamp),
  status: literals(RUN_STATUSES, '`pending` -> `configuring` -> `configured` -> `running` -> `completed` | `failed` | `cancelled`'),
  error: Nullable(Type.String({ description: 'Why the run failed (set when `failed`)' })),
  progress: ProgressSchema,
  scenario: Type.Record(Type.String(), Type.Unknown()),
  outputsStorageType: Type.String({ description: '`inline`: outputs are stored with the run; `inline+datastore`: a forecast-shaped panel run, whose per-environment records are kept in the data store (csv export) and its combined results inline; `datastore`: a batch prediction, whose row results are a table in the data store (GET .../rows, .../rows/export/{format}) and whose outputs carry its summary and columns' }),
  resultsSummary: Nullable(ResultsSummarySchema),
  environmentGroupSnapshots: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), envKeys: Type.Array(Type.String()), droppedEnvKeys: Type.Array(Type.String()), notice: Type.Optional(Type.String()) }),
  ),
  executedByUserId: Type.String(),
  applicationExecutionId: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String({ description: 'The webhook’s origin only' })),
  seed: Type.Integer({ description: 'Seed of every random draw of the run: the same scenario and seed reproduce its answer' }),
  exportFormats: Type.Array(literals(['json', 'csv'] as const), { description: '`[]` while unfinished; `["json", "csv"]` for a completed forecast-shaped run on a multi-environment twin with its panel result artifacts; `["json"]` for any other completed run' }),
};

export const SimulationRunSchema = Type.Object(
  { ...runMembers, outputs: Nullable(OutputsSchema) },
  { $id: 'SimulationRun', title: 'SimulationRun' },
);
export type SimulationRun = Static<typeof SimulationRunSchema>;

/** What a poller reads: the run without its scenario and outputs (both may hold 100k rows). */
const { scenario: _scenario, ...statusMembers } = runMembers;
export const SimulationRunStatusSchema = Type.Object(statusMembers, { $id: 'SimulationRunStatus', title: 'SimulationRunStatus' });

/** A list item: the run without result payloads. */
export const SimulationRunSummarySchema = Type.Object(runMembers, { $id: 'SimulationRunSummary', title: 'SimulationRunSummary' });
export type SimulationRunSummary = Static<typeof SimulationRunSummarySchema>;

export const ListSimulationsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Page size, 1 to 1000' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  status: Type.Optional(literals(RUN_STATUSES)),
  scenarioType: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  digitalTwinId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});

export const SweepQuery = Type.Object({
  metric: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Curve to return; required when the run swept several (omit to list them with the digest)' })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Panel runs: the environment whose curves to read (required; omit it to list the environments). Single-environment runs refuse it (400).' })),
  filter: Type.Optional(Type.String({ maxLength: 256, description: 'Narrows the listing of metrics, or on a panel run without `environment` of environments (case-insensitive substring)' })),
});

/** Whether a curve is decided by the twin's class of DAGs (see the intervention answers' `identified`). */
const CurveIdentification = {
  identified: Type.Optional(Nullable(Type.Boolean({ description: 'true when every graph the data cannot tell apart from the twin\'s gives this curve; false when it rests on reversible edges (then `decidingEdges`); null for runs made before identification' }))),
  decidingEdges: Type.Optional(Type.Array(EdgeRefSchema, { description: 'The reversible edges, as the twin has them, whose direction decides the curve: pin the one you know in the fixed graph and retrain' })),
};

const SweepPointSchema = Type.Object({ value: Type.Number(), mean: Type.Number(), std: Type.Number(), lowerBound: Type.Number(), upperBound: Type.Number() });

export const SweepSchema = Type.Object(
  {
    runId: Type.String(),
    variable: Type.String({ description: 'The swept variable' }),
    steps: Type.Integer(),
    confidenceLevel: Type.Number(),
    metrics: Type.Array(Type.Object({ name: Type.String(), unit: Type.Optional(Type.String()), ...CurveIdentification }), { description: 'Curves the run holds (after `filter`)' }),
    metric: Nullable(Type.String({ description: 'The curve returned in `points` (null when listing)' })),
    unit: Type.Optional(Type.String()),
    ...CurveIdentification,
    points: Type.Array(SweepPointSchema, { description: 'Swept value, mean, standard deviation and confidence interval per grid point' }),
    environment: Type.Optional(Nullable(Type.String({ description: 'Panel runs: the environment of these curves; null while listing' }))),
    environments: Type.Optional(Type.Array(Type.String(), { description: 'Panel runs without `environment`: the environments with a sweep (after `filter`); name one to read its curves' })),
    digest: Type.Object({ from: Type.Number(), to: Type.Number(), bestValue: Nullable(Type.Number()), bestMean: Nullable(Type.Number()), curves: Type.Integer() }),
  },
  { $id: 'Sweep', title: 'Sweep' },
);

const Verdict = literals(['meets', 'misses', 'unscorable'] as const);

export const ScoreBody = Body({
  rows: Type.Optional(Records('Rows to score, keyed by variable (exactly one of rows, rowsTable and rowsFrom); on a static panel a row may name its environment in the environment columns')),
  rowsTable: Type.Optional(SampleTableSchema),
  rowsFrom: Type.Optional(RowsFromSchema),
  targets: Type.Array(Target, { minItems: 1, maxItems: 20 }),
  maxChanges: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'Most changes proposed per row that misses (default 2)' })),
  constraints: Type.Optional(Fixed),
  webhookUrl: Type.Optional(WebhookUrl),
});
export type ScoreRequestBody = Static<typeof ScoreBody>;

export const ScoreQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Rows of detail per page, 1 to 1000' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
});

export const ScoreSchema = Type.Object(
  {
    runId: Type.String(),
    digest: Type.Object({
      rows: Type.Integer(),
      verdicts: Type.Record(Type.String(), Type.Integer(), { description: 'Rows per verdict: meets, misses, unscorable' }),
      topDrivers: Type.Array(Type.Object({ variable: Type.String(), meanAbsContribution: Type.Number(), rows: Type.Integer() })),
      rowSummaries: Type.Array(Type.Object({ index: Type.Integer(), verdict: Verdict, summary: Type.String() })),
    }),
    rows: Type.Array(
      Type.Object({
        index: Type.Integer(),
        verdict: Verdict,
        predictions: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Null()])),
        drivers: Type.Array(Type.Object({ variable: Type.String(), contribution: Type.Number() })),
        changes: Type.Array(Type.Object({ variable: Type.String(), from: Type.Union([Type.Number(), Type.String(), Type.Null()]), to: Type.Union([Type.Number(), Type.String()]) })),
        reachable: Nullable(Type.Boolean()),
      }),
      { description: 'One page of per-row detail with full change lists' },
    ),
    pagination: Type.Object({ cursor: Nullable(Type.String()), hasMore: Type.Boolean(), total: Type.Integer() }),
  },
  { $id: 'Score', title: 'Score' },
);

export const ScenarioFromQueryBody = Body({ query: Type.String({ minLength: 1, maxLength: 2000, description: 'The question in plain English' }) });

export const ScenarioFromQuerySchema = Type.Object(
  {
    scenario: Type.Record(Type.String(), Type.Unknown(), { description: 'Ready to submit as `scenario` to POST /simulations' }),
    interpretation: Type.String({ description: 'How the question was read, in plain language' }),
    matched: Type.Array(Type.Object({ phrase: Type.String(), variable: Type.String() })),
    digitalTwinId: Type.String(),
    digitalTwinVersionId: Type.String(),
  },
  { $id: 'ScenarioFromQuery', title: 'ScenarioFromQuery' },
);

export const CancelledRunSchema = Type.Object({
  runId: Type.String(),
  status: literals(RUN_STATUSES, '`cancelled`, or the terminal state the run had already reached'),
});
