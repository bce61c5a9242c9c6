import { type Static, type TSchema, Type } from 'typebox';
import { Body, IdString, Nullable, PageQuery, Timestamp, literals, ref } from './common.js';

/** What a column means, whatever its name (spec: Ontology concept, `conceptClassification`). */
export const CONCEPT_CLASSIFICATIONS = ['identifier', 'measure', 'dimension', 'time', 'location', 'boolean', 'text', 'list'] as const;
export type ConceptClassification = (typeof CONCEPT_CLASSIFICATIONS)[number];

/** `anchor`: an entity that links sources (an identifier, a time or a place); `metric`: a measure defined by `metricSql`. */
export const CONCEPT_KINDS = ['standard', 'anchor', 'metric'] as const;
/** How a concept tends to enter a causal model (spec example `source`): see the README's semantic-layer section. */
export const SUGGESTED_ROLES = ['key', 'time', 'source', 'outcome', 'attribute', 'ignore'] as const;
export const TRUST_TIERS = ['exploratory', 'reviewed', 'certified'] as const;
export const CONDITION_OPERATORS = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'in', 'not_in'] as const;
export const ANCHOR_LOCATION_TYPES = ['latitude', 'longitude', 'coordinate', 'country', 'region', 'county', 'city', 'postal_code', 'address', 'continent', 'airport_code', 'unlocode'] as const;

const Name = Type.String({ minLength: 1, maxLength: 256 });
const Text = (description: string) => Type.String({ maxLength: 10_000, description });
const Fraction = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });
/** Statistics and settings: documented members, others allowed (spec: "Additional properties are allowed"). */
const OpenObject = (description: string) => Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), { description });

export const ConformanceSchema = Type.Object(
  {
    rowsScanned: Type.Integer({ minimum: 0 }),
    nullRate: Fraction('Share of the scanned rows with no value'),
    allowedValueCoverage: Nullable(Fraction('Share of the non-null values that are the concept\'s canonical values or their aliases; null when the concept lists none')),
    unresolvedValues: Type.Array(Type.Object({ value: Type.String(), count: Type.Integer({ minimum: 0 }) }), { description: 'The most frequent values that are neither canonical nor an alias (at most 20)' }),
    inferredGranularity: Nullable(Type.String({ description: 'Time columns: second, minute, hour, day, week, month, quarter or year' })),
    granularityMatch: Nullable(Type.Boolean({ description: 'Time columns: whether the granularity is the concept\'s' })),
    duplicateAnchorKeys: Type.Integer({ minimum: 0, description: 'Key values that occur on more than one row (a primary key should have none)' }),
    unitNote: Nullable(Type.String()),
    verdict: literals(['pass', 'warn', 'fail'] as const, '`fail`: most values are unresolved or the field is mostly empty; `warn`: some are, or a primary key repeats'),
  },
  { additionalProperties: false },
);

export const FieldMappingSchema = Type.Object(
  {
    sourceId: IdString('The source the field belongs to'),
    datasetId: Type.Optional(Nullable(IdString('Set when the mapping was made for a dataset\'s output column'))),
    field: Type.String({ minLength: 1, maxLength: 256 }),
    status: literals(['confirmed', 'suggested', 'rejected'] as const, 'Extraction confirms what it matched with confidence >= 0.8 and suggests the rest'),
    source: literals(['ingest', 'manual', 'split'] as const, 'Who made the mapping: extraction at ingest, a person, or a split'),
    confidence: Fraction('How sure the match is'),
    evidence: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 20, description: 'Why the field is this concept, one reason per item' }),
    valueMap: Nullable(Type.Record(Type.String({ maxLength: 1000 }), Type.String({ maxLength: 1000 }), { description: 'Value as written in the field to the canonical value' })),
    canonicalField: Nullable(Type.String({ maxLength: 256 })),
    scopeFields: Type.Array(Type.String({ maxLength: 256 }), { maxItems: 50 }),
    precedence: Type.Integer({ minimum: 0, description: 'When several fields of one source map the concept, the lowest wins' }),
    keyRole: Nullable(literals(['primary', 'foreign'] as const, '`primary`: the field identifies the source\'s rows; `foreign`: it refers to the entity')),
    conformance: Nullable(ConformanceSchema),
    decidedBy: Nullable(Type.String({ maxLength: 256 })),
    decidedAt: Nullable(Timestamp),
  },
  { additionalProperties: false },
);
export type FieldMapping = Static<typeof FieldMappingSchema>;

