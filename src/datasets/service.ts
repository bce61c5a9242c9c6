import type { Readable } from 'node:stream';
import type { CreateDataset, Dataset, DatasetSource, Operation, PatchDataset, ValidateDataset } from '../../schemas/datasets.js';
import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import type { CursorCodec } from '../lib/cursor.js';
import { newId, nowIso } from '../lib/ids.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import type { InferredColumn } from '../tables/inference/infer-schema.js';
import type { SourceRepo, SourceRow } from '../sources/repo.js';
import { toSource } from '../sources/records.js';
import { type ColumnMetadata, computeColumnMetadata } from '../tables/statistics.js';
import { type DataStore, DataStoreError, type TenantSql, quoteColumn } from '../store/data/port.js';
import type { OntologyService } from '../ontology/service.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import { type CompiledDataset, type DatasetDefinition, type SourceInput, compileDataset } from './compiler/compile.js';
import type { Relation } from './compiler/relation.js';
import { describeOperation } from './describe.js';
import { orderBy } from './compiler/operations.js';
import { type CursorValue, type ExportName, READ_TIMEOUT_MS, countRows, exportRows, readRecords } from './query.js';
import { recommendDatasets, type RecommendedDataset } from './recommend.js';
import type { DatasetRepo, DatasetRow } from './repo.js';

/** The members of a dataset kept in the `definition` JSON column. */
interface StoredDefinition {
  description: string | null;
  tags: string[] | null;
  anchorConceptId: string | null;
  sources: DatasetSource[];
  operations: Operation[];
}

const PREVIEW_ROWS = 20;

/** What a twin learns from: a dataset, or a source read whole. */
export type DataBinding = { datasetId: string } | { sourceId: string };

const unknownBinding = (member: string, message: string) => new AppError('validation_failed', `${member}: ${message}`, { errors: [{ location: `body/${member}`, message }] });

/**
 * Datasets: definitions over the workspace's sources, compiled to one query whenever they are read. Nothing is
 * materialised; a definition that does not compile is refused (422) when it is written.
 */
export class DatasetService {
  constructor(
    private readonly repo: DatasetRepo,
    private readonly sources: SourceRepo,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly data: () => DataStore,
    /** Checks concept references on writes and gives reads the concepts' current edit versions. */
    private readonly ontology: OntologyService,
  ) {}

