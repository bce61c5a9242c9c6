import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Body, IdParam, WorkspaceParams, dataEnvelope, listEnvelope, ref } from '../../schemas/common.js';
import { JobAcceptedSchema } from '../../schemas/jobs.js';
import { ConceptListQuery, ConceptSchema, ConceptSplitSchema, CreateConceptBody, DownstreamSchema, ENRICHMENT_NAME, EnrichConceptBody, PutConceptBody, SplitConceptBody } from '../../schemas/ontology.js';
import { MAX_DISTINCT } from './enrichment.js';
import type { OntologyService } from './service.js';

const ConceptParams = Type.Object({ ...WorkspaceParams.properties, ...IdParam('id', 'Concept id').properties });
const BASE = '/workspaces/:wsId/ontology/concepts';
const VERSIONS =
  '`editVersion` moves when what the concept means changes (name, description, classification, mappings, value mappings, rules, links, locks, edited metadata); ' +
  'statistics refreshed by new rows (detectedMetadata, conformance, confidence) leave it, so datasets written against it stay current.';

export function ontologyRoutes(app: FastifyInstance, ontology: OntologyService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Ontology'];

  api.get(BASE, {
    config: { scope: 'ontology:read' },
    schema: {
      operationId: 'listConcepts',
      summary: 'List the ontology concepts of a workspace, newest first',
      description: 'With `sourceId`, only concepts with a field mapping for that source.',
      tags,
      params: WorkspaceParams,
      querystring: ConceptListQuery,
      response: { 200: listEnvelope(ref(ConceptSchema)) },
    },
  }, async (request) => {
    const page = await ontology.list(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post(BASE, {
    config: { scope: 'ontology:write', problems: [409] },
    schema: {
      operationId: 'createConcept',
      summary: 'Create a concept by hand',
      description:
        'Concepts are also made by ontology extraction. `name` is required and unique in the workspace, case-insensitive (409). ' +
        'Field mappings must name fields of sources linked to the workspace, anchor links concepts of it (422, located). ' +
        'Unset members take their defaults (classification `dimension`, kind `standard`, trust tier `exploratory`); `editVersion` starts at 0.',
      tags,
      params: WorkspaceParams,
      body: CreateConceptBody,
      response: { 201: dataEnvelope(ref(ConceptSchema)) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return { data: await ontology.create(request.principal, request.params.wsId, request.body) };
  });

  api.get(`${BASE}/:id`, {
    config: { scope: 'ontology:read' },
    schema: { operationId: 'getConcept', summary: 'Read a concept', tags, params: ConceptParams, response: { 200: dataEnvelope(ref(ConceptSchema)) } },
  }, async (request) => ({ data: await ontology.get(request.principal, request.params.wsId, request.params.id) }));

  api.put(`${BASE}/:id`, {
    config: { scope: 'ontology:write', problems: [409] },
    schema: {
      operationId: 'putConcept',
      summary: 'Change a concept: the body is merged into the stored concept',
      description:
        '`_id` must be the id in the path (422). Members given replace the stored ones; members left out stay. With `editVersion`, the change applies only to that version (409 otherwise, nothing changed); ' +
        `without it, to the current one. The members the change alters are locked against re-extraction (added to \`lockedConceptFields\`, edited metadata members to \`lockedMetadataFields\`). ${VERSIONS} ` +
        '`downstream` says who reads the concept: datasets using it (their reads now return the new editVersion; a PATCH of their sources must name it) and the twins learning from them (trained versions keep what they learned; a new version reads the change).',
      tags,
      params: ConceptParams,
      body: PutConceptBody,
      response: { 200: Type.Object({ data: ref(ConceptSchema), downstream: ref(DownstreamSchema) }) },
    },
  }, async (request) => {
    const { concept, downstream } = await ontology.put(request.principal, request.params.wsId, request.params.id, request.body);
    return { data: concept, downstream };
  });

  api.delete(`${BASE}/:id`, {
    config: { scope: 'ontology:delete', problems: [409] },
    schema: {
      operationId: 'deleteConcept',
      summary: 'Delete a concept (full permission); refused (409) while a dataset uses it',
      tags,
      params: ConceptParams,
      response: { 204: Type.Null({ description: 'Deleted' }) },
    },
  }, async (request, reply) => {
    await ontology.delete(request.principal, request.params.wsId, request.params.id);
    return reply.code(204).send(null);
  });

  api.post(`${BASE}/:id/split`, {
    config: { scope: 'ontology:write', problems: [409] },
    schema: {
      operationId: 'splitConcept',
      summary: 'Move one field mapping out of a concept into a new concept',
      description:
        'Names the mapping by `fieldMapping.sourceId` (or `datasetId` of a dataset over one source) and `field`; its other members, when given, replace the moved mapping\'s. ' +
        'The new concept (named `name`, default "<concept> (<field>)") takes the concept\'s classification, type and description; the concept loses the mapping and its editVersion moves. ' +
        'A concept\'s only mapping cannot be split off (422).',
      tags,
      params: ConceptParams,
      body: SplitConceptBody,
      response: { 200: dataEnvelope(ref(ConceptSplitSchema)) },
    },
  }, async (request) => ({ data: await ontology.split(request.principal, request.params.wsId, request.params.id, request.body) }));

  api.post(`${BASE}/:id/enrichments`, {
    config: { scope: 'ontology:write' },
    schema: {
      operationId: 'enrichConcept',
      summary: 'Resolve every value of a concept\'s fields to its canonical values (a `concept_enrichment` job)',
      description:
        'Kind `forward` (the default): each distinct text value of each field mapped to the concept is resolved to one of its `valueMappings` canonical values: as written, an alias, '
        + 'or a spelling of exactly one of them (case, spacing, punctuation and accents ignored; initials such as NY for New York; an abbreviation of exactly one value). '
        + 'The whole resolution becomes each field mapping\'s `valueMap` (the editVersion moves when it changes); unmatched values stay as written. '
        + `Status and progress are the concept's \`metadata.enrichments.${ENRICHMENT_NAME}\` (status queued, running, completed, failed or cancelled; counts of distinct, matched and unmatched values per field, with some unmatched ones). `
        + 'The anchor query facility reads the fields through their value maps, so spellings of one value group, filter and join as one; while an enrichment runs, a query through the concept answers the error `enrichment_running` with its progress. '
        + `Fields of more than ${MAX_DISTINCT.toLocaleString('en')} distinct values, non-text fields and fields of sources no longer linked are skipped (said per field). `
        + 'A concept without canonical values, or mapping no field, is refused (422). One enrichment waits per concept: asking again while one is queued answers that job.',
      tags,
      params: ConceptParams,
      body: EnrichConceptBody,
      response: { 202: dataEnvelope(ref(JobAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await ontology.enrich(request.principal, request.params.wsId, request.params.id, request.body) };
  });

  api.post('/workspaces/:wsId/ontology/extractions', {
    config: { scope: 'ontology:write' },
    schema: {
      operationId: 'extractOntology',
      summary: 'Describe a source\'s fields as concepts again (an `ontology_extraction` job)',
      description:
        'Extraction runs by itself after rows arrive in a source whose `ontologyMode` is `auto`; this asks for it on any tabular source of the workspace (a `manual` one included). ' +
        'Fields are matched to the workspace\'s concepts by name (words, abbreviations and synonyms), type and value overlap; unmatched fields become new concepts. ' +
        'Locked members are kept; a locked member extraction now finds different is reported in `lineageDrift`. The source\'s `ontologyStatus` moves queued, running, completed or failed.',
      tags,
      params: WorkspaceParams,
      body: Body({ sourceId: Type.String({ minLength: 1, maxLength: 64, description: 'A tabular source linked to the workspace' }), webhookUrl: Type.Optional(Type.String({ maxLength: 2048 })) }),
      response: { 202: dataEnvelope(ref(JobAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await ontology.extract(request.principal, request.params.wsId, request.body.sourceId, request.body.webhookUrl ?? null) };
  });
}