export const ConditionSchema = Type.Object({ variable: Type.String({ maxLength: 256 }), operator: literals(CONDITION_OPERATORS), value: Type.Unknown() }, { additionalProperties: false });

export const RelationshipRuleSchema = Type.Object(
  {
    ruleType: literals(['conditional_values', 'range'] as const, '`conditional_values`: when `condition` holds, this concept takes one of `allowedValues`; `range`: its values lie in [minValue, maxValue] (under `condition` when set)'),
    sourceVariable: Type.String({ maxLength: 256, description: 'The field the rule constrains, as `sourceId.field`' }),
    condition: Nullable(ConditionSchema),
    allowedValues: Type.Array(Type.Unknown(), { maxItems: 100 }),
    minValue: Nullable(Type.Number()),
    maxValue: Nullable(Type.Number()),
    confidence: Fraction('Share of the rows meeting the condition that keep the rule'),
    support: Type.Integer({ minimum: 0, default: 0, description: 'Rows meeting the condition' }),
    strength: literals(['hard', 'soft'] as const, '`hard`: no row breaks it; `soft`: a few do'),
    violationRate: Fraction('1 - confidence'),
    source: literals(['mined', 'manual'] as const),
    cycle: Nullable(Type.String({ maxLength: 256, description: 'For cyclic values (months, weekdays): the cycle name' })),
  },
  { additionalProperties: false },
);

export const TemporalPrerequisiteSchema = Type.Object(
  {
    conceptId: Nullable(IdString('The other time concept')),
    sourceId: IdString('Where it was seen'),
    field: Type.String({ maxLength: 256, description: 'This concept\'s field in that source' }),
    otherField: Type.String({ maxLength: 256, description: 'The other time field in that source' }),
    relation: literals(['precedes', 'follows'] as const, 'This concept\'s value is at or before (`precedes`) or at or after (`follows`) the other\'s on every row with both'),
    support: Type.Integer({ minimum: 0, description: 'Rows with both values' }),
    violationRate: Fraction('Share of those rows that break the order'),
  },
  { additionalProperties: false },
);

export const ValueMappingSchema = Type.Object({ canonicalValue: Type.String({ maxLength: 1000 }), aliases: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 200 }) }, { additionalProperties: false });
const AnchorLinkSchema = Type.Object(
  {
    anchorConceptId: IdString('The anchor concept (an identifier, time or place) this concept describes'),
    relation: literals(['attribute_of', 'measured_at', 'located_at'] as const),
    sourceId: IdString('The source where both fields are'),
    viaField: Type.String({ maxLength: 256, description: 'The anchor\'s field in that source' }),
  },
  { additionalProperties: false },
);
export const OntologyRefSchema = Type.Object(
  { ontologyId: Type.String({ maxLength: 256 }), ontologyVersion: Type.String({ maxLength: 64 }), canonicalId: Type.String({ maxLength: 256 }), installScope: Type.String({ maxLength: 64 }) },
  { additionalProperties: false },
);

const optional = <P extends Record<string, TSchema>>(properties: P) =>
  Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)])) as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> };

/** A mapping as a person writes it: the field, and whatever else they decide (the rest takes defaults: confirmed, manual, confidence 1). */
const FieldMappingInput = Type.Object(
  { ...optional(FieldMappingSchema.properties), sourceId: FieldMappingSchema.properties.sourceId, field: FieldMappingSchema.properties.field },
  { additionalProperties: false },
);

