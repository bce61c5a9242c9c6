/**
 * Environments of multi-environment twins and the groups saved on a twin (spec "Digital twin": environment group;
 * Endpoints: `GET .../environments`, `GET .../environment-groups`, `POST .../environment-groups/resolve`).
 * Bodies inline their member schemas (the validator compiles each body alone); responses reference the components.
 */
import { type Static, type TSchema, Type } from 'typebox';
import { Body, Nullable, Timestamp, literals, ref } from './common.js';

const CellValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number()], {
  description: 'A value of an environment column, compared as text: a number matches the cell written in its shortest form (`12`, `0.5`), so 12 and "12" are the same value',
});

export const ENVIRONMENT_KEY_FORM =
  'An environment key is `column=value` for each of the twin\'s `environmentColumns`, in their order, joined by `;` (`region=north;store=12`); ' +
  '`%`, `;` and `=` inside a column name or value are percent-encoded (`%25`, `%3B`, `%3D`), so a key parses back unambiguously. Numbers are written in their shortest form.';

export const DEFAULT_AGREEMENT_THRESHOLD = 0.5;
const AgreementThreshold = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

// ---------------------------------------------------------------------------------------------------------------
// Environments as learning read them.
// ---------------------------------------------------------------------------------------------------------------

const VariableStatsSchema = Type.Object({
  mean: Nullable(Type.Number()),
  std: Nullable(Type.Number()),
  min: Nullable(Type.Number()),
  max: Nullable(Type.Number()),
  missing: Type.Integer({ minimum: 0, description: 'Rows without a value' }),
}, { description: 'Over the environment\'s rows with a value; mean, std, min and max are null for categorical variables' });

export const EnvironmentSchema = Type.Object(
  {
    key: Type.String({ description: ENVIRONMENT_KEY_FORM }),
    values: Type.Record(Type.String(), Type.String(), { description: 'Environment column -> its value in this environment, as text' }),
    nRows: Type.Integer({ minimum: 0, description: 'Rows of the environment in the version\'s data' }),
    timeSpan: Nullable(
      Type.Object({
        start: Type.String({ description: 'First timestamp (ISO, or the integer index as text)' }),
        end: Type.String(),
        steps: Type.Integer({ minimum: 0 }),
      }),
      { description: 'Temporal panels: the first and last time and the steps between; null on static panels' },
    ),
    stats: Type.Record(Type.String(), VariableStatsSchema, { description: 'Per modelled variable: the statistics `statFilters` filter on' }),
    hasEvidence: Type.Boolean({ description: 'Whether the environment has rows enough to judge its edges; graph slices count only these' }),
  },
  { $id: 'Environment', title: 'Environment', description: `One combination of the twin's environment column values, as a version's learning read it. ${ENVIRONMENT_KEY_FORM}` },
);
export type Environment = Static<typeof EnvironmentSchema>;

export const EnvironmentListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Page size, 1 to 1000' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Opaque cursor from a previous page; it keeps paging the version the first page read' })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Only environments whose key contains this text (case-insensitive; matched against the key as written and with its values decoded)' })),
  },
  { additionalProperties: false },
);
export type EnvironmentListQuery = Static<typeof EnvironmentListQuery>;

/** A page of environments and the version they were read from. */
export const EnvironmentListSchema = Type.Object({
  data: Type.Array(ref(EnvironmentSchema), { description: 'Sorted by key' }),
  pagination: Type.Object({
    cursor: Nullable(Type.String({ description: 'Opaque; pass back as query parameter `cursor` for the next page' })),
    hasMore: Type.Boolean(),
    total: Type.Integer({ minimum: 0, description: 'Environments matching `q`' }),
  }),
  versionId: Nullable(Type.String({ description: 'The version whose environments these are; null when no version of the twin has read its data yet' })),
  version: Nullable(Type.String({ description: 'Its `major.minor.patch`' })),
  environmentColumns: Type.Array(Type.String(), { description: 'The twin\'s environment columns, in key order' }),
  profiled: Type.Boolean({ description: 'Whether the version has read its data as a panel (run its pipeline); false: `data` is empty' }),
  rowsWithoutEnvironment: Nullable(Type.Integer({ minimum: 0, description: 'Rows of the version\'s data left out because an environment column had no value; null when not profiled' })),
});
export type EnvironmentList = Static<typeof EnvironmentListSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Group definitions: which environments a group holds.
// ---------------------------------------------------------------------------------------------------------------

export const STAT_NAMES = ['rows', 'mean', 'std', 'min', 'max', 'missing'] as const;
export const STAT_OPS = ['lt', 'lte', 'gt', 'gte', 'eq', 'ne'] as const;
export type StatName = (typeof STAT_NAMES)[number];
export type StatOp = (typeof STAT_OPS)[number];

