import type { Source } from '../../schemas/sources.js';
import { AppError } from '../errors.js';
import { type JobContext, JobError, type JobRunner } from '../jobs/runner.js';
import type { JobService, JobSubmission } from '../jobs/service.js';
import { newId, nowIso } from '../lib/ids.js';
import type { InferredColumn } from '../tables/inference/infer-schema.js';
import { ROW_COLUMN } from '../tables/ingest.js';
import type { SourceService } from '../sources/service.js';
import type { DataStore, TableRef } from '../store/data/port.js';
import { type ConceptBody, bodyOf, newConceptRow, sketchesOf, sourceIdsOf } from './concepts.js';
import { type ColumnFacts, type Profile, isTextual, profileColumn } from './extract/profile.js';
import { type ExtractionPlan, type KnownConcept, type TimeOrder, planExtraction } from './extract/plan.js';
import { type MinedRule, type PairCount, conditionalRules, rangeRule, temporalOrder } from './extract/rules.js';
import { SKETCH_SIZE } from './extract/sketch.js';
import { type ConceptRepo, type ConceptRow, StaleConceptError } from './repo.js';

export const ONTOLOGY_EXTRACTION_JOB = 'ontology_extraction' as const;

interface ExtractionParams {
  sourceId: string;
}

const TOP_VALUES = 200;
/** Categorical fields paired for conditional rules: at most this many, of at most MAX_RULE_VALUES values each. */
const MAX_RULE_FIELDS = 12;
const MAX_RULE_VALUES = 30;
const MAX_TIME_FIELDS = 6;
/** Attempts when a person edits or names a concept while extraction writes (the plan is made again on what is there). */
const WRITE_ATTEMPTS = 3;

/**
 * Ontology extraction (spec: Source `ontologyMode`, `ontologyStatus`): after rows arrive in a source whose mode is
 * `auto`, a job describes its fields as the workspace's concepts. The data engine measures each field (counts,
 * frequent values, a bottom-k value sketch, range, time granularity) and the pairs rules are mined from; the
 * pure planner (extract/plan.ts) matches fields to concepts and says what to write; the writes land in one
 * transaction, at the edit versions read. The source's status moves queued, running, then completed or failed.
 */
