/** A source as stored (its row, the `details` JSON) and as presented (schemas/sources.ts Source). */
import type { Source } from '../../schemas/sources.js';
import type { Principal } from '../auth/principal.js';
import { newId, nowIso } from '../lib/ids.js';
import type { SourceRow } from './repo.js';

/** The members of a source record kept in the `details` JSON column. */
export type SourceDetails = Omit<Source, 'id' | 'workspaceId' | 'organisationId' | 'name' | 'parentSourceId' | 'dataSource' | 'dataFormat' | 'virtual' | 'documentCount' | 'totalSize' | 'createdAt' | 'lastSaved'>;

export const emptyDetails = (description: string | null): SourceDetails => ({
  description,
  richDescription: null,
  schemaEntries: [],
  ontologyMode: 'auto',
  columnMetadata: {},
  extension: null,
  ontologyStatus: null,
  ontologyError: null,
  extractionStatus: null,
  extractionError: null,
  pageCount: null,
  derivedFromDatasetIds: [],
  derivedVia: null,
  extractionRecipe: null,
  pendingAnnotationCount: 0,
  ontologyExcludedFields: [],
  batchRanges: [],
  currentVersionId: null,
  latestVersionOrdinal: 0,
});

/** A new, empty source row (metadata only). */
export function newSourceRow(
  principal: Pick<Principal, 'organisationId'>,
  workspaceId: string,
  fields: { name: string; description: string | null; dataFormat: 'Tabular' | 'Folder'; parentId: string | null; dataSource: string; ontologyMode?: 'auto' | 'manual' },
): SourceRow {
  const now = nowIso();
  return {
    id: newId('src'),
    organisation_id: principal.organisationId,
    workspace_id: workspaceId,
    parent_source_id: fields.parentId,
    name: fields.name.trim(),
    name_key: fields.name.trim().toLowerCase(),
    data_source: fields.dataSource,
    data_format: fields.dataFormat,
    virtual: 0,
    document_count: 0,
    total_size: 0,
    created_at: now,
    last_saved: now,
    details: JSON.stringify({ ...emptyDetails(fields.description), ontologyMode: fields.ontologyMode ?? 'auto' }),
    version: 1,
    lease_token: null,
    lease_expires_at: null,
  };
}

export function toSource(row: SourceRow): Source {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    organisationId: row.organisation_id,
    name: row.name,
    parentSourceId: row.parent_source_id,
    dataSource: row.data_source,
    dataFormat: row.data_format,
    virtual: row.virtual === 1,
    documentCount: row.document_count,
    totalSize: row.total_size,
    createdAt: row.created_at,
    lastSaved: row.last_saved,
    ...(JSON.parse(row.details) as SourceDetails),
  };
}
