import { type Static, Type } from 'typebox';
import { Body, Nullable, Timestamp, ref } from './common.js';

export const DataFormatSchema = Type.Union([Type.Literal('Tabular'), Type.Literal('Folder')]);

/** Schema entry (spec, Source): one column as the service understands it. */
export const SchemaEntrySchema = Type.Object(
  {
    field: Type.String(),
    type: Type.String(),
    subtype: Nullable(Type.String()),
    availableTypes: Type.Array(Type.String()),
    isIndex: Type.Boolean(),
    categories: Nullable(Type.Array(Type.String())),
    aliases: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    displayWidth: Nullable(Type.Number()),
    originalFormat: Nullable(Type.String()),
    displayFormat: Nullable(Type.String()),
    unit: Nullable(Type.String()),
    unitModifier: Nullable(Type.String()),
    dateOrderAssumed: Nullable(Type.Boolean()),
  },
  { $id: 'SchemaEntry', title: 'SchemaEntry' },
);

const OptionalNumber = Type.Optional(Nullable(Type.Number()));
const Counts = Type.Record(Type.String(), Type.Number());

/** Column metadata (spec, Source): statistics computed by the data engine; members depend on the column type. */
export const ColumnMetadataSchema = Type.Object(
  {
    dtype: Type.String({ description: 'Storage type in the data engine' }),
    categoryOccurences: Type.Optional(Counts),
    distribution: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'Histogram: "from-to" -> count' })),
    rangeFrom: Type.Optional(Nullable(Type.Union([Type.Number(), Type.String()]))),
    rangeTo: Type.Optional(Nullable(Type.Union([Type.Number(), Type.String()]))),
    mean: OptionalNumber,
    stringPattern: Type.Optional(Nullable(Type.String({ description: 'Most common shape: letters as A, digits as 9' }))),
    jsonObjectFraction: OptionalNumber,
    cardinality: Type.Number(),
    nullFraction: Type.Number(),
    processing: Nullable(Type.String()),
    metadataStatus: Type.String(),
    elementType: Type.Optional(Nullable(Type.String())),
    minSize: OptionalNumber,
    maxSize: OptionalNumber,
    avgSize: OptionalNumber,
    medianSize: OptionalNumber,
    p95Size: OptionalNumber,
    nullCount: OptionalNumber,
    emptyCount: OptionalNumber,
    totalElementCount: OptionalNumber,
    sizeDistribution: Type.Optional(
      Type.Object({ empty: Nullable(Type.Number()), oneToThree: Nullable(Type.Number()), fourToTen: Nullable(Type.Number()), elevenToFifty: Nullable(Type.Number()), fiftyPlus: Nullable(Type.Number()) }),
    ),
    uniqueElementCount: OptionalNumber,
    avgUniquePerRow: OptionalNumber,
    elementOccurences: Type.Optional(Counts),
    elementMin: OptionalNumber,
    elementMax: OptionalNumber,
    elementMean: OptionalNumber,
    elementSum: OptionalNumber,
    elementStddev: OptionalNumber,
  },
  { $id: 'ColumnMetadata', title: 'ColumnMetadata' },
);

export const BatchRangeSchema = Type.Object({
  hash: Type.String({ description: 'sha256 of the uploaded bytes' }),
  fileName: Nullable(Type.String()),
  uploadedAt: Timestamp,
  rowStart: Type.Integer(),
  rowEnd: Type.Integer(),
});

export const SourceSchema = Type.Object(
  {
    id: Type.String(),
    workspaceId: Nullable(Type.String({ description: 'The workspace it was created in' })),
    organisationId: Type.String(),
    name: Type.String(),
    parentSourceId: Nullable(Type.String()),
    dataSource: Type.String({ description: 'Where the data comes from: upload, inline, connector:<type>, extraction' }),
    dataFormat: DataFormatSchema,
    description: Nullable(Type.String()),
    richDescription: Nullable(Type.Object({ markdown: Type.String(), widgets: Type.Array(Type.Unknown()) })),
    schemaEntries: Type.Array(ref(SchemaEntrySchema)),
    ontologyMode: Type.Union([Type.Literal('auto'), Type.Literal('manual')]),
    documentCount: Type.Integer({ description: 'Rows of a tabular source, files of a folder' }),
    columnMetadata: Type.Record(Type.String(), ref(ColumnMetadataSchema)),
    extension: Nullable(Type.String()),
    totalSize: Type.Integer({ description: 'Bytes received' }),
    createdAt: Timestamp,
    lastSaved: Timestamp,
    virtual: Type.Boolean(),
    ontologyStatus: Nullable(Type.String()),
    ontologyError: Nullable(Type.String()),
    extractionStatus: Nullable(Type.String()),
    extractionError: Nullable(Type.String()),
    pageCount: Nullable(Type.Integer()),
    derivedFromDatasetIds: Type.Array(Type.String()),
    derivedVia: Nullable(Type.String()),
    extractionRecipe: Nullable(Type.Unknown()),
    pendingAnnotationCount: Type.Integer(),
    ontologyExcludedFields: Type.Array(Type.Object({ field: Type.String(), reason: Type.String(), source: Type.String() })),
    batchRanges: Type.Array(BatchRangeSchema),
    currentVersionId: Nullable(Type.String()),
    latestVersionOrdinal: Type.Integer(),
  },
  { $id: 'Source', title: 'Source' },
);
export type Source = Static<typeof SourceSchema>;

