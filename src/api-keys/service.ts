import type { ApiKey, CreateApiKey, CreatedApiKey } from '../../schemas/identity.js';
import { DEFAULT_RATE_LIMIT } from '../../schemas/identity.js';
import type { Principal } from '../auth/principal.js';
import { InvalidAllowlistEntry, parseIpAllowlist, type IpAllowlist } from '../auth/ip-allowlist.js';
import { parseScopes, type Scope } from '../auth/scopes.js';
import { AppError, notFound } from '../errors.js';
import type { CursorCodec } from '../lib/cursor.js';
import { filterScope, type Page, pageRequest, toPage } from '../lib/page.js';
import { newId, nowIso } from '../lib/ids.js';
import { TtlCache } from '../lib/ttl-cache.js';
import type { InvalidationBus } from '../store/bus/port.js';
import type { UserRepo } from '../users/repo.js';
import type { WorkspaceRepo } from '../workspaces/repo.js';
import { displayPrefix, generateApiKeyValue, hashApiKey } from './api-key-value.js';
import type { ApiKeyRepo, ApiKeyRow, CredentialRow } from './repo.js';

/**
 * How long a verified key is trusted from memory. Revocation reaches every process at once through the
 * invalidation bus; the expiry only bounds the damage of a lost bus message.
 */
const CREDENTIAL_CACHE_MS = 5_000;

interface CachedCredential {
  row: CredentialRow;
  allowlist: IpAllowlist;
  /** Immutable, so one object serves every request of the key. */
  principal: Principal;
}

