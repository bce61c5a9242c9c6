import { type Static, Type } from 'typebox';
import { Body, Nullable, Timestamp, literals, ref } from './common.js';
import { EnvironmentGroupSchema } from './environments.js';
import { WebhookUrl } from './jobs.js';
import { SchemaEntrySchema } from './sources.js';

export const TWIN_TYPES = ['static', 'temporal', 'multi-environment-temporal', 'multi-environment-static'] as const;
export type TwinType = (typeof TWIN_TYPES)[number];
export const VERSION_STATUSES = ['untrained', 'discovered', 'trained'] as const;

const Name = Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 });
const Variable = Type.String({ minLength: 1, maxLength: 300 });
const Edge = Type.Object(
  {
    source: Variable,
    target: Variable,
    lag: Type.Optional(Type.Integer({
      minimum: 0, maximum: 1000,
      description: 'Temporal twins: the lag in steps of the twin\'s granularity (source at t - lag causes target at t; 0 = the same step). Absent: any lag (a pin keeps the link at its strongest lag; a forbid excludes every lag). Static twins refuse it.',
    })),
  },
  { additionalProperties: false },
);
const Json = Type.Record(Type.String(), Type.Unknown());

export const SuggestedSimulationSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  scenario: Json,
  createdAt: Timestamp,
});

const StepAggregation = literals(['mean', 'sum'] as const, 'Multi-environment temporal twins whose environments are sampled at different step lengths: each finer environment is put on the coarsest step by the `mean` or the `sum` of its steps in each coarser one (sum for flows such as sales, mean for levels such as prices); null (default): such environments are refused');

export const DigitalTwinSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    workspaceId: Type.String(),
    name: Type.String(),
    normalizedName: Type.String({ description: 'Lower-cased, trimmed, inner spaces collapsed' }),
    type: literals(TWIN_TYPES),
    canonicalInputSchema: Type.Array(ref(SchemaEntrySchema), { description: 'The columns the twin models (identifiers, free text, dates and the time column left out)' }),
    tags: Tags,
    status: Type.String({ description: '`active`' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    suggestedSimulations: Type.Array(SuggestedSimulationSchema, { description: 'Questions worth asking, derived from the trained graph' }),
    suggestionsGeneratedAt: Nullable(Timestamp),
    environmentGroups: Type.Array(ref(EnvironmentGroupSchema), { description: 'Saved environment groups (multi-environment twins; managed under `.../environment-groups`)' }),
    autoUpdate: Type.Object({ enabled: Type.Boolean(), mode: Type.String() }),
    datasetId: Nullable(Type.String()),
    sourceId: Nullable(Type.String()),
    selectedTimeColumnName: Nullable(Type.String()),
    environmentColumns: Type.Array(Type.String()),
    shardCount: Type.Integer({ minimum: 1 }),
    stepAggregation: Type.Optional(Nullable(StepAggregation)),
    latestVersionId: Type.String({ description: 'The newest version' }),
    versionId: Type.Optional(Type.String({ description: 'Create responses only: the initial version 1.0.0' })),
  },
  { $id: 'DigitalTwin', title: 'DigitalTwin' },
);
export type DigitalTwin = Static<typeof DigitalTwinSchema>;

export const ORIENTATIONS = ['compelled', 'fixed', 'assumed', 'reversible'] as const;
/** Assumptions discovery may use to orient what the data's equivalence class leaves open. */
export const ORIENTATION_ASSUMPTIONS = ['non_gaussian_residuals'] as const;

