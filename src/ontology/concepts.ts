import type { Concept, CreateConcept, FieldMapping } from '../../schemas/ontology.js';
import { newId, nowIso } from '../lib/ids.js';
import type { ConceptRow } from './repo.js';

/** The concept members kept in the row's `body` JSON (everything but identity, name, editVersion and timestamps). */
export type ConceptBody = Omit<Concept, 'id' | 'organisationId' | 'workspaceId' | 'name' | 'editVersion' | 'createdAt' | 'updatedAt'>;

/**
 * Per mapped field (`sourceId.field`): what extraction compares a new column with and gathers value mappings from
 * (the bottom-k hashes of its distinct values, their count, its most frequent values; see extract/sketch.ts).
 */
export interface FieldSketch {
  hashes: string[];
  distinct: number;
  top: Array<{ value: string; count: number }>;
}
export type Sketches = Record<string, FieldSketch>;

export const mappingKey = (mapping: Pick<FieldMapping, 'sourceId' | 'field'>) => `${mapping.sourceId}.${mapping.field}`;

/** A concept's body with every member at its default, then `given`. */
export function newBody(given: Partial<ConceptBody>): ConceptBody {
  return {
    description: null,
    conceptClassification: 'dimension',
    conceptKind: 'standard',
    anchorConceptLinks: [],
    schemaFieldName: '',
    schemaType: 'text',
    schemaSubtype: null,
    metadata: {},
    lockedMetadataFields: [],
    lockedConceptFields: [],
    fieldMappings: [],
    derivedInfo: null,
    metricSql: null,
    relationshipRules: [],
    temporalPrerequisites: [],
    suggestedRole: null,
    trustTier: 'exploratory',
    ontologyRef: null,
    layerIds: [],
    tags: [],
    valueMappings: [],
    detectedMetadata: {},
    detectedConceptStructure: { temporalPrerequisites: [], suggestedRole: null },
    lastEditedBy: null,
    lastEditedAt: null,
    lineageDrift: null,
    ...given,
  };
}

export function newConceptRow(owner: { organisationId: string; workspaceId: string }, name: string, body: ConceptBody, sketches: Sketches = {}): ConceptRow {
  const now = nowIso();
  return {
    id: newId('cpt'),
    organisation_id: owner.organisationId,
    workspace_id: owner.workspaceId,
    name: name.trim(),
    name_key: name.trim().toLowerCase(),
    body: JSON.stringify(body),
    sketch: JSON.stringify(sketches),
    edit_version: 0,
    created_at: now,
    updated_at: now,
  };
}

export const bodyOf = (row: ConceptRow): ConceptBody => JSON.parse(row.body) as ConceptBody;
export const sketchesOf = (row: ConceptRow): Sketches => JSON.parse(row.sketch) as Sketches;
/** The row's sketches of the mapped fields `keep` accepts (keyed `sourceId.field`), as stored. */
export const sketchesWhere = (row: ConceptRow, keep: (key: string) => boolean): string =>
  JSON.stringify(Object.fromEntries(Object.entries(sketchesOf(row)).filter(([key]) => keep(key))));
/** The sources a concept maps fields of (rejected mappings, kept so extraction does not propose them again, are not mappings). */
export const sourceIdsOf = (body: Pick<ConceptBody, 'fieldMappings'>) => [...new Set(body.fieldMappings.filter((m) => m.status !== 'rejected').map((m) => m.sourceId))];

export function toConcept(row: ConceptRow): Concept {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    name: row.name,
    ...bodyOf(row),
    editVersion: row.edit_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A field mapping with its unset members at their defaults. */
export function fullMapping(given: Partial<FieldMapping> & Pick<FieldMapping, 'sourceId' | 'field'>): FieldMapping {
  return {
    status: 'confirmed',
    source: 'manual',
    confidence: 1,
    evidence: [],
    valueMap: null,
    canonicalField: null,
    scopeFields: [],
    precedence: 0,
    keyRole: null,
    conformance: null,
    decidedBy: null,
    decidedAt: null,
    ...given,
  };
}

/** The writable members of a create or put body, with mappings completed. */
export function writableOf(input: Partial<CreateConcept>): Partial<ConceptBody> {
  const { name: _name, ...rest } = input as CreateConcept;
  const members = Object.fromEntries(Object.entries(rest).filter(([key, value]) => value !== undefined && !['_id', 'ownerId', 'editVersion'].includes(key))) as Partial<ConceptBody>;
  if (members.fieldMappings !== undefined) members.fieldMappings = members.fieldMappings.map((mapping) => fullMapping(mapping));
  // Enrichment status is the service's (a body read, changed and sent back carries it as it was read).
  if (members.metadata !== undefined && 'enrichments' in members.metadata) {
    const { enrichments: _e, ...metadata } = members.metadata;
    members.metadata = metadata;
  }
  return members;
}