export class OntologyExtraction {
  constructor(
    private readonly concepts: ConceptRepo,
    private readonly sources: SourceService,
    private readonly jobs: JobService,
    private readonly data: () => DataStore,
    /** A concept named meanwhile by someone else makes the plan's new name clash: plan again. */
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  register(runner: JobRunner): void {
    runner.register(ONTOLOGY_EXTRACTION_JOB, (context: JobContext<ExtractionParams>) => this.run(context));
    // After rows arrive (the batch already marked the source `queued`): one extraction waiting per source is enough.
    this.sources.onRowsAdded(async (source, workspaceId, createdBy) => {
      if (source.ontologyMode === 'auto' && source.dataFormat === 'Tabular') await this.jobs.submitOnce(this.submission(source.organisationId, workspaceId, source.id, createdBy, null));
    });
  }

  /** Queues an extraction asked for (its own job: the caller's webhook is called when it ends). */
  async queue(organisationId: string, workspaceId: string, sourceId: string, createdBy: string, webhookUrl: string | null = null) {
    const accepted = await this.jobs.submit(this.submission(organisationId, workspaceId, sourceId, createdBy, webhookUrl));
    await this.sources.recordOntology(organisationId, sourceId, () => ({ ontologyStatus: 'queued', ontologyError: null }), 3).catch(() => undefined);
    return accepted;
  }

  private submission(organisationId: string, workspaceId: string, sourceId: string, createdBy: string, webhookUrl: string | null): JobSubmission & { resource: { type: string; id: string } } {
    return { organisationId, workspaceId, type: ONTOLOGY_EXTRACTION_JOB, resource: { type: 'source', id: sourceId }, params: { sourceId } satisfies ExtractionParams, webhookUrl, createdBy };
  }

  private async run(context: JobContext<ExtractionParams>) {
    const { job, params, signal } = context;
    const organisationId = job.organisation_id;
    const record = (status: string, error: string | null, extra: (source: Source) => Partial<Pick<Source, 'schemaEntries' | 'ontologyExcludedFields'>> = () => ({})) =>
      this.sources.recordOntology(organisationId, params.sourceId, (source) => ({ ontologyStatus: status, ontologyError: error, ...extra(source) }), undefined, signal);
    // The workspace must still see the source (unlinked meanwhile: none of its values may reach that workspace).
    const linked = () => this.sources.isLinked(organisationId, params.sourceId, job.workspace_id);
    if (!(await linked())) throw new JobError(`Source ${params.sourceId} is no longer a source of this workspace`);
    const started = await record('running', null);
    if (started === null) throw new JobError(`Source ${params.sourceId} was deleted before its ontology was extracted`);
    try {
      const columns = (started.schemaEntries as InferredColumn[]).filter((column) => column.field !== '');
      // Only recorded rows: an upload in flight (or one that crashed) may have rows past them.
      const table: Recorded = { organisationId, tableId: started.id, rows: started.documentCount };
      const facts: ColumnFacts[] = [];
      for (const [i, column] of columns.entries()) {
        if (signal.aborted) throw new JobError('The extraction was cancelled');
        context.progress(0.05 + (0.6 * i) / Math.max(1, columns.length), `measuring field ${column.field}`);
        facts.push(await measure(this.data(), table, started.id, column, started.columnMetadata[column.field]));
      }
      const profiles = facts.map(profileColumn);
      context.progress(0.7, 'mining rules');
      const rules = await mineRules(this.data(), table, profiles);
      const orders = await timeOrders(this.data(), table, profiles);
      let plan: ExtractionPlan | undefined;
      for (let attempt = 1; plan === undefined; attempt += 1) {
        context.progress(0.85, 'matching fields to concepts');
        const rows = await this.concepts.all(organisationId, job.workspace_id);
        const known: KnownConcept[] = rows.map((row) => ({ id: row.id, name: row.name, body: bodyOf(row), sketches: sketchesOf(row) }));
        const candidate = planExtraction(started.id, profiles, known, rules, orders, nowIso(), () => newId('cpt'));
        await context.ensureActive();
        if (!(await linked())) throw new JobError(`Source ${params.sourceId} was unlinked from this workspace during the extraction`);
        try {
          await this.write(organisationId, job.workspace_id, candidate, rows);
          plan = candidate;
        } catch (error) {
          if (!(error instanceof StaleConceptError || this.isUniqueViolation(error)) || attempt >= WRITE_ATTEMPTS) throw error;
        }
      }
      const written = plan;
      await record('completed', null, (source) => annotate(source, written));
      context.progress(1, 'completed');
      return {
        sourceId: started.id,
        fields: profiles.length,
        conceptsCreated: written.concepts.filter((c) => c.isNew).length,
        conceptsMatched: written.matches.filter((m) => m.conceptId !== null).length,
        excluded: written.excluded.length,
      };
    } catch (error) {
      const message = error instanceof JobError || error instanceof AppError ? error.message : 'The extraction failed';
      await record('failed', message).catch(() => undefined);
      throw error instanceof AppError ? new JobError(error.message) : error;
    }
  }

  /** Writes the plan in one transaction: changed concepts at the edit versions read, new ones inserted. */
  private async write(organisationId: string, workspaceId: string, plan: ExtractionPlan, rows: ConceptRow[]): Promise<void> {
    const updates: Parameters<ConceptRepo['update']>[0] = [];
    const inserts: Parameters<ConceptRepo['update']>[1] = [];
    for (const concept of plan.concepts) {
      if (concept.isNew) {
        inserts.push({ row: { ...newConceptRow({ organisationId, workspaceId }, concept.name, concept.body, concept.sketches), id: concept.id }, sourceIds: sourceIdsOf(concept.body) });
        continue;
      }
      const row = rows.find((r) => r.id === concept.id)!;
      const body = JSON.stringify(concept.body);
      const sketch = JSON.stringify(concept.sketches);
      if (body === row.body && sketch === row.sketch) continue;
      const bump = definitionOf(bodyOf(row)) !== definitionOf(concept.body);
      updates.push({ row: { ...row, body, sketch, edit_version: row.edit_version + (bump ? 1 : 0), updated_at: nowIso() }, expectedVersion: row.edit_version, sourceIds: sourceIdsOf(concept.body) });
    }
    await this.concepts.update(updates, inserts);
  }
}

/**
 * What a concept means, as opposed to what was last measured of it: the edit version moves when this changes
 * (statistics, conformance and confidence refreshed by a new batch leave datasets' conceptVersions current).
 */
export function definitionOf(body: ConceptBody): string {
  const { detectedMetadata, detectedConceptStructure: _s, lineageDrift: _l, metadata, fieldMappings, relationshipRules, temporalPrerequisites, ...rest } = body;
  // Metadata extraction writes is measurement; what a person set (locked, or never detected) is meaning.
  return JSON.stringify({
    ...rest,
    // Enrichment status and progress are measurement too (what an enrichment resolved is in the mappings' valueMap).
    metadata: Object.fromEntries(Object.entries(metadata).filter(([key]) => key !== 'enrichments' && (!(key in detectedMetadata) || body.lockedMetadataFields.includes(key)))),
    fieldMappings: fieldMappings.map((m) => [m.sourceId, m.field, m.status, m.keyRole, m.valueMap]).sort((a, b) => `${a[0]}.${a[1]}`.localeCompare(`${b[0]}.${b[1]}`)),
    relationshipRules: relationshipRules.map((r) => [r.ruleType, r.sourceVariable, r.condition, r.allowedValues]),
    temporalPrerequisites: temporalPrerequisites.map((t) => [t.conceptId, t.sourceId, t.field, t.otherField, t.relation]),
  });
}

/** The source's ontology members after extraction: aliases and descriptions of its fields, excluded fields. */
function annotate(source: Source, plan: ExtractionPlan): Pick<Source, 'schemaEntries' | 'ontologyExcludedFields'> {
  const byField = new Map(plan.matches.map((match) => [match.profile.facts.field, plan.concepts.find((c) => c.body.fieldMappings.some((m) => m.sourceId === source.id && m.field === match.profile.facts.field))]));
  return {
    schemaEntries: source.schemaEntries.map((entry) => {
      const concept = byField.get(entry.field);
      if (concept === undefined) return entry;
      const aliases = [concept.name, ...concept.body.fieldMappings.map((m) => m.field)].filter((name) => name !== entry.field);
      return { ...entry, aliases: [...new Set([...entry.aliases, ...aliases])], description: entry.description ?? concept.body.description };
    }),
    ontologyExcludedFields: plan.excluded.map((e) => ({ field: e.field, reason: e.reason, source: 'auto' })),
  };
}

/** A source's table and how many of its rows are recorded (the rows extraction may read: `ROW_COLUMN < rows`). */
interface Recorded extends TableRef {
  rows: number;
}

/** The recorded rows of the table, as `t`. */
export const recorded = (sql: { table(id: string): string; column(name: string): string }, table: Recorded) =>
  `(SELECT * FROM ${sql.table(table.tableId)} WHERE ${sql.column(ROW_COLUMN)} < ${Math.trunc(table.rows)}) AS t`;

/** One field measured in the data engine (rows never come into JS). */
async function measure(store: DataStore, table: Recorded, sourceId: string, column: InferredColumn, statistics: Source['columnMetadata'][string] | undefined): Promise<ColumnFacts> {
  const org = table.organisationId;
  const isArray = column.type === 'array';
  const time = column.type === 'date' || column.type === 'datetime';
  const numeric = column.type === 'integer' || column.type === 'decimal';
  const c = (sql: { column(name: string): string }) => `t.${sql.column(column.field)}`;
  const present = (sql: { column(name: string): string }) => (isArray ? `notEmpty(${c(sql)})` : `${c(sql)} IS NOT NULL`);
  const [base] = await store.query<Record<string, string | number | null>>(org, (sql) => {
    const range = numeric ? `, toFloat64(min(${c(sql)})) AS lo, toFloat64(max(${c(sql)})) AS hi` : time ? `, toString(min(${c(sql)})) AS lo, toString(max(${c(sql)})) AS hi` : ', NULL AS lo, NULL AS hi';
    return (
      `SELECT count() AS rows, countIf(NOT (${present(sql)})) AS nulls, uniqExactIf(${c(sql)}, ${present(sql)}) AS distinct, ` +
      `avgIf(length(toString(${c(sql)})), ${present(sql)}) AS len${range} FROM ${recorded(sql, table)}`
    );
  });
  const top = isArray ? [] : await store.query<{ v: string; n: string }>(org, (sql) => `SELECT toString(${c(sql)}) AS v, count() AS n FROM ${recorded(sql, table)} WHERE ${present(sql)} GROUP BY v ORDER BY n DESC, v LIMIT ${TOP_VALUES}`);
  const sketch = isArray ? [] : await store.query<{ h: string }>(org, (sql) => `SELECT toString(h) AS h FROM (SELECT DISTINCT cityHash64(toString(${c(sql)})) AS h FROM ${recorded(sql, table)} WHERE ${present(sql)}) ORDER BY h LIMIT ${SKETCH_SIZE}`);
  const [repeats] = isArray ? [{ n: '0' }] : await store.query<{ n: string }>(org, (sql) => `SELECT count() AS n FROM (SELECT ${c(sql)} AS k FROM ${recorded(sql, table)} WHERE ${present(sql)} GROUP BY k HAVING count() > 1)`);
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    sourceId,
    field: column.field,
    type: column.type,
    subtype: column.subtype,
    unit: column.unit,
    rows: Number(base!.rows),
    nulls: Number(base!.nulls),
    distinct: Number(base!.distinct),
    top: top.map(({ v, n }) => ({ value: v, count: Number(n) })),
    min: numeric ? number(base!.lo) : (base!.lo as string | null),
    max: numeric ? number(base!.hi) : (base!.hi as string | null),
    averageLength: Number(base!.len ?? 0),
    sketch: sketch.map(({ h }) => h),
    granularity: time ? await granularity(store, table, column) : null,
    duplicateKeys: Number(repeats!.n),
    elements: isArray && statistics !== undefined
      ? { top: Object.keys(statistics.elementOccurences ?? {}), minSize: statistics.minSize ?? null, maxSize: statistics.maxSize ?? null, avgSize: statistics.avgSize ?? null, medianSize: statistics.medianSize ?? null, p95Size: statistics.p95Size ?? null }
      : null,
  };
}

