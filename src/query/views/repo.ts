import type { PageRequest } from '../../lib/page.js';
import { newestFirstPage } from '../../store/meta/keyset.js';
import type { MetaDb } from '../../store/meta/port.js';
import type { DataViewsTable } from '../../store/meta/schema.js';

export type DataViewRow = DataViewsTable;

/** Saved anchor queries; every read and write names the organisation and the workspace. */
export class DataViewRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(row: DataViewRow): Promise<void> {
    await this.db.insertInto('data_views').values(row).execute();
  }

  find(organisationId: string, workspaceId: string, id: string): Promise<DataViewRow | undefined> {
    return this.db.selectFrom('data_views').selectAll().where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  list(organisationId: string, workspaceId: string, page: PageRequest): Promise<{ rows: DataViewRow[]; total: number }> {
    return newestFirstPage<DataViewRow>(this.db.selectFrom('data_views').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId), page);
  }

  /** Replaces the named members of a view; false when it is not there. */
  async update(organisationId: string, workspaceId: string, id: string, changes: Partial<Pick<DataViewRow, 'name' | 'name_key' | 'description' | 'query' | 'updated_at'>>): Promise<boolean> {
    const result = await this.db.updateTable('data_views').set(changes).where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async delete(organisationId: string, workspaceId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('data_views').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
