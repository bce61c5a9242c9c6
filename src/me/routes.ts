import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { dataEnvelope } from '../../schemas/common.js';
import { MeSchema } from '../../schemas/identity.js';
import { ref } from '../http/openapi.js';

export function meRoutes(app: FastifyInstance): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get('/me', {
    config: { scope: null },
    schema: {
      operationId: 'getMe',
      summary: 'Who the credential is: user, organisation, workspace pin, scopes and rate limit',
      tags: ['Identity'],
      response: { 200: dataEnvelope(ref(MeSchema)) },
    },
  }, async (request) => {
    const p = request.principal;
    return {
      data: {
        userId: p.userId,
        organisationId: p.organisationId,
        workspaceId: p.workspaceId,
        scopes: [...p.scopes],
        authType: p.authType,
        rateLimit: p.authType === 'oauth' ? null : p.rateLimit,
      },
    };
  });
}
