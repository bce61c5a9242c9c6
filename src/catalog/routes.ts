import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { CatalogPageQuery, CatalogTableSchema, CatalogViewSchema } from '../../schemas/catalog.js';
import { IdParam, listEnvelope, ref } from '../../schemas/common.js';
import type { CatalogService } from './service.js';

const WsParams = IdParam('wsId', 'Workspace id');

export function catalogRoutes(app: FastifyInstance, catalog: CatalogService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const querystring = Type.Object(CatalogPageQuery, { additionalProperties: false });

  api.get('/workspaces/:wsId/catalog/tables', {
    config: { scope: 'catalog:read' },
    schema: {
      operationId: 'listCatalogTables',
      summary: 'The tabular sources of a workspace as catalog tables, newest first',
      description: 'Virtual and folder sources are excluded. Page size defaults to 200.',
      tags: ['Catalog'],
      params: WsParams,
      querystring,
      response: { 200: listEnvelope(ref(CatalogTableSchema)) },
    },
  }, async (request) => {
    const page = await catalog.tables(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/workspaces/:wsId/catalog/views', {
    config: { scope: 'catalog:read', problems: [503] },
    schema: {
      operationId: 'listCatalogViews',
      summary: 'The datasets of a workspace as catalog views, newest first, with row counts',
      description: 'Row counts are computed by the data engine for the page served. Page size defaults to 200.',
      tags: ['Catalog'],
      params: WsParams,
      querystring,
      response: { 200: listEnvelope(ref(CatalogViewSchema)) },
    },
  }, async (request) => {
    const page = await catalog.views(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });
}
