import type { MetaDb } from '../store/meta/port.js';
import type { ApiKeysTable } from '../store/meta/schema.js';
import type { PageRequest } from '../lib/page.js';
import { listingTotal } from '../store/meta/keyset.js';

export type ApiKeyRow = ApiKeysTable;

/** A key row joined with what authentication needs about its user. */
export interface CredentialRow extends ApiKeyRow {
  user_role: 'admin' | 'member';
}

export interface ApiKeyFilter {
  organisationId: string;
  scopeType?: 'organisation' | 'workspace';
  workspaceId?: string;
}

export class ApiKeyRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(row: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  findCredentialByHash(keyHash: string): Promise<CredentialRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .selectAll('api_keys')
      .select('users.role as user_role')
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
  }

  find(organisationId: string, id: string): Promise<ApiKeyRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Newest first; keyset on id (ids are time-ordered). */
  async list(filter: ApiKeyFilter, page: PageRequest): Promise<{ rows: ApiKeyRow[]; total: number }> {
    let query = this.db.selectFrom('api_keys').where('organisation_id', '=', filter.organisationId);
    if (filter.scopeType === 'organisation') query = query.where('workspace_id', 'is', null);
    if (filter.scopeType === 'workspace') query = query.where('workspace_id', 'is not', null);
    if (filter.workspaceId !== undefined) query = query.where('workspace_id', '=', filter.workspaceId);
    let rows = query.selectAll();
    if (page.after !== null) rows = rows.where('id', '<', String(page.after[0]));
    const result = await rows.orderBy('id', 'desc').limit(page.limit + 1).execute();
    return { rows: result, total: await listingTotal(query, page, result.length) };
  }

  /** Sets revoked_at once; a second revoke keeps the first timestamp. */
  async revoke(organisationId: string, id: string, at: string): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Keys pinned to a deleted workspace stop working with it. */
  async revokeForWorkspace(workspaceId: string, at: string): Promise<string[]> {
    const rows = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('workspace_id', '=', workspaceId)
      .where('revoked_at', 'is', null)
      .returning('key_hash')
      .execute();
    return rows.map((row) => row.key_hash);
  }
}
