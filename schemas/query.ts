import { type Static, Type } from 'typebox';
import { SaveAsSchema } from './data-views.js';
import { Body, Nullable, literals } from './common.js';

/** The stable `code` values of the query error variant (spec: Errors 4; README "Asking by meaning"). */
export const QUERY_ERROR_CODES = [
  'empty_query', 'syntax_error', 'mixed_boolean', 'invalid_limit', 'unknown_function', 'unknown_name', 'ambiguous_name',
  'no_dataset', 'no_join_path', 'type_mismatch', 'invalid_aggregate', 'invalid_metric', 'query_failed', 'enrichment_running',
] as const;

export const QueryBody = Body({
  query: Type.String({ maxLength: 20_000, description: 'A query in the anchor query language (SELECT, SHOW, DESCRIBE)' }),
  mode: Type.Optional(literals(['execute', 'validate'] as const, '`execute` (default) runs it; `validate` compiles it and answers the SQL and plan')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Rows per page, 1 to 1000' })),
  startKey: Type.Optional(Type.Integer({ minimum: 0, description: 'The `nextStartKey` of the previous page' })),
  saveAs: Type.Optional(SaveAsSchema),
});
export type QueryRequest = Static<typeof QueryBody>;

const Span = Nullable(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2, description: '[start, end) character offsets into the query text' }));
const Row = Type.Record(Type.String(), Type.Unknown());
const InvolvedConcept = Type.Object({ conceptId: Type.String(), name: Type.String(), role: literals(['referenced', 'related', 'anchor', 'geo'] as const) });
const Plan = Type.Object({
  chips: Type.Array(Type.Object({ kind: Type.String(), label: Type.String(), detail: Nullable(Type.String()) }), { description: 'The query read back in parts: dataset, measures, groups, filters, join' }),
  joinPlan: Type.Array(Type.Object({
    sourceDatasetId: Type.String(),
    targetDatasetId: Type.String(),
    conceptName: Type.String({ description: 'The anchor concept joined through' }),
    strategy: literals(['lookup', 'fanout'] as const, '`lookup`: the joined dataset has one row per key; `fanout`: several (rows repeat)'),
    fanout: Nullable(Type.Number({ description: 'Rows of the joined dataset per key (execute mode; null when validating)' })),
  })),
  strategy: literals(['single_dataset', 'anchor_join'] as const),
  requestPlan: Type.Array(Type.Object({
    datasetId: Type.String(),
    datasetName: Type.String(),
    requests: Type.Integer(),
    cachedSlices: Type.Integer(),
    refreshSlices: Type.Integer(),
    estimatedRows: Nullable(Type.Integer()),
    window: Type.Array(Type.String()),
    entities: Type.Integer({ default: 0 }),
    points: Type.Integer({ default: 0 }),
    outsideCoverage: Type.Boolean({ default: false }),
    boundedBy: Type.Array(Type.String()),
    fetchedRequests: Type.Integer({ default: 0 }),
    fetchedRows: Type.Integer({ default: 0 }),
  }), { description: 'Per dataset read: one compiled request each (nothing is cached or materialised)' }),
});

export const QueryResultSchema = Type.Union(
  [
    Type.Object({
      ok: Type.Literal(true),
      kind: Type.Literal('rows'),
      sql: Type.String({ description: 'The one ClickHouse query run (parameters as {name:Type} placeholders)' }),
      columns: Type.Array(Type.String()),
      rows: Type.Array(Row),
      rowCount: Type.Integer(),
      totalRowCount: Type.Integer(),
      truncated: Type.Boolean({ default: false, description: 'More rows than this page: read on with nextStartKey' }),
      nextStartKey: Nullable(Type.Integer()),
      schemaEntries: Type.Array(Type.Object({ field: Type.String(), type: Type.String(), subtype: Nullable(Type.String()) })),
      units: Type.Record(Type.String(), Type.String()),
      plan: Plan,
      warnings: Type.Array(Type.String()),
      dataViewId: Nullable(Type.String({ description: 'The data view the query was saved as (`saveAs`), or that was read (`GET .../data-views/{id}/rows`); else null' })),
      relatedColumns: Type.Array(Type.String({ description: 'Other columns of the datasets read, about the same anchor' })),
      involvedConcepts: Type.Array(InvolvedConcept),
    }),
    Type.Object({
      ok: Type.Literal(true),
      kind: Type.Literal('metadata'),
      command: Type.String(),
      columns: Type.Array(Type.String()),
      rows: Type.Array(Row),
      rowCount: Type.Integer(),
      totalRowCount: Type.Integer(),
      truncated: Type.Boolean({ default: false }),
      nextStartKey: Nullable(Type.Integer()),
    }),
    Type.Object({
      ok: Type.Literal(true),
      kind: Type.Literal('validated'),
      dataViewId: Nullable(Type.String({ description: 'The data view the query was saved as (`saveAs`); else null' })),
      sql: Type.String(),
      plan: Plan,
      warnings: Type.Array(Type.String()),
      involvedConcepts: Type.Array(InvolvedConcept),
    }),
    Type.Object({
      ok: Type.Literal(false),
      error: Type.Object({
        code: Type.String({ minLength: 1, description: `One of ${QUERY_ERROR_CODES.join(', ')}` }),
        message: Type.String(),
        span: Span,
        perSource: Type.Array(Type.Object({ datasetId: Type.String(), datasetName: Type.String(), reason: Type.String() })),
        candidates: Type.Array(Type.Object({
          kind: literals(['concept', 'metric', 'derived', 'source', 'dataset', 'tag', 'grain'] as const),
          id: Type.String(),
          name: Type.String(),
          score: Type.Number({ default: 0 }),
          syntax: Type.String({ description: 'How to write it in the query' }),
        })),
        suggestedQuery: Nullable(Type.String({ description: 'A corrected query that validates' })),
        enrichmentProgress: Type.Array(Type.Object({
          datasetId: Type.String(), datasetName: Type.String(), conceptId: Type.String(), conceptName: Type.String(), status: Type.String(),
          distinctTotal: Type.Integer(), matchedCount: Type.Integer(), unmatchedCount: Type.Integer(),
        }), { description: 'With `enrichment_running`: per dataset read and concept being enriched, the progress over that dataset\'s fields (else empty)' }),
      }),
    }),
  ],
  { $id: 'QueryResult', title: 'QueryResult' },
);
export type QueryResult = Static<typeof QueryResultSchema>;
