import { setMaxListeners } from 'node:events';
import type { TwinVersion } from '../../schemas/twins.js';
import { jobPrincipal } from '../auth/principal.js';
import type { ComputePool } from '../compute/pool.js';
import type { DatasetService } from '../datasets/service.js';
import { type JobContext, JobError, type JobRunner } from '../jobs/runner.js';
import { nowIso } from '../lib/ids.js';
import type { LearnIo, LearnParams, Learned } from './kinds/kind.js';
import { twinKind } from './kinds/registry.js';
import { type TwinRecord, presentVersion } from './records.js';
import type { TwinRepo, VersionRow } from './repo.js';
import { suggestSimulations } from './suggestions.js';

const MIN_ROWS = 10;
const MAX_TASK_LISTENERS = 256;

interface Steps {
  discover: boolean;
  train: boolean;
}

/**
 * The twin jobs (discover, train, pipeline): read the version's data, then the twin kind's learner discovers its
 * graph and trains its model on the pool (kinds/), and everything learned is recorded on the version. Runs inside
 * a job: cancellable through the job's signal, reporting progress.
 */
export class TwinLearning {
  constructor(
    private readonly repo: TwinRepo,
    private readonly datasets: DatasetService,
    private readonly compute: () => ComputePool,
  ) {}

  register(runner: JobRunner): void {
    runner.register('twin_discover', (context: JobContext<LearnParams>) => this.run(context, { discover: true, train: false }));
    runner.register('twin_train', (context: JobContext<LearnParams>) => this.run(context, { discover: false, train: true }));
    runner.register('twin_pipeline', (context: JobContext<LearnParams>) => this.run(context, { discover: true, train: true }));
  }

  private async run(context: JobContext<LearnParams>, steps: Steps) {
    const { job, params } = context;
    const started = Date.now();
    const twin = await this.repo.find(job.organisation_id, job.workspace_id, params.twinId);
    const row = await this.repo.findVersion(job.organisation_id, params.twinId, job.resource_id ?? '');
    if (twin === undefined || row === undefined) throw new JobError('The twin or its version was deleted');
    const version = presentVersion(row);
    const learner = twinKind(twin.type).learner;
    if (learner === undefined) throw new JobError(`Learning ${twin.type} twins is not built yet`);

    context.progress(0.01, 'reading data');
    const binding = version.datasetId !== null ? { datasetId: version.datasetId } : { sourceId: version.sourceId ?? '' };
    const { schema, compiled } = await this.datasets.learningInput(jobPrincipal(job.organisation_id, job.workspace_id, job.created_by), job.workspace_id, binding);
    // One signal for the job's pool tasks: a failing task stops its siblings, and a cancel stops them all.
    const local = new AbortController();
    const scoped = { ...context, signal: AbortSignal.any([context.signal, local.signal]) };
    // Every pool task of the job (up to 200 resamples) listens on it: not a leak.
    setMaxListeners(MAX_TASK_LISTENERS, scoped.signal);
    const io: LearnIo = {
      context: scoped,
      compute: this.compute,
      baseVersion: async (of) => {
        const base = of.derivedFromVersionId === null ? undefined : await this.repo.findVersion(of.organisationId, of.twinId, of.derivedFromVersionId);
        return base === undefined ? null : presentVersion(base);
      },
    };
    const read = await learner.read(JSON.parse(twin.record) as TwinRecord, schema, (fields, maxRows) => this.datasets.learningRows(job.organisation_id, compiled, fields, maxRows, context.signal), io);
    if (read.nRows < MIN_ROWS) throw new JobError(`The data has ${read.nRows} rows; a twin needs at least ${MIN_ROWS}`);
    if (read.variables < 2) throw new JobError('A twin needs at least two varying numeric, boolean or categorical columns');

    let learned: Learned = { ...read.recorded };
    try {
      if (steps.discover) learned = { ...learned, ...UNTRAINED, ...(await learner.discover(io, read.data, { ...version, ...learned }, steps.train ? 0.6 : 0.95)) };
      if (steps.train) learned = { ...learned, ...(await learner.train(io, read.data, { ...version, ...learned })) };
    } finally {
      local.abort();
    }
    context.progress(0.97, 'saving');
    await context.ensureActive();
    const saved = await this.save(row, version.fixedSubGraph, { ...learned, canonicalInputSchema: read.columns, inputFields: read.columns.map((c) => c.field), dataSignature: read.signature });
    if (steps.train) await this.refreshTwin(twin.organisation_id, twin.workspace_id, params.twinId, saved, read.columns);
    return {
      versionId: saved.id,
      version: saved.version,
      status: saved.status,
      nRows: read.nRows,
      variables: read.variables,
      droppedColumns: read.dropped,
      edges: saved.causalGraph.length,
      seconds: (Date.now() - started) / 1000,
    };
  }

  /**
   * Writes what was learned onto the version, retrying a race with another writer. A fixed graph edited while the
   * job ran fails it: what was learned no longer honours the pins.
   */
  private async save(row: VersionRow, usedFixedGraph: TwinVersion['fixedSubGraph'], learned: Learned): Promise<TwinVersion> {
    const { model, ...members } = learned;
    let current = row;
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = presentVersion(current);
      if (JSON.stringify(now.fixedSubGraph) !== JSON.stringify(usedFixedGraph)) {
        throw new JobError('The fixed graph of this version changed while it was learning; run the job again');
      }
      const next: TwinVersion = { ...now, ...members };
      if (await this.repo.updateVersion({ ...current, record: JSON.stringify(next), model: model === undefined ? current.model : model }, current.revision)) return next;
      const fresh = await this.repo.findVersion(row.organisation_id, row.twin_id, row.id);
      if (fresh === undefined) throw new JobError('The twin version was deleted while it was learning');
      current = fresh;
    }
    throw new JobError('The twin version kept changing while its results were saved; run the job again');
  }

  private async refreshTwin(organisationId: string, workspaceId: string, twinId: string, version: TwinVersion, canonicalInputSchema: TwinRecord['canonicalInputSchema']): Promise<void> {
    const now = nowIso();
    const suggestedSimulations = suggestSimulations(version.causalGraph, version.nodes, version.variableRoles, now);
    await this.repo.mutate(organisationId, workspaceId, twinId, (twin) => {
      const record = JSON.parse(twin.record) as TwinRecord;
      const next: TwinRecord = { ...record, canonicalInputSchema, suggestedSimulations, suggestionsGeneratedAt: now };
      return { ...twin, record: JSON.stringify(next), updated_at: now };
    });
  }
}

/** A new discovery invalidates what an earlier training fitted on the old graph. */
const UNTRAINED = { evaluation: null, trainedAt: null, nTrainSamples: null, configSignature: null, model: null } satisfies Learned;
