import type { JobAccepted } from '../../schemas/jobs.js';
import type { CreateTwin, CreateVersion, DigitalTwin, Discover, FixedSubGraph, PatchFixedGraph, PatchTwin, RunPipeline, Train, TwinType, TwinVersion } from '../../schemas/twins.js';
import type { Principal } from '../auth/principal.js';
import type { DataBinding, DatasetService } from '../datasets/service.js';
import { AppError, notFound } from '../errors.js';
import type { JobService } from '../jobs/service.js';
import type { CursorCodec } from '../lib/cursor.js';
import { newId, nowIso } from '../lib/ids.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import type { InferredColumn } from '../tables/inference/infer-schema.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import type { EnvironmentGroup } from '../../schemas/environments.js';
import type { EnvironmentProfile } from './environments/profile.js';
import { applyFixedGraphPatch } from './fixed-graph.js';
import { modelledColumns } from './frame.js';
import { twinKind } from './kinds/registry.js';
import { type TwinRecord, emptyVersion, presentTwin, presentVersion } from './records.js';
import type { TrainedVersions } from './trained-versions.js';
import type { TwinRepo, TwinRow, VersionRow } from './repo.js';


/** Digital twins and their versions: records, the fixed graph, and the jobs that learn them (learning.ts). */
export class TwinService {
  constructor(
    private readonly repo: TwinRepo,
    private readonly datasets: DatasetService,
    private readonly jobs: JobService,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    /** The store's unique-violation test: two writers raced for one version number. */
    private readonly isUniqueViolation: (error: unknown) => boolean,
    private readonly versions: TrainedVersions,
  ) {}

