import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { WorkspaceParams, dataEnvelope, ref } from '../../schemas/common.js';
import { QUERY_ERROR_CODES, QueryBody, QueryResultSchema } from '../../schemas/query.js';
import type { QueryService } from './service.js';

/** The language in brief, for the OpenAPI description (README "Asking by meaning" has it whole). */
export const QUERY_LANGUAGE =
  'SELECT item, ... [FROM dataset] [WHERE condition AND|OR ...] [GROUP BY group, ...] [ORDER BY output [ASC|DESC], ...] [LIMIT n]; ' +
  'an item is a name, an aggregate (sum, avg, min, max, count, countDistinct, first, last) of a name or count(*), or a time grain (hour, day, week, month, quarter, year) of a time name, each with an optional AS alias; ' +
  'a condition is name = != < > <= >= value, CONTAINS, NOT CONTAINS, STARTS WITH, ENDS WITH, BEFORE, AFTER, [NOT] IN (values), IS [NOT] EMPTY; values are numbers, \'text\', TRUE, FALSE. ' +
  'Also SHOW CONCEPTS | SHOW DATASETS | SHOW METRICS and DESCRIBE name. Names are concepts (or fields mapped to them) and dataset columns (`dataset.column`; "quoted" when they have spaces); a metric concept\'s name stands for its `metricSql` formula '
  + '(aggregates combined with + - * / and numbers), computed per group.';

export function queryRoutes(app: FastifyInstance, queries: QueryService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post('/workspaces/:wsId/query', {
    config: { scope: 'datasets:read', problems: [409, 503] },
    schema: {
      operationId: 'queryWorkspace',
      summary: 'Ask for data by meaning: the anchor query facility',
      description:
        `${QUERY_LANGUAGE} ` +
        'Names resolve through the ontology; the dataset read is the FROM one, or the one holding the most names (aggregated ones first). A name found only in another dataset joins it, ' +
        'by the shortest chain of joins from the dataset read (or a dataset already joined), each hop through an identifier concept both of its datasets expose (a LEFT JOIN on their columns; never on column names alone; '
        + 'at most four joins; `plan.joinPlan` lists each hop with the dataset it joins onto); a join whose key repeats in the joined dataset is a warning with the fanout. ' +
        'Everything compiles to one ClickHouse query over the datasets\' own queries: nothing is materialised. ' +
        'The answer is one of four variants: `rows` (execute), `metadata` (SHOW, DESCRIBE), `validated` (mode validate) and, for a query that does not compile, the error variant (`ok` false, still 200) with ' +
        `a stable \`code\` (${QUERY_ERROR_CODES.join(', ')}), the \`span\` of the problem in the query text, ranked \`candidates\` for unknown names and a \`suggestedQuery\` that validates. ` +
        'Pages: `limit` rows from `startKey`; `nextStartKey` continues. A malformed request (no query, a bad limit) is a 422 problem document as everywhere. ' +
        'With `saveAs` {name, description}, a SELECT that compiles is also saved as a data view (`GET .../data-views/{id}/rows` runs it again) and the answer carries its `dataViewId`; '
        + 'saving needs the scope datasets:write (403), a name the workspace does not have (409), and a SELECT (422 at `body/saveAs`); a query that does not compile is answered with its error and not saved.',
      tags: ['Catalog'],
      params: WorkspaceParams,
      body: QueryBody,
      response: { 200: dataEnvelope(ref(QueryResultSchema)) },
    },
  }, async (request) => ({ data: await queries.run(request.principal, request.params.wsId, request.body) }));
}
