import type { SaveAs } from '../../schemas/data-views.js';
import type { Concept, EnrichmentStatus } from '../../schemas/ontology.js';
import type { QueryRequest, QueryResult } from '../../schemas/query.js';
import type { Principal } from '../auth/principal.js';
import type { CompiledDataset } from '../datasets/compiler/compile.js';
import { Params } from '../datasets/compiler/params.js';
import { READ_TIMEOUT_MS } from '../datasets/query.js';
import type { DatasetService } from '../datasets/service.js';
import { schemaOf } from '../datasets/service.js';
import { AppError } from '../errors.js';
import { enrichmentOf, isOpen } from '../ontology/enrichment.js';
import type { OntologyService } from '../ontology/service.js';
import { type DataStore, DataStoreError, quoteColumn, tenantSql } from '../store/data/port.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import { TOTAL_COLUMN, compileQuery } from './compile.js';
import { QuerySyntaxError, parse } from './language.js';
import { type QueryCatalog, QueryError, type QueryPlan, candidatePool, planSelect } from './plan.js';
import { quoteName, rank, similarity } from './suggest.js';
import { canonicalRelation } from './values.js';
import { newViewRow, viewNameTaken } from './views/model.js';
import type { DataViewRepo } from './views/repo.js';

type Rows = Extract<QueryResult, { kind: 'rows' }>;
type Metadata = Extract<QueryResult, { kind: 'metadata' }>;
type Failure = Extract<QueryResult, { ok: false }>;

const DEFAULT_LIMIT = 100;

interface Workspace {
  catalog: QueryCatalog;
  compiled: Map<string, CompiledDataset>;
}

/**
 * The anchor query facility (spec: Anchor query result models): a query in the language of language.ts is parsed,
 * its names resolved through the ontology (plan.ts), compiled onto the datasets' own compiled queries as one
 * ClickHouse query (compile.ts; tenant-safe as datasets are, nothing materialised) and run a page at a time.
 * Every failure of the query itself is the error variant with a span, candidates and a suggested query that validates.
 */
