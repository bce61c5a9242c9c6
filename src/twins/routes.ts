import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PageQuery, TwinParams, TwinVersionParams, WorkspaceParams, dataEnvelope, listEnvelope, ref } from '../../schemas/common.js';
import { JobAcceptedSchema } from '../../schemas/jobs.js';
import {
  CreateTwinBody,
  CreateVersionBody,
  DigitalTwinSchema,
  DiscoverBody,
  FixedSubGraphSchema,
  PatchFixedGraphBody,
  PatchTwinBody,
  RunPipelineBody,
  TrainBody,
  TwinVersionSchema,
} from '../../schemas/twins.js';
import type { TwinService } from './service.js';

const Page = Type.Object(PageQuery, { additionalProperties: false });
const BASE = '/workspaces/:wsId/digital-twins';
const JOB = 'Answers 202 with a job (poll `links.self`; cancel with `links.cancel`). Every twin type can be learned.';

export function twinRoutes(app: FastifyInstance, twins: TwinService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Digital twins'];

  api.get(BASE, {
    config: { scope: 'digital-twins:read' },
    schema: { operationId: 'listDigitalTwins', summary: 'List the digital twins of a workspace, newest first', tags, params: WorkspaceParams, querystring: Page, response: { 200: listEnvelope(ref(DigitalTwinSchema)) } },
  }, async (request) => {
    const page = await twins.list(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post(BASE, {
    config: { scope: 'digital-twins:write' },
    schema: {
      operationId: 'createDigitalTwin',
      summary: 'Create a digital twin and its first version 1.0.0',
      description:
        'Binds the twin to a dataset or a tabular source of the workspace (at most one). Nothing is computed until discover, train or ' +
        'run-pipeline. Temporal types need `selectedTimeColumnName`, multi-environment types `environmentColumns`; named columns must exist (422).',
      tags,
      params: WorkspaceParams,
      body: CreateTwinBody,
      response: { 201: dataEnvelope(ref(DigitalTwinSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await twins.create(request.principal, request.params.wsId, request.body) };
  });

  api.get(`${BASE}/:id`, {
    config: { scope: 'digital-twins:read' },
    schema: { operationId: 'getDigitalTwin', summary: 'Read a digital twin, with its canonical input schema and suggested simulations', tags, params: TwinParams, response: { 200: dataEnvelope(ref(DigitalTwinSchema)) } },
  }, async (request) => ({ data: await twins.get(request.principal, request.params.wsId, request.params.id) }));

  api.patch(`${BASE}/:id`, {
    config: { scope: 'digital-twins:write' },
    schema: { operationId: 'updateDigitalTwin', summary: 'Rename or re-tag a digital twin', tags, params: TwinParams, body: PatchTwinBody, response: { 200: dataEnvelope(ref(DigitalTwinSchema)) } },
  }, async (request) => ({ data: await twins.update(request.principal, request.params.wsId, request.params.id, request.body) }));

  api.delete(`${BASE}/:id`, {
    config: { scope: 'digital-twins:delete' },
    schema: {
      operationId: 'deleteDigitalTwin',
      summary: 'Delete a digital twin (full permission)',
      description: 'Removes the twin, every version and fitted model; jobs still working on it are cancelled. Job records stay as history.',
      tags,
      params: TwinParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await twins.delete(request.principal, request.params.wsId, request.params.id);
    return reply.code(204).send(null);
  });

  api.get(`${BASE}/:id/versions`, {
    config: { scope: 'digital-twins:read' },
    schema: { operationId: 'listTwinVersions', summary: 'List the versions of a twin, newest version number first', tags, params: TwinParams, querystring: Page, response: { 200: listEnvelope(ref(TwinVersionSchema)) } },
  }, async (request) => {
    const page = await twins.listVersions(request.principal, request.params.wsId, request.params.id, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post(`${BASE}/:id/versions`, {
    config: { scope: 'digital-twins:write' },
    schema: {
      operationId: 'createTwinVersion',
      summary: 'Create a new version of a twin',
      description:
        'Numbered by `bump` above the newest version (1.0.3 + minor = 1.1.0), derived from `baseVersionId` (default the newest; recorded in ' +
        '`derivedFromVersionId`): its fixed graph and data are copied unless `datasetId` names another dataset. Nothing is learned yet.',
      tags,
      params: TwinParams,
      body: CreateVersionBody,
      response: { 201: dataEnvelope(ref(TwinVersionSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await twins.createVersion(request.principal, request.params.wsId, request.params.id, request.body) };
  });

  api.get(`${BASE}/:id/versions/:vId`, {
    config: { scope: 'digital-twins:read' },
    schema: { operationId: 'getTwinVersion', summary: 'Read a whole version record: graph, nodes, evaluation, changelog', tags, params: TwinVersionParams, response: { 200: dataEnvelope(ref(TwinVersionSchema)) } },
  }, async (request) => ({ data: await twins.getVersion(request.principal, request.params.wsId, request.params.id, request.params.vId) }));

  api.get(`${BASE}/:id/versions/:vId/graph/fixed`, {
    config: { scope: 'digital-twins:read' },
    schema: { operationId: 'getFixedGraph', summary: 'The edges pinned present and forbidden on a version', tags, params: TwinVersionParams, response: { 200: dataEnvelope(FixedSubGraphSchema) } },
  }, async (request) => ({ data: await twins.getFixedGraph(request.principal, request.params.wsId, request.params.id, request.params.vId) }));

  api.patch(`${BASE}/:id/versions/:vId/graph/fixed`, {
    config: { scope: 'digital-twins:write', problems: [409] },
    schema: {
      operationId: 'patchFixedGraph',
      summary: 'Pin edges present or forbid them',
      description:
        '`clearEdges` first drops any pin or forbid of those edges; then `addEdges` pins edges present (`relationships`: discovery never ' +
        'removes them and training always fits them) and `removeEdges` forbids them (`antiRelationships`: never added in that direction). ' +
        'An edge both pinned and forbidden, a self-loop, pinned edges forming a cycle, or (once the twin knows its variables) an unknown ' +
        'variable answer 422 and change nothing; a concurrent edit of the same version answers 409. Discovery and training respect the result on their next run.',
      tags,
      params: TwinVersionParams,
      body: PatchFixedGraphBody,
      response: { 200: dataEnvelope(FixedSubGraphSchema) },
    },
  }, async (request) => ({ data: await twins.patchFixedGraph(request.principal, request.params.wsId, request.params.id, request.params.vId, request.body) }));

  api.post(`${BASE}/:id/versions/:vId/discover`, {
    config: { scope: 'digital-twins:execute' },
    schema: {
      operationId: 'discoverTwinVersion',
      summary: 'Discover the causal graph of a version',
      description: `PC-stable with a test chosen by column type, then score-based refinement; edge confidence from bootstrap resamples run in parallel. ${JOB}`,
      tags,
      params: TwinVersionParams,
      body: Type.Optional(DiscoverBody),
      response: { 202: dataEnvelope(ref(JobAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await twins.discover(request.principal, request.params.wsId, request.params.id, request.params.vId, request.body ?? {}) };
  });

  api.post(`${BASE}/:id/versions/:vId/train`, {
    config: { scope: 'digital-twins:execute' },
    schema: {
      operationId: 'trainTwinVersion',
      summary: 'Fit the causal Bayesian network of a version on its graph',
      description: `Fits every node given its parents and evaluates it on a held-out split. A version with no graph yet answers 409. ${JOB}`,
      tags,
      params: TwinVersionParams,
      body: Type.Optional(TrainBody),
      response: { 202: dataEnvelope(ref(JobAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await twins.train(request.principal, request.params.wsId, request.params.id, request.params.vId, request.body ?? {}) };
  });

  api.post(`${BASE}/:id/run-pipeline`, {
    config: { scope: 'digital-twins:execute' },
    schema: {
      operationId: 'runTwinPipeline',
      summary: 'Discover then train a version (default the newest)',
      description: JOB,
      tags,
      params: TwinParams,
      body: Type.Optional(RunPipelineBody),
      response: { 202: dataEnvelope(ref(JobAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await twins.runPipeline(request.principal, request.params.wsId, request.params.id, request.body ?? {}) };
  });
}
