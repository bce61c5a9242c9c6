import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Relationship, TwinVersion } from '../../schemas/twins.js';
import type { Principal } from '../auth/principal.js';
import { SCOPES } from '../auth/scopes.js';
import type { ComputePool } from '../compute/pool.js';
import type { DatasetService } from '../datasets/service.js';
import { edgeConfidence } from '../engine/discovery/bootstrap.js';
import type { DiscoveryOptions, DiscoveryResult, Frame } from '../engine/types.js';
import { type JobContext, JobError, type JobRunner } from '../jobs/runner.js';
import { nowIso } from '../lib/ids.js';
import { buildChangelog } from './changelog.js';
import { edgesForTraining } from './fixed-graph.js';
import { buildFrame, modelledColumns } from './frame.js';
import { describeNodes, variableRoles, withFittedStrengths } from './model-summary.js';
import { reversibleEdgeCount, withOrientations } from './orientation.js';
import { type TwinRecord, presentVersion } from './records.js';
import type { TwinRepo, VersionRow } from './repo.js';
import { suggestSimulations } from './suggestions.js';

/**
 * Rows a twin learns from at most (the first ones in the data's order), and cells (rows x columns): the rows are
 * read into the server's memory before they become typed arrays. The version records how many it used.
 */
const MAX_TRAIN_ROWS = 200_000;
const MAX_TRAIN_CELLS = 10_000_000;
const MIN_ROWS = 10;
const MAX_TASK_LISTENERS = 256;
const DEFAULTS = { alpha: 0.05, timeBudgetSeconds: 300, bootstrapSamples: 16, testFraction: 0.2, seed: 1, orientationAssumptions: ['non_gaussian_residuals'] as NonNullable<DiscoveryOptions['assumptions']> };

interface Steps {
  discover: boolean;
  train: boolean;
}

/**
 * The work of the twin jobs: read the version's data, discover its graph (PC-stable and refinement on the pool,
 * bootstrap resamples in parallel for confidence), fit the CBN and evaluate it on a held-out split, and record
 * it all on the version. Runs inside a job: cancellable through the job's signal, reporting progress.
 */
export class TwinLearning {
  constructor(
    private readonly repo: TwinRepo,
    private readonly datasets: DatasetService,
    private readonly compute: () => ComputePool,
  ) {}

  register(runner: JobRunner): void {
    runner.register('twin_discover', (context) => this.run(context, { discover: true, train: false }));
    runner.register('twin_train', (context) => this.run(context, { discover: false, train: true }));
    runner.register('twin_pipeline', (context) => this.run(context, { discover: true, train: true }));
  }

  private async run(context: JobContext, steps: Steps): Promise<Record<string, unknown>> {
    const { job, params } = context;
    const twinId = String(params.twinId);
    const started = Date.now();
    const twin = await this.repo.find(job.organisation_id, job.workspace_id, twinId);
    const row = await this.repo.findVersion(job.organisation_id, twinId, job.resource_id ?? '');
    if (twin === undefined || row === undefined) throw new JobError('The twin or its version was deleted');
    const version = presentVersion(row);
    const twinRecord = JSON.parse(twin.record) as TwinRecord;

    context.progress(0.01, 'reading data');
    const binding = version.datasetId !== null ? { datasetId: version.datasetId } : { sourceId: version.sourceId ?? '' };
    const { schema, compiled } = await this.datasets.learningInput(systemPrincipal(job.organisation_id, job.workspace_id, job.created_by), job.workspace_id, binding);
    const excluded = [...twinRecord.environmentColumns, ...(twinRecord.selectedTimeColumnName === null ? [] : [twinRecord.selectedTimeColumnName])];
    const columns = modelledColumns(schema, excluded);
    if (columns.length < 2) throw new JobError('A twin needs at least two numeric, boolean or categorical columns');
    const maxRows = Math.min(MAX_TRAIN_ROWS, Math.floor(MAX_TRAIN_CELLS / columns.length));
    const rows = await this.datasets.learningRows(job.organisation_id, compiled, columns.map((c) => c.field), maxRows, context.signal);
    const { frame, dropped, signature } = await buildFrame(rows, columns);
    if (frame.nRows < MIN_ROWS) throw new JobError(`The data has ${frame.nRows} rows; a twin needs at least ${MIN_ROWS}`);
    if (frame.columns.length < 2) throw new JobError('A twin needs at least two varying numeric, boolean or categorical columns');
    const kept = new Set(frame.columns.map((c) => c.name));
    const canonicalInputSchema = columns.filter((c) => kept.has(c.field));

    // One signal for the job's pool tasks: a failing task stops its siblings, and a cancel stops them all.
    const local = new AbortController();
    const scoped = { ...context, signal: AbortSignal.any([context.signal, local.signal]) };
    // Every pool task of the job (up to 200 resamples) listens on it: not a leak.
    setMaxListeners(MAX_TASK_LISTENERS, scoped.signal);
    let learned: Partial<TwinVersion> & { model?: string | null } = {};
    try {
      if (steps.discover) learned = { ...UNTRAINED, ...(await this.discover(scoped, frame, version, steps.train ? 0.6 : 0.95)) };
      if (steps.train) learned = { ...learned, ...(await this.train(scoped, frame, { ...version, ...learned })) };
    } finally {
      local.abort();
    }
    context.progress(0.97, 'saving');
    await context.ensureActive();
    const saved = await this.save(row, version.fixedSubGraph, { ...learned, canonicalInputSchema, inputFields: canonicalInputSchema.map((c) => c.field), dataSignature: signature });
    if (steps.train) await this.refreshTwin(twin.organisation_id, twin.workspace_id, twinId, saved, canonicalInputSchema);
    return {
      versionId: saved.id,
      version: saved.version,
      status: saved.status,
      nRows: frame.nRows,
      variables: frame.columns.length,
      droppedColumns: dropped,
      edges: saved.causalGraph.length,
      seconds: (Date.now() - started) / 1000,
    };
  }

