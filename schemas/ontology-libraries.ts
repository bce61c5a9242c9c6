/**
 * Shared ontology libraries: bundled, versioned sets of standard concepts (customer, country, currency...) that a
 * workspace installs as its own concepts, each carrying `ontologyRef` and the install's layer id.
 */
import { type Static, Type } from 'typebox';
import { Body, Nullable, Timestamp, literals, ref } from './common.js';
import { CONCEPT_CLASSIFICATIONS, CONCEPT_KINDS, SUGGESTED_ROLES, ValueMappingSchema } from './ontology.js';

/** `causa.commerce`: lower-case words joined by dots (the layer id `ontology:<id>@<version>` must fit 64 characters). */
export const ONTOLOGY_ID_PATTERN = '^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$';
/** Semantic versions without pre-release tags: `1.0.0`. */
export const ONTOLOGY_VERSION_PATTERN = '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$';

const OntologyId = Type.String({ minLength: 1, maxLength: 40, pattern: ONTOLOGY_ID_PATTERN, description: 'The library id, e.g. `causa.commerce`' });
const Version = Type.String({ maxLength: 32, pattern: ONTOLOGY_VERSION_PATTERN, description: 'A semantic version, e.g. `1.0.0`' });
const OpenObject = (description: string) => Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), { description });

export const LibraryConceptSchema = Type.Object(
  {
    canonicalId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', description: 'Stable within the library across versions (`ontologyRef.canonicalId`)' }),
    name: Type.String({ minLength: 1, maxLength: 256, description: 'The installed concept\'s name (a workspace concept of this name, any case, is linked rather than duplicated)' }),
    description: Type.String({ maxLength: 10_000 }),
    conceptClassification: literals(CONCEPT_CLASSIFICATIONS),
    conceptKind: literals(CONCEPT_KINDS),
    schemaFieldName: Type.String({ maxLength: 256, description: 'The canonical column name; extraction reads it like the name' }),
    schemaType: Type.String({ maxLength: 64 }),
    schemaSubtype: Nullable(Type.String({ maxLength: 64 })),
    suggestedRole: literals(SUGGESTED_ROLES),
    tags: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }),
    valueMappings: Type.Array(ValueMappingSchema, { maxItems: 1000, description: 'Canonical values and their other spellings (codes, names, abbreviations)' }),
    metadata: OpenObject('Settings the concept starts with: locationType, unit, unitKind, higherIsBetter, valueClass, tsGranularity...'),
    fieldNames: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      maxItems: 50,
      description: 'Column names extraction reads as this concept (its name matcher expands abbreviations and synonyms: `cust_id`, `client_no` read as customer)',
    }),
  },
  { $id: 'OntologyLibraryConcept', title: 'OntologyLibraryConcept', additionalProperties: false },
);
export type LibraryConcept = Static<typeof LibraryConceptSchema>;

/** A library as bundled (src/ontology/libraries/): one version of it with its concepts. */
export const OntologyLibraryDefinitionSchema = Type.Object(
  { id: OntologyId, version: Version, name: Type.String({ minLength: 1, maxLength: 256 }), description: Type.String({ maxLength: 10_000 }), concepts: Type.Array(LibraryConceptSchema, { minItems: 1, maxItems: 1000 }) },
  { additionalProperties: false },
);
export type OntologyLibrary = Static<typeof OntologyLibraryDefinitionSchema>;

const summaryMembers = {
  id: OntologyId,
  name: Type.String(),
  description: Type.String(),
  version: Type.String({ description: 'The newest version (or, reading one library, the version read)' }),
  versions: Type.Array(Type.String(), { description: 'Every version available, newest first' }),
  conceptCount: Type.Integer({ minimum: 0 }),
};

export const OntologyLibrarySummarySchema = Type.Object(summaryMembers, { $id: 'OntologyLibrarySummary', title: 'OntologyLibrarySummary' });
export type OntologyLibrarySummary = Static<typeof OntologyLibrarySummarySchema>;

