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
   * read-modify-write never starts from a cached row. Answered without a promise when the cache holds both the row
   * and the level (every workspace request passes here; callers await either way).
   */
  require(principal: Principal, workspaceId: string, needed: MembershipLevel, options: { fresh?: boolean } = {}): WorkspaceRow | Promise<WorkspaceRow> {
    const workspace = this.find(principal.organisationId, workspaceId, options.fresh === true);
    return workspace instanceof Promise ? workspace.then((row) => this.admit(principal, workspaceId, needed, row)) : this.admit(principal, workspaceId, needed, workspace);
  }

  levelOf(principal: Principal, workspaceId: string): MembershipLevel | undefined | Promise<MembershipLevel | undefined> {
    if (principal.isOrgAdmin) return 'full';
    const key = `${workspaceId}:${principal.userId}`;
    const level = this.levels.get(key);
    if (level !== undefined) return level ?? undefined;
    return this.workspaces.memberLevel(workspaceId, principal.userId).then((found) => {
      this.levels.set(key, found ?? null);
      return found ?? undefined;
    });
  }

  /** Announces that a workspace or its memberships changed; every process drops what it cached of it. */
  invalidate(workspaceId: string): Promise<void> {
    return this.bus.publish('workspace', workspaceId);
  }

  /** The organisation, pin and level checks of `require` on the workspace found. */
  private admit(principal: Principal, workspaceId: string, needed: MembershipLevel, workspace: WorkspaceRow | undefined): WorkspaceRow | Promise<WorkspaceRow> {
    if (workspace === undefined) throw notFound('Workspace', workspaceId);
    if (principal.workspaceId !== null && principal.workspaceId !== workspaceId) {
      throw new AppError('workspace_out_of_scope', `This credential is pinned to workspace ${principal.workspaceId}`);
    }
    const level = this.levelOf(principal, workspaceId);
    const check = (held: MembershipLevel | undefined) => {
      if (held === undefined) throw new AppError('forbidden', `You have no access to workspace ${workspaceId}`);
      if (RANK[held] < RANK[needed]) {
        throw new AppError('forbidden', `This operation needs ${needed} permission on workspace ${workspaceId}; you have ${held}`);
      }
      return workspace;
    };
    return level instanceof Promise ? level.then(check) : check(level);
  }

  private find(organisationId: string, workspaceId: string, fresh: boolean): WorkspaceRow | undefined | Promise<WorkspaceRow | undefined> {
    const cached = fresh ? undefined : this.rows.get(workspaceId);
    // Ids are global, so the tenant check is repeated on every hit, never trusted to the cache key.
    if (cached !== undefined) return cached.organisation_id === organisationId ? cached : undefined;
    return this.workspaces.find(organisationId, workspaceId).then((row) => {
      if (row !== undefined) this.rows.set(workspaceId, row);
      return row;
    });
  }
}
