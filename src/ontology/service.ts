import type { JobAccepted } from '../../schemas/jobs.js';
import type { Concept, CreateConcept, Downstream, EnrichConcept, FieldMapping, PutConcept, SplitConcept } from '../../schemas/ontology.js';
import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import type { CursorCodec } from '../lib/cursor.js';
import { nowIso } from '../lib/ids.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import { QuerySyntaxError, parseMetric } from '../query/language.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import { type ConceptBody, bodyOf, fullMapping, mappingKey, newBody, newConceptRow, sketchesOf, sketchesWhere, sourceIdsOf, toConcept, writableOf } from './concepts.js';
import { ended, enrichmentOf, isOpen, withEnrichment } from './enrichment.js';
import { type ConceptRepo, type ConceptRow, StaleConceptError } from './repo.js';

/** What the ontology needs to know of the rest of the workspace: its sources' fields and what reads its concepts. */
export interface OntologyNeighbours {
  /** The fields of a source linked to the workspace; undefined when the workspace cannot see it. */
  sourceFields(organisationId: string, workspaceId: string, sourceId: string): Promise<string[] | undefined>;
  /** Queues an extraction of a source into the workspace's ontology. */
  queueExtraction(organisationId: string, workspaceId: string, sourceId: string, createdBy: string, webhookUrl: string | null): Promise<JobAccepted>;
  /** The job ids of the in-flight enrichments of the given concepts. */
  enrichmentsInFlight(organisationId: string, conceptIds: string[]): Promise<Set<string>>;
  /** Queues the forward enrichment of a concept. */
  queueEnrichment(organisationId: string, workspaceId: string, conceptId: string, createdBy: string, webhookUrl: string | null): Promise<JobAccepted>;
  /** The workspace's datasets (their concept references) and the twins learning from each. */
  consumers(organisationId: string, workspaceId: string): Promise<{
    datasets: Array<{ id: string; name: string; sourceIds: string[]; conceptVersions: Record<string, number>; anchorConceptId: string | null }>;
    twins: Array<{ id: string; name: string; datasetId: string | null }>;
  }>;
}

const locatedError = (location: string, message: string) => new AppError('validation_failed', message, { errors: [{ location, message }] });
const staleError = (id: string, current: number) =>
  new AppError('stale_version', `Concept ${id} is at editVersion ${current}; read it again and apply the change to that version`);

/**
 * Ontology concepts of a workspace (spec: Ontology). Written by people (create, put, split, delete) and by
 * extraction; every change bumps `editVersion`, and a write naming an older one is refused (409) having changed
 * nothing. Members a person changed are locked against re-extraction.
 */
