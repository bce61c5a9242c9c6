import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { CatalogPageQuery, CatalogTableSchema, CatalogViewSchema } from '../../schemas/catalog.js';
import { WorkspaceParams, dataEnvelope, listEnvelope, ref } from '../../schemas/common.js';
import { CatalogConceptSchema, CatalogGraphSchema } from '../../schemas/ontology.js';
import type { CatalogService } from './service.js';


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
      params: WorkspaceParams,
      querystring,
      response: { 200: listEnvelope(ref(CatalogTableSchema)) },
    },
  }, async (request) => {
    const page = await catalog.tables(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/workspaces/:wsId/catalog/concepts', {
    config: { scope: 'catalog:read' },
    schema: {
      operationId: 'listCatalogConcepts',
      summary: 'The ontology concepts of a workspace in catalog shape, newest first',
      description: 'With `sourceId`, only concepts with a field mapping for that source (a catalog table). Page size defaults to 200.',
      tags: ['Catalog'],
      params: WorkspaceParams,
      querystring: Type.Object({ ...CatalogPageQuery, sourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A source (catalog table) id' })) }, { additionalProperties: false }),
      response: { 200: listEnvelope(ref(CatalogConceptSchema)) },
    },
  }, async (request) => {
    const page = await catalog.concepts(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/workspaces/:wsId/catalog/graph', {
    config: { scope: 'catalog:read' },
    schema: {
      operationId: 'getCatalogGraph',
      summary: 'The ontology graph of a workspace: concepts, and how they link',
      description:
        'Nodes are the workspace\'s concepts. An `anchor` edge goes from a concept to the anchor concept (an identifier, time or place) it describes in some source ' +
        '(its rows\' key or time: the concept\'s `anchorConceptLinks`); a `temporal_prerequisite` edge from a time concept to one it precedes on every row of a source. `via` says where each link was seen.',
      tags: ['Catalog'],
      params: WorkspaceParams,
      response: { 200: dataEnvelope(ref(CatalogGraphSchema)) },
    },
  }, async (request) => ({ data: await catalog.graph(request.principal, request.params.wsId) }));

  api.get('/workspaces/:wsId/catalog/views', {
    config: { scope: 'catalog:read', problems: [503] },
    schema: {
      operationId: 'listCatalogViews',
      summary: 'The datasets of a workspace as catalog views, newest first, with row counts',
      description: 'Row counts are computed by the data engine for the page served. Page size defaults to 200.',
      tags: ['Catalog'],
      params: WorkspaceParams,
      querystring,
      response: { 200: listEnvelope(ref(CatalogViewSchema)) },
    },
  }, async (request) => {
    const page = await catalog.views(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });
}
