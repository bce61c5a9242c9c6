import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdParam, WorkspaceParams, dataEnvelope, listEnvelope, ref } from '../../../schemas/common.js';
import { CreateDataViewBody, DataViewListQuery, DataViewRowsQuery, DataViewSchema, PatchDataViewBody } from '../../../schemas/data-views.js';
import { QueryResultSchema } from '../../../schemas/query.js';
import type { DataViewService } from './service.js';

const ViewParams = Type.Object({ ...WorkspaceParams.properties, ...IdParam('id', 'Data view id').properties });
const BASE = '/workspaces/:wsId/data-views';
const CHECKED = 'The query must compile now as a SELECT of the anchor query language (422 at `body/query`, with the query error\'s code, message and a suggested query); names are unique in the workspace, case-insensitive (409).';

export function dataViewRoutes(app: FastifyInstance, views: DataViewService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Catalog'];

  api.get(BASE, {
    config: { scope: 'datasets:read' },
    schema: { operationId: 'listDataViews', summary: 'List the data views (saved anchor queries) of a workspace, newest first', tags, params: WorkspaceParams, querystring: DataViewListQuery, response: { 200: listEnvelope(ref(DataViewSchema)) } },
  }, async (request) => {
    const page = await views.list(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post(BASE, {
    config: { scope: 'datasets:write', problems: [409] },
    schema: {
      operationId: 'createDataView',
      summary: 'Save an anchor query as a data view',
      description: `A query is also saved by \`POST .../query\` with \`saveAs\`. ${CHECKED} A view keeps the query, not its rows: reading it runs it again on the current data.`,
      tags,
      params: WorkspaceParams,
      body: CreateDataViewBody,
      response: { 201: dataEnvelope(ref(DataViewSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await views.create(request.principal, request.params.wsId, request.body) };
  });

  api.get(`${BASE}/:id`, {
    config: { scope: 'datasets:read' },
    schema: { operationId: 'getDataView', summary: 'Read a data view', tags, params: ViewParams, response: { 200: dataEnvelope(ref(DataViewSchema)) } },
  }, async (request) => ({ data: await views.get(request.principal, request.params.wsId, request.params.id) }));

  api.patch(`${BASE}/:id`, {
    config: { scope: 'datasets:write', problems: [409] },
    schema: {
      operationId: 'updateDataView',
      summary: 'Rename a data view, or change its description or query',
      description: `Members given replace the stored ones. ${CHECKED}`,
      tags,
      params: ViewParams,
      body: PatchDataViewBody,
      response: { 200: dataEnvelope(ref(DataViewSchema)) },
    },
  }, async (request) => ({ data: await views.update(request.principal, request.params.wsId, request.params.id, request.body) }));

  api.delete(`${BASE}/:id`, {
    config: { scope: 'datasets:delete' },
    schema: { operationId: 'deleteDataView', summary: 'Delete a data view (full permission)', tags, params: ViewParams, response: { 204: Type.Null({ description: 'Deleted' }) } },
  }, async (request, reply) => {
    await views.delete(request.principal, request.params.wsId, request.params.id);
    return reply.code(204).send(null);
  });

  api.get(`${BASE}/:id/rows`, {
    config: { scope: 'datasets:read', problems: [503] },
    schema: {
      operationId: 'readDataView',
      summary: 'The rows of a data view: its query run now, a page at a time',
      description:
        'Answers as `POST .../query` does (the `rows` variant with `dataViewId`; `limit` rows from `startKey`, `nextStartKey` continues). ' +
        'A query the workspace no longer answers (a dataset or concept renamed or deleted since) is the error variant, with a suggested query to save instead.',
      tags,
      params: ViewParams,
      querystring: DataViewRowsQuery,
      response: { 200: dataEnvelope(ref(QueryResultSchema)) },
    },
  }, async (request) => ({ data: await views.rows(request.principal, request.params.wsId, request.params.id, request.query) }));
}