export const RelationshipSchema = Type.Object({
  source: Type.String(),
  target: Type.String(),
  orientation: literals(
    ORIENTATIONS,
    'How the direction source -> target was decided. `compelled`: by the data (a v-structure, or Meek\'s rules from one): every graph that fits the data as well has it; on a temporal twin also by time (a lagged link: the past causes the present). '
      + '`fixed`: by the fixed graph (pinned there, or forced by pinned and forbidden edges). `assumed`: by the assumption named in `assumption` '
      + '(`non_gaussian_residuals`: in a linear model with non-Gaussian noise only one direction leaves the cause independent of the residual; LiNGAM, Shimizu et al. 2006), '
      + 'where the data alone leave it open; switch it off with the discovery\'s `orientationAssumptions: []`. `reversible`: the data fit target -> source equally well and the search chose this '
      + 'direction; answers whose effect depends on it say so (`identified` false, `possibleDifferences`, `decidingEdges`), and pinning the direction you know in the fixed graph decides it.',
  ),
  assumption: Type.Optional(literals(ORIENTATION_ASSUMPTIONS, 'The assumption an `assumed` orientation rests on')),
  strength: Nullable(Type.Number({ description: 'Standardised effect of source on target (signed for continuous pairs)' })),
  strengthStatus: Type.String({ description: '`measured` once estimated from data, `pinned` for a fixed edge not yet estimated' }),
  timeLagEffects: Type.Array(Type.Object({ lag: Type.Integer(), strength: Type.Number(), granularity: Nullable(Type.String()) }), {
    description: 'Temporal twins: each lag (in steps of `granularity`; 0 = the same step) at which source acts on target, with its standardized effect (its test\'s dependence before training). Empty on static twins.',
  }),
  cyclicalEffects: Type.Array(Type.Object({ frequency: Type.Number(), strength: Type.Number() }), {
    description: 'Temporal twins: seasonal waves in the target\'s mechanism, `frequency` in cycles per step (1 / period), `strength` the amplitude over the target\'s standard deviation.',
  }),
  confidence: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Share of bootstrap resamples that found this edge in this direction' })),
  agreementRate: Nullable(Type.Number({
    description: 'Multi-environment twins: the share of environments where the edge holds (each environment\'s coefficient read by a mixture of present and absent, so small environments whose own test '
      + 'would miss the edge do not lower it; an edge into a categorical variable with categorical inputs holds where a G test of its conditional independence rejects); '
      + 'null on single-environment twins and for edges into a categorical variable with a numeric input',
  })),
  isEnvironmentGated: Type.Boolean({
    description: 'Multi-environment twins: the mechanism differs across environments, tested: present in some and absent in others (likelihood ratio against present everywhere), '
      + 'or of materially different strength (Cochran\'s Q, with a spread across environments of at least half the mean coefficient); Benjamini-Hochberg over the graph\'s edges',
  }),
});
export type Relationship = Static<typeof RelationshipSchema>;

export const NodeSchema = Type.Object({
  name: Type.String(),
  nodeType: Type.String({ description: '`observed`' }),
  type: Type.String({ description: '`continuous` or `categorical`' }),
  categories: Nullable(Type.Array(Type.String())),
  latentClusterId: Nullable(Type.String()),
  environmentColumns: Type.Array(Type.String(), { description: 'Multi-environment twins: the twin\'s environment columns when this variable\'s mechanism changes across environments (the environment points to it in discovery: its level, an input\'s strength or its noise differs; or an edge into it is gated); empty otherwise' }),
  isDerived: Type.Boolean(),
  symbolicEquation: Nullable(Type.String({ description: 'The fitted mechanism, e.g. `y = 1.2 + 0.8*x + N(0, 0.5^2)`' })),
  derivedInfo: Nullable(Json),
  parentImpacts: Nullable(Type.Record(Type.String(), Type.Number(), { description: 'Per parent: standardised impact on this node' })),
});
export type Node = Static<typeof NodeSchema>;

const Diff = Type.Object({ type: Type.String({ description: '`added`, `removed` or `changed`' }), key: Type.String(), before: Type.Unknown(), after: Type.Unknown() });
export type ChangelogDiff = Static<typeof Diff>;

