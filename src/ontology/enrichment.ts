import { ENRICHMENT_NAME, type EnrichmentField, type EnrichmentStatus } from '../../schemas/ontology.js';
import type { JobAccepted } from '../../schemas/jobs.js';
import { type JobContext, JobError, type JobRunner } from '../jobs/runner.js';
import type { JobService } from '../jobs/service.js';
import { nowIso } from '../lib/ids.js';
import type { DataStore } from '../store/data/port.js';
import { type ConceptBody, bodyOf, mappingKey, sourceIdsOf } from './concepts.js';
import { resolveValues } from './extract/values.js';
import { definitionOf, recorded } from './extraction.js';
import { type ConceptRepo, type ConceptRow, StaleConceptError } from './repo.js';

export const CONCEPT_ENRICHMENT_JOB = 'concept_enrichment' as const;

interface EnrichmentParams {
  conceptId: string;
}

/** A field read as text is resolved when it has at most this many distinct values (a category, not a free text or a key). */
export const MAX_DISTINCT = 100_000;
const SHOWN_UNMATCHED = 20;
const TEXT_TYPES = new Set(['text', 'categorical']);

/** What enrichment needs of a source: its recorded rows and field types, when the workspace still sees it. */
export type RecordedSource = (organisationId: string, sourceId: string, workspaceId: string) => Promise<{ rows: number; types: Map<string, string> } | undefined>;

/** A concept's enrichment entry (undefined when it never ran). */
export const enrichmentOf = (body: Pick<ConceptBody, 'metadata'>): EnrichmentStatus | undefined =>
  (body.metadata.enrichments as Record<string, EnrichmentStatus> | undefined)?.[ENRICHMENT_NAME];

/** Whether an entry says its enrichment is still to end (queued or running). */
export const isOpen = (entry: EnrichmentStatus | undefined): entry is EnrichmentStatus => entry?.status === 'queued' || entry?.status === 'running';

/**
 * An open entry whose job is no longer in flight, as it ended: a queued job cancelled before it ran records nothing,
 * nor does a running one whose process stopped (the runner fails it). Reads show them so, not as still open.
 */
export function ended(entry: EnrichmentStatus): EnrichmentStatus {
  return entry.status === 'queued'
    ? { ...entry, status: 'cancelled', error: 'The enrichment job was cancelled before it started' }
    : { ...entry, status: 'failed', error: 'The enrichment job stopped before it finished (the service restarted); enrich again' };
}

export const withEnrichment = <B extends Pick<ConceptBody, 'metadata'>>(body: B, entry: EnrichmentStatus): B => ({
  ...body,
  metadata: { ...body.metadata, enrichments: { ...(body.metadata.enrichments as object | undefined), [ENRICHMENT_NAME]: entry } },
});

const queuedEnrichment = (jobId: string): EnrichmentStatus => ({
  kind: 'forward', status: 'queued', jobId, requestedAt: nowIso(), completedAt: null, distinctTotal: 0, matchedCount: 0, unmatchedCount: 0, fields: [], error: null,
});

/** The entry's totals over its fields. */
const totalled = (entry: EnrichmentStatus): EnrichmentStatus => ({
  ...entry,
  distinctTotal: entry.fields.reduce((n, f) => n + f.distinctTotal, 0),
  matchedCount: entry.fields.reduce((n, f) => n + f.matchedCount, 0),
  unmatchedCount: entry.fields.reduce((n, f) => n + f.unmatchedCount, 0),
});

/**
 * The forward enrichment of a concept (spec: concept metadata `enrichments`, the query error's
 * `enrichmentProgress`): every distinct value written in each field mapped to the concept is resolved to one of the
 * concept's canonical values (`valueMappings`: as written, an alias, or a spelling of exactly one of them; see
 * extract/values.ts), and the field mapping's `valueMap` holds the whole resolution. The anchor query facility reads
 * the fields through it, so "NY" and "New York" group, filter and join as one value. The values are counted in the
 * data engine; progress is the concept's `metadata.enrichments.canonicalValues`, written per field.
 */
export class ConceptEnrichment {
  constructor(
    private readonly concepts: ConceptRepo,
    private readonly jobs: JobService,
    private readonly data: () => DataStore,
    private readonly recordedSource: RecordedSource,
  ) {}

  register(runner: JobRunner): void {
    runner.register(CONCEPT_ENRICHMENT_JOB, (context: JobContext<EnrichmentParams>) => this.run(context));
  }

  /** Queues an enrichment (one waiting per concept is enough) and records it as queued unless it already started. */
  async queue(organisationId: string, workspaceId: string, conceptId: string, createdBy: string, webhookUrl: string | null): Promise<JobAccepted> {
    const accepted = await this.jobs.submitOnce({
      organisationId, workspaceId, type: CONCEPT_ENRICHMENT_JOB, resource: { type: 'concept', id: conceptId }, params: { conceptId } satisfies EnrichmentParams, webhookUrl, createdBy,
    });
    await this.record(organisationId, workspaceId, conceptId, (entry) => (entry?.jobId === accepted.jobId ? entry : queuedEntryFor(accepted)));
    return accepted;
  }

  /** The ids of the in-flight enrichment jobs among those of the given concepts' entries. */
  async inFlight(organisationId: string, conceptIds: string[]): Promise<Set<string>> {
    return new Set(conceptIds.length === 0 ? [] : await this.jobs.inFlightFor(organisationId, conceptIds));
  }

