import { type Static, type TSchema, Type } from 'typebox';
import { Body, Nullable, Timestamp, literals, ref } from './common.js';
import { ColumnMetadataSchema, SchemaEntrySchema } from './sources.js';

/** Enumerations of the spec. */
export const COMPARISON_OPERATORS = [
  'Equal to', 'Not Equal to', 'Contains', 'Does not contain', 'Starts with', 'Ends with', 'Is Empty', 'Is not Empty',
  'Less than', 'Greater than', 'Less than or equal to', 'Greater than or equal to', 'Before', 'After',
  'Array contains', 'Array contains any', 'Array contains all', 'Array does not contain', 'Array does not contain any',
  'Array does not contain all', 'Array size equal to', 'Array size greater than', 'Array size less than',
] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];
export const AGGREGATE_FUNCTIONS = ['sum', 'avg', 'min', 'max', 'count', 'countDistinct', 'first', 'last', 'categoryShare'] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

const Column = (description = 'A column of the relation the operation applies to') => Type.String({ minLength: 1, maxLength: 300, description });
const Scalar = Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]);

export const FilterSchema = Type.Object(
  {
    column: Column(),
    comparisonOperator: literals(COMPARISON_OPERATORS),
    value: Type.Optional(
      Nullable(Type.Union([Scalar, Type.Array(Scalar, { maxItems: 1000 })], { description: 'Not needed by Is Empty / Is not Empty; a list for the "any"/"all" operators and for Equal to one of several values' })),
    ),
    correctType: Type.Optional(Type.Boolean({ default: false, description: 'Convert the value to the column type (e.g. "42" for an integer column) instead of refusing a value of another type' })),
  },
  { additionalProperties: false },
);
export type Filter = Static<typeof FilterSchema>;

/** Nesting depth of filter groups a dataset may use. */
export const FILTER_GROUP_DEPTH = 4;

/** Filter groups nest: a group's filters are filters or groups, up to FILTER_GROUP_DEPTH levels. */
function filterGroup(depth: number): TSchema {
  const member = depth <= 1 ? FilterSchema : Type.Union([FilterSchema, filterGroup(depth - 1)]);
  return Type.Object(
    { booleanOperator: literals(['AND', 'OR'] as const), filters: Type.Array(member, { maxItems: 200 }) },
    { additionalProperties: false, description: `Filters combined with AND or OR; groups nest up to ${depth} levels` },
  );
}
export interface FilterGroup {
  booleanOperator: 'AND' | 'OR';
  filters: Array<Filter | FilterGroup>;
}
export const FilterGroupSchema = Type.Unsafe<FilterGroup>(filterGroup(FILTER_GROUP_DEPTH));

export const AggregationSchema = Type.Object(
  {
    column: Column('The column aggregated'),
    function: literals(AGGREGATE_FUNCTIONS, 'categoryShare: each category\'s share of the non-null values in the group, as an object'),
    alias: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 300, description: 'Output column name; default <function>_<column>' }))),
    filter: Type.Optional(Nullable(Type.Union([FilterSchema, FilterGroupSchema], { description: 'Only rows matching it are aggregated' }))),
  },
  { additionalProperties: false },
);
export type Aggregation = Static<typeof AggregationSchema>;

const config = <T extends string, P extends Record<string, TSchema>>(type: T, description: string, properties: P) =>
  Type.Object({ type: Type.Literal(type), ...properties }, { additionalProperties: false, description });

