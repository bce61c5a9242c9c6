/**
 * Runs simulation jobs: configuring (the version's model is loaded), configured, running (the question on the
 * compute pool, metric SQL answered here on the data engine), then the outputs are stored and the runner marks
 * the run completed. A failure meant for the user (a metric that averages a text column, a model gone) fails the
 * run with that message.
 */
import type { ComputePool } from '../compute/pool.js';
import type { FamilyOutcome, SweepResult } from '../engine/inference/outcome.js';
import type { ScoredRecord } from '../engine/inference/score.js';
import type { SampleTable } from '../engine/inference/scenario.js';
import { familyOf } from '../families/registry.js';
import type { CbnModel } from '../engine/types.js';
import { panelRouting } from '../engine/panel/routing.js';
import { isPanelModel, type PanelModel } from '../engine/panel/model.js';
import { SIMULATION_JOB } from '../jobs/repo.js';
import { type JobContext, JobError, type JobRunner } from '../jobs/runner.js';
import { nowIso } from '../lib/ids.js';
import type { TrainedVersions } from '../twins/trained-versions.js';
import { webhookEvent } from '../webhooks/deliver.js';
import type { GroupSnapshot } from './environments.js';
import type { MetricSql } from './metric-sql.js';
import type { PanelArtifacts, PanelArtifactsRecord } from './panel-artifacts.js';
import type { SimulationRepo } from './repo.js';
import type { BatchExecution } from './batch/run.js';
import { type BatchScenario, runPredictionBatch } from './batch/prediction.js';
import { runScoreBatch, type ScoreInput } from './batch/score.js';
import type { ScenarioHandoff } from './handoff.js';
import type { RowsTableRecord } from './batch/results.js';
import { jobPrincipal } from '../auth/principal.js';
import { twinKind } from '../twins/kinds/registry.js';
import { undecidedCopies } from '../twins/orientation.js';

/** What a run keeps of its submission (the job row's params; the scenario itself is the row's `input`). */
export interface RunParams {
  versionId: string;
  versionLabel: string;
  /** `score` runs hold a ScoreInput (batch/score.ts) as input; every other run its scenario. */
  kind: 'scenario' | 'score';
  seed: number;
  userQuery: string | null;
  /** Panel runs narrowed by environment groups: the environments resolved at submit (the scenario's intersected with the groups'). */
  environments?: string[];
  /** The groups as they were at submit (spec: frozen; later edits change nothing in the run). */
  environmentGroupSnapshots?: GroupSnapshot[];
}

/** A panel run's stored sweep: one per environment. */
export interface StoredPanelSweep {
  environments: Record<string, SweepResult>;
}

/** The small part of a completed run, kept on its row (listings show it); outputs live apart. */
export interface RunResult {
  resultsSummary: { summary: string; keyPoints: string[] };
  hasSweep: boolean;
  /** Panel runs of forecast-shaped families: where their per-environment records are (panel-artifacts.ts). */
  artifacts?: PanelArtifactsRecord;
  /** Batch runs: the table of their row results (batch/results.ts). */
  rowsTable?: RowsTableRecord;
}

export const SIMULATION_LANE = 'simulations';

export class SimulationExecution {
  constructor(
    private readonly runs: SimulationRepo,
    private readonly versions: TrainedVersions,
    private readonly compute: () => ComputePool,
    private readonly metrics: MetricSql,
    private readonly artifacts: PanelArtifacts,
    private readonly batch: BatchExecution,
    private readonly handoff: ScenarioHandoff,
  ) {}

  register(runner: JobRunner, concurrency: number): void {
    runner.addLane(SIMULATION_LANE, concurrency);
    runner.register(SIMULATION_JOB, (context: JobContext<RunParams>) => this.run(context), {
      lane: SIMULATION_LANE,
      webhook: (job, status, completedAt, error) => ({
        event: webhookEvent('simulation', status),
        runId: job.id,
        status,
        workspaceId: job.workspace_id,
        completedAt,
        ...(error === null ? {} : { error }),
      }),
    });
  }

  private async run(context: JobContext<RunParams>): Promise<RunResult> {
    const { job, signal, params } = context;
    const input = (this.handoff.take(job.id) ?? JSON.parse((await this.runs.input(job.id)) ?? 'null')) as { type: string } | null;
    if (input === null) throw new JobError('The run has no scenario');
    // The claim left the run `configuring` (no phase): nothing to write until its model is loaded.
    context.progress(0.01, 'configuring');
    const twinId = job.resource_id ?? '';
    const version = await this.versions.get(job.organisation_id, twinId, params.versionId);
    if (version?.model == null) throw new JobError(`Twin version ${params.versionLabel} no longer has a trained model (deleted or relearned since the run was submitted)`);
    const { model, record } = version;
    // A scoring run is no family's question (null).
    const family = params.kind === 'score' ? null : familyOf(input.type, record.type);
    if (family === undefined) throw new JobError(`This service no longer answers '${input.type}' questions`);
    await this.phase(context, 'configured', 0.03);
    await this.phase(context, 'running', 0.05);
    if (family === null) return this.runScore(context, record.type, model, input as ScoreInput);
    const identification = {
      reversible: record.causalGraph.filter((e) => e.orientation === 'reversible').map(({ source, target }) => ({ source, target })),
      trainingRows: record.nTrainSamples,
      copies: undecidedCopies(record),
    };
    const batchMode = family.batchRows?.[record.type];
    if (batchMode === 'always' || (batchMode === 'byReference' && (input as BatchScenario).rowsFrom !== undefined)) {
      return this.runBatch(context, model as CbnModel | PanelModel, input as BatchScenario, family.engine);
    }
    const options = {
      signal,
      onProgress: (message: { fraction: number; state: string }) => context.progress(0.05 + 0.9 * message.fraction, message.state),
      evaluateMetric: (frame: Parameters<MetricSql['evaluate']>[1], sql: string) => this.metrics.evaluate(job.organisation_id, frame, sql, signal),
    };
    // A refusal inside the engine (an AppError, a failed metric) fails the run with its message.
    const outcome = await this.compute().run({ kind: 'question', engine: family.engine, model, scenario: params.environments === undefined ? input : ({ ...input, environments: params.environments } as typeof input), seed: params.seed, identification }, options);
    context.progress(0.97, 'saving results');
    await context.ensureActive();
    const artifacts = outcome.panelResults === undefined ? undefined : await this.artifacts.write(job.organisation_id, job.id, outcome.panelResults);
    await this.save(job.id, job.organisation_id, params, outcome);
    return { resultsSummary: outcome.summary, hasSweep: outcome.sweep !== undefined || outcome.sweeps !== undefined, ...(artifacts === undefined ? {} : { artifacts }) };
  }

