import type { PageRequest } from '../lib/page.js';
import { newestFirstPage } from '../store/meta/keyset.js';
import type { MetaDb } from '../store/meta/port.js';
import type { ConceptsTable } from '../store/meta/schema.js';

export type ConceptRow = ConceptsTable;

/** A concept row was changed by another writer since it was read (its edit_version moved on). */
export class StaleConceptError extends Error {}

/** The ontology concepts of workspaces, with the sources each has a field mapping for. */
export class ConceptRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(row: ConceptRow, sourceIds: string[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('concepts').values(row).execute();
      if (sourceIds.length > 0) await tx.insertInto('concept_sources').values(unique(sourceIds).map((source_id) => ({ concept_id: row.id, source_id }))).execute();
    });
  }

  find(organisationId: string, workspaceId: string, id: string): Promise<ConceptRow | undefined> {
    return this.db.selectFrom('concepts').selectAll().where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  /** The given concepts of a workspace that exist, in the order asked. */
  async findMany(organisationId: string, workspaceId: string, ids: string[]): Promise<ConceptRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('concepts').selectAll().where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('id', 'in', unique(ids)).execute();
    return ids.flatMap((id) => rows.filter((row) => row.id === id));
  }

  /** Keyset page, newest first; with `sourceId`, only concepts mapping a field of that source. */
  list(organisationId: string, workspaceId: string, page: PageRequest, sourceId?: string): Promise<{ rows: ConceptRow[]; total: number }> {
    let base = this.db.selectFrom('concepts').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId);
    if (sourceId !== undefined) base = base.where('id', 'in', this.db.selectFrom('concept_sources').select('concept_id').where('source_id', '=', sourceId));
    return newestFirstPage<ConceptRow>(base, page);
  }

  /** Every concept of a workspace (extraction matches against them all; the catalog graph draws them all). */
  all(organisationId: string, workspaceId: string): Promise<ConceptRow[]> {
    return this.db.selectFrom('concepts').selectAll().where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
  }

  /** The concepts (of one workspace, or of any) with a field mapping for a source. */
  mappingSource(organisationId: string, sourceId: string, workspaceId?: string): Promise<ConceptRow[]> {
    let query = this.db.selectFrom('concepts').selectAll().where('organisation_id', '=', organisationId).where('id', 'in', this.db.selectFrom('concept_sources').select('concept_id').where('source_id', '=', sourceId));
    if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
    return query.execute();
  }

  /** Current edit versions of the given concepts of a workspace (absent ids are left out). */
  async editVersions(organisationId: string, workspaceId: string, ids: string[]): Promise<Map<string, { editVersion: number; sourceIds: string[] }>> {
    const result = new Map<string, { editVersion: number; sourceIds: string[] }>();
    if (ids.length === 0) return result;
    const rows = await this.db.selectFrom('concepts').select(['id', 'edit_version']).where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('id', 'in', unique(ids)).execute();
    for (const row of rows) result.set(row.id, { editVersion: row.edit_version, sourceIds: [] });
    if (rows.length > 0) {
      const links = await this.db.selectFrom('concept_sources').select(['concept_id', 'source_id']).where('concept_id', 'in', rows.map((row) => row.id)).execute();
      for (const link of links) result.get(link.concept_id)!.sourceIds.push(link.source_id);
    }
    return result;
  }

  /**
   * Replaces a concept if it is still at `expectedVersion` (the edit version read); throws StaleConceptError when
   * another write came first. Several rows change in one transaction (a split writes two).
   */
  async update(rows: Array<{ row: ConceptRow; expectedVersion: number; sourceIds: string[] }>, inserted: Array<{ row: ConceptRow; sourceIds: string[] }> = []): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      for (const { row, expectedVersion, sourceIds } of rows) {
        const result = await tx
          .updateTable('concepts')
          .set({ name: row.name, name_key: row.name_key, body: row.body, sketch: row.sketch, edit_version: row.edit_version, updated_at: row.updated_at })
          .where('organisation_id', '=', row.organisation_id)
          .where('id', '=', row.id)
          .where('edit_version', '=', expectedVersion)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) throw new StaleConceptError(row.id);
        await tx.deleteFrom('concept_sources').where('concept_id', '=', row.id).execute();
        if (sourceIds.length > 0) await tx.insertInto('concept_sources').values(unique(sourceIds).map((source_id) => ({ concept_id: row.id, source_id }))).execute();
      }
      for (const { row, sourceIds } of inserted) {
        await tx.insertInto('concepts').values(row).execute();
        if (sourceIds.length > 0) await tx.insertInto('concept_sources').values(unique(sourceIds).map((source_id) => ({ concept_id: row.id, source_id }))).execute();
      }
    });
  }

  /** Deletes a concept (only while still at `expectedVersion`, when given); false when there was none to delete. */
  async delete(organisationId: string, workspaceId: string, id: string, expectedVersion?: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      let query = tx.deleteFrom('concepts').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('id', '=', id);
      if (expectedVersion !== undefined) query = query.where('edit_version', '=', expectedVersion);
      const result = await query.executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) return false;
      await tx.deleteFrom('concept_sources').where('concept_id', '=', id).execute();
      return true;
    });
  }
}

const unique = (values: string[]) => [...new Set(values)];