export const OperationConfigSchema = Type.Union([
  config('filter', 'Keep the rows matching the filter group', { filterGroup: FilterGroupSchema }),
  config('select', 'Keep these columns, in this order, optionally renamed', {
    columns: Type.Array(Type.Object({ column: Column(), alias: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 300 }))) }, { additionalProperties: false }), { minItems: 1, maxItems: 1000 }),
  }),
  config('rename', 'Rename columns, keeping all others', {
    renames: Type.Array(Type.Object({ column: Column(), to: Type.String({ minLength: 1, maxLength: 300 }) }, { additionalProperties: false }), { minItems: 1, maxItems: 1000 }),
  }),
  config('derive', 'Add (or replace) a column computed by an expression', {
    column: Type.String({ minLength: 1, maxLength: 300, description: 'Name of the computed column' }),
    expression: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'Arithmetic (+ - * / %), comparisons (= != < <= > >=), and/or/not, literals (numbers, \'text\', true, false, null), columns by name or "quoted name", ' +
        'and the functions abs, round, floor, ceil, sqrt, exp, ln, log10, pow, least, greatest, coalesce, if, isNull, lower, upper, trim, length, concat, ' +
        'substring, toNumber, toText, year, month, day, hour, dayOfWeek, dateDiff(\'day\'|\'hour\'|\'minute\'|\'second\'|\'week\'|\'month\'|\'year\', from, to). Never SQL.',
    }),
  }),
  config('join', 'Join another source of the dataset on key columns; its remaining operations must come before the join', {
    rightSourceId: Type.String({ minLength: 1, maxLength: 64, description: 'A source of the dataset, consumed by the join' }),
    how: Type.Optional(literals(['inner', 'left'] as const, 'Default inner')),
    on: Type.Array(Type.Object({ left: Column(), right: Column() }, { additionalProperties: false }), { minItems: 1, maxItems: 20 }),
    suffix: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Appended to right columns whose names are taken; default _right' })),
  }),
  config('aggregate', 'Group rows and aggregate; the output has the group columns then the aggregations', {
    groupBy: Type.Array(Column(), { maxItems: 100 }),
    aggregations: Type.Array(AggregationSchema, { minItems: 1, maxItems: 200 }),
  }),
  config('sort', 'Order the rows (nulls last); later sorts replace earlier ones', {
    keys: Type.Array(Type.Object({ column: Column(), direction: Type.Optional(literals(['asc', 'desc'] as const)) }, { additionalProperties: false }), { minItems: 1, maxItems: 20 }),
  }),
  config('dedupe', 'Keep one row per distinct combination of columns (by the current order)', {
    columns: Type.Optional(Type.Array(Column(), { maxItems: 1000, description: 'Default: every column' })),
    keep: Type.Optional(literals(['first', 'last'] as const, 'Default first')),
  }),
]);
export type OperationConfig = Static<typeof OperationConfigSchema>;

export const OperationSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Generated (op_...) when omitted' })),
    sourceId: Type.String({ minLength: 1, maxLength: 64, description: 'The source whose rows the operation transforms' }),
    config: OperationConfigSchema,
  },
  { additionalProperties: false },
);

export const SourceVersionSchema = Type.Union([
  Type.Object({ kind: Type.Literal('latest') }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('pinned'), versionOrdinal: Type.Integer({ minimum: 1, description: 'The source as it was after this batch' }) }, { additionalProperties: false }),
]);

export const DatasetSourceSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'Source id (linked to the workspace)' }),
    type: Type.Optional(Type.Literal('source')),
    name: Type.Optional(Nullable(Type.String({ maxLength: 300, description: 'Ignored on input: the source\'s current name is returned' }))),
    conceptIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 1000 })),
    conceptVersions: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.Integer({ minimum: 0 }), { description: 'Exactly one entry per conceptId' })),
    version: Type.Optional(SourceVersionSchema),
  },
  { additionalProperties: false },
);

const Sources = Type.Array(DatasetSourceSchema, { maxItems: 50, description: 'The first source is the base; every other one must be joined into it' });
const Operations = Type.Array(OperationSchema, { maxItems: 200, description: 'Applied in order, each to the rows of its source' });
const Tags = Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 }));
const Name = Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' });

/** The members a create and an update share (all optional). */
const DatasetMembers = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  tags: Type.Optional(Tags),
  anchorConceptId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  sources: Type.Optional(Sources),
  operations: Type.Optional(Operations),
};

export const CreateDatasetBody = Body({ name: Name, ...DatasetMembers });
export type CreateDataset = Static<typeof CreateDatasetBody>;

export const PatchDatasetBody = Body({ name: Type.Optional(Name), ...DatasetMembers });
export type PatchDataset = Static<typeof PatchDatasetBody>;

