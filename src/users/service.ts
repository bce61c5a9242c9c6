import type { CreateUser, User } from '../../schemas/identity.js';
import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import type { CursorCodec } from '../lib/cursor.js';
import { filterScope, type Page, pageRequest, toPage } from '../lib/page.js';
import { newId, nowIso } from '../lib/ids.js';
import type { UserRepo, UserRow } from './repo.js';

export const toUser = (row: UserRow): User => ({
  id: row.id,
  organisationId: row.organisation_id,
  name: row.name,
  email: row.email,
  role: row.role,
  createdAt: row.created_at,
});

/** The directory of the organisation is for its admins (with an org-wide credential); a user sees itself via GET /me. */
function requireOrgAdmin(principal: Principal): void {
  if (!principal.isOrgAdmin || principal.workspaceId !== null) {
    throw new AppError('forbidden', 'Only organisation admins with an organisation-wide credential manage users');
  }
}

/** Users of an organisation, managed by its admins. */
export class UserService {
  constructor(
    private readonly repo: UserRepo,
    private readonly cursors: CursorCodec,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  async create(principal: Principal, input: CreateUser): Promise<User> {
    requireOrgAdmin(principal);
    const row: UserRow = {
      id: newId('usr'),
      organisation_id: principal.organisationId,
      name: input.name,
      email: input.email ?? null,
      role: input.role ?? 'member',
      created_at: nowIso(),
    };
    try {
      await this.repo.insert(row);
    } catch (error) {
      if (this.isUniqueViolation(error)) throw new AppError('conflict', `A user with email ${input.email} already exists`);
      throw error;
    }
    return toUser(row);
  }

  async list(principal: Principal, query: { limit?: number; cursor?: string }): Promise<Page<User>> {
    requireOrgAdmin(principal);
    const scope = filterScope({ list: 'users', org: principal.organisationId });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.id], toUser);
  }

  async get(principal: Principal, id: string): Promise<User> {
    requireOrgAdmin(principal);
    const row = await this.repo.find(principal.organisationId, id);
    if (row === undefined) throw notFound('User', id);
    return toUser(row);
  }
}