/** The members a person may write (POST and PUT), with mappings of the given shape: everything else is the service's. */
const writableMembers = <M extends TSchema>(mapping: M) => ({
  description: Nullable(Text('What the concept means')),
  conceptClassification: literals(CONCEPT_CLASSIFICATIONS),
  conceptKind: literals(CONCEPT_KINDS),
  anchorConceptLinks: Type.Array(AnchorLinkSchema, { maxItems: 100 }),
  schemaFieldName: Type.String({ maxLength: 256, description: 'The canonical column name' }),
  schemaType: Type.String({ maxLength: 64, description: 'The schema entry type: text, integer, decimal, boolean, date, datetime, array' }),
  schemaSubtype: Nullable(Type.String({ maxLength: 64 })),
  metadata: OpenObject('Statistics and settings (categories, minValue, maxValue, isUnique, isCyclic, locationType, unit, valueClass, ts* time profile ...); `enrichments.canonicalValues` is the forward enrichment\'s status and progress (ConceptEnrichment), written by the service only'),
  lockedMetadataFields: Type.Array(Type.String({ maxLength: 256 }), { maxItems: 200, description: 'metadata members re-extraction leaves as they are' }),
  lockedConceptFields: Type.Array(Type.String({ maxLength: 256 }), { maxItems: 50, description: 'Concept members re-extraction leaves as they are' }),
  fieldMappings: Type.Array(mapping, { maxItems: 1000 }),
  derivedInfo: Nullable(OpenObject('For derived concepts: how they are computed')),
  metricSql: Nullable(Type.String({ maxLength: 10_000, description: 'A metric concept\'s formula in the anchor query language: aggregates of names combined with + - * / and numbers (e.g. `sum(amount) / countDistinct(Customer)`); checked when written (422), named in queries like a column. Only with conceptKind metric.' })),
  relationshipRules: Type.Array(RelationshipRuleSchema, { maxItems: 500 }),
  temporalPrerequisites: Type.Array(TemporalPrerequisiteSchema, { maxItems: 200 }),
  suggestedRole: Nullable(literals(SUGGESTED_ROLES)),
  trustTier: literals(TRUST_TIERS),
  ontologyRef: Nullable(OntologyRefSchema),
  layerIds: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }),
  valueMappings: Type.Array(ValueMappingSchema, { maxItems: 1000 }),
});
const writable = writableMembers(FieldMappingSchema);
const writableInput = writableMembers(FieldMappingInput);

export const ConceptSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    workspaceId: Type.String(),
    name: Type.String(),
    ...writable,
    detectedMetadata: OpenObject('What the last extraction found, whatever was edited or locked since'),
    detectedConceptStructure: Type.Object({ temporalPrerequisites: Type.Array(TemporalPrerequisiteSchema), suggestedRole: Nullable(literals(SUGGESTED_ROLES)) }),
    lastEditedBy: Nullable(Type.String({ description: 'The user who last changed it; null when only extraction has' })),
    lastEditedAt: Nullable(Timestamp),
    lineageDrift: Nullable(
      Type.Object({
        fields: Type.Array(Type.String(), { description: 'Locked members whose value extraction now finds different' }),
        detected: OpenObject('What extraction found for them'),
        detectedAt: Timestamp,
      }, { description: 'Set when re-extraction disagrees with a locked (user-edited) member' }),
    ),
    editVersion: Type.Integer({ minimum: 0, description: 'Bumped on every change; a write naming an older one answers 409' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'OntologyConcept', title: 'OntologyConcept' },
);
export type Concept = Static<typeof ConceptSchema>;

export const ConceptListQuery = Type.Object(
  { ...PageQuery, sourceId: Type.Optional(IdString('Only concepts with a field mapping for this source')) },
  { additionalProperties: false },
);

export const CreateConceptBody = Body({ name: Name, ...optional(writableInput) });
export type CreateConcept = Static<typeof CreateConceptBody>;

export const PutConceptBody = Body({
  _id: IdString('The concept id: must be the id in the path'),
  ownerId: Type.Optional(Type.String({ maxLength: 64, description: 'Accepted for compatibility (default `system`); concepts belong to their workspace' })),
  name: Type.Optional(Name),
  editVersion: Type.Optional(Type.Integer({ minimum: 0, description: 'The editVersion the change was made against: 409 when the concept has moved on; omitted, the change applies to the current one' })),
  ...optional(writableInput),
});
export type PutConcept = Static<typeof PutConceptBody>;

export const SplitConceptBody = Body({
  fieldMapping: Type.Object(
    { ...optional(FieldMappingSchema.properties), field: Type.String({ minLength: 1, maxLength: 256 }), sourceId: Type.Optional(IdString('The source of the field (required unless datasetId names a dataset over one source)')) },
    { additionalProperties: false, description: 'Which mapping to move out (sourceId and field; datasetId instead of sourceId names the dataset\'s single source); the other members, when given, replace the moved mapping\'s' },
  ),
  name: Type.Optional(Name),
});
export type SplitConcept = Static<typeof SplitConceptBody>;

