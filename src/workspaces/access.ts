import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import type { MembershipLevel } from '../store/meta/schema.js';
import type { WorkspaceRepo, WorkspaceRow } from './repo.js';

const RANK: Record<MembershipLevel, number> = { read: 1, write: 2, full: 3 };

/**
 * The one gate every workspace resource passes: the workspace must be in the caller's organisation (else 404,
 * never revealing it exists), inside the credential's workspace pin (else 403), and the user must hold at
 * least `needed` on it (organisation admins hold full everywhere).
 */
export class WorkspaceAccess {
  constructor(private readonly workspaces: WorkspaceRepo) {}

  async require(principal: Principal, workspaceId: string, needed: MembershipLevel): Promise<WorkspaceRow> {
    const workspace = await this.workspaces.find(principal.organisationId, workspaceId);
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

  levelOf(principal: Principal, workspaceId: string): Promise<MembershipLevel | undefined> {
    if (principal.isOrgAdmin) return Promise.resolve('full');
    return this.workspaces.memberLevel(workspaceId, principal.userId);
  }
}
