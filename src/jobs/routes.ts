import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdString, PageQuery, WorkspaceParams, dataEnvelope, listEnvelope, ref } from '../../schemas/common.js';
import { CancelledJobSchema, JobSchema } from '../../schemas/jobs.js';
import type { JobService } from './service.js';

const JobParams = Type.Object({ wsId: IdString('Workspace id'), id: IdString('Job id') });

export function jobRoutes(app: FastifyInstance, jobs: JobService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Jobs'];

  api.get('/workspaces/:wsId/jobs', {
    config: { scope: 'jobs:read' },
    schema: {
      operationId: 'listJobs',
      summary: 'List the pipeline jobs of a workspace, newest first',
      tags,
      params: WorkspaceParams,
      querystring: Type.Object(PageQuery, { additionalProperties: false }),
      response: { 200: listEnvelope(ref(JobSchema)) },
    },
  }, async (request) => {
    const page = await jobs.list(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/workspaces/:wsId/jobs/:id', {
    config: { scope: 'jobs:read' },
    schema: {
      operationId: 'getJob',
      summary: 'Read a job: status, progress and result',
      description:
        'Poll until `status` is terminal (`completed`, `failed`, `cancelled`). Jobs are durable: a job whose process stopped while it ran ' +
        'is failed with an error saying so, never left running.',
      tags,
      params: JobParams,
      response: { 200: dataEnvelope(ref(JobSchema)) },
    },
  }, async (request) => ({ data: await jobs.get(request.principal, request.params.wsId, request.params.id) }));

  api.post('/workspaces/:wsId/jobs/:id/cancel', {
    config: { scope: 'jobs:read' },
    schema: {
      operationId: 'cancelJob',
      summary: 'Cancel a queued or running job',
      description:
        'Needs `jobs:read` and write permission on the workspace. A queued or running job turns `cancelled` and its work stops; the ' +
        'webhook, if any, is sent. A job already completed, failed or cancelled is answered as it is, without effect.',
      tags,
      params: JobParams,
      response: { 200: dataEnvelope(CancelledJobSchema) },
    },
  }, async (request) => ({ data: await jobs.cancel(request.principal, request.params.wsId, request.params.id) }));
}