/** The coarsest calendar unit every value of a time field is a whole number of. */
async function granularity(store: DataStore, table: Recorded, column: InferredColumn): Promise<string | null> {
  const [row] = await store.query<Record<string, string>>(table.organisationId, (sql) => {
    const v = `toDateTime64(t.${sql.column(column.field)}, 3, 'UTC')`;
    return (
      `SELECT count() AS n, countIf(toMillisecond(${v}) != 0 OR toSecond(${v}) != 0) AS s, countIf(toMinute(${v}) != 0) AS mi, countIf(toHour(${v}) != 0) AS h, ` +
      `countIf(toDayOfMonth(${v}) != 1) AS d, countIf(toMonth(${v}) NOT IN (1, 4, 7, 10)) AS q, countIf(toMonth(${v}) != 1) AS y, uniqExact(toDayOfWeek(${v})) AS dows ` +
      `FROM ${recorded(sql, table)} WHERE t.${sql.column(column.field)} IS NOT NULL`
    );
  });
  if (row === undefined || Number(row.n) === 0) return null;
  if (Number(row.s) > 0) return 'second';
  if (Number(row.mi) > 0) return 'minute';
  if (Number(row.h) > 0) return 'hour';
  if (Number(row.d) > 0) return Number(row.dows) === 1 && Number(row.n) > 1 ? 'week' : 'day';
  if (Number(row.q) > 0) return 'month';
  if (Number(row.y) > 0) return 'quarter';
  return 'year';
}

