import { type Static, Type } from 'typebox';
import { Body, Nullable, Timestamp } from './common.js';

export const MeSchema = Type.Object(
  {
    userId: Type.String(),
    organisationId: Type.String(),
    workspaceId: Nullable(Type.String({ description: 'Null for an organisation-wide credential' })),
    scopes: Type.Array(Type.String()),
    authType: Type.Union([Type.Literal('apiKey'), Type.Literal('oauth')]),
    rateLimit: Nullable(Type.Integer({ description: 'Requests per minute of this key; null for OAuth' })),
  },
  { $id: 'Me', title: 'Me' },
);
export type Me = Static<typeof MeSchema>;

export const UserRoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('member')], {
  description: 'admin: manages keys and users, has full access to every workspace; member: access by membership',
});

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    name: Type.String(),
    email: Nullable(Type.String()),
    role: UserRoleSchema,
    createdAt: Timestamp,
  },
  { $id: 'User', title: 'User' },
);
export type User = Static<typeof UserSchema>;

export const CreateUserBody = Body({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 320 }))),
  role: Type.Optional(UserRoleSchema),
});
export type CreateUser = Static<typeof CreateUserBody>;

export const ApiKeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    organisationId: Type.String(),
    userId: Type.String({ description: 'The user the key acts as' }),
    workspaceId: Nullable(Type.String({ description: 'Null for an organisation-wide key' })),
    scopes: Type.Array(Type.String()),
    prefix: Type.String({ description: 'First characters of the key value, to tell keys apart' }),
    expiresAt: Nullable(Timestamp),
    ipAllowlist: Type.String({ description: 'Comma-separated addresses and CIDR ranges; empty = all' }),
    rateLimit: Type.Integer({ description: 'Requests per minute' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
    createdAt: Timestamp,
    revokedAt: Nullable(Timestamp),
  },
  { $id: 'ApiKey', title: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    key: Type.String({ description: 'The key value. Shown once, here; only its hash is stored.' }),
  },
  { $id: 'CreatedApiKey', title: 'CreatedApiKey' },
);
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 1_000_000;
export const DEFAULT_RATE_LIMIT = 1200;

export const CreateApiKeyBody = Body({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  workspaceId: Type.Optional(Nullable(Type.String({ description: 'Pin the key to one workspace; omit or null for org-wide' }))),
  scopes: Type.Array(Type.String({ description: 'area:action, or area:* for every action of an area' }), { minItems: 1, maxItems: 100 }),
  expiresAt: Type.Optional(Nullable(Timestamp)),
  ipAllowlist: Type.Optional(Type.String({ maxLength: 4000, description: 'Comma-separated IPv4/IPv6 addresses and CIDRs; empty = all' })),
  rateLimit: Type.Optional(Type.Integer({ minimum: MIN_RATE_LIMIT, maximum: MAX_RATE_LIMIT, default: DEFAULT_RATE_LIMIT, description: 'Requests per minute' })),
  forUserId: Type.Optional(Type.String({ description: 'Issue the key for another user of the organisation (default: the caller)' })),
});
export type CreateApiKey = Static<typeof CreateApiKeyBody>;