export class QueryService {
  constructor(
    private readonly datasets: DatasetService,
    private readonly ontology: OntologyService,
    private readonly data: () => DataStore,
    private readonly views: DataViewRepo,
    private readonly access: WorkspaceAccess,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  /**
   * Answers a query; with `saveAs`, a SELECT that compiles is also saved as a data view (needs datasets:write and
   * write access; 409 on a name the workspace has). `viewId`: the data view being read (its answer names it).
   */
  async run(principal: Principal, workspaceId: string, request: QueryRequest, viewId: string | null = null): Promise<QueryResult> {
    if (request.saveAs !== undefined) {
      if (!principal.scopes.has('datasets:write')) throw new AppError('missing_scope', 'Saving a query as a data view needs the scope datasets:write');
      await this.access.require(principal, workspaceId, 'write');
    }
    const workspace = await this.workspace(principal, workspaceId);
    const limit = request.limit ?? DEFAULT_LIMIT;
    const start = request.startKey ?? 0;
    try {
      const statement = parse(request.query);
      if (statement.kind !== 'select' && request.saveAs !== undefined) {
        throw new AppError('validation_failed', 'Only a SELECT can be saved as a data view', { errors: [{ location: 'body/saveAs', message: `${statement.kind.toUpperCase()} answers the workspace's metadata: save a SELECT` }] });
      }
      if (statement.kind === 'show') return page(show(statement.what, workspace.catalog), limit, start);
      if (statement.kind === 'describe') return page(describe(statement.name, workspace.catalog), limit, start);
      const plan = planSelect(statement, workspace.catalog, request.query);
      const base = workspace.compiled.get(plan.base.id)!;
      const joined = joinedOf(plan, workspace);
      const compiled = compileQuery(plan, base, joined);
      const tenant = tenantSql(principal.organisationId);
      if (request.mode === 'validate') {
        const dataViewId = request.saveAs === undefined ? viewId : await this.save(principal, workspaceId, request.saveAs, request.query);
        return { ok: true, kind: 'validated', sql: compiled.sql(tenant), plan: planOf(plan, new Map(), null), warnings: plan.warnings, involvedConcepts: plan.involved, dataViewId };
      }
      const waiting = pendingEnrichments(plan, workspace.catalog);
      if (waiting.length > 0) {
        const names = [...new Set(waiting.map((w) => w.conceptName))].join(', ');
        return failure('enrichment_running', `The values of ${names} are being resolved to canonical values; ask again when the enrichment completes (progress below)`, null, [], [], request.query, waiting);
      }
      const store = this.data();
      const fanout = new Map<string, number>();
      for (const join of plan.joins) fanout.set(join.alias, await this.fanout(principal.organisationId, join.dataset, joined.get(join.alias)!, join.joinedColumn));
      const paging = { ...compiled.params.values, page_limit: limit, page_offset: start };
      const rows = await store.query<Record<string, unknown>>(principal.organisationId, (sql) => compiled.page(sql, '{page_limit:UInt32}', '{page_offset:UInt64}'), paging, { timeoutMs: READ_TIMEOUT_MS });
      const total = rows.length === 0 ? (start === 0 ? 0 : await this.count(principal.organisationId, compiled)) : Number(rows[0]![TOTAL_COLUMN]);
      const served = rows.map((row) => present(row, compiled.columns));
      const more = start + served.length < total;
      const units: Record<string, string> = {};
      for (const item of plan.items) if (item.bound?.column.unit != null && item.item.fn !== 'count' && item.item.fn !== 'countDistinct') units[item.output] = item.bound.column.unit;
      return {
        ok: true,
        kind: 'rows',
        sql: compiled.sql(tenant),
        columns: compiled.columns.map((c) => c.name),
        rows: served,
        rowCount: served.length,
        totalRowCount: total,
        truncated: more,
        nextStartKey: more ? start + served.length : null,
        schemaEntries: compiled.columns.map((c) => ({ field: c.name, type: c.type, subtype: null })),
        units,
        plan: planOf(plan, fanout, total),
        warnings: plan.warnings,
        dataViewId: request.saveAs === undefined ? viewId : await this.save(principal, workspaceId, request.saveAs, request.query),
        relatedColumns: related(plan, workspace.catalog),
        involvedConcepts: plan.involved,
      };
    } catch (error) {
      if (error instanceof DataStoreError) return failure('query_failed', `The data engine refused the query: ${error.message}`, null);
      if (!(error instanceof QuerySyntaxError || error instanceof QueryError)) throw error;
      return this.explain(error, request.query, workspace);
    }
  }

  /** The error variant, with a suggested query: the best candidate (or expected word) put at the span, kept if it validates. */
  private explain(error: QuerySyntaxError | QueryError, text: string, workspace: Workspace): Failure {
    const pool = candidatePool(workspace.catalog);
    // Syntax errors offer the words that fit (tried in the suggested query), not names.
    const candidates = error instanceof QueryError ? error.candidates : error.code === 'unknown_function' && error.span !== null ? rank(text.slice(error.span[0], error.span[1]), pool.filter((c) => c.kind === 'grain')) : [];
    const replacements = [
      ...candidates.map((c) => c.syntax),
      ...(error instanceof QuerySyntaxError ? expectedWords(error, text) : []),
    ];
    // The planner's own correction first; then each replacement put in place of the span, and (a missing word) before it.
    const attempts = error instanceof QueryError && error.suggestion !== null ? [error.suggestion] : [];
    if (error.span !== null) {
      const [start, end] = error.span;
      const before = text.slice(0, start).trimEnd();
      const insert = (r: string) => `${before}${/^[),]/.test(r) ? '' : ' '}${r} ${text.slice(start)}`.trimEnd();
      attempts.push(...replacements.flatMap((r) => [`${text.slice(0, start)}${r}${text.slice(end)}`, ...(error instanceof QuerySyntaxError ? [insert(r)] : [])]));
    }
    // At most a dozen tries, each a parse, a plan and a compilation.
    const suggestedQuery = attempts.slice(0, 12).find((fixed) => fixed !== text && validates(fixed, workspace)) ?? fallback(workspace.catalog);
    return failure(error.code, error.message, error.span, candidates, error instanceof QueryError ? error.perSource : [], suggestedQuery);
  }

  private async workspace(principal: Principal, workspaceId: string): Promise<Workspace> {
    const [datasets, concepts] = await Promise.all([this.datasets.compiledAll(principal, workspaceId), this.ontology.all(principal, workspaceId)]);
    const inFlight = await this.ontology.enrichmentsInFlight(principal.organisationId, concepts.filter((c) => isOpen(enrichmentOf(c))).map((c) => c.id));
    const inFlightEntry = (entry: EnrichmentStatus | undefined) => (entry !== undefined && inFlight.has(entry.jobId ?? '') ? entry : null);
    return {
      catalog: {
        datasets: datasets.map((dataset) => ({
          id: dataset.id,
          name: dataset.name,
          tags: dataset.tags,
          sourceIds: dataset.sourceIds,
          columns: schemaOf(dataset.compiled.relation).map((entry) => {
            const mapped = conceptOf(concepts, dataset.sourceIds, entry.field);
            const derived = dataset.compiled.steps.some(({ operation }) => operation.config.type === 'derive' && operation.config.column === entry.field);
            return { name: entry.field, type: entry.type, subtype: entry.subtype, unit: entry.unit, conceptId: mapped?.concept.id ?? null, keyRole: mapped?.keyRole ?? null, valueMap: mapped?.valueMap ?? null, derived };
          }),
        })),
        concepts: concepts.map((concept) => ({
          id: concept.id,
          name: concept.name,
          classification: concept.conceptClassification,
          kind: concept.conceptKind,
          description: concept.description,
          unit: (concept.metadata.unit as string | undefined) ?? null,
          fields: [...new Set(concept.fieldMappings.filter((m) => m.status !== 'rejected').map((m) => m.field))],
          metricSql: concept.conceptKind === 'metric' ? concept.metricSql : null,
          enrichmentInFlight: inFlightEntry(enrichmentOf(concept)),
        })),
      },
      compiled: new Map(datasets.map((dataset) => [dataset.id, dataset.compiled])),
    };
  }

  /** Saves a query as a data view of the workspace; answers its id. */
  private async save(principal: Principal, workspaceId: string, saveAs: SaveAs, query: string): Promise<string> {
    const row = newViewRow(principal, workspaceId, saveAs.name, saveAs.description ?? null, query);
    await this.views.insert(row).catch((error: unknown) => {
      throw this.isUniqueViolation(error) ? viewNameTaken(row.name) : error;
    });
    return row.id;
  }

  /** Rows of the joined dataset per key: how much a join through it repeats rows. */
  private async fanout(organisationId: string, dataset: QueryCatalog['datasets'][number], joined: CompiledDataset, column: string): Promise<number> {
    const params = new Params('v');
    const relation = canonicalRelation(dataset, joined.relation.sql, params);
    const [row] = await this.data().query<{ f: number | string | null }>(organisationId, (sql) => `SELECT count() / greatest(uniqExact(${quoteColumn(column)}), 1) AS f FROM (${relation(sql)})`, { ...joined.params.values, ...params.values }, { timeoutMs: READ_TIMEOUT_MS });
    return Math.round(Number(row?.f ?? 1) * 1000) / 1000;
  }

  private async count(organisationId: string, compiled: ReturnType<typeof compileQuery>): Promise<number> {
    const [row] = await this.data().query<{ n: number | string }>(organisationId, (sql) => `SELECT count() AS n FROM (${compiled.sql(sql)})`, compiled.params.values, { timeoutMs: READ_TIMEOUT_MS });
    return Number(row?.n ?? 0);
  }
}

/** The concept mapped to a field of one of a dataset's sources (by the field's name), with its key role there. */
function conceptOf(concepts: Concept[], sourceIds: string[], field: string) {
  for (const concept of concepts) {
    const mapping = concept.fieldMappings.find((m) => m.status !== 'rejected' && m.field === field && sourceIds.includes(m.sourceId));
    if (mapping !== undefined) return { concept, keyRole: mapping.keyRole, valueMap: mapping.valueMap };
  }
  return undefined;
}

/** The words that fit where a syntax error is, closest to what was typed first. */
function expectedWords(error: QuerySyntaxError, text: string): string[] {
  const typed = error.span === null ? '' : text.slice(error.span[0], error.span[1]);
  // Kept in the parser's order where nothing was typed (it lists the likeliest first); else closest first.
  const words = error.expected.filter((word) => /^[A-Za-z0-9*()=<>!,']/.test(word));
  return typed === '' || error.code === 'unknown_function' ? words : words.sort((a, b) => similarity(typed, b) - similarity(typed, a));
}

/** Whether a query compiles (parsed, planned and compiled as validate mode would). */
function validates(text: string, workspace: Workspace): boolean {
  try {
    const statement = parse(text);
    if (statement.kind === 'select') {
      const plan = planSelect(statement, workspace.catalog);
      compileQuery(plan, workspace.compiled.get(plan.base.id)!, joinedOf(plan, workspace));
    }
    if (statement.kind === 'describe') describe(statement.name, workspace.catalog);
    return true;
  } catch {
    return false;
  }
}

/** A query that always validates, showing where to start. */
const fallback = (catalog: QueryCatalog) => (catalog.concepts.length > 0 ? 'SHOW CONCEPTS' : 'SHOW DATASETS');

function failure(
  code: string, message: string, span: [number, number] | null, candidates: Failure['error']['candidates'] = [], perSource: Failure['error']['perSource'] = [], suggestedQuery: string | null = null,
  enrichmentProgress: Failure['error']['enrichmentProgress'] = [],
): Failure {
  return { ok: false, error: { code, message, span, perSource, candidates, suggestedQuery, enrichmentProgress } };
}

/**
 * The enrichments in flight that the query reads through: per dataset read (the base and each joined one) and
 * concept the query names or joins through, the progress over that dataset's fields.
 */
function pendingEnrichments(plan: QueryPlan, catalog: QueryCatalog): Failure['error']['enrichmentProgress'] {
  const concepts = new Map(catalog.concepts.map((c) => [c.id, c]));
  const involved = new Set(plan.involved.map((c) => c.conceptId));
  const waiting: Failure['error']['enrichmentProgress'] = [];
  for (const dataset of [plan.base, ...plan.joins.map((j) => j.dataset)]) {
    for (const conceptId of new Set(dataset.columns.map((c) => c.conceptId))) {
      const enrichment = conceptId === null || !involved.has(conceptId) ? null : concepts.get(conceptId)?.enrichmentInFlight ?? null;
      if (enrichment === null) continue;
      const fields = enrichment.fields.filter((f) => dataset.sourceIds.includes(f.sourceId));
      const sum = (key: 'distinctTotal' | 'matchedCount' | 'unmatchedCount') => fields.reduce((n, f) => n + f[key], 0);
      waiting.push({
        datasetId: dataset.id, datasetName: dataset.name, conceptId: conceptId!, conceptName: concepts.get(conceptId!)!.name, status: enrichment.status,
        distinctTotal: sum('distinctTotal'), matchedCount: sum('matchedCount'), unmatchedCount: sum('unmatchedCount'),
      });
    }
  }
  return waiting;
}

function show(what: 'CONCEPTS' | 'DATASETS' | 'METRICS', catalog: QueryCatalog): Omit<Metadata, 'rowCount' | 'totalRowCount' | 'truncated' | 'nextStartKey'> {
  const datasetsWith = (conceptId: string) => catalog.datasets.filter((d) => d.columns.some((c) => c.conceptId === conceptId)).map((d) => d.name);
  if (what === 'DATASETS') {
    return {
      ok: true, kind: 'metadata', command: 'SHOW DATASETS', columns: ['name', 'id', 'columns', 'concepts'],
      rows: catalog.datasets.map((d) => ({ name: d.name, id: d.id, columns: d.columns.length, concepts: [...new Set(d.columns.flatMap((c) => (c.conceptId === null ? [] : [catalog.concepts.find((k) => k.id === c.conceptId)?.name ?? c.conceptId])))] })),
    };
  }
  const concepts = catalog.concepts.filter((c) => what === 'CONCEPTS' || c.kind === 'metric' || c.classification === 'measure');
  return {
    ok: true, kind: 'metadata', command: `SHOW ${what}`, columns: ['name', 'classification', 'kind', 'datasets', 'unit', 'description', 'metricSql'],
    rows: concepts.map((c) => ({ name: c.name, classification: c.classification, kind: c.kind, datasets: datasetsWith(c.id), unit: c.unit, description: c.description, metricSql: c.metricSql })),
  };
}

function describe(name: { text: string; qualifier: string | null; span: [number, number] }, catalog: QueryCatalog): Omit<Metadata, 'rowCount' | 'totalRowCount' | 'truncated' | 'nextStartKey'> {
  const text = name.qualifier === null ? name.text : `${name.qualifier}.${name.text}`;
  const lower = text.toLowerCase();
  const dataset = catalog.datasets.find((d) => d.name.toLowerCase() === lower || d.id === text);
  if (dataset !== undefined) {
    return {
      ok: true, kind: 'metadata', command: `DESCRIBE ${quoteName(dataset.name)}`, columns: ['column', 'type', 'concept', 'keyRole', 'unit'],
      rows: dataset.columns.map((c) => ({ column: c.name, type: c.type, concept: catalog.concepts.find((k) => k.id === c.conceptId)?.name ?? null, keyRole: c.keyRole, unit: c.unit })),
    };
  }
  const concept = catalog.concepts.find((c) => c.name.toLowerCase() === lower) ?? catalog.concepts.find((c) => c.fields.some((f) => f.toLowerCase() === lower));
  if (concept?.metricSql != null) {
    return {
      ok: true, kind: 'metadata', command: `DESCRIBE ${quoteName(concept.name)}`, columns: ['metric', 'formula', 'unit', 'description'],
      rows: [{ metric: concept.name, formula: concept.metricSql, unit: concept.unit, description: concept.description }],
    };
  }
  if (concept !== undefined) {
    return {
      ok: true, kind: 'metadata', command: `DESCRIBE ${quoteName(concept.name)}`, columns: ['dataset', 'column', 'type', 'classification', 'description'],
      rows: catalog.datasets.flatMap((d) => d.columns.filter((c) => c.conceptId === concept.id).map((c) => ({ dataset: d.name, column: c.name, type: c.type, classification: concept.classification, description: concept.description }))),
    };
  }
  throw new QueryError('unknown_name', `Nothing in the workspace is called "${text}": DESCRIBE takes a dataset or a concept`, name.span, rank(text, candidatePool(catalog).filter((c) => c.kind !== 'grain')));
}

function page(result: Omit<Metadata, 'rowCount' | 'totalRowCount' | 'truncated' | 'nextStartKey'>, limit: number, start: number): Metadata {
  const rows = result.rows.slice(start, start + limit);
  const more = start + rows.length < result.rows.length;
  return { ...result, rows, rowCount: rows.length, totalRowCount: result.rows.length, truncated: more, nextStartKey: more ? start + rows.length : null };
}

/** A row with its visible columns, numbers the engine sent as text (64-bit counts) as numbers. */
function present(row: Record<string, unknown>, columns: Array<{ name: string; type: string }>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) {
    const value = row[column.name];
    out[column.name] = typeof value === 'string' && (column.type === 'integer' || column.type === 'decimal') && value !== '' && Number.isFinite(Number(value)) ? Number(value) : value ?? null;
  }
  return out;
}

/** The compiled queries of the datasets a plan joins, by alias. */
const joinedOf = (plan: QueryPlan, workspace: Workspace) => new Map(plan.joins.map((join) => [join.alias, workspace.compiled.get(join.dataset.id)!]));

/** The plan as the answer shows it; `fanout` by join alias (measured when executing). */
function planOf(plan: QueryPlan, fanout: Map<string, number>, rows: number | null): Rows['plan'] {
  const datasetOf = (side: string) => (side === 'b' ? plan.base : plan.joins.find((j) => j.alias === side)!.dataset);
  const chips: Rows['plan']['chips'] = [{ kind: 'dataset', label: plan.base.name, detail: plan.base.id }];
  for (const item of plan.items) chips.push({ kind: item.item.kind === 'aggregate' ? 'measure' : item.item.kind === 'grain' ? 'grain' : 'column', label: item.output, detail: item.bound === null ? null : `${datasetOf(item.bound.side).name}.${item.bound.column.name}` });
  for (const group of plan.groupBy) chips.push({ kind: 'group', label: group.output, detail: null });
  for (const { condition } of plan.conditions) chips.push({ kind: 'filter', label: `${condition.name.text} ${condition.operator}`, detail: condition.values.map(String).join(', ') || null });
  for (const join of plan.joins) chips.push({ kind: 'join', label: join.dataset.name, detail: `through ${join.concept.name}` });
  const request = (dataset: { id: string; name: string }, estimatedRows: number | null) => ({
    datasetId: dataset.id, datasetName: dataset.name, requests: 1, cachedSlices: 0, refreshSlices: 0, estimatedRows, window: [], entities: 0, points: 0, outsideCoverage: false, boundedBy: [],
    fetchedRequests: rows === null ? 0 : 1, fetchedRows: estimatedRows ?? 0,
  });
  return {
    chips,
    joinPlan: plan.joins.map((join) => ({ sourceDatasetId: join.fromDataset.id, targetDatasetId: join.dataset.id, conceptName: join.concept.name, strategy: join.strategy, fanout: fanout.get(join.alias) ?? null })),
    strategy: plan.joins.length === 0 ? 'single_dataset' : 'anchor_join',
    requestPlan: [request(plan.base, rows), ...plan.joins.map((join) => request(join.dataset, null))],
  };
}

/** Columns of the datasets read that the query did not name, about the same anchors (at most 10). */
function related(plan: QueryPlan, catalog: QueryCatalog): string[] {
  const named = new Set(plan.items.concat(plan.groupBy).map((p) => p.bound?.column.name));
  const anchors = new Set(plan.base.columns.filter((c) => c.keyRole !== null).map((c) => c.conceptId));
  const concepts = new Map(catalog.concepts.map((c) => [c.id, c]));
  return plan.base.columns
    .filter((c) => !named.has(c.name) && c.conceptId !== null && !anchors.has(c.conceptId) && concepts.get(c.conceptId)?.classification !== 'identifier')
    .map((c) => c.name)
    .slice(0, 10);
}