  /** `list` names the listing a cursor belongs to (the catalog pages the same rows under its own name). */
  async list(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string }, list = 'datasets'): Promise<Page<Dataset>> {
    await this.access.require(principal, workspaceId, 'read');
    const scope = filterScope({ list, workspaceId });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, workspaceId, page);
    const names = await this.sourceNames(principal.organisationId, rows.flatMap((row) => parse(row).sources.map((s) => s.id)));
    const versions = await this.conceptVersions(principal.organisationId, workspaceId, rows);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], (row) => present(row, names, versions));
  }

  async create(principal: Principal, workspaceId: string, input: CreateDataset): Promise<Dataset> {
    await this.access.require(principal, workspaceId, 'write');
    const definition: StoredDefinition = {
      description: input.description ?? null,
      tags: input.tags ?? null,
      anchorConceptId: input.anchorConceptId ?? null,
      ...normalise(input.sources ?? [], input.operations ?? []),
    };
    const sources = await this.compileForWrite(principal, workspaceId, definition);
    await this.ontology.checkReferences(principal.organisationId, workspaceId, definition.sources, definition.anchorConceptId);
    const now = nowIso();
    const row: DatasetRow = {
      id: newId('ds'),
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      name: input.name.trim(),
      definition: JSON.stringify(definition),
      created_at: now,
      updated_at: now,
      version: 1,
    };
    await this.repo.insert(row, definition.sources.map((s) => s.id));
    return present(row, namesOf(sources), await this.conceptVersions(principal.organisationId, workspaceId, [row]));
  }

  async get(principal: Principal, workspaceId: string, id: string): Promise<Dataset> {
    const row = await this.readable(principal, workspaceId, id);
    return present(row, await this.sourceNames(principal.organisationId, parse(row).sources.map((s) => s.id)), await this.conceptVersions(principal.organisationId, workspaceId, [row]));
  }

  async update(principal: Principal, workspaceId: string, id: string, input: PatchDataset): Promise<Dataset> {
    await this.access.require(principal, workspaceId, 'write');
    const row = await this.find(principal, workspaceId, id);
    const stored = parse(row);
    const definition: StoredDefinition = {
      description: input.description !== undefined ? input.description : stored.description,
      tags: input.tags !== undefined ? input.tags : stored.tags,
      anchorConceptId: input.anchorConceptId !== undefined ? input.anchorConceptId : stored.anchorConceptId,
      ...normalise(input.sources ?? stored.sources, input.operations ?? stored.operations),
    };
    const sources = await this.compileForWrite(principal, workspaceId, definition);
    // Concept versions are checked when the sources are sent (they must round-trip a current read), the anchor when it is.
    await this.ontology.checkReferences(principal.organisationId, workspaceId, input.sources === undefined ? [] : definition.sources, input.anchorConceptId === undefined ? null : definition.anchorConceptId);
    const next: DatasetRow = { ...row, name: input.name?.trim() ?? row.name, definition: JSON.stringify(definition), updated_at: nowIso() };
    if (!(await this.repo.update(next, row.version, definition.sources.map((s) => s.id)))) {
      throw new AppError('conflict', `Dataset ${id} was changed by another request; read it again and retry`);
    }
    return present({ ...next, version: row.version + 1 }, namesOf(sources), await this.conceptVersions(principal.organisationId, workspaceId, [next]));
  }

  async delete(principal: Principal, workspaceId: string, id: string): Promise<void> {
    await this.access.require(principal, workspaceId, 'full');
    if (!(await this.repo.delete(principal.organisationId, workspaceId, id))) throw notFound('Dataset', id);
  }

  /** The dataset's row count, or null when its stored definition no longer fits its sources. */
  async rowCount(principal: Principal, workspaceId: string, id: string): Promise<number | null> {
    try {
      const { compiled } = await this.compiled(principal, workspaceId, id);
      return await countRows(this.data(), principal.organisationId, compiled);
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return null;
      throw error;
    }
  }

  async schema(principal: Principal, workspaceId: string, id: string): Promise<InferredColumn[]> {
    const { compiled } = await this.compiled(principal, workspaceId, id);
    return schemaOf(compiled.relation);
  }

  async metadata(principal: Principal, workspaceId: string, id: string): Promise<{ schemaEntries: InferredColumn[]; columnMetadata: Record<string, ColumnMetadata>; rowCount: number }> {
    const { compiled } = await this.compiled(principal, workspaceId, id);
    return this.statistics(principal.organisationId, compiled);
  }

  async enriched(principal: Principal, workspaceId: string, id: string) {
    const { row, compiled, names } = await this.compiled(principal, workspaceId, id);
    const statistics = await this.statistics(principal.organisationId, compiled);
    const definition = parse(row);
    const concepts = await this.ontology.describe(principal.organisationId, workspaceId, [...new Set([...definition.sources.flatMap((s) => s.conceptIds), ...(definition.anchorConceptId === null ? [] : [definition.anchorConceptId])])]);
    return {
      ...present(row, names, new Map(concepts.map((c) => [c.id, c.editVersion]))),
      concepts: concepts.map((concept) => ({
        id: concept.id,
        name: concept.name,
        description: concept.description,
        conceptClassification: concept.conceptClassification,
        editVersion: concept.editVersion,
        isAnchor: concept.id === definition.anchorConceptId,
        fields: concept.fieldMappings.filter((m) => definition.sources.some((s) => s.id === m.sourceId)).map((m) => ({ sourceId: m.sourceId, field: m.field, status: m.status })),
        metadata: concept.metadata,
        valueMappings: concept.valueMappings,
      })),
      outputSchema: statistics.schemaEntries,
      columnMetadata: statistics.columnMetadata,
      rowCount: statistics.rowCount,
      operationDetails: compiled.steps.map(({ operation, relation }) => ({
        id: operation.id,
        sourceId: operation.sourceId,
        type: operation.config.type,
        summary: describeOperation(operation.config),
        outputSchema: schemaOf(relation),
      })),
    };
  }

  async records(principal: Principal, workspaceId: string, id: string, query: { limit?: number; cursor?: string }) {
    const { row, compiled } = await this.compiled(principal, workspaceId, id);
    // Cursors hold sort values of this definition; an edited dataset starts again.
    const scope = filterScope({ list: 'records', id, version: row.version });
    const page = pageRequest(this.cursors, query, scope);
    const store = this.data();
    const result = await readRecords(store, principal.organisationId, compiled, page.limit, page.after as CursorValue[] | null);
    const total = await countRows(store, principal.organisationId, compiled);
    return {
      items: result.rows,
      pagination: { cursor: result.next === null ? null : this.cursors.encode({ after: result.next, scope }), hasMore: result.next !== null, total },
    };
  }

  /** Compiles a proposed definition against the dataset's workspace and shows its schemas and first rows; stores nothing. */
  async validate(principal: Principal, workspaceId: string, id: string, input: ValidateDataset) {
    await this.access.require(principal, workspaceId, 'write');
    const row = await this.find(principal, workspaceId, id);
    const stored = parse(row);
    const definition = normalise(input.sources ?? stored.sources, input.operations ?? stored.operations);
    const inputs = await this.sourceInputs(principal, workspaceId, definition.sources, 'write');
    const compiled = compileDataset(definition, inputs.inputs);
    await this.dryRun(principal.organisationId, compiled);
    const store = this.data();
    return {
      sourceSchemas: Object.fromEntries([...compiled.sourceRelations].map(([sourceId, relation]) => [sourceId, schemaOf(relation)])),
      operationSchemas: compiled.steps.map(({ operation, relation }) => ({ operationId: operation.id, schema: schemaOf(relation) })),
      finalSchema: schemaOf(compiled.relation),
      preview: {
        rows: (await readRecords(store, principal.organisationId, compiled, PREVIEW_ROWS, null)).rows,
        rowCount: await countRows(store, principal.organisationId, compiled),
      },
    };
  }

  /**
   * An export reads every source as recorded when the export starts (the compiled query bounds each source by its
   * last recorded batch): batches appended meanwhile are not in it.
   */
  async export(principal: Principal, workspaceId: string, id: string, format: ExportName, signal?: AbortSignal): Promise<{ name: string; stream: Readable }> {
    const { row, compiled } = await this.compiled(principal, workspaceId, id);
    return { name: row.name, stream: await exportRows(this.data(), principal.organisationId, compiled, format, signal) };
  }

  async recommended(principal: Principal, workspaceId: string): Promise<RecommendedDataset[]> {
    await this.access.require(principal, workspaceId, 'read');
    const rows = await this.sources.list(
      { organisationId: principal.organisationId, visibleIn: [workspaceId], parentId: 'all', format: 'Tabular', excludeVirtual: true },
      { key: 'createdAt', direction: 'desc' },
      { limit: 200, after: null },
    );
    return recommendDatasets(rows.rows.map(toSource), await this.ontology.all(principal, workspaceId));
  }

  /**
   * The compiled relation of what a twin learns from: a dataset of the workspace, or a tabular source linked to it
   * read whole (a twin may model a raw source directly). An unknown id answers 422 naming `member`.
   */
  async learningInput(principal: Principal, workspaceId: string, binding: DataBinding, member = 'datasetId'): Promise<{ schema: InferredColumn[]; compiled: CompiledDataset }> {
    let compiled: CompiledDataset;
    if ('datasetId' in binding) {
      const row = await this.repo.find(principal.organisationId, workspaceId, binding.datasetId);
      if (row === undefined) throw unknownBinding(member, `dataset ${binding.datasetId} is not in this workspace`);
      compiled = (await this.compiled(principal, workspaceId, binding.datasetId)).compiled;
    } else {
      const definition = normalise([{ id: binding.sourceId }], []);
      const { inputs } = await this.sourceInputs(principal, workspaceId, definition.sources, 'write').catch((error: unknown) => {
        throw error instanceof AppError && error.code === 'validation_failed' ? unknownBinding(member, `source ${binding.sourceId} is not a tabular source of this workspace`) : error;
      });
      compiled = compileDataset(definition, inputs);
    }
    return { schema: schemaOf(compiled.relation), compiled };
  }

  /** The first `maxRows` rows of a learning input in the data's own (stable) order, the named columns only. */
  async learningRows(organisationId: string, compiled: CompiledDataset, columns: string[], maxRows: number, signal?: AbortSignal): Promise<Array<Record<string, unknown>>> {
    const list = columns.map((name) => `s.${quoteColumn(name)}`).join(', ');
    return this.data().query<Record<string, unknown>>(
      organisationId,
      (sql) => `SELECT ${list === '' ? '1' : list} FROM (${compiled.relation.sql(sql)}) AS s ORDER BY ${orderBy(compiled.relation, 's')} LIMIT ${Math.floor(maxRows)}`,
      compiled.params.values,
      { timeoutMs: READ_TIMEOUT_MS, ...(signal === undefined ? {} : { signal }) },
    );
  }

  /** The compiled dataset for a read; a stored definition its sources no longer fit answers 409. */
  /**
   * Every dataset of a workspace that still fits its sources, compiled (each with parameter names of its own, so
   * that two can be read in one query), with the sources it reads: what the anchor query facility plans over.
   */
  async compiledAll(principal: Principal, workspaceId: string): Promise<Array<{ id: string; name: string; tags: string[]; sourceIds: string[]; compiled: CompiledDataset }>> {
    await this.access.require(principal, workspaceId, 'read');
    const result: Array<{ id: string; name: string; tags: string[]; sourceIds: string[]; compiled: CompiledDataset }> = [];
    for (const [i, row] of (await this.repo.allIn(principal.organisationId, workspaceId)).entries()) {
      try {
        const definition = parse(row);
        result.push({ id: row.id, name: row.name, tags: definition.tags ?? [], sourceIds: definition.sources.map((s) => s.id), compiled: (await this.compileRow(principal, workspaceId, row, `d${i}_`)).compiled });
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      }
    }
    return result;
  }

  private async compiled(principal: Principal, workspaceId: string, id: string): Promise<{ row: DatasetRow; compiled: CompiledDataset; names: Map<string, string> }> {
    return this.compileRow(principal, workspaceId, await this.readable(principal, workspaceId, id));
  }

  /** A stored dataset compiled against its sources as they are now (409 when it no longer fits them). */
  private async compileRow(principal: Principal, workspaceId: string, row: DatasetRow, paramPrefix = 'p'): Promise<{ row: DatasetRow; compiled: CompiledDataset; names: Map<string, string> }> {
    const definition = parse(row);
    const { inputs, rows } = await this.sourceInputs(principal, workspaceId, definition.sources, 'read');
    try {
      return { row, compiled: compileDataset(definition, inputs, paramPrefix), names: namesOf(rows) };
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed') {
        throw new AppError('conflict', `Dataset ${row.id} no longer fits its sources (${error.message}); update its definition`);
      }
      throw error;
    }
  }

  private async statistics(organisationId: string, compiled: CompiledDataset) {
    const schemaEntries = schemaOf(compiled.relation);
    const store = this.data();
    const over = { organisationId, from: (sql: TenantSql) => `(${compiled.relation.sql(sql)})`, params: compiled.params.values, options: { timeoutMs: READ_TIMEOUT_MS } };
    const columnMetadata = await computeColumnMetadata(store, over, schemaEntries);
    return { schemaEntries, columnMetadata, rowCount: await countRows(store, organisationId, compiled) };
  }

  private async compileForWrite(principal: Principal, workspaceId: string, definition: DatasetDefinition): Promise<SourceRow[]> {
    const { inputs, rows } = await this.sourceInputs(principal, workspaceId, definition.sources, 'write');
    await this.dryRun(principal.organisationId, compileDataset(definition, inputs));
    return rows;
  }

  /**
   * Has the engine analyse the query without reading a row: what the compiler's own checks miss (an engine limit,
   * a function the engine refuses for a type) is refused now, not stored to fail every later read.
   */
  private async dryRun(organisationId: string, compiled: CompiledDataset): Promise<void> {
    try {
      await this.data().query(organisationId, (sql) => `SELECT * FROM (${compiled.relation.sql(sql)}) LIMIT 0`, compiled.params.values, { timeoutMs: READ_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof DataStoreError)) throw error;
      throw new AppError('validation_failed', `The dataset cannot be computed: ${error.message.split('\n')[0]!.replace(/\s*\(\w+\)\s*$/, '')}`);
    }
  }

  /**
   * The sources a definition names, each of which must be linked to the workspace. On a write an unknown one is a
   * 422 naming it; on a read (a stored definition) its absence is a conflict.
   */
  private async sourceInputs(principal: Principal, workspaceId: string, entries: DatasetSource[], purpose: 'read' | 'write'): Promise<{ inputs: Map<string, SourceInput>; rows: SourceRow[] }> {
    const ids = [...new Set(entries.map((entry) => entry.id))];
    const [rows, linked] = await Promise.all([this.sources.findMany(principal.organisationId, ids), this.sources.linkedTo(workspaceId, ids)]);
    const byId = new Map(rows.filter((row) => linked.has(row.id)).map((row) => [row.id, row]));
    entries.forEach((entry, i) => {
      if (byId.has(entry.id)) return;
      if (purpose === 'write') {
        throw new AppError('validation_failed', `sources/${i}/id: ${entry.id} is not a source of this workspace`, { errors: [{ location: `body/sources/${i}/id`, message: 'not a source of this workspace' }] });
      }
      throw new AppError('conflict', `Source ${entry.id} of this dataset is no longer in the workspace`);
    });
    const inputs = new Map<string, SourceInput>();
    for (const row of byId.values()) {
      const source = toSource(row);
      if (row.data_format !== 'Tabular') {
        const at = entries.findIndex((entry) => entry.id === row.id);
        throw new AppError('validation_failed', `sources/${at}/id: ${row.id} is a folder; datasets read tabular sources`, { errors: [{ location: `body/sources/${at}/id`, message: 'a folder source' }] });
      }
      inputs.set(row.id, {
        id: row.id,
        columns: source.schemaEntries as InferredColumn[],
        tableId: row.document_count > 0 ? row.id : null,
        batchEnds: source.batchRanges.map((batch) => batch.rowEnd),
      });
    }
    return { inputs, rows: [...byId.values()] };
  }

  /** The current edit versions of the concepts the datasets name (reads return them, not the ones written). */
  private conceptVersions(organisationId: string, workspaceId: string, rows: DatasetRow[]): Promise<Map<string, number>> {
    return this.ontology.currentVersions(organisationId, workspaceId, rows.flatMap((row) => parse(row).sources.flatMap((s) => s.conceptIds)));
  }

  private async sourceNames(organisationId: string, ids: string[]): Promise<Map<string, string>> {
    return namesOf(await this.sources.findMany(organisationId, [...new Set(ids)]));
  }

  private async readable(principal: Principal, workspaceId: string, id: string): Promise<DatasetRow> {
    await this.access.require(principal, workspaceId, 'read');
    return this.find(principal, workspaceId, id);
  }

  private async find(principal: Principal, workspaceId: string, id: string): Promise<DatasetRow> {
    const row = await this.repo.find(principal.organisationId, workspaceId, id);
    if (row === undefined) throw notFound('Dataset', id);
    return row;
  }
}

