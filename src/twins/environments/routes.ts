import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IdParam, PageQuery, TwinParams, TwinVersionParams, dataEnvelope, listEnvelope, ref } from '../../../schemas/common.js';
import {
  CreateEnvironmentGroupBody,
  ENVIRONMENT_KEY_FORM,
  EnvironmentGroupSchema,
  EnvironmentListQuery,
  EnvironmentListSchema,
  EnvironmentResolutionSchema,
  GraphSliceBody,
  GraphSliceSchema,
  PatchEnvironmentGroupBody,
  ResolveEnvironmentGroupBody,
} from '../../../schemas/environments.js';
import type { EnvironmentService } from './service.js';

const GroupParams = Type.Object({ ...TwinParams.properties, ...IdParam('groupId', 'Environment group id').properties });
const Page = Type.Object(PageQuery, { additionalProperties: false });
const BASE = '/workspaces/:wsId/digital-twins/:id';
const GROUPS = `${BASE}/environment-groups`;

const LISTING =
  `Environments are the combinations of the twin's \`environmentColumns\` found in a version's data, with row counts, time span (temporal panels) and per-variable statistics, ` +
  `recorded when the version's learning reads its data (run-pipeline). ${ENVIRONMENT_KEY_FORM} Sorted by key; \`q\` filters on the key. ` +
  'The response says which version (`versionId`, `version`) and whether it has read its data (`profiled`). Single-environment twins have none (an empty page).';
const GROUP_RULES =
  'Groups exist on multi-environment twins only (422 on static and temporal twins). Names are unique within the twin, case-insensitive (409). ' +
  'The `definition`\'s mode names the member that selects (`environments`, `columnValues` or `statFilters`): it is required and the other modes\' members are refused; ' +
  'its columns must be environment columns of the twin and its statFilter variables modelled variables (422, located). ' +
  'The threshold rule: the top-level `agreementThreshold` wins over `definition.agreementThreshold`, which is read only when the top-level one is absent; the stored definition repeats the group\'s value.';

