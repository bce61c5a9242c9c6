import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdString, PageQuery, WorkspaceParams, dataEnvelope, listEnvelope, ref } from '../../schemas/common.js';
import {
  CreateDatasetBody,
  DatasetMetadataSchema,
  DatasetSchema,
  EnrichedDatasetSchema,
  PatchDatasetBody,
  RecommendedDatasetSchema,
  Row,
  ValidateDatasetBody,
  ValidationResultSchema,
} from '../../schemas/datasets.js';
import { SchemaEntrySchema } from '../../schemas/sources.js';
import { EXPORT_FORMATS, type ExportName } from './query.js';
import type { DatasetService } from './service.js';

const DatasetParams = Type.Object({ wsId: IdString('Workspace id'), id: IdString('Dataset id') });
const ExportParams = Type.Object({
  wsId: IdString('Workspace id'),
  id: IdString('Dataset id'),
  format: Type.Union([Type.Literal('csv'), Type.Literal('json'), Type.Literal('parquet')], { description: 'csv (with a header line), json (an array of row objects) or parquet' }),
});
const STALE =
  'A stored definition its sources no longer fit (e.g. a source was re-typed) answers 409. A query the data engine stops at its ' +
  'time limit (60 s; 30 min per export part) answers 503.';

export function datasetRoutes(app: FastifyInstance, datasets: DatasetService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Datasets'];

  api.get('/workspaces/:wsId/datasets', {
    config: { scope: 'datasets:read' },
    schema: {
      operationId: 'listDatasets',
      summary: 'List the datasets of a workspace, newest first',
      tags,
      params: WorkspaceParams,
      querystring: Type.Object(PageQuery, { additionalProperties: false }),
      response: { 200: listEnvelope(ref(DatasetSchema)) },
    },
  }, async (request) => {
    const page = await datasets.list(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post('/workspaces/:wsId/datasets', {
    config: { scope: 'datasets:write', problems: [503] },
    schema: {
      operationId: 'createDataset',
      summary: 'Create a dataset over sources of the workspace',
      description:
        'The first source is the dataset; operations apply in order to the rows of their `sourceId`, and every other source must be ' +
        'joined into the first. The definition is compiled when it is written: an unknown source or column, a value of the wrong type, ' +
        'or an operation that does not fit its input answers 422 naming the place. `conceptVersions` must have exactly one entry per ' +
        '`conceptId`, each concept one of the workspace\'s that maps a field of that source (422), at its current `editVersion` (409 naming the stale ones, nothing stored); ' +
        '`anchorConceptId` must be a concept of the workspace (422). Reads return the concepts\' current edit versions.',
      tags,
      params: WorkspaceParams,
      body: CreateDatasetBody,
      response: { 201: dataEnvelope(ref(DatasetSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await datasets.create(request.principal, request.params.wsId, request.body) };
  });

  api.get('/workspaces/:wsId/datasets/recommended', {
    config: { scope: 'datasets:read' },
    schema: {
      operationId: 'recommendDatasets',
      summary: 'Dataset definitions worth starting from',
      description: 'Each tabular source with rows on its own, and pairs of sources sharing a column that identifies rows of one of them, joined on it. Not paginated (at most 50).',
      tags,
      params: WorkspaceParams,
      response: { 200: dataEnvelope(Type.Array(RecommendedDatasetSchema)) },
    },
  }, async (request) => ({ data: await datasets.recommended(request.principal, request.params.wsId) }));

  api.get('/workspaces/:wsId/datasets/:id', {
    config: { scope: 'datasets:read' },
    schema: { operationId: 'getDataset', summary: 'Get a dataset', tags, params: DatasetParams, response: { 200: dataEnvelope(ref(DatasetSchema)) } },
  }, async (request) => ({ data: await datasets.get(request.principal, request.params.wsId, request.params.id) }));

  api.patch('/workspaces/:wsId/datasets/:id', {
    config: { scope: 'datasets:write', problems: [409, 503] },
    schema: {
      operationId: 'updateDataset',
      summary: 'Change a dataset (any of name, description, tags, sources, operations, anchorConceptId)',
      description: 'The new definition is compiled as on create (422). Sent `sources` must carry the current `conceptVersions` (409 when stale), as on create. Two updates racing: the later one answers 409.',
      tags,
      params: DatasetParams,
      body: PatchDatasetBody,
      response: { 200: dataEnvelope(ref(DatasetSchema)) },
    },
  }, async (request) => ({ data: await datasets.update(request.principal, request.params.wsId, request.params.id, request.body) }));

  api.delete('/workspaces/:wsId/datasets/:id', {
    config: { scope: 'datasets:delete' },
    schema: {
      operationId: 'deleteDataset',
      summary: 'Delete a dataset (full permission); its sources stay',
      tags,
      params: DatasetParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await datasets.delete(request.principal, request.params.wsId, request.params.id);
    return reply.code(204).send(null);
  });

  api.get('/workspaces/:wsId/datasets/:id/enriched', {
    config: { scope: 'datasets:read', problems: [409, 503] },
    schema: {
      operationId: 'getEnrichedDataset',
      summary: 'A dataset with its output schema, column statistics, row count and each operation explained',
      description: `Statistics are computed by the data engine on demand. \`concepts\` are the ontology concepts the dataset names, with their metadata and current edit versions. ${STALE}`,
      tags,
      params: DatasetParams,
      response: { 200: dataEnvelope(EnrichedDatasetSchema) },
    },
  }, async (request) => ({ data: await datasets.enriched(request.principal, request.params.wsId, request.params.id) }));

  api.get('/workspaces/:wsId/datasets/:id/metadata', {
    config: { scope: 'datasets:read', problems: [409, 503] },
    schema: {
      operationId: 'getDatasetMetadata',
      summary: 'Schema entries, column statistics and row count of a dataset',
      description: STALE,
      tags,
      params: DatasetParams,
      response: { 200: dataEnvelope(DatasetMetadataSchema) },
    },
  }, async (request) => ({ data: await datasets.metadata(request.principal, request.params.wsId, request.params.id) }));

  api.get('/workspaces/:wsId/datasets/:id/records', {
    config: { scope: 'datasets:read', problems: [409, 503] },
    schema: {
      operationId: 'listDatasetRecords',
      summary: 'Rows of a dataset, in its order, by keyset pages',
      description:
        'The order is the dataset\'s sort (nulls last) and then the order rows were ingested, so it is stable; the cursor carries the ' +
        `last row's sort values, so a late page costs what the first does. A cursor from before the dataset was changed is refused (400). ${STALE}`,
      tags,
      params: DatasetParams,
      querystring: Type.Object(PageQuery, { additionalProperties: false }),
      response: { 200: listEnvelope(Row) },
    },
  }, async (request) => {
    const page = await datasets.records(request.principal, request.params.wsId, request.params.id, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/workspaces/:wsId/datasets/:id/schema', {
    config: { scope: 'datasets:read', problems: [409] },
    schema: {
      operationId: 'getDatasetSchema',
      summary: 'The output schema of a dataset, after all operations',
      description: STALE,
      tags,
      params: DatasetParams,
      response: { 200: dataEnvelope(Type.Array(ref(SchemaEntrySchema))) },
    },
  }, async (request) => ({ data: await datasets.schema(request.principal, request.params.wsId, request.params.id) }));

  api.post('/workspaces/:wsId/datasets/:id/validate', {
    config: { scope: 'datasets:write', problems: [503] },
    schema: {
      operationId: 'validateDataset',
      summary: 'Compile a proposed definition and preview it; nothing is stored',
      description: 'Members left out are taken from the stored dataset. A definition that does not compile answers 422 naming the place.',
      tags,
      params: DatasetParams,
      body: ValidateDatasetBody,
      response: { 200: dataEnvelope(ValidationResultSchema) },
    },
  }, async (request) => ({ data: await datasets.validate(request.principal, request.params.wsId, request.params.id, request.body) }));

  const binary = { schema: Type.String({ format: 'binary' }) };
  api.get('/workspaces/:wsId/datasets/:id/export/:format', {
    config: { scope: 'exports:read', problems: [409, 503] },
    schema: {
      operationId: 'exportDataset',
      summary: 'The whole dataset as a file, streamed',
      description:
        `Needs \`exports:read\` and read permission on the workspace. Rows in the dataset's order, as recorded when the export starts. ` +
        'On the embedded engine CSV and JSON are read in parts of 100,000 rows, Parquet in parts of a million (one row group each, one file): ' +
        'an error after the first part ends the stream early (the answer is already 200), so a client should check it received a complete ' +
        `file (JSON parses; CSV row count; a Parquet file ends with its footer). ${STALE}`,
      tags,
      params: ExportParams,
      response: {
        200: {
          description: 'The file, with Content-Disposition naming it',
          content: {
            'text/csv': binary,
            'application/json': { schema: Type.Array(Row, { description: 'Every row, as in records' }) },
            'application/vnd.apache.parquet': binary,
          },
        } as never,
      },
    },
  }, async (request, reply) => {
    const format = request.params.format as ExportName;
    // A client that goes away stops the query in the engine.
    const abort = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const file = await datasets.export(request.principal, request.params.wsId, request.params.id, format, abort.signal);
    const fileName = `${file.name.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'dataset'}.${format}`;
    return reply
      .header('content-type', EXPORT_FORMATS[format].contentType)
      .header('content-disposition', `attachment; filename="${fileName}"`)
      .send(file.stream);
  });
}