const statFilterMembers = {
  variable: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'A modelled variable of the twin; omit it for `rows`' })),
  stat: literals(STAT_NAMES, '`rows` (the environment\'s row count), or the variable\'s `mean`, `std`, `min`, `max` (numeric variables) or `missing` (rows without a value)'),
  op: literals(STAT_OPS, '`lt` <, `lte` <=, `gt` >, `gte` >=, `eq` =, `ne` !='),
  value: Type.Number(),
};
const STAT_FILTER_TEXT = 'An environment meets the filter when `stat op value` holds; a statistic that is null (the mean of a categorical variable) meets no filter.';

export const StatFilterSchema = Type.Object(statFilterMembers, { $id: 'StatFilter', title: 'StatFilter', description: STAT_FILTER_TEXT });
export type StatFilter = Static<typeof StatFilterSchema>;

export const GROUP_MODES = ['environments', 'columnValues', 'statFilters'] as const;
export type GroupMode = (typeof GROUP_MODES)[number];

const THRESHOLD_RULE =
  'The share of a group\'s environments an edge must hold in for a graph slice (0 to 1, default 0.5). A group keeps one value: its top-level `agreementThreshold`. ' +
  'In a create or update body the top-level member wins over `definition.agreementThreshold`, which is read only when the top-level one is absent; the stored definition repeats the group\'s value.';

const definitionMembers = <F extends TSchema>(filter: F) => ({
  mode: literals(GROUP_MODES, 'Which member selects the environments: `environments` (listed ones), `columnValues` (allowed values per column) or `statFilters` (statistics); that member is required, the others refused'),
  columnValues: Type.Optional(Type.Record(Type.String(), Type.Array(CellValue, { minItems: 1, maxItems: 1000 }), {
    minProperties: 1,
    description: 'Mode `columnValues`: environment column -> its allowed values. An environment matches when each named column has one of its values; columns not named are free.',
  })),
  environments: Type.Optional(Type.Array(Type.Record(Type.String(), CellValue, { minProperties: 1 }), {
    minItems: 1, maxItems: 10_000,
    description: 'Mode `environments`: each item a map environment column -> value. An item naming only some environment columns matches every environment with those values (`{"region": "north"}` holds all stores of the north).',
  })),
  statFilters: Type.Optional(Type.Array(filter, { minItems: 1, maxItems: 100, description: 'Mode `statFilters`: an environment matches when it meets every filter' })),
  agreementThreshold: Type.Optional(AgreementThreshold(THRESHOLD_RULE)),
});

export const EnvironmentGroupDefinitionSchema = Type.Object(definitionMembers(ref(StatFilterSchema)), {
  $id: 'EnvironmentGroupDefinition',
  title: 'EnvironmentGroupDefinition',
  description: 'Which environments a group holds, matched against the environments a version read. Values are compared as text. Environment columns and statFilter variables must be the twin\'s (422).',
});
export type EnvironmentGroupDefinition = Static<typeof EnvironmentGroupDefinitionSchema>;

/** The definition as a request member (unknown members refused). */
const DefinitionBody = Type.Object(
  definitionMembers(Type.Object(statFilterMembers, { additionalProperties: false, description: STAT_FILTER_TEXT })),
  { additionalProperties: false, description: 'Which environments the group holds; see the EnvironmentGroupDefinition component' },
);

// ---------------------------------------------------------------------------------------------------------------
// Groups.
// ---------------------------------------------------------------------------------------------------------------

const GroupName = Type.String({ minLength: 1, maxLength: 300, pattern: '\\S', description: 'Unique within the twin (case-insensitive, spaces collapsed)' });
const SplitColumn = Nullable(Type.String({ minLength: 1, maxLength: 300, description: 'The environment column this group was split out by, when a client made it by splitting' }));
const SplitValue = Nullable(Type.String({ maxLength: 1000, description: 'The value of `splitColumn` this group holds (needs splitColumn)' }));

export const EnvironmentGroupSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    definition: ref(EnvironmentGroupDefinitionSchema),
    agreementThreshold: AgreementThreshold(THRESHOLD_RULE),
    createdAt: Timestamp,
    createdBy: Type.String(),
    updatedAt: Timestamp,
    splitColumn: SplitColumn,
    splitValue: SplitValue,
  },
  { $id: 'EnvironmentGroup', title: 'EnvironmentGroup', description: 'A saved selection of a multi-environment twin\'s environments, for graph slices and panel runs (`environmentGroupIds`)' },
);
export type EnvironmentGroup = Static<typeof EnvironmentGroupSchema>;

export const CreateEnvironmentGroupBody = Body({
  name: GroupName,
  definition: DefinitionBody,
  agreementThreshold: Type.Optional(AgreementThreshold(THRESHOLD_RULE)),
  splitColumn: Type.Optional(SplitColumn),
  splitValue: Type.Optional(SplitValue),
});
export type CreateEnvironmentGroup = Static<typeof CreateEnvironmentGroupBody>;

