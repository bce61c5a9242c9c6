import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdParam, PageQuery, dataEnvelope, listEnvelope } from '../../schemas/common.js';
import { ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from '../../schemas/identity.js';
import { ref } from '../http/openapi.js';
import type { ApiKeyService } from './service.js';

const ADMIN_ONLY = 'Organisation admins only.';
const KeyParams = IdParam('id', 'API key id');

export function apiKeyRoutes(app: FastifyInstance, keys: ApiKeyService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post('/api-keys', {
    config: { scope: null },
    schema: {
      operationId: 'createApiKey',
      summary: 'Create an API key (the value is shown once, in this response)',
      description: `${ADMIN_ONLY} The new key's scopes must be a subset of the caller's; a workspace-pinned caller can only issue keys pinned to its workspace.`,
      tags: ['Identity'],
      body: CreateApiKeyBody,
      response: { 201: dataEnvelope(ref(CreatedApiKeySchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await keys.create(request.principal, request.body) };
  });

  api.get('/api-keys', {
    config: { scope: null },
    schema: {
      operationId: 'listApiKeys',
      summary: 'List API keys, newest first',
      description: `${ADMIN_ONLY} Filter by \`scopeType\` (organisation-wide or workspace-pinned keys) and \`workspaceId\`. Values are never listed.`,
      tags: ['Identity'],
      querystring: Type.Object({
        ...PageQuery,
        scopeType: Type.Optional(Type.Union([Type.Literal('organisation'), Type.Literal('workspace')])),
        workspaceId: Type.Optional(Type.String({ minLength: 1 })),
      }, { additionalProperties: false }),
      response: { 200: listEnvelope(ref(ApiKeySchema)) },
    },
  }, async (request) => {
    const page = await keys.list(request.principal, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/api-keys/:id', {
    config: { scope: null },
    schema: {
      operationId: 'getApiKey',
      summary: 'Get an API key (never its value)',
      description: ADMIN_ONLY,
      tags: ['Identity'],
      params: KeyParams,
      response: { 200: dataEnvelope(ref(ApiKeySchema)) },
    },
  }, async (request) => ({ data: await keys.get(request.principal, request.params.id) }));

  api.post('/api-keys/:id/revoke', {
    config: { scope: null },
    schema: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key; it stops working at once, in every process',
      description: `${ADMIN_ONLY} Idempotent: revoking a revoked key keeps its first revokedAt.`,
      tags: ['Identity'],
      params: KeyParams,
      response: { 200: dataEnvelope(ref(ApiKeySchema)) },
    },
  }, async (request) => ({ data: await keys.revoke(request.principal, request.params.id) }));
}