export const ChangelogSchema = Type.Object({
  temporalDependenciesDiffs: Type.Array(Diff),
  fixedSubGraphDiffs: Type.Array(Diff),
  causalGraphDiffs: Type.Array(Diff),
  nodesDiffs: Type.Array(Diff),
  evaluationDiffs: Type.Array(Diff),
});
export type Changelog = Static<typeof ChangelogSchema>;

export const EvaluationSchema = Type.Object({
  modelType: Type.String({ description: '`cbn` (static twins) or `temporal-cbn`' }),
  nodeMetrics: Type.Record(Type.String(), Type.Record(Type.String(), Type.Number()), {
    description: 'Per variable on held-out data: mse, mae, mape, r2 (numeric) or accuracy, precision, recall, f1Score, auc, brierScore (categorical). Temporal twins: one step ahead '
      + 'on the time-ordered tail, plus `mseHorizon` (numeric: the mean squared error of the mean forecast over 1..horizonSteps steps, from several origins in the tail) or `accuracyHorizon` (categorical)',
  }),
  globalMetrics: Type.Record(Type.String(), Type.Number(), { description: 'Means over the variables; temporal twins add horizonSteps, forecastOrigins and testSteps' }),
  skippedReason: Nullable(Type.String()),
  skipReasons: Type.Array(Type.String()),
  nEvalPoints: Type.Integer(),
});

export const FixedSubGraphSchema = Type.Object({
  relationships: Type.Array(Edge, { description: 'Edges pinned present: discovery never removes them, training always fits them' }),
  antiRelationships: Type.Array(Edge, { description: 'Edges forbidden: never added in that direction' }),
});
export type FixedSubGraph = Static<typeof FixedSubGraphSchema>;

export const DiscoverySummarySchema = Type.Object({
  alpha: Type.Number(),
  maxDepth: Nullable(Type.Integer()),
  maxLag: Type.Optional(Type.Integer({ description: 'Temporal twins: the largest lag (in steps) the search considered' })),
  timeBudgetSeconds: Type.Number(),
  bootstrapSamples: Type.Integer(),
  orientationAssumptions: Type.Optional(Type.Array(literals(ORIENTATION_ASSUMPTIONS), { description: 'Assumptions allowed to orient edges the data left open' })),
  copies: Type.Optional(Type.Array(Type.Object({ column: Type.String(), copyOf: Type.String() }), {
    description: 'Columns that repeat another exactly in the training rows (their values map one to one and repeat, or one is an affine map of the other, with the same rows missing). '
      + 'The search ran on one column of each group (`copyOf`: the first, unless the fixed graph says otherwise) and joined each copy to it by one edge (`copyOf` -> `column`, `orientation: "reversible"`): the data cannot tell '
      + 'which of the two causes the other, nor which of them carries the other edges, and answers that depend on it are `identified: false`. '
      + 'Pin the edge between the two from the one that acts (`code -> label` when the label only records the code) to decide: the one that acts is searched and carries the other edges. '
      + 'A copy named by another pinned or forbidden edge is the one searched.',
  })),
  testsRun: Type.Integer(),
  depthReached: Type.Integer(),
  timedOut: Type.Boolean(),
  seconds: Type.Number(),
  nRows: Type.Integer(),
});

export type DiscoverySummary = Static<typeof DiscoverySummarySchema>;

