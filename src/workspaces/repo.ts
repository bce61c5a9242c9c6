import type { MetaDb } from '../store/meta/port.js';
import type { MembershipLevel, WorkspaceMembersTable, WorkspacesTable } from '../store/meta/schema.js';
import type { PageRequest } from '../lib/page.js';
import { listingTotal } from '../store/meta/keyset.js';

export type WorkspaceRow = WorkspacesTable;
export type MemberRow = WorkspaceMembersTable;

/** Thrown when an update names a version that is no longer current: the caller lost a race. */
export class StaleVersionError extends Error {
  constructor(readonly id: string) {
    super(`workspace ${id} changed since it was read`);
  }
}

export class WorkspaceRepo {
  constructor(private readonly db: MetaDb) {}

  /** Creates the workspace and its owner's full membership in one transaction. */
  async insert(row: WorkspaceRow, owner: MemberRow): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('workspaces').values(row).execute();
      await tx.insertInto('workspace_members').values(owner).execute();
    });
  }

  find(organisationId: string, id: string): Promise<WorkspaceRow | undefined> {
    return this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Every workspace of the organisation, or only those the user is a member of. */
  listVisible(organisationId: string, memberUserId: string | null): Promise<WorkspaceRow[]> {
    let query = this.db.selectFrom('workspaces').selectAll('workspaces').where('workspaces.organisation_id', '=', organisationId);
    if (memberUserId !== null) {
      query = query
        .innerJoin('workspace_members', 'workspace_members.workspace_id', 'workspaces.id')
        .where('workspace_members.user_id', '=', memberUserId);
    }
    return query.orderBy('workspaces.id', 'asc').execute();
  }

  /**
   * Optimistic concurrency: the update applies only if the row still has `expectedVersion`, and bumps it.
   * A stale version changes nothing and throws StaleVersionError.
   */
  async update(
    organisationId: string,
    id: string,
    expectedVersion: number,
    changes: Partial<Pick<WorkspaceRow, 'name' | 'name_key' | 'description' | 'updated_at'>>,
  ): Promise<void> {
    const result = await this.db
      .updateTable('workspaces')
      .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new StaleVersionError(id);
  }

  async delete(organisationId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('workspaces')
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  memberLevel(workspaceId: string, userId: string): Promise<MembershipLevel | undefined> {
    return this.db
      .selectFrom('workspace_members')
      .select('level')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
      .then((row) => row?.level);
  }

  async listMembers(workspaceId: string, page: PageRequest): Promise<{ rows: MemberRow[]; total: number }> {
    const base = this.db.selectFrom('workspace_members').where('workspace_id', '=', workspaceId);
    let rows = base.selectAll();
    if (page.after !== null) rows = rows.where('user_id', '>', String(page.after[0]));
    const result = await rows.orderBy('user_id', 'asc').limit(page.limit + 1).execute();
    return { rows: result, total: await listingTotal(base, page, result.length) };
  }

  /** Insert or change a membership (PUT semantics). */
  async putMember(row: MemberRow): Promise<void> {
    await this.db
      .insertInto('workspace_members')
      .values(row)
      .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ level: row.level }))
      .execute();
  }

  async removeMember(workspaceId: string, userId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('workspace_members')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
