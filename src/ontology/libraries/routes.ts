import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdParam, WorkspaceParams, dataEnvelope, ref } from '../../../schemas/common.js';
import {
  InstallOntologyBody,
  OntologyInstallDetailSchema,
  OntologyInstallResultSchema,
  OntologyInstallSchema,
  OntologyLibraryQuery,
  OntologyLibrarySchema,
  OntologyLibrarySummarySchema,
} from '../../../schemas/ontology-libraries.js';
import type { OntologyLibraryService } from './service.js';

const LibraryParams = IdParam('ontologyId', 'Ontology library id, e.g. `causa.commerce`');
const InstallParams = Type.Object({ ...WorkspaceParams.properties, ...LibraryParams.properties });
const INSTALLS = '/workspaces/:wsId/ontology/installs';

export function ontologyLibraryRoutes(app: FastifyInstance, libraries: OntologyLibraryService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Ontology'];

  api.get('/ontologies', {
    config: { scope: 'ontology:read' },
    schema: {
      operationId: 'listOntologies',
      summary: 'List the shared ontology libraries a workspace can install',
      description: 'Bundled, versioned libraries of standard concepts (customers, products, countries, currencies...), each at its newest version, by id. Not paginated: there are few.',
      tags,
      response: { 200: dataEnvelope(Type.Array(ref(OntologyLibrarySummarySchema))) },
    },
  }, async () => ({ data: libraries.libraries() }));

  api.get('/ontologies/:ontologyId', {
    config: { scope: 'ontology:read' },
    schema: {
      operationId: 'getOntology',
      summary: 'Read an ontology library with its concepts',
      description:
        'The newest version, or `version`. Each concept has a `canonicalId` stable across versions, the members an install gives it, its `valueMappings` ' +
        '(canonical values and their other spellings: ISO codes, names, abbreviations) and `fieldNames`, column names extraction reads as it. An unknown library or version answers 404.',
      tags,
      params: LibraryParams,
      querystring: OntologyLibraryQuery,
      response: { 200: dataEnvelope(ref(OntologyLibrarySchema)) },
    },
  }, async (request) => ({ data: libraries.library(request.params.ontologyId, request.query.version) }));

  api.post(INSTALLS, {
    config: { scope: 'ontology:write', problems: [409] },
    schema: {
      operationId: 'installOntology',
      summary: 'Install a library into the workspace\'s ontology, or update the install to a newer version',
      description:
        'Each library concept becomes a concept of the workspace with `ontologyRef` {ontologyId, ontologyVersion, canonicalId, installScope `workspace`}, the layer id `ontology:<id>@<version>` in `layerIds` and trust tier `certified`. ' +
        'A concept of the same name (any case) without an ontologyRef is linked, not duplicated: it keeps its members and mappings and gains the ontologyRef, the layer id, the library\'s value mappings and tags, and the description and metadata it lacked. ' +
        'Extraction then matches fields to the installed concepts like to any other. Installing the installed version again changes nothing (200). ' +
        'A newer version updates the members the library gave its concepts, except those a person locked (`lockedConceptFields`, `lockedMetadataFields`: reported as `kept`); editVersion moves only on concepts whose meaning changed. ' +
        'An older version than installed, or a concept of the library\'s name that belongs to another library, answers 409; an unknown library or version 422 (located). First install: 201.',
      tags,
      params: WorkspaceParams,
      body: InstallOntologyBody,
      response: { 200: dataEnvelope(ref(OntologyInstallResultSchema)), 201: dataEnvelope(ref(OntologyInstallResultSchema)) },
    },
  }, async (request, reply) => {
    const { result, isNew } = await libraries.install(request.principal, request.params.wsId, request.body);
    reply.code(isNew ? 201 : 200);
    return { data: result };
  });

  api.get(INSTALLS, {
    config: { scope: 'ontology:read' },
    schema: {
      operationId: 'listOntologyInstalls',
      summary: 'List the libraries installed in the workspace',
      description: 'Each with the version installed, the newest available and how many of the workspace\'s concepts refer to it. Not paginated: one entry per library.',
      tags,
      params: WorkspaceParams,
      response: { 200: dataEnvelope(Type.Array(ref(OntologyInstallSchema))) },
    },
  }, async (request) => ({ data: await libraries.list(request.principal, request.params.wsId) }));

  api.get(`${INSTALLS}/:ontologyId`, {
    config: { scope: 'ontology:read' },
    schema: {
      operationId: 'getOntologyInstall',
      summary: 'Read an install: its concepts, and what uninstalling would do to each',
      description: '`onUninstall`: `delete` for a concept the install created that no dataset names, that maps no field and that no other concept links to; `keep` for the others.',
      tags,
      params: InstallParams,
      response: { 200: dataEnvelope(ref(OntologyInstallDetailSchema)) },
    },
  }, async (request) => ({ data: await libraries.get(request.principal, request.params.wsId, request.params.ontologyId) }));

  api.delete(`${INSTALLS}/:ontologyId`, {
    config: { scope: 'ontology:delete' },
    schema: {
      operationId: 'uninstallOntology',
      summary: 'Remove an install (full permission)',
      description:
        'Concepts the install created that no dataset names, that map no field and that no other concept links to are deleted; the others (and the linked ones) stay as workspace concepts, ' +
        'their `ontologyRef` cleared and the layer id removed from `layerIds` (their editVersion moves). GET the install first to see which is which (`onUninstall`). Not installed: 404.',
      tags,
      params: InstallParams,
      response: { 204: Type.Null({ description: 'Uninstalled' }) },
    },
  }, async (request, reply) => {
    await libraries.uninstall(request.principal, request.params.wsId, request.params.ontologyId);
    return reply.code(204).send(null);
  });
}