export const OrgSourceSchema = Type.Object(
  { ...SourceSchema.properties, linkedWorkspaceIds: Type.Array(Type.String()) },
  { $id: 'OrgSource', title: 'OrgSource' },
);
export type OrgSource = Static<typeof OrgSourceSchema>;

export const CreateSourceBody = Body({
  name: Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' }),
  dataFormat: Type.Optional(DataFormatSchema),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  parentSourceId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  ontologyMode: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('manual')], { description: '`auto` (default): every batch of rows is described as ontology concepts by an `ontology_extraction` job; `manual`: concepts are left to people' })),
});
export type CreateSource = Static<typeof CreateSourceBody>;

/** Inline rows (POST .../sources/from-data); bounded by the JSON body limit. */
export const FromDataBody = Body({
  name: Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  ontologyMode: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('manual')], { description: '`auto` (default): every batch of rows is described as ontology concepts by an `ontology_extraction` job; `manual`: concepts are left to people' })),
  rows: Type.Array(Type.Record(Type.String({ minLength: 1, maxLength: 300 }), Type.Unknown()), {
    minItems: 1,
    maxItems: 100_000,
    description: 'Records keyed by column; columns are the union of the keys, in order of first appearance',
  }),
});
export type FromData = Static<typeof FromDataBody>;

export const LinkSourceBody = Body({ workspaceId: Type.String({ minLength: 1, maxLength: 64, description: 'The workspace to link the source to' }) });

export const SOURCE_SORT_KEYS = ['createdAt', 'name', 'lastSaved', 'totalSize', 'documentCount'] as const;

export const SourceFileSchema = Type.Object(
  {
    id: Type.String(),
    sourceId: Type.String({ description: 'The folder source holding it' }),
    fileName: Nullable(Type.String()),
    format: Type.String({ description: 'csv, tsv, ndjson, json or parquet' }),
    bytes: Type.Integer(),
    hash: Type.String({ description: 'sha256 of the bytes' }),
    uploadedAt: Timestamp,
    extractedSourceId: Nullable(Type.String({ description: 'The tabular source extracted from it, once extracted' })),
  },
  { $id: 'SourceFile', title: 'SourceFile' },
);
export type SourceFile = Static<typeof SourceFileSchema>;

export const UploadResultSchema = Type.Object({
  source: ref(SourceSchema),
  batch: Nullable(BatchRangeSchema, { description: 'The batch a tabular source received (null for a folder)' }),
  file: Nullable(ref(SourceFileSchema), { description: 'The file a folder received (null for a tabular source)' }),
  duplicate: Type.Boolean({ description: 'True when the same bytes had been uploaded before: nothing was added' }),
});

export const ExtractBody = Body({
  fileIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 1000, description: 'Default: every file not yet extracted' })),
});

export const ExtractionResultSchema = Type.Object({
  folder: ref(SourceSchema),
  extracted: Type.Array(ref(SourceSchema), { description: 'New tabular sources, one per file, derived from the folder' }),
  failed: Type.Array(Type.Object({ fileId: Type.String(), fileName: Nullable(Type.String()), error: Type.String() }), { description: 'Files that could not be read as tables: nothing was kept of them' }),
  skipped: Type.Array(Type.Object({ fileId: Type.String(), fileName: Nullable(Type.String()), extractedSourceId: Type.String() }), { description: 'Files extracted before' }),
});

/** The types a column can be re-typed to. Arrays and JSON objects come only from inference. */
export const RETYPE_TARGETS = ['text', 'categorical', 'integer', 'decimal', 'boolean', 'date', 'datetime'] as const;
export type RetypeTarget = (typeof RETYPE_TARGETS)[number];

export const RetypeBody = Body({
  field: Type.String({ minLength: 1, maxLength: 300, description: 'The column to re-type' }),
  type: Type.Union(RETYPE_TARGETS.map((t) => Type.Literal(t)), {
    description: 'The new type. Dates are read from YYYY-MM-DD text, datetimes from ISO-8601 text; arrays and objects come only from inference.',
  }),
});
