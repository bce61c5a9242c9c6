import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdParam, IdString, PageQuery, WorkspaceParams, dataEnvelope, listEnvelope, ref } from '../../schemas/common.js';
import { CreateSourceBody, DataFormatSchema, FromDataBody, ExtractBody, ExtractionResultSchema, LinkSourceBody, OrgSourceSchema, RetypeBody, SOURCE_SORT_KEYS, SourceFileSchema, SourceSchema, UploadResultSchema } from '../../schemas/sources.js';
import type { Readable } from 'node:stream';
import { UPLOAD_FORMATS } from '../tables/readers.js';
import type { SourceBatches } from './batches.js';
import type { SourceService } from './service.js';

const WsSourceParams = Type.Object({ wsId: IdString('Workspace id'), id: IdString('Source id') });
const LinkParams = Type.Object({ id: IdString('Source id'), wsId: IdString('Workspace id') });

export function sourceRoutes(app: FastifyInstance, sources: SourceService, batches: SourceBatches): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/sources', {
    config: { scope: 'sources:read' },
    schema: {
      operationId: 'listOrganisationSources',
      summary: 'List the sources of the organisation, including unlinked ones',
      description:
        'Organisation admins with an org-wide credential see every source; others see the sources linked to workspaces they can read. ' +
        '`parentId`: omit for top-level sources, a source id for its children, `all` to flatten the tree. `search` matches names case-insensitively.',
      tags: ['Sources'],
      querystring: Type.Object(
        {
          ...PageQuery,
          parentId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          format: Type.Optional(DataFormatSchema),
          search: Type.Optional(Type.String({ maxLength: 200 })),
          sortBy: Type.Optional(Type.Union(SOURCE_SORT_KEYS.map((key) => Type.Literal(key)), { default: 'createdAt' })),
          sortDir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' })),
        },
        { additionalProperties: false },
      ),
      response: { 200: listEnvelope(ref(SourceSchema)) },
    },
  }, async (request) => {
    const page = await sources.listForOrganisation(request.principal, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get('/sources/:id', {
    config: { scope: 'sources:read' },
    schema: {
      operationId: 'getSource',
      summary: 'Get a source with the workspaces it is linked to',
      tags: ['Sources'],
      params: IdParam('id', 'Source id'),
      response: { 200: dataEnvelope(ref(OrgSourceSchema)) },
    },
  }, async (request) => ({ data: await sources.get(request.principal, request.params.id) }));

  api.post('/sources/:id/links', {
    config: { scope: 'sources:write' },
    schema: {
      operationId: 'linkSource',
      summary: 'Link a source to another workspace of the organisation (write permission there); idempotent',
      tags: ['Sources'],
      params: IdParam('id', 'Source id'),
      body: LinkSourceBody,
      response: { 200: dataEnvelope(ref(OrgSourceSchema)) },
    },
  }, async (request) => ({ data: await sources.link(request.principal, request.params.id, request.body.workspaceId) }));

  api.delete('/sources/:id/links/:wsId', {
    config: { scope: 'sources:write', problems: [409] },
    schema: {
      operationId: 'unlinkSource',
      summary: 'Remove a source from a workspace (full permission there); the source itself stays',
      description: 'A source that datasets of that workspace read answers 409 until they stop using it.',
      tags: ['Sources'],
      params: LinkParams,
      response: { 204: Type.Null({ description: 'Unlinked' }) },
    },
  }, async (request, reply) => {
    await sources.unlink(request.principal, request.params.id, request.params.wsId);
    return reply.code(204).send(null);
  });

  api.get('/workspaces/:wsId/sources', {
    config: { scope: 'sources:read' },
    schema: {
      operationId: 'listWorkspaceSources',
      summary: 'List the sources linked to a workspace (virtual sources excluded)',
      description: '`parentId` narrows to the sources derived from that source.',
      tags: ['Sources'],
      params: WorkspaceParams,
      querystring: Type.Object(
        { ...PageQuery, parentId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), format: Type.Optional(DataFormatSchema) },
        { additionalProperties: false },
      ),
      response: { 200: listEnvelope(ref(SourceSchema)) },
    },
  }, async (request) => {
    const page = await sources.listForWorkspace(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post('/workspaces/:wsId/sources', {
    config: { scope: 'sources:write' },
    schema: {
      operationId: 'createSource',
      summary: 'Create an empty source (metadata only) linked to the workspace',
      description: 'Its rows arrive by upload (`.../sources/{id}/upload`: each file one batch and a new version; a folder source keeps the files for extraction). `.../sources/from-data` and a connector import (`/connectors/{id}/import`) make a source together with its rows.',
      tags: ['Sources'],
      params: WorkspaceParams,
      body: CreateSourceBody,
      response: { 201: dataEnvelope(ref(SourceSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await sources.create(request.principal, request.params.wsId, request.body) };
  });

  api.post('/workspaces/:wsId/sources/from-data', {
    config: { scope: 'sources:write' },
    schema: {
      operationId: 'createSourceFromData',
      summary: 'Create a tabular source from inline records',
      description:
        'Columns are the union of the record keys; their schema is inferred from the values (numbers with grouping, ' +
        'percent and currency units, booleans, dates and datetimes with format detection, JSON arrays and objects, ' +
        'categorical vs free text, identifiers). The records become the first batch and version of the source.',
      tags: ['Sources'],
      params: WorkspaceParams,
      body: FromDataBody,
      response: { 201: dataEnvelope(ref(SourceSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await batches.createFromData(request.principal, request.params.wsId, request.body) };
  });

  // Uploads read the raw body as a stream: their own scope, with no body parser but a pass-through.
  void app.register(async (files) => {
    files.removeAllContentTypeParsers();
    files.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    const binary = { schema: Type.String({ format: 'binary' }) };
    files.withTypeProvider<TypeBoxTypeProvider>().post('/workspaces/:wsId/sources/:id/upload', {
      config: { scope: 'sources:write', rawBody: true, problems: [409] },
      schema: {
        operationId: 'uploadSourceFile',
        summary: 'Append a file to a tabular source as one batch and a new version, or keep it in a folder source',
        description:
          'The body is the file itself, streamed (CSV or TSV with a header line, NDJSON, a JSON array of objects, or Parquet), ' +
          'or `multipart/form-data` whose part `file` is the file (its media type, or its name\'s extension when sent as ' +
          'application/octet-stream, says the format; its file name is used when `fileName` is not given). Up to 10 GiB. ' +
          'The first batch decides the schema; later files must have exactly the same columns (422 otherwise); column names ' +
          'starting with `_causa_` are the service\'s own (422). A malformed ' +
          'file or a value that does not fit its column answers 422 naming the line (element, row), and nothing of the file ' +
          'is stored. The same bytes uploaded again add nothing: 200 with the batch they made (201 for a new batch). Plain ' +
          'CSV columns are parsed and converted by the data engine itself; other files are converted row by row. A folder source ' +
          'keeps the file as it is (`file` in the answer; one more `documentCount`) for extraction.',
        tags: ['Sources'],
        params: WsSourceParams,
        querystring: Type.Object({ fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false }),
        body: {
          content: {
            ...Object.fromEntries(Object.keys(UPLOAD_FORMATS).map((type) => [type, binary])),
            'multipart/form-data': { schema: Type.Object({ file: Type.String({ format: 'binary', description: 'The file' }) }) },
          },
        } as never,
        response: { 200: dataEnvelope(UploadResultSchema), 201: dataEnvelope(UploadResultSchema) },
      },
    }, async (request, reply) => {
      const contentType = String(request.headers['content-type'] ?? '');
      const result = await batches.upload(request.principal, request.params.wsId, request.params.id, request.body as Readable, contentType, request.query.fileName ?? null);
      reply.code(result.duplicate ? 200 : 201);
      return { data: result };
    });
  });

  api.get('/workspaces/:wsId/sources/:id/files', {
    config: { scope: 'sources:read' },
    schema: {
      operationId: 'listSourceFiles',
      summary: 'The files a folder source holds, oldest first (a tabular source holds none)',
      description: 'Not paginated: a folder is listed whole.',
      tags: ['Sources'],
      params: WsSourceParams,
      response: { 200: dataEnvelope(Type.Array(ref(SourceFileSchema))) },
    },
  }, async (request) => ({ data: await batches.listFiles(request.principal, request.params.wsId, request.params.id) }));

  api.post('/workspaces/:wsId/sources/:id/extract', {
    config: { scope: 'sources:write', problems: [409] },
    schema: {
      operationId: 'extractFolderFiles',
      summary: 'Extract files of a folder source into derived tabular sources',
      description:
        'Each file (all not yet extracted, or `fileIds`) is read like an upload (CSV, TSV, NDJSON, JSON array, Parquet) into a new tabular source: a child ' +
        'of the folder (`parentSourceId`), linked to this workspace, `derivedVia` `folder_extraction`, `extractionStatus` `completed`, ' +
        '`extractionRecipe` naming the folder and file. A file that cannot be read as a table is listed in `failed` with the reason and ' +
        'leaves nothing; the folder\'s `extractionStatus` (completed, partial, failed) and `extractionError` record the run. Runs within ' +
        'the request (jobs arrive with the engine issue); while another upload or extraction holds the folder, 409.',
      tags: ['Sources'],
      params: WsSourceParams,
      body: ExtractBody,
      response: { 200: dataEnvelope(ExtractionResultSchema) },
    },
  }, async (request) => ({ data: await batches.extract(request.principal, request.params.wsId, request.params.id, request.body.fileIds) }));

  api.post('/workspaces/:wsId/sources/:id/retype', {
    config: { scope: 'sources:write', problems: [409] },
    schema: {
      operationId: 'retypeSourceColumn',
      summary: 'Change the type of a column of a tabular source, re-validating every stored row',
      description:
        'Every stored value is converted through its text and checked first: the first that does not fit answers 422 naming its row, ' +
        'and nothing changes. Otherwise the column is converted in one step, its statistics recomputed, and the source gets a new ' +
        '`currentVersionId` (no new batch); later uploads are read with the new type. `availableTypes` lists the types inference ' +
        'saw the sample fit; any of the listed targets may be asked for. Datasets the change no longer fits answer 409 on read until ' +
        'they are updated. While an upload or another change holds the source, 409.',
      tags: ['Sources'],
      params: WsSourceParams,
      body: RetypeBody,
      response: { 200: dataEnvelope(ref(SourceSchema)) },
    },
  }, async (request) => ({ data: await batches.retype(request.principal, request.params.wsId, request.params.id, request.body) }));

  api.delete('/workspaces/:wsId/sources/:id', {
    config: { scope: 'sources:delete', problems: [409] },
    schema: {
      operationId: 'deleteSource',
      summary: 'Delete a source (full permission on every workspace it is linked to)',
      description: 'A source with derived sources answers 409 until they are deleted.',
      tags: ['Sources'],
      params: WsSourceParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await sources.delete(request.principal, request.params.wsId, request.params.id);
    return reply.code(204).send(null);
  });
}