/** Conditional value rules between categorical fields (both directions of each pair) and ranges of measures. */
async function mineRules(store: DataStore, table: Recorded, profiles: Profile[]): Promise<MinedRule[]> {
  const categorical = profiles
    .filter((p) => (p.classification === 'dimension' || p.classification === 'boolean' || p.classification === 'location') && p.facts.distinct >= 2 && p.facts.distinct <= MAX_RULE_VALUES && (isTextual(p.facts.type) || p.facts.type === 'integer' || p.facts.type === 'boolean'))
    .slice(0, MAX_RULE_FIELDS);
  const rules: MinedRule[] = [];
  for (const [i, left] of categorical.entries()) {
    for (const right of categorical.slice(i + 1)) {
      const counts = await store.query<{ a: string; b: string; n: string }>(table.organisationId, (sql) => {
        const a = `t.${sql.column(left.facts.field)}`;
        const b = `t.${sql.column(right.facts.field)}`;
        return `SELECT toString(${a}) AS a, toString(${b}) AS b, count() AS n FROM ${recorded(sql, table)} WHERE ${a} IS NOT NULL AND ${b} IS NOT NULL GROUP BY a, b`;
      });
      const pairs: PairCount[] = counts.map(({ a, b, n }) => ({ a, b, count: Number(n) }));
      rules.push(...conditionalRules(left.facts.field, right.facts.field, pairs, table.rows));
      rules.push(...conditionalRules(right.facts.field, left.facts.field, pairs.map(({ a, b, count }) => ({ a: b, b: a, count })), table.rows));
    }
  }
  for (const profile of profiles) {
    if (profile.classification === 'measure' && typeof profile.facts.min === 'number' && typeof profile.facts.max === 'number') {
      rules.push(rangeRule(profile.facts.field, profile.facts.min, profile.facts.max, profile.facts.rows - profile.facts.nulls));
    }
  }
  return rules;
}

