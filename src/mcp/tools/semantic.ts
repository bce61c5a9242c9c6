/** The semantic layer as MCP tools: concepts to learn what the data means, and the anchor query facility to ask for it. */
import { Type } from 'typebox';
import { JobAcceptedSchema } from '../../../schemas/jobs.js';
import { ConceptSchema, EnrichConceptBody, PutConceptBody } from '../../../schemas/ontology.js';
import { type CreateDataView, CreateDataViewBody, DataViewRowsQuery, DataViewSchema } from '../../../schemas/data-views.js';
import { QueryBody, QueryResultSchema } from '../../../schemas/query.js';
import { QUERY_LANGUAGE } from '../../query/routes.js';
import { IdOf, ListOf, PageMembers, type Tool, WorkspaceId, defineTool, followJob, listed, page } from '../tool.js';

export const semanticTools: Tool[] = [
  defineTool({
    name: 'list_concepts', title: 'List ontology concepts', scope: 'ontology:read', effect: 'read',
    description: 'What the columns of a workspace mean: its concepts (customer, order date, revenue...), each with the source fields mapped to it, its classification and statistics. With sourceId, only the concepts of that source.',
    input: { workspaceId: WorkspaceId, sourceId: Type.Optional(IdOf('Source')), ...PageMembers }, output: ListOf(ConceptSchema),
    run: async ({ services, principal, args }) => listed(await services.ontology.list(principal, args.workspaceId, { ...page(args), ...(args.sourceId === undefined ? {} : { sourceId: args.sourceId }) })),
  }),
  defineTool({
    name: 'get_concept', title: 'Read an ontology concept', scope: 'ontology:read', effect: 'read',
    description: 'One concept: its field mappings (with confidence, evidence and conformance), value mappings (spellings of one value), mined rules, time order and editVersion.',
    input: { workspaceId: WorkspaceId, conceptId: IdOf('Concept') }, output: ConceptSchema,
    run: ({ services, principal, args }) => services.ontology.get(principal, args.workspaceId, args.conceptId),
  }),
  defineTool({
    name: 'update_concept', title: 'Change an ontology concept', scope: 'ontology:write', effect: 'write', idempotent: true,
    description: 'Merges the given members into a concept (as PUT .../ontology/concepts/{id}; give editVersion to refuse a stale change). Changed members are locked against re-extraction. Answers the concept and who reads it (downstream).',
    input: { workspaceId: WorkspaceId, conceptId: IdOf('Concept'), ...(({ _id: _ignored, ...rest }) => rest)(PutConceptBody.properties) },
    run: async ({ services, principal, args }) => {
      const { workspaceId, conceptId, ...body } = args;
      const { concept, downstream } = await services.ontology.put(principal, workspaceId, conceptId, { ...body, _id: conceptId } as never);
      return { concept, downstream };
    },
  }),
  defineTool({
    name: 'enrich_concept', title: 'Resolve every spelling of a concept\'s values', scope: 'ontology:write', effect: 'long',
    description: 'Starts the forward enrichment of a concept (as POST .../ontology/concepts/{id}/enrichments): every value written in its fields is resolved to its canonical values (valueMappings), so that queries group, filter and join "NY" and "New York" as one. Answers the job id; follow it with get_job, and read the counts of matched and unmatched values in the concept\'s metadata.enrichments.',
    input: { workspaceId: WorkspaceId, conceptId: IdOf('Concept'), ...(({ webhookUrl: _hook, ...rest }) => rest)(EnrichConceptBody.properties) }, output: JobAcceptedSchema,
    intent: (args) => `start an enrichment job of concept ${String(args.conceptId)}`,
    follow: followJob,
    run: ({ services, principal, args }) => services.ontology.enrich(principal, args.workspaceId, args.conceptId, { kind: args.kind }),
  }),
  defineTool({
    name: 'query_workspace', title: 'Ask for data by meaning', scope: 'datasets:read', effect: 'read',
    description: `Runs a query of the anchor query language over the workspace's datasets, names resolved through the ontology (start with SHOW CONCEPTS or SHOW DATASETS). ${QUERY_LANGUAGE} A query that does not compile answers ok false with the code, the span, candidates and a suggestedQuery to try.`,
    input: { workspaceId: WorkspaceId, ...(({ saveAs: _saved, ...rest }) => rest)(QueryBody.properties) }, output: Type.Object({ result: QueryResultSchema }),
    run: async ({ services, principal, args }) => {
      const { workspaceId, ...request } = args;
      return { result: await services.queries.run(principal, workspaceId, request as never) };
    },
  }),
  defineTool({
    name: 'save_data_view', title: 'Save a query as a data view', scope: 'datasets:write', effect: 'write',
    description: 'Saves a SELECT of the anchor query language under a name (as POST .../data-views): the query must compile now; reading the view (read_data_view) runs it again on the current data.',
    input: { workspaceId: WorkspaceId, ...CreateDataViewBody.properties }, output: DataViewSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, ...body } = args;
      return services.dataViews.create(principal, workspaceId, body as CreateDataView);
    },
  }),
  defineTool({
    name: 'list_data_views', title: 'List data views', scope: 'datasets:read', effect: 'read',
    description: 'The saved queries of a workspace, newest first, with their query text.',
    input: { workspaceId: WorkspaceId, ...PageMembers }, output: ListOf(DataViewSchema),
    run: async ({ services, principal, args }) => listed(await services.dataViews.list(principal, args.workspaceId, page(args))),
  }),
  defineTool({
    name: 'read_data_view', title: 'Read a data view', scope: 'datasets:read', effect: 'read',
    description: 'Runs a saved query now and answers its rows a page at a time (limit, startKey), as query_workspace does.',
    input: { workspaceId: WorkspaceId, dataViewId: IdOf('Data view'), ...DataViewRowsQuery.properties }, output: Type.Object({ result: QueryResultSchema }),
    run: async ({ services, principal, args }) => {
      const { workspaceId, dataViewId, ...pageOf } = args;
      return { result: await services.dataViews.rows(principal, workspaceId, dataViewId, pageOf) };
    },
  }),
];
