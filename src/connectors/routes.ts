import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdParam, PageQuery, dataEnvelope, listEnvelope, ref } from '../../schemas/common.js';
import {
  BrowseEntrySchema,
  BrowseQuery,
  CONNECTOR_TYPES,
  ConnectorSchema,
  CreateConnectorBody,
  DirectQueryRowsSchema,
  DirectQueryBody,
  ImportBody,
  PreviewBody,
  RowsSchema,
  TestResultSchema,
  UpdateConnectorBody,
} from '../../schemas/connectors.js';
import { JobAcceptedSchema } from '../../schemas/jobs.js';
import { clientGone } from '../http/client-gone.js';
import type { ConnectorService } from './service.js';

const Params = IdParam('id', 'Connector id');
const TAGS = ['Connectors'];

export function connectorRoutes(app: FastifyInstance, connectors: ConnectorService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/connectors', {
    config: { scope: 'connectors:read' },
    schema: {
      operationId: 'listConnectors',
      summary: 'List the connectors of the organisation, newest first',
      tags: TAGS,
      querystring: Type.Object(PageQuery, { additionalProperties: false }),
      response: { 200: listEnvelope(ref(ConnectorSchema)) },
    },
  }, async (request) => {
    const page = await connectors.list(request.principal, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post('/connectors', {
    config: { scope: 'connectors:write', problems: [403] },
    schema: {
      operationId: 'createConnector',
      summary: 'Create a connector (status `unconfigured`)',
      description:
        `Types: ${CONNECTOR_TYPES.join(', ')} (another type answers 422 listing these). Credentials per type: see \`SqlCredentials\`, ` +
        '`ConnectionStringCredentials`, `ClickHouseCredentials`, `StorageCredentials`; they are encrypted at rest and never returned. ' +
        'Needs an organisation admin with an org-wide credential. Connectors reach only public addresses unless the operator admits a host (CAUSA_CONNECTOR_ALLOW_HOSTS); ' +
        'a storage root must lie inside the organisation\'s directory `<root>/<organisationId>` of an operator root (CAUSA_STORAGE_ROOTS).',
      tags: TAGS,
      body: CreateConnectorBody,
      response: { 201: dataEnvelope(ref(ConnectorSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await connectors.create(request.principal, request.body) };
  });

  api.get('/connectors/:id', {
    config: { scope: 'connectors:read' },
    schema: { operationId: 'getConnector', summary: 'Get a connector (never its credentials)', tags: TAGS, params: Params, response: { 200: dataEnvelope(ref(ConnectorSchema)) } },
  }, async (request) => ({ data: await connectors.get(request.principal, request.params.id) }));

  api.patch('/connectors/:id', {
    config: { scope: 'connectors:write' },
    schema: {
      operationId: 'updateConnector',
      summary: 'Rename a connector or replace its credentials',
      description: 'New credentials set the status back to `unconfigured` until the next test, browse or import. `credentials: null` removes them. Needs an organisation admin with an org-wide credential.',
      tags: TAGS,
      params: Params,
      body: UpdateConnectorBody,
      response: { 200: dataEnvelope(ref(ConnectorSchema)) },
    },
  }, async (request) => ({ data: await connectors.update(request.principal, request.params.id, request.body) }));

  api.delete('/connectors/:id', {
    config: { scope: 'connectors:write' },
    schema: {
      operationId: 'deleteConnector',
      summary: 'Delete a connector; sources and jobs of earlier imports remain',
      description: 'Needs full permission: an organisation admin with an org-wide credential.',
      tags: TAGS,
      params: Params,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await connectors.delete(request.principal, request.params.id);
    return reply.code(204).send(null);
  });

  api.get('/connectors/:id/browse', {
    config: { scope: 'connectors:read', problems: [400, 409, 502] },
    schema: {
      operationId: 'browseConnector',
      summary: 'Browse one level of the source (databases, schemas, tables, columns, files)',
      description:
        'Levels: PostgreSQL `databases`, `schemas`, `tables` (context `schema`, default public), `columns` (`schema`, `table`); ' +
        'MySQL/MariaDB and ClickHouse `databases`, `tables` (context `database`), `columns` (`database`, `table`); storage `files` (context `path`, a directory under the root). ' +
        'PostgreSQL may also take `database` to browse another database of the server. `search` filters names case-insensitively; at most 1000 entries. ' +
        'Any other query parameter is forwarded to the driver as context. Moves the status to `connected`, or `error` (502) when the source cannot be reached.',
      tags: TAGS,
      params: Params,
      querystring: BrowseQuery,
      response: { 200: dataEnvelope(Type.Array(ref(BrowseEntrySchema))) },
    },
  }, async (request, reply) => ({ data: await connectors.browse(request.principal, request.params.id, request.query as Record<string, string>, clientGone(reply)) }));

  api.post('/connectors/:id/preview-query', {
    config: { scope: 'connectors:read', problems: [400, 409, 502] },
    schema: {
      operationId: 'previewConnectorQuery',
      summary: 'The first rows of a table, query or file; read-only, nothing stored',
      description:
        'The read runs in a read-only transaction or session on the source, with a 30 s statement timeout, so a write sent as `query` fails there (400 with the source\'s own message, secrets removed). ' +
        'A source that cannot be reached answers 502. The status is not changed.',
      tags: TAGS,
      params: Params,
      body: PreviewBody,
      response: { 200: dataEnvelope(ref(RowsSchema)) },
    },
  }, async (request, reply) => ({ data: await connectors.preview(request.principal, request.params.id, request.body, clientGone(reply)) }));

  api.post('/connectors/:id/test', {
    config: { scope: 'connectors:read', problems: [409] },
    schema: {
      operationId: 'testConnector',
      summary: 'Check that the credentials reach the source; modifies nothing on it',
      description: 'Answers 200 either way: `ok` false with the reason when the source cannot be reached. Moves the status to `connected` or `error`.',
      tags: TAGS,
      params: Params,
      response: { 200: dataEnvelope(TestResultSchema) },
    },
  }, async (request, reply) => ({ data: await connectors.test(request.principal, request.params.id, clientGone(reply)) }));

  api.post('/connectors/:id/import', {
    config: { scope: 'connectors:write', problems: [409, 502] },
    schema: {
      operationId: 'importFromConnector',
      summary: 'Import a table, query result or file into a new source of a workspace (a job)',
      description:
        'Convention 6: a workspace credential imports into its workspace; an org-wide credential must send `workspaceId` (422 otherwise); a workspace outside the credential answers 403. ' +
        'Needs write permission on the workspace. The job (type `connector_import`) streams the rows into the data store in bounded memory and creates a tabular source ' +
        '(`dataSource` `connector`, `extractionRecipe` naming the connector and config) with schema and statistics; column types follow the source\'s declared types. ' +
        'A source whose address the operator does not allow answers 502 before any job is made; a failure after that fails the job with the source\'s reason and leaves no source. Result: `sourceId`, `sourceName`, `rowCount`, `columnCount`, `bytes`.',
      tags: TAGS,
      params: Params,
      body: ImportBody,
      response: { 202: dataEnvelope(ref(JobAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await connectors.import(request.principal, request.params.id, request.body) };
  });

  api.post('/connectors/:id/direct-query', {
    config: { scope: 'connectors:read', problems: [400, 409, 502] },
    schema: {
      operationId: 'directQueryConnector',
      summary: 'Answer a read-only query on the source as rows, for a workspace; nothing stored',
      description:
        'For assistants and applications that need live rows without an import. Same workspace rules as import (convention 6), read permission on the workspace. ' +
        '`config` as in preview (`query`, or `table` with context, or `path`); up to `limit` rows (default 1000, at most 10,000; `truncated` tells when there were more) ' +
        'within `timeoutMs` (default and at most 30,000). Read-only on the source as preview is.',
      tags: TAGS,
      params: Params,
      body: DirectQueryBody,
      response: { 200: dataEnvelope(ref(DirectQueryRowsSchema)) },
    },
  }, async (request, reply) => ({ data: await connectors.directQuery(request.principal, request.params.id, request.body, clientGone(reply)) }));
}