/** For each pair of time fields, whether one is always at or before the other. */
async function timeOrders(store: DataStore, table: Recorded, profiles: Profile[]): Promise<TimeOrder[]> {
  const times = profiles.filter((p) => p.classification === 'time').slice(0, MAX_TIME_FIELDS);
  const orders: TimeOrder[] = [];
  for (const [i, left] of times.entries()) {
    for (const right of times.slice(i + 1)) {
      const [row] = await store.query<{ both: string; before: string; after: string }>(table.organisationId, (sql) => {
        const a = `toDateTime64(t.${sql.column(left.facts.field)}, 3, 'UTC')`;
        const b = `toDateTime64(t.${sql.column(right.facts.field)}, 3, 'UTC')`;
        const both = `t.${sql.column(left.facts.field)} IS NOT NULL AND t.${sql.column(right.facts.field)} IS NOT NULL`;
        return `SELECT countIf(${both}) AS both, countIf(${both} AND ${a} <= ${b}) AS before, countIf(${both} AND ${a} >= ${b}) AS after FROM ${recorded(sql, table)}`;
      });
      const counts = { both: Number(row!.both), aBeforeOrSame: Number(row!.before), aAfterOrSame: Number(row!.after) };
      const order = temporalOrder(counts);
      if (order === null) continue;
      const opposite = order.relation === 'precedes' ? 'follows' : 'precedes';
      orders.push({ field: left.facts.field, otherField: right.facts.field, relation: order.relation, support: counts.both, violationRate: order.violationRate });
      orders.push({ field: right.facts.field, otherField: left.facts.field, relation: opposite, support: counts.both, violationRate: order.violationRate });
    }
  }
  return orders;
}