export const PatchEnvironmentGroupBody = Body({
  name: Type.Optional(GroupName),
  definition: Type.Optional(DefinitionBody),
  agreementThreshold: Type.Optional(AgreementThreshold(THRESHOLD_RULE)),
  splitColumn: Type.Optional(SplitColumn),
  splitValue: Type.Optional(SplitValue),
});
export type PatchEnvironmentGroup = Static<typeof PatchEnvironmentGroupBody>;

// ---------------------------------------------------------------------------------------------------------------
// Resolve: which environments a definition matches.
// ---------------------------------------------------------------------------------------------------------------

export const ResolveEnvironmentGroupBody = Body({
  definition: Type.Optional(DefinitionBody),
  groupId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A saved group of the twin (give it or `definition`, not both)' })),
  versionId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Match against this version\'s environments (default the newest version that has read its data)' })),
  agreementThreshold: Type.Optional(AgreementThreshold('Echoed as the threshold a slice of this selection would use; overrides the definition\'s and the group\'s')),
});
export type ResolveEnvironmentGroup = Static<typeof ResolveEnvironmentGroupBody>;

export const EnvironmentResolutionSchema = Type.Object(
  {
    versionId: Nullable(Type.String({ description: 'The version matched against; null when no version of the twin has read its data yet' })),
    version: Nullable(Type.String()),
    profiled: Type.Boolean({ description: 'Whether that version has read its data as a panel; false: nothing can match yet' }),
    groupId: Nullable(Type.String({ description: 'The group resolved, or null for an inline definition' })),
    envKeys: Type.Array(Type.String(), { description: 'The keys of the matched environments, sorted' }),
    environments: Type.Array(
      Type.Object({ key: Type.String(), values: Type.Record(Type.String(), Type.String()), nRows: Type.Integer({ minimum: 0 }), hasEvidence: Type.Boolean() }),
      { description: 'The matched environments, in `envKeys` order (their statistics are in the environments listing)' },
    ),
    matchedCount: Type.Integer({ minimum: 0 }),
    evidenceCount: Type.Integer({ minimum: 0, description: 'Matched environments with evidence: a graph slice of this selection answers 422 when it is 0' }),
    totalEnvCount: Type.Integer({ minimum: 0, description: 'Environments of the version' }),
    unknown: Type.Array(Type.String(), {
      description: 'Mode `environments`: the listed items that match no environment, in key form over the columns they name; empty for the other modes',
    }),
    agreementThreshold: AgreementThreshold('The body\'s value, else the definition\'s (inline) or the group\'s, else 0.5'),
  },
  { $id: 'EnvironmentResolution', title: 'EnvironmentResolution' },
);
export type EnvironmentResolution = Static<typeof EnvironmentResolutionSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Graph slice: the graph of a selection of environments.
// ---------------------------------------------------------------------------------------------------------------

const sliceDefinition = definitionMembers(Type.Object(statFilterMembers, { additionalProperties: false, description: STAT_FILTER_TEXT }));
export const GraphSliceBody = Body(
  {
    ...sliceDefinition,
    mode: Type.Optional(sliceDefinition.mode),
    groupId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A saved group of the twin, instead of an inline definition (`mode` and its member)' })),
    agreementThreshold: Type.Optional(AgreementThreshold('The share of the selected environments an edge must hold in to be kept (0 to 1, default 0.5); overrides the group\'s or the definition\'s')),
  },
  { description: 'An inline definition (`mode` with its member, as EnvironmentGroupDefinition) or `{groupId}`' },
);
export type GraphSlice = Static<typeof GraphSliceBody>;

export const GraphSliceSchema = Type.Object(
  {
    causalGraph: Type.Array(Type.Object({
      source: Type.String(),
      target: Type.String(),
      orientation: Type.String({ description: 'As on the version\'s graph' }),
      strength: Nullable(Type.Number({ description: 'Row-weighted mean over the selected environments where the edge holds of its standardised per-environment strength' })),
      agreementRate: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the selected environments with evidence where the edge holds' }),
      isEnvironmentGated: Type.Boolean({ description: 'The edge holds in some selected environments and not in others' }),
      environmentsHolding: Type.Integer({ minimum: 0 }),
    }), { description: 'The version\'s edges whose agreement within the selection reaches `agreementThreshold`; edges into categorical variables are judged by the whole panel (their agreement is the version\'s)' }),
    nodes: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'The version\'s nodes' }),
    envCount: Type.Integer({ minimum: 1, description: 'Selected environments with evidence (enough rows to judge their edges)' }),
    envKeys: Type.Array(Type.String(), { description: 'Their keys' }),
    sampleSize: Type.Integer({ minimum: 0, description: 'Rows of those environments' }),
    totalEnvCount: Type.Integer({ minimum: 0, description: 'Environments of the version' }),
    agreementThreshold: AgreementThreshold('The threshold applied'),
  },
  { $id: 'GraphSlice', title: 'GraphSlice' },
);
export type GraphSliceResult = Static<typeof GraphSliceSchema>;