export class OntologyService {
  constructor(
    private readonly repo: ConceptRepo,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly neighbours: OntologyNeighbours,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  async list(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string; sourceId?: string }, list = 'concepts'): Promise<Page<Concept>> {
    await this.access.require(principal, workspaceId, 'read');
    const scope = filterScope({ list, workspaceId, sourceId: query.sourceId ?? null });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, workspaceId, page, query.sourceId);
    const listed = toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], toConcept);
    return { ...listed, items: await this.settled(principal.organisationId, listed.items) };
  }

  async get(principal: Principal, workspaceId: string, id: string): Promise<Concept> {
    await this.access.require(principal, workspaceId, 'read');
    const [concept] = await this.settled(principal.organisationId, [toConcept(await this.find(principal, workspaceId, id))]);
    return concept!;
  }

  /** Every concept of the workspace (the catalog graph, extraction, the anchor checks of datasets). */
  async all(principal: Principal, workspaceId: string): Promise<Concept[]> {
    await this.access.require(principal, workspaceId, 'read');
    return (await this.repo.all(principal.organisationId, workspaceId)).map(toConcept);
  }

  async create(principal: Principal, workspaceId: string, input: CreateConcept): Promise<Concept> {
    await this.access.require(principal, workspaceId, 'write');
    const members = writableOf(input);
    const body = newBody({ schemaFieldName: input.name.trim(), ...members, lastEditedBy: principal.userId, lastEditedAt: nowIso() });
    await this.checkBody(principal.organisationId, workspaceId, body, 'body');
    body.fieldMappings = body.fieldMappings.map((mapping) => ({ ...mapping, decidedBy: mapping.decidedBy ?? principal.userId, decidedAt: mapping.decidedAt ?? nowIso() }));
    const row = newConceptRow({ organisationId: principal.organisationId, workspaceId }, input.name, body);
    await this.repo.insert(row, sourceIdsOf(body)).catch((error: unknown) => {
      throw this.isUniqueViolation(error) ? new AppError('conflict', `The workspace already has a concept named "${row.name}"`) : error;
    });
    return toConcept(row);
  }

  /**
   * Merges `input` into the stored concept: members given replace the stored ones; the members that change are
   * locked against re-extraction (added to lockedConceptFields, or to lockedMetadataFields for metadata members).
   * The edit version is bumped when anything changed.
   */
  async put(principal: Principal, workspaceId: string, id: string, input: PutConcept): Promise<{ concept: Concept; downstream: Downstream }> {
    await this.access.require(principal, workspaceId, 'write');
    if (input._id !== id) throw locatedError('body/_id', `must be the id in the path (${id})`);
    const row = await this.find(principal, workspaceId, id);
    if (input.editVersion !== undefined && input.editVersion !== row.edit_version) throw staleError(id, row.edit_version);
    const stored = bodyOf(row);
    const members = writableOf(input);
    // Metadata members merge one level down: a PUT of {metadata: {unit}} changes the unit and keeps the statistics.
    const merged: ConceptBody = { ...stored, ...members, ...(members.metadata !== undefined && { metadata: { ...stored.metadata, ...members.metadata } }) };
    // Mappings a PUT leaves out are kept as `rejected`, so that extraction does not propose them again.
    if (members.fieldMappings !== undefined) {
      const kept = new Set(members.fieldMappings.map(mappingKey));
      const dropped = stored.fieldMappings.filter((m) => !kept.has(mappingKey(m)));
      merged.fieldMappings = [...members.fieldMappings, ...dropped.map((m) => ({ ...m, status: 'rejected' as const, decidedBy: principal.userId, decidedAt: nowIso() }))];
    }
    const name = input.name?.trim() ?? row.name;
    const changed = Object.keys(members).filter((key) => JSON.stringify(merged[key as keyof ConceptBody]) !== JSON.stringify(stored[key as keyof ConceptBody]));
    if (changed.length === 0 && name === row.name) return { concept: toConcept(row), downstream: await this.downstream(principal, workspaceId, id) };
    await this.checkBody(principal.organisationId, workspaceId, merged, 'body');
    merged.lockedConceptFields = union(merged.lockedConceptFields, changed.filter((key) => !['metadata', 'lockedMetadataFields', 'lockedConceptFields'].includes(key)));
    if (members.metadata !== undefined) {
      const editedMetadata = Object.keys(members.metadata).filter((key) => JSON.stringify(members.metadata![key]) !== JSON.stringify(stored.metadata[key]));
      merged.lockedMetadataFields = union(merged.lockedMetadataFields, editedMetadata);
    }
    if (name !== row.name) merged.lockedConceptFields = union(merged.lockedConceptFields, ['name']);
    merged.lastEditedBy = principal.userId;
    merged.lastEditedAt = nowIso();
    const keep = new Set(merged.fieldMappings.map(mappingKey));
    const next: ConceptRow = {
      ...row,
      name,
      name_key: name.toLowerCase(),
      body: JSON.stringify(merged),
      sketch: sketchesWhere(row, (key) => keep.has(key)),
      edit_version: row.edit_version + 1,
      updated_at: merged.lastEditedAt,
    };
    await this.write([{ row: next, expectedVersion: row.edit_version, sourceIds: sourceIdsOf(merged) }]);
    return { concept: toConcept(next), downstream: await this.downstream(principal, workspaceId, id) };
  }

  /** Asks for an extraction of a tabular source with rows linked to the workspace. */
  async extract(principal: Principal, workspaceId: string, sourceId: string, webhookUrl: string | null): Promise<JobAccepted> {
    await this.access.require(principal, workspaceId, 'write');
    const fields = await this.neighbours.sourceFields(principal.organisationId, workspaceId, sourceId);
    if (fields === undefined) throw locatedError('body/sourceId', `${sourceId} is not a source of this workspace`);
    if (fields.length === 0) throw locatedError('body/sourceId', `Source ${sourceId} has no rows yet: extraction describes the fields of a tabular source with rows`);
    return this.neighbours.queueExtraction(principal.organisationId, workspaceId, sourceId, principal.userId, webhookUrl);
  }

  /**
   * Asks for the forward enrichment of a concept: every value of its fields resolved to its canonical values (a
   * `concept_enrichment` job). The concept must list canonical values and map at least one field (422).
   */
  async enrich(principal: Principal, workspaceId: string, id: string, input: EnrichConcept): Promise<JobAccepted> {
    await this.access.require(principal, workspaceId, 'write');
    const body = bodyOf(await this.find(principal, workspaceId, id));
    if (body.valueMappings.length === 0) throw locatedError('body/kind', `Concept ${id} lists no canonical values (valueMappings) to resolve its fields to: add them (PUT), or install a library concept that has them`);
    if (!body.fieldMappings.some((m) => m.status !== 'rejected')) throw locatedError('body/kind', `Concept ${id} maps no field: there is nothing to enrich`);
    return this.neighbours.queueEnrichment(principal.organisationId, workspaceId, id, principal.userId, input.webhookUrl ?? null);
  }

  /** Deletes a concept no dataset uses (full permission). */
  async delete(principal: Principal, workspaceId: string, id: string): Promise<void> {
    await this.access.require(principal, workspaceId, 'full');
    await this.find(principal, workspaceId, id);
    const { datasets } = await this.neighbours.consumers(principal.organisationId, workspaceId);
    const using = datasets.filter((dataset) => id in dataset.conceptVersions || dataset.anchorConceptId === id).map((dataset) => dataset.id);
    if (using.length > 0) throw new AppError('conflict', `Concept ${id} is used by dataset${using.length === 1 ? '' : 's'} ${using.join(', ')}; change or delete ${using.length === 1 ? 'it' : 'them'} first`);
    if (!(await this.repo.delete(principal.organisationId, workspaceId, id))) throw notFound('Concept', id);
  }

  /**
   * Moves one field mapping out of a concept into a new concept (named `name`, or after the field), which takes
   * the concept's meaning members and the mapping's value sketch. Both are written in one transaction.
   */
  async split(principal: Principal, workspaceId: string, id: string, input: SplitConcept): Promise<{ original: Concept; created: Concept }> {
    await this.access.require(principal, workspaceId, 'write');
    const row = await this.find(principal, workspaceId, id);
    const body = bodyOf(row);
    const wanted = input.fieldMapping;
    const sourceId = wanted.sourceId ?? (await this.singleSourceOf(principal, workspaceId, wanted.datasetId ?? null));
    const moved = body.fieldMappings.find((mapping) => mapping.sourceId === sourceId && mapping.field === wanted.field);
    if (moved === undefined) throw locatedError('body/fieldMapping', `Concept ${id} has no mapping of ${sourceId}.${wanted.field}`);
    if (body.fieldMappings.length === 1) throw locatedError('body/fieldMapping', `It is the concept's only mapping: there is nothing to split it from`);
    const now = nowIso();
    const { sourceId: _s, field: _f, ...overrides } = wanted;
    const mapping: FieldMapping = fullMapping({ ...moved, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)), sourceId, field: moved.field, source: 'split', decidedBy: principal.userId, decidedAt: now });
    const remaining: ConceptBody = { ...body, fieldMappings: body.fieldMappings.filter((m) => m !== moved), lastEditedBy: principal.userId, lastEditedAt: now };
    const sketches = sketchesOf(row);
    const key = mappingKey(moved);
    const createdBody = newBody({
      description: body.description,
      conceptClassification: body.conceptClassification,
      conceptKind: body.conceptKind,
      schemaFieldName: moved.field,
      schemaType: body.schemaType,
      schemaSubtype: body.schemaSubtype,
      suggestedRole: body.suggestedRole,
      fieldMappings: [mapping],
      lastEditedBy: principal.userId,
      lastEditedAt: now,
    });
    const created = newConceptRow({ organisationId: principal.organisationId, workspaceId }, input.name ?? `${row.name} (${moved.field})`, createdBody, key in sketches ? { [key]: sketches[key]! } : {});
    const updated: ConceptRow = {
      ...row,
      body: JSON.stringify(remaining),
      sketch: sketchesWhere(row, (k) => k !== key),
      edit_version: row.edit_version + 1,
      updated_at: now,
    };
    await this.write([{ row: updated, expectedVersion: row.edit_version, sourceIds: sourceIdsOf(remaining) }], [{ row: created, sourceIds: [sourceId] }]);
    return { original: toConcept(updated), created: toConcept(created) };
  }

  /**
   * The concept references of a dataset's sources checked against the ontology: every concept must be one of the
   * workspace's and map a field of the source it is listed under (422, located), at the edit version the caller
   * read (409 naming the stale ones, nothing written). `anchorConceptId` must be a concept of the workspace.
   */
  async checkReferences(organisationId: string, workspaceId: string, sources: Array<{ id: string; conceptIds: string[]; conceptVersions: Record<string, number> }>, anchorConceptId: string | null): Promise<void> {
    const ids = [...sources.flatMap((source) => source.conceptIds), ...(anchorConceptId === null ? [] : [anchorConceptId])];
    const current = await this.repo.editVersions(organisationId, workspaceId, ids);
    const stale: string[] = [];
    for (const [i, source] of sources.entries()) {
      for (const conceptId of source.conceptIds) {
        const known = current.get(conceptId);
        const location = `body/sources/${i}/conceptIds`;
        if (known === undefined) throw locatedError(location, `${conceptId} is not a concept of this workspace`);
        if (!known.sourceIds.includes(source.id)) throw locatedError(location, `Concept ${conceptId} maps no field of source ${source.id}`);
        if (source.conceptVersions[conceptId] !== known.editVersion) stale.push(`${conceptId} (sent ${source.conceptVersions[conceptId]}, current ${known.editVersion})`);
      }
    }
    if (anchorConceptId !== null && !current.has(anchorConceptId)) throw locatedError('body/anchorConceptId', `${anchorConceptId} is not a concept of this workspace`);
    if (stale.length > 0) throw new AppError('stale_version', `Stale conceptVersions: ${stale.join(', ')}; read the concepts (or the dataset) again and send their current editVersion`);
  }

  /**
   * Concepts named by a scenario's objectives: each one of the workspace (422, located), at the edit version the
   * objective names when it names one (409 when the concept has changed since).
   */
  async checkObjectiveConcepts(organisationId: string, workspaceId: string, references: Array<{ conceptId: string; conceptEditVersion?: number; location: string }>): Promise<void> {
    if (references.length === 0) return;
    const current = await this.repo.editVersions(organisationId, workspaceId, references.map((r) => r.conceptId));
    for (const reference of references) {
      const known = current.get(reference.conceptId);
      if (known === undefined) throw locatedError(`${reference.location}/conceptId`, `${reference.conceptId} is not a concept of this workspace`);
      if (reference.conceptEditVersion !== undefined && reference.conceptEditVersion !== known.editVersion) throw staleError(reference.conceptId, known.editVersion);
    }
  }

  /**
   * A source deleted (or unlinked from a workspace): the concepts lose what they knew of it (its field mappings,
   * value sketches, rules, time order and anchor links); their edit version moves. Concepts left without mappings
   * stay: their meaning was someone's work.
   */
  async forgetSource(organisationId: string, sourceId: string, workspaceId?: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const rows = await this.repo.mappingSource(organisationId, sourceId, workspaceId);
      const updates = rows.map((row) => {
        const body = bodyOf(row);
        const next: ConceptBody = {
          ...body,
          fieldMappings: body.fieldMappings.filter((m) => m.sourceId !== sourceId),
          relationshipRules: body.relationshipRules.filter((r) => !r.sourceVariable.startsWith(`${sourceId}.`)),
          temporalPrerequisites: body.temporalPrerequisites.filter((t) => t.sourceId !== sourceId),
          anchorConceptLinks: body.anchorConceptLinks.filter((l) => l.sourceId !== sourceId),
          detectedConceptStructure: { ...body.detectedConceptStructure, temporalPrerequisites: body.detectedConceptStructure.temporalPrerequisites.filter((t) => t.sourceId !== sourceId) },
        };
        const sketch = sketchesWhere(row, (key) => !key.startsWith(`${sourceId}.`));
        return { row: { ...row, body: JSON.stringify(next), sketch, edit_version: row.edit_version + 1, updated_at: nowIso() }, expectedVersion: row.edit_version, sourceIds: sourceIdsOf(next) };
      });
      try {
        await this.repo.update(updates);
        return;
      } catch (error) {
        if (!(error instanceof StaleConceptError) || attempt >= 3) throw error;
      }
    }
  }

  /** The job ids of the enrichments in flight of the given concepts (the anchor query waits for them). */
  enrichmentsInFlight(organisationId: string, conceptIds: string[]): Promise<Set<string>> {
    return this.neighbours.enrichmentsInFlight(organisationId, conceptIds);
  }

  /** The given concepts of a workspace (those that exist), for a dataset's enriched read. */
  async describe(organisationId: string, workspaceId: string, ids: string[]): Promise<Concept[]> {
    return (await this.repo.findMany(organisationId, workspaceId, ids)).map(toConcept);
  }

  /** The current edit versions of concepts of a workspace (dataset reads return them). */
  async currentVersions(organisationId: string, workspaceId: string, ids: string[]): Promise<Map<string, number>> {
    const current = await this.repo.editVersions(organisationId, workspaceId, ids);
    return new Map([...current].map(([id, { editVersion }]) => [id, editVersion]));
  }

  /** Concepts as read, an enrichment that ended without recording it shown as ended (enrichment.ts `ended`). */
  private async settled(organisationId: string, concepts: Concept[]): Promise<Concept[]> {
    const open = concepts.filter((concept) => isOpen(enrichmentOf(concept)));
    if (open.length === 0) return concepts;
    const live = await this.neighbours.enrichmentsInFlight(organisationId, open.map((concept) => concept.id));
    return concepts.map((concept) => {
      const entry = enrichmentOf(concept);
      return !isOpen(entry) || live.has(entry.jobId ?? '') ? concept : withEnrichment(concept, ended(entry));
    });
  }

  private async downstream(principal: Principal, workspaceId: string, id: string): Promise<Downstream> {
    const { datasets, twins } = await this.neighbours.consumers(principal.organisationId, workspaceId);
    const using = datasets.filter((dataset) => id in dataset.conceptVersions);
    const ids = new Set(using.map((dataset) => dataset.id));
    return {
      datasets: using.map((dataset) => ({ id: dataset.id, name: dataset.name, writtenAgainst: dataset.conceptVersions[id]! })),
      twins: twins.filter((twin) => twin.datasetId !== null && ids.has(twin.datasetId)).map((twin) => ({ id: twin.id, name: twin.name, datasetId: twin.datasetId! })),
    };
  }

  private async singleSourceOf(principal: Principal, workspaceId: string, datasetId: string | null): Promise<string> {
    if (datasetId === null) throw locatedError('body/fieldMapping/sourceId', 'Name the source of the field (sourceId), or a dataset over one source (datasetId)');
    const { datasets } = await this.neighbours.consumers(principal.organisationId, workspaceId);
    const sources = datasets.find((d) => d.id === datasetId)?.sourceIds ?? [];
    if (sources.length !== 1) throw locatedError('body/fieldMapping/datasetId', `${datasetId} is not a dataset of this workspace over a single source: name the field's sourceId`);
    return sources[0]!;
  }

  /** Field mappings must name fields of sources the workspace sees; anchor links must name concepts of it. */
  private async checkBody(organisationId: string, workspaceId: string, body: ConceptBody, at: string): Promise<void> {
    const fields = new Map<string, string[] | undefined>();
    for (const [i, mapping] of body.fieldMappings.entries()) {
      if (!fields.has(mapping.sourceId)) fields.set(mapping.sourceId, await this.neighbours.sourceFields(organisationId, workspaceId, mapping.sourceId));
      const known = fields.get(mapping.sourceId);
      if (known === undefined) throw locatedError(`${at}/fieldMappings/${i}/sourceId`, `${mapping.sourceId} is not a source of this workspace`);
      if (!known.includes(mapping.field)) throw locatedError(`${at}/fieldMappings/${i}/field`, `Source ${mapping.sourceId} has no field "${mapping.field}"`);
    }
    const duplicate = body.fieldMappings.findIndex((m, i) => body.fieldMappings.findIndex((o) => mappingKey(o) === mappingKey(m)) !== i);
    if (duplicate !== -1) throw locatedError(`${at}/fieldMappings/${duplicate}`, 'maps a field already mapped above');
    if (body.metricSql !== null) {
      if (body.conceptKind !== 'metric') throw locatedError(`${at}/metricSql`, 'metricSql defines a metric: set conceptKind to metric');
      try {
        parseMetric(body.metricSql);
      } catch (error) {
        if (!(error instanceof QuerySyntaxError)) throw error;
        throw locatedError(`${at}/metricSql`, `is not a formula over aggregates (${error.message}), e.g. sum(amount) / countDistinct(Customer)`);
      }
    }
    const anchors = await this.repo.editVersions(organisationId, workspaceId, body.anchorConceptLinks.map((link) => link.anchorConceptId));
    const unknown = body.anchorConceptLinks.findIndex((link) => !anchors.has(link.anchorConceptId));
    if (unknown !== -1) throw locatedError(`${at}/anchorConceptLinks/${unknown}/anchorConceptId`, 'is not a concept of this workspace');
  }

  private async write(updates: Parameters<ConceptRepo['update']>[0], inserts: Parameters<ConceptRepo['update']>[1] = []): Promise<void> {
    try {
      await this.repo.update(updates, inserts);
    } catch (error) {
      if (error instanceof StaleConceptError) throw new AppError('stale_version', `Concept ${error.message} was changed by another request; read it again and retry`);
      if (this.isUniqueViolation(error)) throw new AppError('conflict', 'The workspace already has a concept of that name');
      throw error;
    }
  }

  private async find(principal: Principal, workspaceId: string, id: string): Promise<ConceptRow> {
    const row = await this.repo.find(principal.organisationId, workspaceId, id);
    if (row === undefined) throw notFound('Concept', id);
    return row;
  }
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];