export const TwinVersionSchema = Type.Object(
  {
    id: Type.String(),
    twinId: Type.String(),
    organisationId: Type.String(),
    workspaceId: Type.String(),
    versionMajor: Type.Integer(),
    versionMinor: Type.Integer(),
    versionPatch: Type.Integer(),
    version: Type.String({ description: '`major.minor.patch`' }),
    status: literals(VERSION_STATUSES, 'What has been learned: `untrained` -> `discovered` (graph) -> `trained` (fitted model, ready to simulate)'),
    createdAt: Timestamp,
    createdBy: Type.String(),
    derivedFromVersionId: Nullable(Type.String()),
    changelog: ChangelogSchema,
    datasetId: Nullable(Type.String()),
    sourceId: Nullable(Type.String()),
    type: literals(TWIN_TYPES),
    inputFields: Type.Array(Type.String()),
    canonicalInputSchema: Type.Array(ref(SchemaEntrySchema)),
    temporalDependencies: Nullable(Json, {
      description: 'Temporal twins: `maxLag`, `links` [{source, target, lag, pValue, dependence, orientation (`time` | `compelled` | `fixed` | `reversible`)}] (every lagged and same-step link, '
        + 'a variable\'s own past included) and `seasonal` [{variable, period (steps), strength}]. Null on static twins.',
    }),
    timeSeriesMetadata: Nullable(Json, {
      description: 'Temporal twins: the series profile: `axis` (time or index), `granularity`, `every`, `start`, `end`, `steps`, `observedSteps`, `rowsWithoutTime`, '
        + '`duplicateTimestampRows` and how they were combined (`aggregation`: the mean of numbers, the most frequent category), `irregular`, `gaps` {count, missingSteps, longestSteps, missingShare}, '
        + '`missingShare` per variable and `seasonalPeriods` [{variable, period, strength}].',
    }),
    granularity: Nullable(Type.String({ description: 'Temporal twins: the step of the series (`second` .. `year`, `step` for an integer time column; `15 minute` for a multiple)' })),
    fixedSubGraph: FixedSubGraphSchema,
    variableRoles: Type.Object({ sources: Type.Array(Type.String(), { description: 'Variables with no parents' }), targets: Type.Array(Type.String(), { description: 'Variables with no children' }) }),
    derivedColumns: Type.Array(Json),
    dataSignature: Nullable(Type.String({ description: 'sha256 of the training data as read' })),
    configSignature: Nullable(Type.String({ description: 'sha256 of the fixed graph and learning options' })),
    nTrainSamples: Nullable(Type.Integer()),
    causalGraph: Type.Array(RelationshipSchema),
    reversibleEdgeCount: Type.Integer({ minimum: 0, description: 'Edges of `causalGraph` whose direction the data and the fixed graph leave open (`orientation` `reversible`)' }),
    nodes: Type.Array(NodeSchema),
    evaluation: Nullable(EvaluationSchema, { description: 'Held-out metrics of the fitted model (multi-environment twins: of the pooled model; per environment in panelEvaluation)' }),
    panelEvaluation: Nullable(Json, {
      description: 'Multi-environment twins, after training: each environment\'s mechanisms checked on its own held-out rows (`testFraction` of each). `environments`: per key, `nTrain`, `nTest` '
        + 'and `nodeMetrics` (as `evaluation`\'s, where the test rows reach 20); `spread`: per continuous variable, the mean, std, min and max across environments of its held-out mse '
        + '(environments with at least 5 test rows); `pooling`: per continuous variable, the held-out mse of the partially pooled mechanisms (`partial`), of the pooled model (`pooled`) '
        + 'and of each environment fitted alone (`separate`), over all environments and over the small ones (`smallPartial`, `smallPooled`, `smallSeparate`: training rows below the median). Null on single-environment twins.',
    }),
    discovery: Nullable(DiscoverySummarySchema),
    discoveredAt: Nullable(Timestamp),
    trainedAt: Nullable(Timestamp),
  },
  { $id: 'TwinVersion', title: 'TwinVersion' },
);
export type TwinVersion = Static<typeof TwinVersionSchema>;

export const CreateTwinBody = Body({
  name: Name,
  type: Type.Optional(literals(TWIN_TYPES, 'Default `static`. Every type can be discovered and trained: `temporal` and `multi-environment-temporal` need `selectedTimeColumnName`, the multi-environment types `environmentColumns` (422 without them).')),
  tags: Type.Optional(Tags),
  datasetId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  sourceId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Models a tabular source directly' }))),
  selectedTimeColumnName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 300 }))),
  environmentColumns: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20 })),
  shardCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
  stepAggregation: Type.Optional(Nullable(StepAggregation)),
});
export type CreateTwin = Static<typeof CreateTwinBody>;