export function toApiKey(row: ApiKeyRow, now = Date.now()): ApiKey {
  const expired = row.expires_at !== null && Date.parse(row.expires_at) <= now;
  return {
    id: row.id,
    name: row.name,
    organisationId: row.organisation_id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    scopes: JSON.parse(row.scopes) as string[],
    prefix: row.key_prefix,
    expiresAt: row.expires_at,
    ipAllowlist: row.ip_allowlist,
    rateLimit: row.rate_limit,
    status: row.revoked_at !== null ? 'revoked' : expired ? 'expired' : 'active',
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** Everything needed to insert a key row except what the caller decides. */
export interface KeyGrant {
  organisationId: string;
  userId: string;
  workspaceId: string | null;
  name: string;
  scopes: readonly Scope[];
  expiresAt: string | null;
  ipAllowlist: string;
  rateLimit: number;
  createdByKeyId: string | null;
}

/** Builds a key row for a grant; `value` lets the bootstrap key keep the operator's exact value. */
export function newKeyRow(grant: KeyGrant, value = generateApiKeyValue()): { row: ApiKeyRow; value: string } {
  return {
    value,
    row: {
      id: newId('key'),
      organisation_id: grant.organisationId,
      user_id: grant.userId,
      workspace_id: grant.workspaceId,
      name: grant.name,
      key_hash: hashApiKey(value),
      key_prefix: displayPrefix(value),
      scopes: JSON.stringify(grant.scopes),
      expires_at: grant.expiresAt,
      ip_allowlist: grant.ipAllowlist,
      rate_limit: grant.rateLimit,
      created_at: nowIso(),
      created_by_key_id: grant.createdByKeyId,
      revoked_at: null,
    },
  };
}

/** Validates the free-form parts of a key request; every failure is a 422 naming the field. */
export function validateGrantInput(input: { scopes: string[]; expiresAt?: string | null; ipAllowlist?: string }): {
  scopes: Scope[];
  ipAllowlist: string;
} {
  const { scopes, unknown } = parseScopes(input.scopes);
  if (unknown.length > 0) {
    throw new AppError('validation_failed', `Unknown scopes: ${unknown.join(', ')}`, {
      errors: unknown.map((scope) => ({ location: 'body/scopes', message: `unknown scope ${scope}` })),
    });
  }
  if (input.expiresAt != null && Date.parse(input.expiresAt) <= Date.now()) {
    throw new AppError('validation_failed', 'expiresAt must be in the future', {
      errors: [{ location: 'body/expiresAt', message: 'must be in the future' }],
    });
  }
  try {
    return { scopes, ipAllowlist: parseIpAllowlist(input.ipAllowlist ?? '').entries.join(',') };
  } catch (error) {
    if (!(error instanceof InvalidAllowlistEntry)) throw error;
    throw new AppError('validation_failed', `ipAllowlist: ${error.message}`, {
      errors: [{ location: 'body/ipAllowlist', message: error.message }],
    });
  }
}

function toCredential(row: CredentialRow): CachedCredential {
  return {
    row,
    allowlist: parseIpAllowlist(row.ip_allowlist),
    principal: Object.freeze({
      authType: 'apiKey',
      keyId: row.id,
      userId: row.user_id,
      organisationId: row.organisation_id,
      workspaceId: row.workspace_id,
      scopes: new Set(JSON.parse(row.scopes) as Scope[]),
      rateLimit: row.rate_limit,
      isOrgAdmin: row.user_role === 'admin',
    }),
  };
}

/** The checks that depend on the moment and the caller's address run on every request, cached or not. */
function admit({ row, allowlist, principal }: CachedCredential, address: string): Principal {
  if (row.revoked_at !== null) throw new AppError('unauthenticated', 'The API key has been revoked');
  if (row.expires_at !== null && Date.parse(row.expires_at) <= Date.now()) {
    throw new AppError('unauthenticated', 'The API key has expired');
  }
  if (!allowlist.matches(address)) throw new AppError('ip_not_allowed', `Requests from ${address} are not in this key's IP allowlist`);
  return principal;
}

export class ApiKeyService {
  /**
   * Keyed by the presented value itself, so a cached request does no hashing (the store only ever sees the
   * hash); a revocation names the hash, which every entry carries.
   */
  private readonly cache = new TtlCache<CachedCredential>(CREDENTIAL_CACHE_MS);

  constructor(
    private readonly repo: ApiKeyRepo,
    private readonly users: UserRepo,
    private readonly workspaces: WorkspaceRepo,
    private readonly cursors: CursorCodec,
    private readonly bus: InvalidationBus,
  ) {
    bus.subscribe('api-key', (hash) => this.cache.deleteWhere((credential) => credential.row.key_hash === hash));
  }

  /**
   * Resolves a bearer key to a principal, or throws 401 (unknown, expired, revoked) / 403 (address not allowed).
   * Answers synchronously from the credential cache; only a miss waits for the store.
   */
  authenticate(value: string, address: string): Principal | Promise<Principal> {
    const cached = this.cache.get(value);
    if (cached !== undefined) return admit(cached, address);
    return this.repo.findCredentialByHash(hashApiKey(value)).then((row) => {
      if (row === undefined) throw new AppError('unauthenticated', 'The API key is not valid');
      const loaded = toCredential(row);
      this.cache.set(value, loaded);
      return admit(loaded, address);
    });
  }

  async create(principal: Principal, input: CreateApiKey): Promise<CreatedApiKey> {
    this.requireAdmin(principal);
    const { scopes, ipAllowlist } = validateGrantInput(input);
    const beyond = scopes.filter((scope) => !principal.scopes.has(scope));
    if (beyond.length > 0) {
      throw new AppError('forbidden', `A new key cannot carry scopes its creator lacks: ${beyond.join(', ')}`);
    }
    const workspaceId = input.workspaceId ?? null;
    if (principal.workspaceId !== null && workspaceId !== principal.workspaceId) {
      throw new AppError('workspace_out_of_scope', `This credential can only issue keys pinned to workspace ${principal.workspaceId}`);
    }
    if (workspaceId !== null && (await this.workspaces.find(principal.organisationId, workspaceId)) === undefined) {
      throw new AppError('validation_failed', `Workspace ${workspaceId} is not in this organisation`, {
        errors: [{ location: 'body/workspaceId', message: 'unknown workspace' }],
      });
    }
    const userId = input.forUserId ?? principal.userId;
    if ((await this.users.find(principal.organisationId, userId)) === undefined) {
      throw new AppError('validation_failed', `User ${userId} is not a user of this organisation`, {
        errors: [{ location: 'body/forUserId', message: 'unknown user' }],
      });
    }
    const { row, value } = newKeyRow({
      organisationId: principal.organisationId,
      userId,
      workspaceId,
      name: input.name,
      scopes,
      expiresAt: input.expiresAt ?? null,
      ipAllowlist,
      rateLimit: input.rateLimit ?? DEFAULT_RATE_LIMIT,
      createdByKeyId: principal.keyId,
    });
    await this.repo.insert(row);
    return { ...toApiKey(row), key: value };
  }

  async list(
    principal: Principal,
    query: { limit?: number; cursor?: string; scopeType?: 'organisation' | 'workspace'; workspaceId?: string },
  ): Promise<Page<ApiKey>> {
    this.requireAdmin(principal);
    // A pinned admin key sees the keys of its own workspace only.
    const workspaceId = principal.workspaceId ?? query.workspaceId;
    const scopeType = principal.workspaceId !== null ? 'workspace' : query.scopeType;
    const filters = { list: 'api-keys', org: principal.organisationId, scopeType, workspaceId };
    const scope = filterScope(filters);
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(
      { organisationId: principal.organisationId, ...(scopeType && { scopeType }), ...(workspaceId && { workspaceId }) },
      page,
    );
    const now = Date.now();
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.id], (row) => toApiKey(row, now));
  }

  async get(principal: Principal, id: string): Promise<ApiKey> {
    return toApiKey(await this.visibleKey(principal, id));
  }

  /** Revoking is idempotent: a revoked key stays revoked with its first timestamp. */
  async revoke(principal: Principal, id: string): Promise<ApiKey> {
    const row = await this.visibleKey(principal, id);
    await this.repo.revoke(principal.organisationId, id, nowIso());
    await this.bus.publish('api-key', row.key_hash);
    return toApiKey((await this.repo.find(principal.organisationId, id))!);
  }

  async revokeForWorkspace(workspaceId: string): Promise<void> {
    const hashes = await this.repo.revokeForWorkspace(workspaceId, nowIso());
    await Promise.all(hashes.map((hash) => this.bus.publish('api-key', hash)));
  }

  private async visibleKey(principal: Principal, id: string): Promise<ApiKeyRow> {
    this.requireAdmin(principal);
    const row = await this.repo.find(principal.organisationId, id);
    if (row === undefined || (principal.workspaceId !== null && row.workspace_id !== principal.workspaceId)) {
      throw notFound('API key', id);
    }
    return row;
  }

  private requireAdmin(principal: Principal): void {
    if (!principal.isOrgAdmin) throw new AppError('forbidden', 'Only organisation admins manage API keys');
  }
}
