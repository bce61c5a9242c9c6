import type { Workspace, WorkspaceMember } from '../../schemas/workspaces.js';
import type { Principal } from '../auth/principal.js';
import type { ApiKeyService } from '../api-keys/service.js';
import { AppError, notFound } from '../errors.js';
import type { CursorCodec } from '../lib/cursor.js';
import { filterScope, type Page, pageRequest, toPage } from '../lib/page.js';
import { newId, nowIso } from '../lib/ids.js';
import type { MembershipLevel } from '../store/meta/schema.js';
import type { UserRepo } from '../users/repo.js';
import type { WorkspaceAccess } from './access.js';
import { type MemberRow, StaleVersionError, type WorkspaceRepo, type WorkspaceRow } from './repo.js';

export const toWorkspace = (row: WorkspaceRow): Workspace => ({
  id: row.id,
  organisationId: row.organisation_id,
  name: row.name,
  description: row.description,
  createdAt: row.created_at,
  isOrgLibrary: row.is_org_library === 1,
});

export const nameKey = (name: string) => name.trim().toLowerCase();

const UPDATE_ATTEMPTS = 3;

export class WorkspaceService {
  constructor(
    private readonly repo: WorkspaceRepo,
    private readonly access: WorkspaceAccess,
    private readonly users: UserRepo,
    private readonly apiKeys: ApiKeyService,
    private readonly cursors: CursorCodec,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  /** Workspaces the caller can read: all for an admin, memberships otherwise, the pinned one for a pinned key. */
  async list(principal: Principal): Promise<Workspace[]> {
    const rows = await this.repo.listVisible(principal.organisationId, principal.isOrgAdmin ? null : principal.userId);
    return rows.filter((row) => principal.workspaceId === null || row.id === principal.workspaceId).map(toWorkspace);
  }

  async create(principal: Principal, input: { name: string; description?: string | null }): Promise<Workspace> {
    if (principal.workspaceId !== null) {
      throw new AppError('workspace_out_of_scope', 'A workspace-scoped credential cannot create workspaces');
    }
    const now = nowIso();
    const row: WorkspaceRow = {
      id: newId('ws'),
      organisation_id: principal.organisationId,
      name: input.name.trim(),
      name_key: nameKey(input.name),
      description: input.description ?? null,
      is_org_library: 0,
      owner_user_id: principal.userId,
      created_at: now,
      updated_at: now,
      version: 1,
    };
    try {
      await this.repo.insert(row, { workspace_id: row.id, user_id: principal.userId, level: 'full', created_at: now });
    } catch (error) {
      throw this.duplicateName(error, row.name);
    }
    return toWorkspace(row);
  }

  async get(principal: Principal, id: string): Promise<Workspace> {
    return toWorkspace(await this.access.require(principal, id, 'read'));
  }

  /**
   * Read-modify-write under optimistic concurrency: a concurrent writer makes our version stale, so we re-read
   * and re-apply (the change is a plain field assignment, safe to repeat) instead of overwriting theirs.
   */
  async update(principal: Principal, id: string, input: { name?: string; description?: string | null }): Promise<Workspace> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.access.require(principal, id, 'write', { fresh: true });
      const changes = {
        ...(input.name !== undefined && { name: input.name.trim(), name_key: nameKey(input.name) }),
        ...(input.description !== undefined && { description: input.description }),
        updated_at: nowIso(),
      };
      try {
        await this.repo.update(principal.organisationId, id, current.version, changes);
        await this.access.invalidate(id);
        return toWorkspace({ ...current, ...changes });
      } catch (error) {
        if (error instanceof StaleVersionError && attempt < UPDATE_ATTEMPTS) continue;
        if (error instanceof StaleVersionError) throw new AppError('stale_version', `Workspace ${id} is being changed concurrently; retry`);
        throw this.duplicateName(error, input.name ?? current.name);
      }
    }
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const workspace = await this.access.require(principal, id, 'full', { fresh: true });
    if (workspace.is_org_library === 1) {
      throw new AppError('invalid_request', 'The organisation library workspace cannot be deleted');
    }
    if (!(await this.repo.delete(principal.organisationId, id))) throw notFound('Workspace', id);
    await this.access.invalidate(id);
    await this.apiKeys.revokeForWorkspace(id);
  }

  async listMembers(principal: Principal, id: string, query: { limit?: number; cursor?: string }): Promise<Page<WorkspaceMember>> {
    const workspace = await this.access.require(principal, id, 'read');
    const scope = filterScope({ list: 'members', workspace: id });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.listMembers(id, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.user_id], (row) => toMember(row, workspace));
  }

  async putMember(principal: Principal, id: string, userId: string, level: MembershipLevel): Promise<WorkspaceMember> {
    const workspace = await this.access.require(principal, id, 'full');
    if (userId === workspace.owner_user_id && level !== 'full') {
      throw new AppError('invalid_request', 'The owner of a workspace always keeps full permission');
    }
    if ((await this.users.find(principal.organisationId, userId)) === undefined) throw notFound('User', userId);
    const row: MemberRow = { workspace_id: id, user_id: userId, level, created_at: nowIso() };
    await this.repo.putMember(row);
    await this.access.invalidate(id);
    return toMember(row, workspace);
  }

  async removeMember(principal: Principal, id: string, userId: string): Promise<void> {
    const workspace = await this.access.require(principal, id, 'full');
    if (userId === workspace.owner_user_id) throw new AppError('invalid_request', 'The owner of a workspace cannot be removed');
    if (!(await this.repo.removeMember(id, userId))) throw notFound('Member', userId);
    await this.access.invalidate(id);
  }

  private duplicateName(error: unknown, name: string): unknown {
    return this.isUniqueViolation(error)
      ? new AppError('conflict', `A workspace named "${name}" already exists in this organisation`)
      : error;
  }
}

const toMember = (row: MemberRow, workspace: WorkspaceRow): WorkspaceMember => ({
  workspaceId: row.workspace_id,
  userId: row.user_id,
  level: row.level,
  isOwner: row.user_id === workspace.owner_user_id,
  createdAt: row.created_at,
});