export const PatchTwinBody = Body({ name: Type.Optional(Name), tags: Type.Optional(Tags) });
export type PatchTwin = Static<typeof PatchTwinBody>;

export const CreateVersionBody = Body({
  bump: Type.Optional(literals(['major', 'minor', 'patch'] as const, 'Which number to raise above the twin\'s newest version (default `patch`)')),
  baseVersionId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Version to derive from (default the newest): its fixed graph and data binding are copied' }))),
  datasetId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Learn from another dataset of the workspace' }))),
});
export type CreateVersion = Static<typeof CreateVersionBody>;

export const PatchFixedGraphBody = Body({
  addEdges: Type.Optional(Type.Array(Edge, { maxItems: 1000, description: 'Pin these edges present (any earlier forbid of the same edge must be cleared in the same request or first)' })),
  removeEdges: Type.Optional(Type.Array(Edge, { maxItems: 1000, description: 'Forbid these edges (source -> target): remove them from what discovery may find. To drop a pin instead, use clearEdges' })),
  clearEdges: Type.Optional(Type.Array(Edge, { maxItems: 1000, description: 'Drop any pin or forbid of these edges (applied first)' })),
});
export type PatchFixedGraph = Static<typeof PatchFixedGraphBody>;

const DiscoveryMembers = {
  alpha: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 0.5, description: 'Significance level of the independence tests (default 0.05)' })),
  maxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: 'Largest conditioning set (default: no cap)' })),
  timeBudgetSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 86_400, description: 'Wall-clock budget of the search (default 300)' })),
  bootstrapSamples: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, description: 'Half-samples of the rows (drawn without replacement) rediscovered in parallel; an edge\'s confidence is its share of them (default 16; 0 = no confidence). Temporal twins rediscover contiguous half-length windows of the series instead (rows of a series are not exchangeable), at most 8' })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 })),
  orientationAssumptions: Type.Optional(Type.Array(literals(ORIENTATION_ASSUMPTIONS), {
    uniqueItems: true, maxItems: ORIENTATION_ASSUMPTIONS.length,
    description: 'Assumptions that may orient edges the data leave reversible (default `["non_gaussian_residuals"]`: a reversible edge between continuous variables is oriented when a '
      + 'bootstrap test finds non-Gaussian residuals decide it at a 1% family-wise level; Gaussian data orient nothing). `[]` switches them off. Such edges say `orientation: "assumed"`.',
  })),
};
const TemporalMembers = {
  maxLag: Type.Optional(Type.Integer({
    minimum: 1, maximum: 50,
    description: 'Temporal twins: the largest lag in steps to search (default from the series length: 1 under 500 steps, 2 under 5,000, else 3; raised to cover a seasonal period of at most 7 steps). Static twins ignore it.',
  })),
};
const TrainMembers = {
  nonlinear: Type.Optional(Type.Boolean({ description: 'Add squares and products of continuous parents to each continuous mechanism (default false)' })),
  testFraction: Type.Optional(Type.Number({ minimum: 0.05, maximum: 0.5, description: 'Held-out share of rows for the evaluation (default 0.2)' })),
};

export const DiscoverBody = Body({ ...DiscoveryMembers, ...TemporalMembers, webhookUrl: Type.Optional(WebhookUrl) });
export type Discover = Static<typeof DiscoverBody>;
export const TrainBody = Body({ ...TrainMembers, seed: DiscoveryMembers.seed, webhookUrl: Type.Optional(WebhookUrl) });
export type Train = Static<typeof TrainBody>;
export const RunPipelineBody = Body({
  versionId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Version to learn (default the newest)' })),
  ...DiscoveryMembers,
  ...TemporalMembers,
  ...TrainMembers,
  webhookUrl: Type.Optional(WebhookUrl),
});
export type RunPipeline = Static<typeof RunPipelineBody>;
