import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import { TtlCache } from '../lib/ttl-cache.js';
import type { InvalidationBus } from '../store/bus/port.js';
import type { MembershipLevel } from '../store/meta/schema.js';
import type { WorkspaceRepo, WorkspaceRow } from './repo.js';

const RANK: Record<MembershipLevel, number> = { read: 1, write: 2, full: 3 };

/** Every workspace route passes this gate, so its lookups are cached; writers invalidate through the bus. */
const ACCESS_CACHE_MS = 5_000;

/**
 * The one gate every workspace resource passes: the workspace must be in the caller's organisation (else 404,
 * never revealing it exists), inside the credential's workspace pin (else 403), and the user must hold at
 * least `needed` on it (organisation admins hold full everywhere).
 */
export class WorkspaceAccess {
  private readonly rows = new TtlCache<WorkspaceRow>(ACCESS_CACHE_MS);
  /** `${workspaceId}:${userId}` -> level, or null for "no membership". */
  private readonly levels = new TtlCache<MembershipLevel | null>(ACCESS_CACHE_MS);

  constructor(
    private readonly workspaces: WorkspaceRepo,
    private readonly bus: InvalidationBus,
  ) {
    bus.subscribe('workspace', (workspaceId) => {
      this.rows.delete(workspaceId);
      this.levels.deletePrefix(`${workspaceId}:`);
    });
  }

  /**
   * The workspace, if the principal holds at least `needed` on it. Writers pass `fresh` so that a
   * read-modify-write never starts from a cached row.
   */
  async require(principal: Principal, workspaceId: string, needed: MembershipLevel, options: { fresh?: boolean } = {}): Promise<WorkspaceRow> {
    const workspace = await this.find(principal.organisationId, workspaceId, options.fresh === true);
    if (workspace === undefined) throw notFound('Workspace', workspaceId);
    if (principal.workspaceId !== null && principal.workspaceId !== workspaceId) {
      throw new AppError('workspace_out_of_scope', `This credential is pinned to workspace ${principal.workspaceId}`);
    }
    const level = await this.levelOf(principal, workspaceId);
    if (level === undefined) throw new AppError('forbidden', `You have no access to workspace ${workspaceId}`);
    if (RANK[level] < RANK[needed]) {
      throw new AppError('forbidden', `This operation needs ${needed} permission on workspace ${workspaceId}; you have ${level}`);
    }
    return workspace;
  }

  async levelOf(principal: Principal, workspaceId: string): Promise<MembershipLevel | undefined> {
    if (principal.isOrgAdmin) return 'full';
    const key = `${workspaceId}:${principal.userId}`;
    let level = this.levels.get(key);
    if (level === undefined) {
      level = (await this.workspaces.memberLevel(workspaceId, principal.userId)) ?? null;
      this.levels.set(key, level);
    }
    return level ?? undefined;
  }

  /** Announces that a workspace or its memberships changed; every process drops what it cached of it. */
  invalidate(workspaceId: string): Promise<void> {
    return this.bus.publish('workspace', workspaceId);
  }

  private async find(organisationId: string, workspaceId: string, fresh: boolean): Promise<WorkspaceRow | undefined> {
    const cached = fresh ? undefined : this.rows.get(workspaceId);
    // Ids are global, so the tenant check is repeated on every hit, never trusted to the cache key.
    if (cached !== undefined) return cached.organisation_id === organisationId ? cached : undefined;
    const row = await this.workspaces.find(organisationId, workspaceId);
    if (row !== undefined) this.rows.set(workspaceId, row);
    return row;
  }
}