  private async run(context: JobContext<EnrichmentParams>) {
    const { job, params, signal } = context;
    const organisationId = job.organisation_id;
    const workspaceId = job.workspace_id;
    const row = await this.concepts.find(organisationId, workspaceId, params.conceptId);
    if (row === undefined) throw new JobError(`Concept ${params.conceptId} was deleted before it was enriched`);
    const body = bodyOf(row);
    let entry: EnrichmentStatus = { ...(enrichmentOf(body) ?? queuedEnrichment(job.id)), jobId: job.id, status: 'running', fields: [], error: null, completedAt: null };
    await this.record(organisationId, workspaceId, params.conceptId, () => entry);
    const maps = new Map<string, Record<string, string> | null>();
    try {
      const mappings = body.fieldMappings.filter((m) => m.status !== 'rejected');
      for (const [i, mapping] of mappings.entries()) {
        if (signal.aborted) throw new JobError('The enrichment was cancelled');
        context.progress(0.05 + (0.9 * i) / Math.max(1, mappings.length), `resolving ${mapping.sourceId}.${mapping.field}`);
        const { field, valueMap } = await this.resolveField(organisationId, workspaceId, mapping.sourceId, mapping.field, body);
        if (valueMap !== undefined) maps.set(mappingKey(mapping), valueMap);
        entry = totalled({ ...entry, fields: [...entry.fields, field] });
        await this.record(organisationId, workspaceId, params.conceptId, () => entry);
      }
      await context.ensureActive();
      const done = totalled({ ...entry, status: 'completed', completedAt: nowIso() });
      await this.update(organisationId, workspaceId, params.conceptId, (current) => ({
        ...withEnrichment(current, done),
        fieldMappings: current.fieldMappings.map((m) => (maps.has(mappingKey(m)) ? { ...m, valueMap: maps.get(mappingKey(m))! } : m)),
      }));
      context.progress(1, 'completed');
      return { conceptId: params.conceptId, fields: done.fields.length, distinctTotal: done.distinctTotal, matchedCount: done.matchedCount, unmatchedCount: done.unmatchedCount };
    } catch (error) {
      const status = signal.aborted ? 'cancelled' : 'failed';
      const message = error instanceof JobError ? error.message : 'The enrichment failed';
      await this.record(organisationId, workspaceId, params.conceptId, () => ({ ...entry, status, error: message, completedAt: nowIso() })).catch(() => undefined);
      throw error;
    }
  }

  /** One field's distinct values, resolved; the valueMap to store (undefined when the field was skipped). */
  private async resolveField(organisationId: string, workspaceId: string, sourceId: string, fieldName: string, body: ConceptBody): Promise<{ field: EnrichmentField; valueMap?: Record<string, string> | null }> {
    const skipped = (reason: string) => ({ field: { sourceId, field: fieldName, distinctTotal: 0, matchedCount: 0, unmatchedCount: 0, unmatched: [], skipped: reason } });
    const source = await this.recordedSource(organisationId, sourceId, workspaceId);
    if (source === undefined) return skipped('the source is no longer linked to this workspace');
    const type = source.types.get(fieldName);
    if (type === undefined) return skipped('the source has no such field any more');
    if (!TEXT_TYPES.has(type)) return skipped(`the field is of type ${type}: only text values are resolved`);
    const values = await this.data().query<{ v: string }>(organisationId, (sql) => {
      const c = `t.${sql.column(fieldName)}`;
      return `SELECT DISTINCT toString(${c}) AS v FROM ${recorded(sql, { organisationId, tableId: sourceId, rows: source.rows })} WHERE ${c} IS NOT NULL LIMIT ${MAX_DISTINCT + 1}`;
    });
    if (values.length > MAX_DISTINCT) return skipped(`the field has more than ${MAX_DISTINCT} distinct values`);
    const resolved = resolveValues(values.map((row) => row.v), body.valueMappings);
    const valueMap: Record<string, string> = {};
    const unmatched: string[] = [];
    for (const [value, canonical] of resolved) {
      if (canonical === null) unmatched.push(value);
      else if (canonical !== value) valueMap[value] = canonical;
    }
    return {
      field: { sourceId, field: fieldName, distinctTotal: resolved.size, matchedCount: resolved.size - unmatched.length, unmatchedCount: unmatched.length, unmatched: unmatched.sort().slice(0, SHOWN_UNMATCHED), skipped: null },
      valueMap: Object.keys(valueMap).length === 0 ? null : valueMap,
    };
  }

  /** Writes the concept's enrichment entry (status and progress only: the edit version stays). */
  private record(organisationId: string, workspaceId: string, conceptId: string, next: (entry: EnrichmentStatus | undefined) => EnrichmentStatus): Promise<void> {
    return this.update(organisationId, workspaceId, conceptId, (body) => withEnrichment(body, next(enrichmentOf(body))));
  }

  /** A change of the stored concept at the version read, retried when someone else wrote it meanwhile; the edit version moves when what it means does. */
  private async update(organisationId: string, workspaceId: string, conceptId: string, change: (body: ConceptBody) => ConceptBody): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const row: ConceptRow | undefined = await this.concepts.find(organisationId, workspaceId, conceptId);
      if (row === undefined) throw new JobError(`Concept ${conceptId} was deleted during its enrichment`);
      const before = bodyOf(row);
      const after = change(before);
      const bump = definitionOf(before) !== definitionOf(after);
      try {
        await this.concepts.update([{ row: { ...row, body: JSON.stringify(after), edit_version: row.edit_version + (bump ? 1 : 0), updated_at: nowIso() }, expectedVersion: row.edit_version, sourceIds: sourceIdsOf(after) }]);
        return;
      } catch (error) {
        if (!(error instanceof StaleConceptError) || attempt >= 5) throw error;
      }
    }
  }
}

const queuedEntryFor = (accepted: JobAccepted): EnrichmentStatus => ({ ...queuedEnrichment(accepted.jobId), requestedAt: accepted.createdAt });
