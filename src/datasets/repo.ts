import type { PageRequest } from '../lib/page.js';
import { newestFirstPage } from '../store/meta/keyset.js';
import type { MetaDb } from '../store/meta/port.js';
import type { DatasetsTable } from '../store/meta/schema.js';

export type DatasetRow = DatasetsTable;

export class DatasetRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(row: DatasetRow, sourceIds: string[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('datasets').values(row).execute();
      if (sourceIds.length > 0) await tx.insertInto('dataset_sources').values(sourceIds.map((source_id) => ({ dataset_id: row.id, source_id }))).execute();
    });
  }

  find(organisationId: string, workspaceId: string, id: string): Promise<DatasetRow | undefined> {
    return this.db
      .selectFrom('datasets')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Keyset page, newest first; the total counts the workspace's datasets. */
  async list(organisationId: string, workspaceId: string, page: PageRequest): Promise<{ rows: DatasetRow[]; total: number }> {
    return newestFirstPage<DatasetRow>(this.db.selectFrom('datasets').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId), page);
  }

  /** Replaces the stored row if it is still at `expectedVersion`; false when another update came first. */
  async update(row: DatasetRow, expectedVersion: number, sourceIds: string[]): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .updateTable('datasets')
        .set({ name: row.name, definition: row.definition, updated_at: row.updated_at, version: expectedVersion + 1 })
        .where('organisation_id', '=', row.organisation_id)
        .where('id', '=', row.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await tx.deleteFrom('dataset_sources').where('dataset_id', '=', row.id).execute();
      if (sourceIds.length > 0) await tx.insertInto('dataset_sources').values(sourceIds.map((source_id) => ({ dataset_id: row.id, source_id }))).execute();
      return true;
    });
  }

  async delete(organisationId: string, workspaceId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('datasets')
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Every dataset of a workspace (who uses which concept). */
  allIn(organisationId: string, workspaceId: string): Promise<DatasetRow[]> {
    return this.db.selectFrom('datasets').selectAll().where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).orderBy('created_at').execute();
  }

  /** Datasets reading a source (in one workspace, or anywhere): a source in use stays. */
  async usingSource(sourceId: string, workspaceId?: string): Promise<string[]> {
    let query = this.db
      .selectFrom('dataset_sources')
      .innerJoin('datasets', 'datasets.id', 'dataset_sources.dataset_id')
      .select('datasets.id')
      .where('dataset_sources.source_id', '=', sourceId);
    if (workspaceId !== undefined) query = query.where('datasets.workspace_id', '=', workspaceId);
    return (await query.orderBy('datasets.id').limit(20).execute()).map((row) => row.id);
  }
}