  private async discover(context: JobContext, frame: Frame, version: TwinVersion, share: number): Promise<Partial<TwinVersion>> {
    const { params, signal } = context;
    const names = new Set(frame.columns.map((c) => c.name));
    const inFrame = (e: { source: string; target: string }) => names.has(e.source) && names.has(e.target);
    const alpha = numberParam(params.alpha, DEFAULTS.alpha);
    const timeBudgetSeconds = numberParam(params.timeBudgetSeconds, DEFAULTS.timeBudgetSeconds);
    const bootstrapSamples = numberParam(params.bootstrapSamples, DEFAULTS.bootstrapSamples);
    const seed = numberParam(params.seed, DEFAULTS.seed);
    const maxDepth = typeof params.maxDepth === 'number' ? params.maxDepth : undefined;
    const assumptions = Array.isArray(params.orientationAssumptions) ? (params.orientationAssumptions as NonNullable<DiscoveryOptions['assumptions']>) : DEFAULTS.orientationAssumptions;
    const options: DiscoveryOptions = {
      alpha,
      timeBudgetMs: timeBudgetSeconds * 1000,
      required: version.fixedSubGraph.relationships.filter(inFrame),
      forbidden: version.fixedSubGraph.antiRelationships.filter(inFrame),
      seed,
      assumptions,
      ...(maxDepth === undefined ? {} : { maxDepth }),
    };
    const started = Date.now();
    let mainFraction = 0;
    let resamplesDone = 0;
    const report = (state: string) => context.progress(0.05 + share * (0.7 * mainFraction + (bootstrapSamples === 0 ? 0.3 : (0.3 * resamplesDone) / bootstrapSamples)), state);
    const main = this.compute().run({ kind: 'discover', frame, options }, {
      signal,
      onProgress: (message) => {
        mainFraction = message.fraction;
        report(`discovering graph: ${message.state}`);
      },
    });
    const resamples = Array.from({ length: bootstrapSamples }, (_, i) =>
      this.compute().run({ kind: 'bootstrap', frame, options, seed: seed * 1000 + i + 1 }, { signal }).then((result) => {
        resamplesDone++;
        report(`bootstrap resample ${resamplesDone} of ${bootstrapSamples}`);
        return result;
      }),
    );
    const [result, ...boots] = await Promise.all([main, ...resamples]) as [DiscoveryResult, ...DiscoveryResult[]];
    const confidence = bootstrapSamples === 0 ? null : edgeConfidence(boots, result.edges);
    const causalGraph: Relationship[] = withOrientations(result.edges.map((edge, i) => ({
      source: edge.source,
      target: edge.target,
      strength: Number(edge.strength.toFixed(6)),
      strengthStatus: 'measured',
      timeLagEffects: [],
      cyclicalEffects: [],
      confidence: confidence === null ? null : Number((confidence[i] ?? 0).toFixed(4)),
      agreementRate: null,
      isEnvironmentGated: false,
    })), version.fixedSubGraph, result.assumed ?? []);
    return {
      status: 'discovered',
      causalGraph,
      reversibleEdgeCount: reversibleEdgeCount(causalGraph),
      nodes: frame.columns.map((column) => ({
        name: column.name,
        nodeType: 'observed',
        type: column.kind,
        categories: column.kind === 'categorical' ? column.categories : null,
        latentClusterId: null,
        environmentColumns: [],
        isDerived: false,
        symbolicEquation: null,
        derivedInfo: null,
        parentImpacts: null,
      })),
      variableRoles: variableRoles(frame.columns.map((c) => c.name), causalGraph),
      discovery: {
        alpha,
        maxDepth: maxDepth ?? null,
        timeBudgetSeconds,
        bootstrapSamples,
        orientationAssumptions: assumptions,
        testsRun: result.stats.tests,
        depthReached: result.stats.depthReached,
        timedOut: result.stats.timedOut,
        seconds: (Date.now() - started) / 1000,
        nRows: frame.nRows,
      },
      discoveredAt: nowIso(),
    };
  }