export const ConceptSplitSchema = Type.Object(
  { original: ref(ConceptSchema), created: ref(ConceptSchema) },
  { $id: 'ConceptSplit', title: 'ConceptSplit', description: 'The concept without the mapping, and the new concept holding it' },
);

export const DownstreamSchema = Type.Object(
  {
    datasets: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), writtenAgainst: Type.Integer({ description: 'The concept editVersion the dataset was written with' }) }), {
      description: 'Datasets using the concept: reads now return the new editVersion; a PATCH of their sources must name it',
    }),
    twins: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), datasetId: Type.String() }), { description: 'Twins learning from those datasets: their trained versions keep the meaning they learned; a new version uses the change' }),
  },
  { $id: 'ConceptDownstream', title: 'ConceptDownstream' },
);
export type Downstream = Static<typeof DownstreamSchema>;

export const CatalogConceptSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    schemaFieldName: Type.String(),
    schemaType: Type.String(),
    classification: Type.String(),
    fieldMappings: Type.Array(Type.Object({ tableId: Type.String({ description: 'The source id (a catalog table)' }), field: Type.String() })),
    metadata: OpenObject('As on the concept'),
  },
  { $id: 'CatalogConcept', title: 'CatalogConcept' },
);

export const CatalogGraphSchema = Type.Object(
  {
    nodes: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), schemaType: Type.String(), classification: Type.String(), suggestedRole: Nullable(Type.String()) })),
    edges: Type.Array(
      Type.Object({
        type: literals(['anchor', 'temporal_prerequisite'] as const, '`anchor`: the source concept describes the target anchor; `temporal_prerequisite`: the source concept\'s time precedes the target\'s'),
        source: Type.String(),
        target: Type.String(),
        via: Type.Array(Type.Object({ sourceId: Type.String(), field: Type.String() }), { description: 'Where the link was seen' }),
      }),
    ),
  },
  { $id: 'CatalogGraph', title: 'CatalogGraph' },
);

/** The enrichments a concept can run (spec: metadata `enrichments`, "kind such as forward"). */
export const ENRICHMENT_KINDS = ['forward'] as const;
export const ENRICHMENT_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
/** Where a concept's enrichment status is kept: `metadata.enrichments[ENRICHMENT_NAME]`. */
export const ENRICHMENT_NAME = 'canonicalValues';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
export const EnrichmentFieldSchema = Type.Object(
  {
    sourceId: Type.String(),
    field: Type.String(),
    distinctTotal: Count('Distinct values of the field'),
    matchedCount: Count('Of them, those resolved to a canonical value'),
    unmatchedCount: Count('Those that are none of the concept\'s values (kept as written)'),
    unmatched: Type.Array(Type.String(), { description: 'Some unmatched values (at most 20): add them to `valueMappings` and enrich again' }),
    skipped: Nullable(Type.String({ description: 'Why the field was not resolved (no longer linked, not text, too many values); null when it was' })),
  },
  { additionalProperties: false },
);
export const EnrichmentStatusSchema = Type.Object(
  {
    kind: literals(ENRICHMENT_KINDS, '`forward`: every value written in the concept\'s fields resolved to its canonical value'),
    status: literals(ENRICHMENT_STATUSES),
    jobId: Nullable(Type.String({ description: 'The `concept_enrichment` job' })),
    requestedAt: Timestamp,
    completedAt: Nullable(Timestamp),
    distinctTotal: Count('Distinct values over the fields resolved so far'),
    matchedCount: Count('Of them, resolved to a canonical value'),
    unmatchedCount: Count('Of them, none of the concept\'s values'),
    fields: Type.Array(EnrichmentFieldSchema),
    error: Nullable(Type.String()),
  },
  { $id: 'ConceptEnrichment', title: 'ConceptEnrichment', additionalProperties: false, description: `A concept's enrichment, kept at \`metadata.enrichments.${ENRICHMENT_NAME}\`` },
);
export type EnrichmentStatus = Static<typeof EnrichmentStatusSchema>;
export type EnrichmentField = Static<typeof EnrichmentFieldSchema>;

export const EnrichConceptBody = Body({
  kind: Type.Optional(literals(ENRICHMENT_KINDS, 'Default `forward`')),
  webhookUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
});
export type EnrichConcept = Static<typeof EnrichConceptBody>;
