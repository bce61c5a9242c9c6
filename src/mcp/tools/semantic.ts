/** The semantic layer as MCP tools: concepts to learn what the data means, and the anchor query facility to ask for it. */
import { Type } from 'typebox';
import { ConceptSchema, PutConceptBody } from '../../../schemas/ontology.js';
import { QueryBody, QueryResultSchema } from '../../../schemas/query.js';
import { QUERY_LANGUAGE } from '../../query/routes.js';
import { IdOf, ListOf, PageMembers, type Tool, WorkspaceId, defineTool, listed, page } from '../tool.js';

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
    name: 'query_workspace', title: 'Ask for data by meaning', scope: 'datasets:read', effect: 'read',
    description: `Runs a query of the anchor query language over the workspace's datasets, names resolved through the ontology (start with SHOW CONCEPTS or SHOW DATASETS). ${QUERY_LANGUAGE} A query that does not compile answers ok false with the code, the span, candidates and a suggestedQuery to try.`,
    input: { workspaceId: WorkspaceId, ...QueryBody.properties }, output: Type.Object({ result: QueryResultSchema }),
    run: async ({ services, principal, args }) => {
      const { workspaceId, ...request } = args;
      return { result: await services.queries.run(principal, workspaceId, request as never) };
    },
  }),
];
