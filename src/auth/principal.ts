import { SCOPES, type Scope } from './scopes.js';

/** Who is calling: resolved once per request from the credential, read by every service. */
export interface Principal {
  authType: 'apiKey' | 'oauth';
  /** The API key id, or null for OAuth. */
  keyId: string | null;
  userId: string;
  organisationId: string;
  /** Set when the credential is pinned to one workspace. */
  workspaceId: string | null;
  scopes: ReadonlySet<Scope>;
  /** Requests per minute of the key; null for OAuth (one shared fixed limit). */
  rateLimit: number | null;
  isOrgAdmin: boolean;
}

/** Jobs act for the user who submitted them, within the workspace checked at submit. */
export function jobPrincipal(organisationId: string, workspaceId: string, userId: string): Principal {
  return { authType: 'apiKey', keyId: null, userId, organisationId, workspaceId, scopes: new Set(SCOPES), rateLimit: null, isOrgAdmin: true };
}
