import type { Kysely, Selectable } from 'kysely';
import type { PageRequest } from '../lib/page.js';
import { newestFirstPage } from '../store/meta/keyset.js';
import type { ConnectorsTable, MetaDatabase } from '../store/meta/schema.js';

export type ConnectorRow = Selectable<ConnectorsTable>;
export type ConnectorStatus = ConnectorRow['status'];

/** Connector rows; every read and write names the organisation (tenant isolation in the query itself). */
export class ConnectorRepo {
  constructor(private readonly db: Kysely<MetaDatabase>) {}

  async insert(row: ConnectorRow): Promise<void> {
    await this.db.insertInto('connectors').values(row).execute();
  }

  find(organisationId: string, id: string): Promise<ConnectorRow | undefined> {
    return this.db.selectFrom('connectors').selectAll().where('organisation_id', '=', organisationId).where('id', '=', id).executeTakeFirst();
  }

  list(organisationId: string, page: PageRequest): Promise<{ rows: ConnectorRow[]; total: number }> {
    return newestFirstPage<ConnectorRow>(this.db.selectFrom('connectors').where('organisation_id', '=', organisationId), page);
  }

  /** Renames and/or replaces credentials (new credentials reset the status: they have not been tried yet). */
  async update(organisationId: string, id: string, changes: Partial<Pick<ConnectorRow, 'name' | 'credentials' | 'status' | 'error_message'>>, now: string): Promise<void> {
    await this.db.updateTable('connectors').set({ ...changes, updated_at: now }).where('organisation_id', '=', organisationId).where('id', '=', id).execute();
  }

  /**
   * Records what the last use found. Only if the credentials are still the ones used: a use that started before
   * a credential change must not mark the new credentials connected or broken.
   */
  async setStatus(organisationId: string, id: string, usedCredentials: string | null, status: ConnectorStatus, errorMessage: string | null, now: string): Promise<void> {
    let update = this.db.updateTable('connectors').set({ status, error_message: errorMessage, updated_at: now }).where('organisation_id', '=', organisationId).where('id', '=', id);
    update = usedCredentials === null ? update.where('credentials', 'is', null) : update.where('credentials', '=', usedCredentials);
    await update.execute();
  }

  async delete(organisationId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('connectors').where('organisation_id', '=', organisationId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