export const OntologyLibrarySchema = Type.Object(
  { ...summaryMembers, concepts: Type.Array(ref(LibraryConceptSchema)) },
  { $id: 'OntologyLibrary', title: 'OntologyLibrary' },
);
export type OntologyLibraryRead = Static<typeof OntologyLibrarySchema>;

export const OntologyLibraryQuery = Type.Object(
  { version: Type.Optional({ ...Version, description: 'The version to read (default: the newest)' }) },
  { additionalProperties: false },
);

export const InstallOntologyBody = Body({
  ontologyId: { ...OntologyId, description: 'The library to install (GET /ontologies)' },
  version: Type.Optional({ ...Version, description: 'The version to install (default: the newest); a newer one than installed updates the install' }),
});
export type InstallOntology = Static<typeof InstallOntologyBody>;

export const OntologyInstallSchema = Type.Object(
  {
    ontologyId: Type.String(),
    name: Type.String({ description: 'The library\'s name' }),
    version: Type.String({ description: 'The version installed' }),
    latestVersion: Nullable(Type.String({ description: 'The newest version available (null when the library is no longer bundled)' })),
    layerId: Type.String({ description: 'The layer id the install\'s concepts carry in `layerIds`: `ontology:<id>@<version>`' }),
    conceptCount: Type.Integer({ minimum: 0, description: 'Concepts of the workspace that refer to the library (`ontologyRef.ontologyId`)' }),
    installedBy: Type.String(),
    installedAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'OntologyInstall', title: 'OntologyInstall' },
);
export type OntologyInstall = Static<typeof OntologyInstallSchema>;

const ConceptRef = Type.Object({ conceptId: Type.String(), name: Type.String(), canonicalId: Type.String() });
const Kept = Type.Array(Type.String(), { description: 'Members the library would set but a person locked (`lockedConceptFields`; `metadata.<key>` for `lockedMetadataFields`), or a new name another concept holds: left as they are' });
const UpdatedConcept = Type.Object({ ...ConceptRef.properties, changed: Type.Array(Type.String(), { description: 'The members the version changed' }), kept: Kept });

export const OntologyInstallResultSchema = Type.Object(
  {
    install: ref(OntologyInstallSchema),
    previousVersion: Nullable(Type.String({ description: 'The version installed before (null for a first install)' })),
    created: Type.Array(ConceptRef, { description: 'New concepts made from the library' }),
    linked: Type.Array(ConceptRef, { description: 'Concepts of the same name (any case) that had no ontologyRef: they keep their members and mappings, gain the ontologyRef, the layer id, the library\'s value mappings and tags, and any description or metadata they lacked' }),
    updated: Type.Array(UpdatedConcept, { description: 'Installed concepts the version changed (their editVersion moved)' }),
    unchanged: Type.Array(Type.Object({ ...ConceptRef.properties, kept: Kept }), { description: 'Installed concepts the version changes nothing of (their ontologyRef and layer id follow the version)' }),
    detached: Type.Array(ConceptRef, { description: 'Concepts of an earlier version that this version no longer has: kept as workspace concepts, ontologyRef cleared' }),
  },
  { $id: 'OntologyInstallResult', title: 'OntologyInstallResult' },
);
export type OntologyInstallResult = Static<typeof OntologyInstallResultSchema>;

export const OntologyInstallDetailSchema = Type.Object(
  {
    ...OntologyInstallSchema.properties,
    concepts: Type.Array(
      Type.Object({
        ...ConceptRef.properties,
        origin: literals(['created', 'linked'] as const, '`created` by the install, or an existing concept `linked` to it'),
        mappedFields: Type.Integer({ minimum: 0, description: 'Source fields mapped to it (rejected mappings not counted)' }),
        usedByDatasets: Type.Array(Type.String(), { description: 'Datasets naming it (conceptIds or anchorConceptId)' }),
        onUninstall: literals(['delete', 'keep'] as const, 'What DELETE of the install does to it: created concepts no dataset uses and that map no field are deleted; the others are kept with ontologyRef cleared and the layer id removed'),
      }),
    ),
  },
  { $id: 'OntologyInstallDetail', title: 'OntologyInstallDetail' },
);
export type OntologyInstallDetail = Static<typeof OntologyInstallDetailSchema>;