  async list(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string }): Promise<Page<DigitalTwin>> {
    await this.access.require(principal, workspaceId, 'read');
    const scope = filterScope({ list: 'digital-twins', workspaceId });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, workspaceId, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], presentTwin);
  }

  /** Creates the twin and its first version 1.0.0; no computation until discover, train or run-pipeline. */
  async create(principal: Principal, workspaceId: string, input: CreateTwin): Promise<DigitalTwin> {
    await this.access.require(principal, workspaceId, 'write');
    const type = input.type ?? 'static';
    if (input.datasetId != null && input.sourceId != null) {
      throw new AppError('validation_failed', 'Give datasetId or sourceId, not both', { errors: [{ location: 'body/sourceId', message: 'at most one of datasetId and sourceId' }] });
    }
    const binding = bindingOf(input.datasetId ?? null, input.sourceId ?? null);
    const environmentColumns = input.environmentColumns ?? [];
    const timeColumn = input.selectedTimeColumnName ?? null;
    const stepAggregation = input.stepAggregation ?? null;
    const [missing] = twinKind(type).requirements({ selectedTimeColumnName: timeColumn, environmentColumns, stepAggregation });
    if (missing !== undefined) throw new AppError('validation_failed', `${missing.location.replace('body/', '')}: ${missing.message}`, { errors: [missing] });
    let canonical: TwinRecord['canonicalInputSchema'] = [];
    if (binding !== null) {
      const { schema } = await this.datasets.learningInput(principal, workspaceId, binding, 'datasetId' in binding ? 'datasetId' : 'sourceId');
      const fields = new Set(schema.map((c) => c.field));
      if (timeColumn !== null && !fields.has(timeColumn)) throw invalid('selectedTimeColumnName', `${timeColumn} is not a column of the data`);
      environmentColumns.forEach((column, i) => {
        if (!fields.has(column)) throw invalid(`environmentColumns/${i}`, `${column} is not a column of the data`);
      });
      canonical = modelledColumns(schema, [...environmentColumns, ...(timeColumn === null ? [] : [timeColumn])]);
    }
    const now = nowIso();
    const twinId = newId('dt');
    const record: TwinRecord = {
      tags: input.tags ?? [],
      canonicalInputSchema: canonical,
      suggestedSimulations: [],
      suggestionsGeneratedAt: null,
      environmentGroups: [],
      autoUpdate: { enabled: false, mode: 'assimilate_only' },
      datasetId: input.datasetId ?? null,
      sourceId: input.sourceId ?? null,
      selectedTimeColumnName: timeColumn,
      environmentColumns,
      shardCount: input.shardCount ?? 1,
      stepAggregation,
      latestVersionId: newId('dtv'),
    };
    const twin: TwinRow = {
      id: twinId,
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      name: input.name.trim(),
      normalized_name: normalise(input.name),
      type,
      status: 'active',
      record: JSON.stringify(record),
      revision: 1,
      created_by: principal.userId,
      created_at: now,
      updated_at: now,
    };
    const version = emptyVersion({
      id: record.latestVersionId,
      twin,
      number: [1, 0, 0],
      createdBy: principal.userId,
      derivedFromVersionId: null,
      datasetId: record.datasetId,
      sourceId: record.sourceId,
      canonicalInputSchema: canonical,
      fixedSubGraph: { relationships: [], antiRelationships: [] },
      now,
    });
    await this.repo.insert(twin, versionRow(version));
    return { ...presentTwin(twin), versionId: version.id };
  }

  async get(principal: Principal, workspaceId: string, id: string): Promise<DigitalTwin> {
    await this.access.require(principal, workspaceId, 'read');
    return presentTwin(await this.find(principal, workspaceId, id));
  }

  async update(principal: Principal, workspaceId: string, id: string, input: PatchTwin): Promise<DigitalTwin> {
    await this.access.require(principal, workspaceId, 'write');
    const written = await this.repo.mutate(principal.organisationId, workspaceId, id, (row) => {
      const record = JSON.parse(row.record) as TwinRecord;
      if (input.tags !== undefined) record.tags = input.tags;
      return {
        ...row,
        name: input.name?.trim() ?? row.name,
        normalized_name: input.name === undefined ? row.normalized_name : normalise(input.name),
        record: JSON.stringify(record),
        updated_at: nowIso(),
      };
    });
    if (written === undefined) throw notFound('Digital twin', id);
    return presentTwin(written);
  }

  /** Deletes the twin, its versions and fitted models; jobs learning it and runs simulating it are cancelled first. */
  async delete(principal: Principal, workspaceId: string, id: string): Promise<void> {
    await this.access.require(principal, workspaceId, 'full');
    const row = await this.find(principal, workspaceId, id);
    await this.jobs.cancelFor(principal.organisationId, [row.id, ...(await this.repo.versionIds(principal.organisationId, row.id))]);
    if (!(await this.repo.delete(principal.organisationId, workspaceId, id))) throw notFound('Digital twin', id);
    for (const listener of this.deleted) await listener(principal.organisationId, id);
  }

  /** Called after a twin is deleted (what other services keep of it: a panel run's result artifacts). */
  onDeleted(listener: (organisationId: string, twinId: string) => Promise<void>): void {
    this.deleted.push(listener);
  }

  private readonly deleted: Array<(organisationId: string, twinId: string) => Promise<void>> = [];

  async listVersions(principal: Principal, workspaceId: string, twinId: string, query: { limit?: number; cursor?: string }): Promise<Page<TwinVersion>> {
    await this.access.require(principal, workspaceId, 'read');
    await this.find(principal, workspaceId, twinId);
    const scope = filterScope({ list: 'twin-versions', twinId });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.listVersions(principal.organisationId, twinId, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.version_major, row.version_minor, row.version_patch], presentVersion);
  }

  async getVersion(principal: Principal, workspaceId: string, twinId: string, versionId: string): Promise<TwinVersion> {
    await this.access.require(principal, workspaceId, 'read');
    return presentVersion((await this.findVersion(principal, workspaceId, twinId, versionId)).version);
  }

  /**
   * What a simulation of a version needs (the caller has checked workspace access): the twin's kind, the version
   * record, and its fitted model (null until trained).
   */
  /** What a run needs of its twin version: the model, and on a panel the saved groups and the environments as read. */
  async simulationTarget(principal: Principal, workspaceId: string, twinId: string, versionId: string): Promise<{ twinType: TwinType; version: TwinVersion; model: unknown; groups: EnvironmentGroup[]; profile: EnvironmentProfile | null }> {
    const twin = await this.find(principal, workspaceId, twinId);
    const version = await this.versions.get(principal.organisationId, twinId, versionId);
    if (version === undefined) throw notFound('Twin version', versionId);
    return {
      twinType: twin.type as TwinType,
      version: version.record,
      model: version.model,
      groups: (JSON.parse(twin.record) as TwinRecord).environmentGroups ?? [],
      profile: version.profile,
    };
  }

  /**
   * A new version numbered by `bump` above the twin's newest one, derived from `baseVersionId` (default the newest):
   * its fixed graph and data binding are copied, nothing is learned yet.
   */
  async createVersion(principal: Principal, workspaceId: string, twinId: string, input: CreateVersion): Promise<TwinVersion> {
    await this.access.require(principal, workspaceId, 'write');
    const twin = await this.find(principal, workspaceId, twinId);
    const base =
      input.baseVersionId != null
        ? await this.repo.findVersion(principal.organisationId, twinId, input.baseVersionId).then((row) => row ?? Promise.reject(invalid('baseVersionId', `${input.baseVersionId} is not a version of this twin`)))
        : await this.repo.latestVersion(principal.organisationId, twinId);
    if (base === undefined) throw new AppError('conflict', `Twin ${twinId} has no version to derive from`);
    const baseRecord = presentVersion(base);
    let datasetId = baseRecord.datasetId;
    let sourceId = baseRecord.sourceId;
    let canonical = baseRecord.canonicalInputSchema as InferredColumn[];
    if (input.datasetId != null) {
      const { schema } = await this.datasets.learningInput(principal, workspaceId, { datasetId: input.datasetId });
      const record = JSON.parse(twin.record) as TwinRecord;
      canonical = modelledColumns(schema, [...record.environmentColumns, ...(record.selectedTimeColumnName === null ? [] : [record.selectedTimeColumnName])]);
      datasetId = input.datasetId;
      sourceId = null;
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const latest = await this.repo.latestVersion(principal.organisationId, twinId);
      const number = bump(latest === undefined ? [1, 0, 0] : [latest.version_major, latest.version_minor, latest.version_patch], input.bump ?? 'patch');
      const version = emptyVersion({
        id: newId('dtv'),
        twin,
        number,
        createdBy: principal.userId,
        derivedFromVersionId: base.id,
        datasetId,
        sourceId,
        canonicalInputSchema: canonical,
        fixedSubGraph: baseRecord.fixedSubGraph,
        now: nowIso(),
      });
      try {
        await this.repo.insertVersion(versionRow(version));
      } catch (error) {
        if (this.isUniqueViolation(error)) continue;
        throw error;
      }
      // The newest version number wins, whichever of two concurrent creations writes last.
      await this.repo.mutate(principal.organisationId, workspaceId, twinId, async (row) => {
        const newest = await this.repo.latestVersion(principal.organisationId, twinId);
        const record = JSON.parse(row.record) as TwinRecord;
        return { ...row, record: JSON.stringify({ ...record, latestVersionId: newest?.id ?? version.id }), updated_at: nowIso() };
      });
      return version;
    }
    throw new AppError('conflict', 'Other versions of this twin were being created at the same moment; retry');
  }

  async getFixedGraph(principal: Principal, workspaceId: string, twinId: string, versionId: string): Promise<FixedSubGraph> {
    await this.access.require(principal, workspaceId, 'read');
    return presentVersion((await this.findVersion(principal, workspaceId, twinId, versionId)).version).fixedSubGraph;
  }

  async patchFixedGraph(principal: Principal, workspaceId: string, twinId: string, versionId: string, patch: PatchFixedGraph): Promise<FixedSubGraph> {
    await this.access.require(principal, workspaceId, 'write');
    const { twin, version } = await this.findVersion(principal, workspaceId, twinId, versionId);
    const record = presentVersion(version);
    const variables = record.canonicalInputSchema.length > 0 ? record.canonicalInputSchema.map((c) => c.field) : null;
    const fixedSubGraph = applyFixedGraphPatch(record.fixedSubGraph, patch, variables, twinKind(twin.type).lagged);
    if (!(await this.repo.updateVersion({ ...version, record: JSON.stringify({ ...record, fixedSubGraph }) }, version.revision))) {
      throw new AppError('conflict', `Version ${versionId} was changed by another request; read it again and retry`);
    }
    return fixedSubGraph;
  }

  discover(principal: Principal, workspaceId: string, twinId: string, versionId: string, input: Discover): Promise<JobAccepted> {
    return this.submit(principal, workspaceId, twinId, versionId, 'twin_discover', input);
  }

  /** Fits the version's model on its graph; a version with no graph yet answers 409 (discover it, or run the pipeline). */
  async train(principal: Principal, workspaceId: string, twinId: string, versionId: string, input: Train): Promise<JobAccepted> {
    return this.submit(principal, workspaceId, twinId, versionId, 'twin_train', input, (version) => {
      if (version.discoveredAt === null && version.fixedSubGraph.relationships.length === 0) {
        throw new AppError('conflict', `Version ${version.version} has no graph yet: discover it first, or use run-pipeline`);
      }
    });
  }

  async runPipeline(principal: Principal, workspaceId: string, twinId: string, input: RunPipeline): Promise<JobAccepted> {
    await this.access.require(principal, workspaceId, 'write');
    const versionId = input.versionId ?? (JSON.parse((await this.find(principal, workspaceId, twinId)).record) as TwinRecord).latestVersionId;
    const { versionId: _ignored, ...params } = input;
    return this.submit(principal, workspaceId, twinId, versionId, 'twin_pipeline', params);
  }

  private async submit(
    principal: Principal,
    workspaceId: string,
    twinId: string,
    versionId: string,
    type: 'twin_discover' | 'twin_train' | 'twin_pipeline',
    input: { webhookUrl?: string } & Record<string, unknown>,
    check?: (version: TwinVersion) => void,
  ): Promise<JobAccepted> {
    await this.access.require(principal, workspaceId, 'write');
    const { twin, version } = await this.findVersion(principal, workspaceId, twinId, versionId);
    if (twinKind(twin.type).learner === undefined) {
      throw new AppError('validation_failed', `Learning ${twin.type} twins is not built yet`);
    }
    const record = presentVersion(version);
    if (record.datasetId === null && record.sourceId === null) {
      throw new AppError('conflict', `Version ${record.version} has no data: create a version with a datasetId`);
    }
    check?.(record);
    if ((await this.jobs.inFlightFor(principal.organisationId, [version.id])).length > 0) {
      throw new AppError('conflict', `Version ${record.version} is already being learned by another job; wait for it or cancel it`);
    }
    const { webhookUrl, ...params } = input;
    return this.jobs.submit({
      organisationId: principal.organisationId,
      workspaceId,
      type,
      resource: { type: 'digital-twin-version', id: version.id, twinId },
      params,
      webhookUrl: webhookUrl ?? null,
      createdBy: principal.userId,
    });
  }

  private async find(principal: Principal, workspaceId: string, id: string): Promise<TwinRow> {
    const row = await this.repo.find(principal.organisationId, workspaceId, id);
    if (row === undefined) throw notFound('Digital twin', id);
    return row;
  }

  private async findVersion(principal: Principal, workspaceId: string, twinId: string, versionId: string): Promise<{ twin: TwinRow; version: VersionRow }> {
    const twin = await this.find(principal, workspaceId, twinId);
    const version = await this.repo.findVersion(principal.organisationId, twinId, versionId);
    if (version === undefined) throw notFound('Twin version', versionId);
    return { twin, version };
  }
}

export function versionRow(version: TwinVersion): VersionRow {
  return {
    id: version.id,
    twin_id: version.twinId,
    organisation_id: version.organisationId,
    workspace_id: version.workspaceId,
    version_major: version.versionMajor,
    version_minor: version.versionMinor,
    version_patch: version.versionPatch,
    record: JSON.stringify(version),
    model: null,
    revision: 1,
    created_at: version.createdAt,
  };
}

function bump([major, minor, patch]: [number, number, number], kind: 'major' | 'minor' | 'patch'): [number, number, number] {
  if (kind === 'major') return [major + 1, 0, 0];
  if (kind === 'minor') return [major, minor + 1, 0];
  return [major, minor, patch + 1];
}

const normalise = (name: string) => name.trim().toLowerCase().replace(/\s+/g, ' ');
const invalid = (member: string, message: string) => new AppError('validation_failed', `${member}: ${message}`, { errors: [{ location: `body/${member}`, message }] });
const bindingOf = (datasetId: string | null, sourceId: string | null): DataBinding | null =>
  datasetId !== null ? { datasetId } : sourceId !== null ? { sourceId } : null;