export const ValidateDatasetBody = Body({ sources: Type.Optional(Sources), operations: Type.Optional(Operations) });
export type ValidateDataset = Static<typeof ValidateDatasetBody>;

/** Stored definitions as returned: every optional member filled in. */
export interface DatasetSource {
  id: string;
  type: 'source';
  name: string | null;
  conceptIds: string[];
  conceptVersions: Record<string, number>;
  version: { kind: 'latest' } | { kind: 'pinned'; versionOrdinal: number };
}
export interface Operation {
  id: string;
  sourceId: string;
  config: OperationConfig;
}

// Responses describe operation configs loosely (their exact shapes are the request schemas above), so that
// serialisation passes them through as stored.
const StoredOperation = Type.Object({
  id: Type.String(),
  sourceId: Type.String(),
  config: Type.Object({ type: Type.String() }, { additionalProperties: true, description: 'As sent; see the request schema of the operation types' }),
});
const StoredSource = Type.Object({
  id: Type.String(),
  type: Type.String(),
  name: Nullable(Type.String()),
  conceptIds: Type.Array(Type.String()),
  conceptVersions: Type.Record(Type.String(), Type.Integer()),
  version: Type.Object({ kind: Type.String(), versionOrdinal: Type.Optional(Type.Integer()) }),
});

export const DatasetSchema = Type.Object(
  {
    id: Type.String(),
    workspaceId: Type.String(),
    organisationId: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    tags: Nullable(Type.Array(Type.String())),
    anchorConceptId: Nullable(Type.String()),
    sources: Type.Array(StoredSource),
    operations: Type.Array(StoredOperation),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Dataset', title: 'Dataset' },
);
export type Dataset = Static<typeof DatasetSchema>;

const Schema = Type.Array(ref(SchemaEntrySchema));

export const DatasetMetadataSchema = Type.Object({
  schemaEntries: Schema,
  columnMetadata: Type.Record(Type.String(), ref(ColumnMetadataSchema)),
  rowCount: Type.Integer(),
});

export const OperationDetailSchema = Type.Object({
  id: Type.String(),
  sourceId: Type.String(),
  type: Type.String(),
  summary: Type.String({ description: 'What the operation does, in words' }),
  outputSchema: Schema,
});

export const EnrichedDatasetSchema = Type.Object({
  ...DatasetSchema.properties,
  outputSchema: Schema,
  columnMetadata: Type.Record(Type.String(), ref(ColumnMetadataSchema)),
  rowCount: Type.Integer(),
  operationDetails: Type.Array(OperationDetailSchema),
  concepts: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      description: Nullable(Type.String()),
      conceptClassification: Type.String(),
      editVersion: Type.Integer(),
      isAnchor: Type.Boolean({ description: 'The dataset\'s anchorConceptId' }),
      fields: Type.Array(Type.Object({ sourceId: Type.String(), field: Type.String(), status: Type.String() }), { description: 'The concept\'s mappings to fields of the dataset\'s sources' }),
      metadata: Type.Record(Type.String(), Type.Unknown()),
      valueMappings: Type.Array(Type.Object({ canonicalValue: Type.String(), aliases: Type.Array(Type.String()) })),
    }),
    { description: 'The concepts the dataset names (its sources\' conceptIds and its anchor), with their metadata' },
  ),
});

export const Row = Type.Record(Type.String(), Type.Unknown(), { description: 'One row: column name to value (datetimes as ISO-8601 UTC)' });

export const ValidationResultSchema = Type.Object({
  sourceSchemas: Type.Record(Type.String(), Schema, { description: 'Schema of each source before its operations' }),
  operationSchemas: Type.Array(Type.Object({ operationId: Type.String(), schema: Schema }), { description: 'Schema after each operation' }),
  finalSchema: Schema,
  preview: Type.Object({ rows: Type.Array(Row, { description: 'The first rows (at most 20)' }), rowCount: Type.Integer() }),
});

export const RecommendedDatasetSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  reason: Type.String({ description: 'Why it is recommended' }),
  sources: Type.Array(StoredSource),
  operations: Type.Array(StoredOperation),
});
