import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PageQuery, WorkspaceParams, dataEnvelope, listEnvelope } from '../../schemas/common.js';
import { CreateWorkspaceBody, PutMemberBody, UpdateWorkspaceBody, WorkspaceMemberSchema, WorkspaceSchema } from '../../schemas/workspaces.js';
import { ref } from '../http/openapi.js';
import type { WorkspaceService } from './service.js';

const MemberParams = Type.Object({
  wsId: Type.String({ minLength: 1, maxLength: 64, description: 'Workspace id' }),
  userId: Type.String({ minLength: 1, maxLength: 64, description: 'User id' }),
});

export function workspaceRoutes(app: FastifyInstance, workspaces: WorkspaceService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get('/workspaces', {
    config: { scope: 'sources:read' },
    schema: {
      operationId: 'listWorkspaces',
      summary: 'List the workspaces the caller can read (not paginated)',
      tags: ['Workspaces'],
      response: { 200: dataEnvelope(Type.Array(ref(WorkspaceSchema))) },
    },
  }, async (request) => ({ data: await workspaces.list(request.principal) }));

  api.post('/workspaces', {
    config: { scope: 'sources:write', problems: [409] },
    schema: {
      operationId: 'createWorkspace',
      summary: 'Create a workspace; the caller becomes its owner (full permission)',
      description: 'Names are unique within the organisation (case-insensitive): a duplicate answers 409. Workspace-pinned credentials cannot create workspaces.',
      tags: ['Workspaces'],
      body: CreateWorkspaceBody,
      response: { 201: dataEnvelope(ref(WorkspaceSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await workspaces.create(request.principal, request.body) };
  });

  api.get('/workspaces/:wsId', {
    config: { scope: 'sources:read' },
    schema: {
      operationId: 'getWorkspace',
      summary: 'Get a workspace',
      tags: ['Workspaces'],
      params: WorkspaceParams,
      response: { 200: dataEnvelope(ref(WorkspaceSchema)) },
    },
  }, async (request) => ({ data: await workspaces.get(request.principal, request.params.wsId) }));

  api.patch('/workspaces/:wsId', {
    config: { scope: 'sources:write', problems: [409] },
    schema: {
      operationId: 'updateWorkspace',
      summary: 'Rename or describe a workspace (write permission)',
      tags: ['Workspaces'],
      params: WorkspaceParams,
      body: UpdateWorkspaceBody,
      response: { 200: dataEnvelope(ref(WorkspaceSchema)) },
    },
  }, async (request) => ({ data: await workspaces.update(request.principal, request.params.wsId, request.body) }));

  api.delete('/workspaces/:wsId', {
    config: { scope: 'sources:delete' },
    schema: {
      operationId: 'deleteWorkspace',
      summary: 'Delete a workspace (full permission); keys pinned to it are revoked',
      description: 'Data held elsewhere (organisation sources) remains. The organisation library cannot be deleted (400).',
      tags: ['Workspaces'],
      params: WorkspaceParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await workspaces.delete(request.principal, request.params.wsId);
    return reply.code(204).send(null);
  });

  api.get('/workspaces/:wsId/members', {
    config: { scope: 'sources:read' },
    schema: {
      operationId: 'listWorkspaceMembers',
      summary: 'List the members of a workspace with their permission levels',
      tags: ['Workspaces'],
      params: WorkspaceParams,
      querystring: Type.Object(PageQuery, { additionalProperties: false }),
      response: { 200: listEnvelope(ref(WorkspaceMemberSchema)) },
    },
  }, async (request) => {
    const page = await workspaces.listMembers(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.put('/workspaces/:wsId/members/:userId', {
    config: { scope: 'sources:write' },
    schema: {
      operationId: 'putWorkspaceMember',
      summary: 'Grant or change a user permission level on a workspace (full permission)',
      tags: ['Workspaces'],
      params: MemberParams,
      body: PutMemberBody,
      response: { 200: dataEnvelope(ref(WorkspaceMemberSchema)) },
    },
  }, async (request) => {
    const { wsId, userId } = request.params;
    return { data: await workspaces.putMember(request.principal, wsId, userId, request.body.level) };
  });

  api.delete('/workspaces/:wsId/members/:userId', {
    config: { scope: 'sources:write' },
    schema: {
      operationId: 'removeWorkspaceMember',
      summary: 'Remove a member from a workspace (full permission; not the owner)',
      tags: ['Workspaces'],
      params: MemberParams,
      response: { 204: Type.Null({ description: 'Removed' }) },
    },
  }, async (request, reply) => {
    const { wsId, userId } = request.params;
    await workspaces.removeMember(request.principal, wsId, userId);
    return reply.code(204).send(null);
  });
}