/** Fills in what a client may leave out: operation ids, source entry defaults. */
function normalise(sources: Array<Partial<DatasetSource> & { id: string }>, operations: Array<Omit<Operation, 'id'> & { id?: string }>): DatasetDefinition {
  return {
    sources: sources.map((entry) => ({
      id: entry.id,
      type: 'source',
      name: null,
      conceptIds: entry.conceptIds ?? [],
      conceptVersions: entry.conceptVersions ?? {},
      version: entry.version ?? { kind: 'latest' },
    })),
    operations: operations.map((operation) => ({ id: operation.id ?? newId('op'), sourceId: operation.sourceId, config: operation.config })),
  };
}

const parse = (row: DatasetRow) => JSON.parse(row.definition) as StoredDefinition;
const namesOf = (rows: SourceRow[]) => new Map(rows.map((row) => [row.id, row.name]));

/** A dataset's concept references as stored: the sources it reads and the edit version it was written against per concept. */
export function datasetConcepts(row: DatasetRow): { id: string; name: string; sourceIds: string[]; conceptVersions: Record<string, number>; anchorConceptId: string | null } {
  const definition = parse(row);
  return { id: row.id, name: row.name, sourceIds: definition.sources.map((s) => s.id), conceptVersions: Object.assign({}, ...definition.sources.map((s) => s.conceptVersions)), anchorConceptId: definition.anchorConceptId };
}

function present(row: DatasetRow, names: Map<string, string>, versions: Map<string, number>): Dataset {
  const definition = parse(row);
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    organisationId: row.organisation_id,
    name: row.name,
    description: definition.description,
    tags: definition.tags,
    anchorConceptId: definition.anchorConceptId,
    sources: definition.sources.map((entry) => ({
      ...entry,
      name: names.get(entry.id) ?? null,
      conceptVersions: Object.fromEntries(entry.conceptIds.map((conceptId) => [conceptId, versions.get(conceptId) ?? entry.conceptVersions[conceptId] ?? 0])),
    })),
    operations: definition.operations,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const schemaOf = (relation: Relation): InferredColumn[] => relation.columns.map((column) => column.entry);