  /** A batch: rows answered chunk by chunk on the pool; the results inline, or a table in the data store the outputs name. */
  private async runBatch(context: JobContext<RunParams>, model: CbnModel | PanelModel, scenario: BatchScenario, engine: string): Promise<RunResult> {
    const { params } = context;
    const task = isPanelModel(model) ? { ...this.batchTask(context, model.pooled), environments: panelRouting(model) } : this.batchTask(context, model);
    const outcome = await runPredictionBatch(this.batch, task, scenario, engine, model);
    const table = outcome.record === undefined ? {} : { resultsTable: tableOf(outcome.record) };
    const details = JSON.stringify({ ...outcome.details, ...table, seed: params.seed });
    // The inline results are JSON text already (a record per row): spliced in, never parsed and written again.
    await this.saveBatch(context, `{${JSON.stringify(params.versionLabel)}:{"results":${outcome.resultsJson ?? '{}'},"changepoints":{},"history":{},"details":${details}}}`);
    return { resultsSummary: outcome.summary, hasSweep: false, ...(outcome.record === undefined ? {} : { rowsTable: outcome.record }) };
  }

  /** A scoring run: its rows scored chunk by chunk on the pool, written as its results table; the digest in its outputs. */
  private async runScore(context: JobContext<RunParams>, twinType: string, model: unknown, input: ScoreInput): Promise<RunResult> {
    const { params } = context;
    const scoring = twinKind(twinType).scoring;
    if (scoring === undefined) throw new JobError(`This service no longer scores rows on ${twinType} twins`);
    const scorer = scoring.scorer(model);
    const { tableFrame } = scoring;
    const inline = { records: (rows: ScoredRecord[]) => scoring.inlineFrame(model, rows), ...(tableFrame === undefined ? {} : { table: (table: SampleTable) => tableFrame(model, table) }) };
    const outcome = await runScoreBatch(this.batch, this.batchTask(context, scorer.network), input, scorer, inline);
    const details = { digest: outcome.digest, targets: input.targets.map((t) => t.variable), ...outcome.details, resultsTable: tableOf(outcome.record), seed: params.seed };
    await this.saveBatch(context, JSON.stringify({ [params.versionLabel]: { results: {}, changepoints: {}, history: {}, details } }));
    return { resultsSummary: outcome.summary, hasSweep: false, rowsTable: outcome.record };
  }

  /** Stores a batch run's outputs (JSON text); a failure, or a cancel meanwhile, drops every table the batch made. */
  private async saveBatch(context: JobContext<RunParams>, outputs: string): Promise<void> {
    const { job } = context;
    try {
      context.progress(0.97, 'saving results');
      await context.ensureActive();
      await this.runs.insertOutputs({ run_id: job.id, organisation_id: job.organisation_id, outputs, sweep: null, score: null, created_at: nowIso() });
    } catch (error) {
      await this.batch.discard(job.organisation_id, job.id);
      throw error;
    }
  }

  private batchTask(context: JobContext<RunParams>, model: CbnModel) {
    const { job, params, signal } = context;
    const principal = jobPrincipal(job.organisation_id, job.workspace_id, job.created_by);
    return { principal, workspaceId: job.workspace_id, runId: job.id, model, seed: params.seed, signal, progress: (fraction: number, state: string) => context.progress(fraction, state) };
  }

  /** Moves the run to an in-flight phase; a run cancelled meanwhile stops here. */
  private async phase(context: JobContext<RunParams>, phase: 'configured' | 'running', fraction: number): Promise<void> {
    context.signal.throwIfAborted();
    if (!(await this.runs.setPhase(context.job.id, context.job.owner ?? '', phase))) await context.ensureActive();
    context.progress(fraction, phase);
  }

  private async save(runId: string, organisationId: string, params: RunParams, outcome: FamilyOutcome): Promise<void> {
    const outputs = { [params.versionLabel]: { results: outcome.results, changepoints: outcome.changepoints ?? {}, history: outcome.history ?? {}, details: { ...outcome.details, seed: params.seed } } };
    await this.runs.insertOutputs({
      run_id: runId,
      organisation_id: organisationId,
      outputs: JSON.stringify(outputs),
      sweep: outcome.sweeps !== undefined ? JSON.stringify({ environments: outcome.sweeps } satisfies StoredPanelSweep) : outcome.sweep === undefined ? null : JSON.stringify(outcome.sweep),
      score: null,
      created_at: nowIso(),
    });
  }
}

/** What the outputs say of a results table: its row count and the columns a reader sees. */
const tableOf = (record: RowsTableRecord) => ({ rows: record.rows, columns: record.columns.map((c) => c.name) });
