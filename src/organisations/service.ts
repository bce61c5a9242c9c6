import { type Scope, SCOPES } from '../auth/scopes.js';
import { hashApiKey } from '../api-keys/api-key-value.js';
import type { ApiKeyRepo } from '../api-keys/repo.js';
import { newKeyRow } from '../api-keys/service.js';
import { DEFAULT_RATE_LIMIT } from '../../schemas/identity.js';
import { newId, nowIso } from '../lib/ids.js';
import type { OrganisationRepo } from './repo.js';

export interface CreatedOrganisation {
  organisationId: string;
  userId: string;
  libraryWorkspaceId: string;
  apiKey: string;
  keyId: string;
}

export const LIBRARY_WORKSPACE_NAME = 'Organisation library';

/** Organisations are created by operators (CLI, bootstrap), never over the tenant API. */
export class OrganisationService {
  constructor(
    private readonly repo: OrganisationRepo,
    private readonly apiKeys: ApiKeyRepo,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  /** A new organisation with its admin user, library workspace and an org-wide key holding every scope. */
  async create(name: string, keyValue?: string): Promise<CreatedOrganisation> {
    const now = nowIso();
    const organisationId = newId('org');
    const userId = newId('usr');
    const libraryId = newId('ws');
    const { row: key, value } = newKeyRow(
      {
        organisationId,
        userId,
        workspaceId: null,
        name: 'admin',
        scopes: SCOPES as readonly Scope[],
        expiresAt: null,
        ipAllowlist: '',
        rateLimit: DEFAULT_RATE_LIMIT,
        createdByKeyId: null,
      },
      keyValue,
    );
    await this.repo.create({
      organisation: { id: organisationId, name, created_at: now },
      admin: { id: userId, organisation_id: organisationId, name: 'admin', email: null, role: 'admin', created_at: now },
      library: {
        id: libraryId,
        organisation_id: organisationId,
        name: LIBRARY_WORKSPACE_NAME,
        name_key: LIBRARY_WORKSPACE_NAME.toLowerCase(),
        description: 'Shared sources and datasets of the whole organisation',
        is_org_library: 1,
        owner_user_id: userId,
        created_at: now,
        updated_at: now,
        version: 1,
      },
      libraryMembership: { workspace_id: libraryId, user_id: userId, level: 'full', created_at: now },
      key,
    });
    return { organisationId, userId, libraryWorkspaceId: libraryId, apiKey: value, keyId: key.id };
  }

  /**
   * CAUSA_BOOTSTRAP_API_KEY (DESIGN.md, Contracts): if no organisation owns that key yet, create organisation
   * `default` owning it. Idempotent, also when several processes start at once (the key hash is unique).
   */
  async ensureBootstrap(keyValue: string): Promise<'created' | 'existing'> {
    if ((await this.apiKeys.findCredentialByHash(hashApiKey(keyValue))) !== undefined) return 'existing';
    try {
      await this.create('default', keyValue);
      return 'created';
    } catch (error) {
      if (this.isUniqueViolation(error)) return 'existing';
      throw error;
    }
  }
}