  private async train(context: JobContext, frame: Frame, version: TwinVersion): Promise<Partial<TwinVersion> & { model: string }> {
    const { params, signal } = context;
    const names = new Set(frame.columns.map((c) => c.name));
    const inFrame = (e: { source: string; target: string }) => names.has(e.source) && names.has(e.target);
    const edges = edgesForTraining(version.causalGraph.filter(inFrame), { relationships: version.fixedSubGraph.relationships.filter(inFrame), antiRelationships: version.fixedSubGraph.antiRelationships });
    const nonlinear = params.nonlinear === true;
    const testFraction = numberParam(params.testFraction, DEFAULTS.testFraction);
    const seed = numberParam(params.seed, DEFAULTS.seed);
    context.progress(0.7, 'fitting the model');
    const outcome = await this.compute().run({ kind: 'fit', frame, edges, options: { nonlinear, testFraction, seed } }, { signal });
    const known = new Map(version.causalGraph.map((edge) => [`${edge.source}\u0000${edge.target}`, edge]));
    const graph = edges.map(
      (edge): Omit<Relationship, 'orientation'> =>
        known.get(`${edge.source}\u0000${edge.target}`) ?? {
          ...edge,
          strength: null,
          strengthStatus: 'pinned',
          timeLagEffects: [],
          cyclicalEffects: [],
          confidence: null,
          agreementRate: null,
          isEnvironmentGated: false,
        },
    );
    const causalGraph = withOrientations(withFittedStrengths(graph, outcome.model), version.fixedSubGraph);
    const nodes = describeNodes(outcome.model);
    const evaluation = outcome.evaluation;
    const base = version.derivedFromVersionId === null ? null : await this.repo.findVersion(version.organisationId, version.twinId, version.derivedFromVersionId);
    return {
      status: 'trained',
      causalGraph,
      reversibleEdgeCount: reversibleEdgeCount(causalGraph),
      nodes,
      evaluation: { ...evaluation, nodeMetrics: evaluation.nodeMetrics as Record<string, Record<string, number>> },
      variableRoles: variableRoles(frame.columns.map((c) => c.name), causalGraph),
      nTrainSamples: frame.nRows,
      configSignature: `sha256:${createHash('sha256').update(JSON.stringify({ fixed: version.fixedSubGraph, nonlinear, testFraction, seed })).digest('hex')}`,
      changelog: buildChangelog(base === undefined || base === null ? null : presentVersion(base), { fixedSubGraph: version.fixedSubGraph, causalGraph, nodes, evaluation: { ...evaluation, nodeMetrics: evaluation.nodeMetrics as Record<string, Record<string, number>> } }),
      trainedAt: nowIso(),
      model: JSON.stringify(outcome.model),
    };
  }

  /**
   * Writes what was learned onto the version, retrying a race with another writer. A fixed graph edited while the
   * job ran fails it: what was learned no longer honours the pins.
   */
  private async save(row: VersionRow, usedFixedGraph: TwinVersion['fixedSubGraph'], learned: Partial<TwinVersion> & { model?: string | null }): Promise<TwinVersion> {
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
const UNTRAINED = { evaluation: null, trainedAt: null, nTrainSamples: null, configSignature: null, model: null } satisfies Partial<TwinVersion> & { model: null };

const numberParam = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** Jobs act for the user who submitted them, within the workspace checked at submit. */
function systemPrincipal(organisationId: string, workspaceId: string, userId: string): Principal {
  return { authType: 'apiKey', keyId: null, userId, organisationId, workspaceId, scopes: new Set(SCOPES), rateLimit: null, isOrgAdmin: true };
}
