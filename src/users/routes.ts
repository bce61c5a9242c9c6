import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdParam, PageQuery, dataEnvelope, listEnvelope } from '../../schemas/common.js';
import { CreateUserBody, UserSchema } from '../../schemas/identity.js';
import { ref } from '../http/openapi.js';
import type { UserService } from './service.js';

export function userRoutes(app: FastifyInstance, users: UserService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post('/users', {
    config: { scope: null },
    schema: {
      operationId: 'createUser',
      summary: 'Add a user to the organisation',
      description: 'Organisation admins with an organisation-wide credential only. Role defaults to member; members reach workspaces through memberships.',
      tags: ['Identity'],
      body: CreateUserBody,
      response: { 201: dataEnvelope(ref(UserSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await users.create(request.principal, request.body) };
  });

  api.get('/users', {
    config: { scope: null },
    schema: {
      operationId: 'listUsers',
      summary: 'List the users of the organisation',
      description: 'Organisation admins with an organisation-wide credential only.',
      tags: ['Identity'],
      querystring: Type.Object(PageQuery, { additionalProperties: false }),
      response: { 200: listEnvelope(ref(UserSchema)) },
    },
  }, async (request) => {
    const page = await users.list(request.principal, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/users/:id', {
    config: { scope: null },
    schema: {
      operationId: 'getUser',
      summary: 'Get a user of the organisation',
      description: 'Organisation admins with an organisation-wide credential only.',
      tags: ['Identity'],
      params: IdParam('id', 'User id'),
      response: { 200: dataEnvelope(ref(UserSchema)) },
    },
  }, async (request) => ({ data: await users.get(request.principal, request.params.id) }));
}