export function environmentRoutes(app: FastifyInstance, environments: EnvironmentService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Digital twins'];

  api.get(`${BASE}/environments`, {
    config: { scope: 'digital-twins:read' },
    schema: {
      operationId: 'listTwinEnvironments',
      summary: 'List the environments of a multi-environment twin (its newest version that has read its data)',
      description: `${LISTING} This listing reads the newest version (by number) that has read its data; none yet: an empty page with \`versionId\` null. A cursor keeps paging the version the first page read.`,
      tags,
      params: TwinParams,
      querystring: EnvironmentListQuery,
      response: { 200: EnvironmentListSchema },
    },
  }, async (request) => environments.listEnvironments(request.principal, request.params.wsId, request.params.id, request.query));

  api.get(`${BASE}/versions/:vId/environments`, {
    config: { scope: 'digital-twins:read' },
    schema: {
      operationId: 'listVersionEnvironments',
      summary: 'List the environments of one version of a multi-environment twin',
      description: `${LISTING} A version that has not read its data yet answers an empty page with \`profiled\` false.`,
      tags,
      params: TwinVersionParams,
      querystring: EnvironmentListQuery,
      response: { 200: EnvironmentListSchema },
    },
  }, async (request) => environments.listEnvironments(request.principal, request.params.wsId, request.params.id, request.query, request.params.vId));

  api.get(GROUPS, {
    config: { scope: 'digital-twins:read' },
    schema: {
      operationId: 'listEnvironmentGroups',
      summary: 'List the environment groups of a twin, oldest first',
      description: 'The groups saved on the twin (also in the twin\'s `environmentGroups`). A single-environment twin has none.',
      tags,
      params: TwinParams,
      querystring: Page,
      response: { 200: listEnvelope(ref(EnvironmentGroupSchema)) },
    },
  }, async (request) => {
    const page = await environments.listGroups(request.principal, request.params.wsId, request.params.id, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post(GROUPS, {
    config: { scope: 'digital-twins:write', problems: [409] },
    schema: {
      operationId: 'createEnvironmentGroup',
      summary: 'Save an environment group on a multi-environment twin',
      description: `${GROUP_RULES} Without any threshold the group's is 0.5.`,
      tags,
      params: TwinParams,
      body: CreateEnvironmentGroupBody,
      response: { 201: dataEnvelope(ref(EnvironmentGroupSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await environments.createGroup(request.principal, request.params.wsId, request.params.id, request.body) };
  });

  api.post(`${GROUPS}/resolve`, {
    config: { scope: 'digital-twins:read' },
    schema: {
      operationId: 'resolveEnvironmentGroup',
      summary: 'Which environments a group definition (inline or by id) selects',
      description:
        'Matches an inline `definition` or a saved group (`groupId`; exactly one of them) against the environments of a version (`versionId`, default the newest version that has read its data). ' +
        'Read-only. Answers 200 when nothing matches (`matchedCount` 0; the graph slice answers that with 422) and when no version has read its data yet (`profiled` false). ' +
        '`unknown` lists the items of an `environments`-mode definition that select nothing; `evidenceCount` the matched environments a slice would count. ' +
        'An inline definition is checked against the twin like a group\'s (422, located); a single-environment twin answers 422.',
      tags,
      params: TwinParams,
      body: ResolveEnvironmentGroupBody,
      response: { 200: dataEnvelope(ref(EnvironmentResolutionSchema)) },
    },
  }, async (request) => ({ data: await environments.resolve(request.principal, request.params.wsId, request.params.id, request.body) }));

  api.post(`${BASE}/versions/:vId/graph/slice`, {
    config: { scope: 'digital-twins:read' },
    schema: {
      operationId: 'sliceTwinGraph',
      summary: 'The graph of a selection of environments (multi-environment twins)',
      description:
        'Selects environments by an inline definition (`mode` with `environments`, `columnValues` or `statFilters`, as EnvironmentGroupDefinition) or a saved group (`groupId`), ' +
        'and answers the version\'s edges that hold in at least `agreementThreshold` of the selected environments with evidence (default 0.5, else the group\'s), with their ' +
        'agreement and strength within the selection. Read-only. 422 on a single-environment twin, a version without a learned graph, or a selection matching no environment with evidence.',
      tags,
      params: TwinVersionParams,
      body: GraphSliceBody,
      response: { 200: dataEnvelope(ref(GraphSliceSchema)) },
    },
  }, async (request) => ({ data: await environments.slice(request.principal, request.params.wsId, request.params.id, request.params.vId, request.body) }));

  api.get(`${GROUPS}/:groupId`, {
    config: { scope: 'digital-twins:read' },
    schema: { operationId: 'getEnvironmentGroup', summary: 'Read an environment group', tags, params: GroupParams, response: { 200: dataEnvelope(ref(EnvironmentGroupSchema)) } },
  }, async (request) => ({ data: await environments.getGroup(request.principal, request.params.wsId, request.params.id, request.params.groupId) }));

  api.patch(`${GROUPS}/:groupId`, {
    config: { scope: 'digital-twins:write', problems: [409] },
    schema: {
      operationId: 'updateEnvironmentGroup',
      summary: 'Rename an environment group or change its definition, threshold or split',
      description: `Changes the members given; a new \`definition\` replaces the old one whole. ${GROUP_RULES} Without any threshold in the body the group keeps its own. Runs already submitted keep their frozen snapshot of the group.`,
      tags,
      params: GroupParams,
      body: PatchEnvironmentGroupBody,
      response: { 200: dataEnvelope(ref(EnvironmentGroupSchema)) },
    },
  }, async (request) => ({ data: await environments.updateGroup(request.principal, request.params.wsId, request.params.id, request.params.groupId, request.body) }));

  api.delete(`${GROUPS}/:groupId`, {
    config: { scope: 'digital-twins:write' },
    schema: {
      operationId: 'deleteEnvironmentGroup',
      summary: 'Delete an environment group',
      description: 'Runs already submitted keep their frozen snapshot of the group (`environmentGroupSnapshots`).',
      tags,
      params: GroupParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await environments.deleteGroup(request.principal, request.params.wsId, request.params.id, request.params.groupId);
    return reply.code(204).send(null);
  });
}
