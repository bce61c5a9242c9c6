import { randomInt } from 'node:crypto';
import type { ScoreRequestBody, SimulationAccepted, SimulationRunSummary, SubmitSimulation } from '../../schemas/simulations.js';
import type { Principal } from '../auth/principal.js';
import type { ScoreDigest, ScoredRow, SweepResult } from '../engine/inference/outcome.js';
import { AppError, notFound } from '../errors.js';
import { SIMULATION_JOB } from '../jobs/repo.js';
import type { JobService } from '../jobs/service.js';
import type { CursorCodec } from '../lib/cursor.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import type { TwinService } from '../twins/service.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import type { RunParams, RunResult, StoredPanelSweep } from './execution.js';
import { scenarioFromQuery } from './from-query/index.js';
import type { MetricSql } from './metric-sql.js';
import { presentRun, runStatus, spliceJson } from './present.js';
import type { RunFilters, RunRow, SimulationRepo } from './repo.js';
import { runEnvironments } from './environments.js';
import type { PanelArtifacts } from './panel-artifacts.js';
import type { Readable } from 'node:stream';
import { metricQueries, scenarioFamily, validateScenario } from './validate.js';
import { familyOf, queryReaders } from '../families/registry.js';
import { scoringKinds, twinKind } from '../twins/kinds/registry.js';
import type { OntologyService } from '../ontology/service.js';
import type { BatchExecution } from './batch/run.js';
import { isBatch } from './batch/prediction.js';
import { presentScoredRow, type ScoreInput } from './batch/score.js';
import { inlineRows, invalidScoreRequest } from './batch/score-rows.js';
import type { RowsExportFormat, RowsTableRecord } from './batch/results.js';
import type { CbnModel } from '../engine/types.js';
import { isPanelModel } from '../engine/panel/model.js';
import type { ScenarioHandoff } from './handoff.js';

const IN_FLIGHT_MESSAGE = 'The run is still executing; read it again when it has completed';

/** Simulation runs of a workspace: submitted, listed, read, exported and cancelled. */
const CSV_NOT_OFFERED = 'csv export is only for forecast, panel_forecast or prediction runs on a multi-environment twin with stored panel results; this run offers json';

export class SimulationService {
  constructor(
    private readonly repo: SimulationRepo,
    private readonly jobs: JobService,
    private readonly twins: TwinService,
    private readonly metrics: MetricSql,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly artifacts: PanelArtifacts,
    private readonly ontology: OntologyService,
    private readonly batch: BatchExecution,
    private readonly handoff: ScenarioHandoff,
  ) {}

  /** Validates the scenario against the twin version, then queues the run (202: the run starts `pending`). */
  async submit(principal: Principal, workspaceId: string, input: SubmitSimulation): Promise<SimulationAccepted> {
    await this.access.require(principal, workspaceId, 'write');
    const { twinType, version, model, groups, profile } = await this.twins.simulationTarget(principal, workspaceId, input.digitalTwinId, input.digitalTwinVersionId);
    const family = scenarioFamily(input.scenario, twinType);
    const trained = requireTrained(version.version, model);
    const context = { twinType, ...twinKind(twinType).questionContext(trained) };
    const scenario = validateScenario<{ type: string; environments?: string[] }>(family, input.scenario, context);
    for (const { sql, location } of metricQueries(family, scenario)) await this.metrics.check(principal.organisationId, sql, location);
    await this.ontology.checkObjectiveConcepts(principal.organisationId, workspaceId, objectiveConcepts(scenario));
    if (isBatch(scenario) && scenario.rowsFrom !== undefined) {
      // A panel's rows are read as its pooled network's variables and name their environment in its columns.
      const network = isPanelModel(trained) ? trained.pooled : (trained as CbnModel);
      await this.batch.rows.check(principal, workspaceId, scenario.rowsFrom, network, scenario.targetVars, undefined, { environmentColumns: isPanelModel(trained) ? trained.environmentColumns : [] });
    }
    // environmentGroupIds narrow panel runs only: a single-environment twin ignores them (spec).
    const selection = context.environments === undefined ? { snapshots: [] } : runEnvironments(scenario.environments, input.environmentGroupIds, groups, profile, context.environments, version.version);
    const params: RunParams = {
      versionId: version.id,
      versionLabel: version.version,
      kind: 'scenario',
      seed: randomInt(1, 2 ** 31 - 1),
      userQuery: input.userQuery ?? null,
      ...(selection.environments === undefined ? {} : { environments: selection.environments }),
      environmentGroupSnapshots: selection.snapshots,
    };
    return this.queue(principal, workspaceId, input.digitalTwinId, family.type, params, scenario, input.webhookUrl);
  }

  /**
   * Batch scoring of rows against targets: a run of its own kind, read back with score(). Each twin kind scores its
   * own way (its registry entry's `scoring`): static twins with their network, static panels each row with the
   * mechanisms of the environment it names, temporal twins each row at its own step after the rows before it.
   */
  async submitScore(principal: Principal, workspaceId: string, twinId: string, versionId: string, input: ScoreRequestBody): Promise<SimulationAccepted> {
    await this.access.require(principal, workspaceId, 'write');
    const { twinType, version, model } = await this.twins.simulationTarget(principal, workspaceId, twinId, versionId);
    const kind = twinKind(twinType);
    if (kind.scoring === undefined) throw new AppError('validation_failed', `Scoring rows answers for ${scoringKinds().join(', ')} twins; this twin is ${twinType}`);
    const trained = requireTrained(version.version, model);
    const { webhookUrl, ...request } = input;
    const ways = (['rows', 'rowsTable', 'rowsFrom'] as const).filter((way) => request[way] !== undefined);
    if (ways.length !== 1) {
      const message = ways.length === 0
        ? 'give the rows to score: rows (records), rowsTable (columnar JSON) or rowsFrom (a dataset or source of the workspace, read by the run)'
        : `give the rows one way: ${ways.join(' and ')} were given`;
      throw new AppError('validation_failed', message, { errors: [{ location: ways.length === 0 ? 'body' : `body/${ways[1]}`, message }] });
    }
    const refusal = request.rowsFrom === undefined ? null : kind.scoring.byReference(trained);
    if (refusal !== null) throw new AppError('validation_failed', refusal, { errors: [{ location: 'body/rowsFrom', message: refusal }] });
    const inline = inlineRows(request);
    const rowErrors = (kind.scoring.rowRules?.(trained, inline.records()) ?? []).map((e) => ({ location: inline.locate(e.location), message: e.message }));
    if (rowErrors.length > 0) throw invalidScoreRequest(rowErrors);
    // The counterfactual rules cover targets, constraints and the rows' variables: a score request is checked as one,
    // its errors located in the score body. The rows' values were checked with the body, so one record naming every
    // variable the rows name stands in for them (and an empty one for rows by reference, checked against the data).
    const counterfactual = familyOf('counterfactual');
    if (counterfactual === undefined) throw new Error('the counterfactual family is not registered');
    const keys = kind.scoring.rowKeys(trained);
    const named = Object.fromEntries(inline.names().filter((name) => !keys.includes(name)).map((name) => [name, null]));
    const asCounterfactual = { type: 'counterfactual', samples: [named], targets: request.targets, ...(request.constraints ? { constraints: request.constraints } : {}) };
    inScoreBody(() => validateScenario(counterfactual, asCounterfactual, { twinType, ...kind.questionContext(trained) }), inline.locate);
    if (request.rowsFrom !== undefined) {
      const scorer = kind.scoring.scorer(trained);
      const reads = { ...(scorer.environments === undefined ? {} : { environmentColumns: scorer.environments.columns }), ...(scorer.series === undefined ? {} : { timeColumn: scorer.series.timeColumn }) };
      await this.batch.rows.check(principal, workspaceId, request.rowsFrom, scorer.series?.variables ?? scorer.network, request.targets.map((t) => t.variable), 'rowsFrom', reads);
    }
    const params: RunParams = { versionId: version.id, versionLabel: version.version, kind: 'score', seed: randomInt(1, 2 ** 31 - 1), userQuery: null };
    const score: ScoreInput = { type: 'score', ...request };
    return this.queue(principal, workspaceId, twinId, 'score', params, score, webhookUrl);
  }

  async scenarioFromQuery(principal: Principal, workspaceId: string, twinId: string, versionId: string, query: string) {
    await this.access.require(principal, workspaceId, 'read');
    const { twinType, version, model } = await this.twins.simulationTarget(principal, workspaceId, twinId, versionId);
    const readers = queryReaders(twinType);
    if (readers.length === 0) throw new AppError('validation_failed', `scenario-from-query does not read questions about ${twinType} twins yet; write the scenario directly`);
    const context = { twinType, ...twinKind(twinType).questionContext(requireTrained(version.version, model)) };
    const variables = [...context.variables].map(([name, variable]) => ({
      name,
      type: variable.kind,
      ...(variable.kind === 'categorical' ? { categories: variable.categories } : {}),
      role: version.variableRoles.sources.includes(name) ? ('source' as const) : version.variableRoles.targets.includes(name) ? ('target' as const) : null,
    }));
    const edges = version.causalGraph.map(({ source, target }) => ({ source, target }));
    const time = context.time;
    const history = time?.history === undefined ? {} : { history: { ...time.history, axis: time.axis, ...(time.column === undefined ? {} : { column: time.column }) } };
    const answer = scenarioFromQuery(query, { variables, edges, ...(time?.stepMs === undefined ? {} : { stepMs: time.stepMs }), ...history }, readers);
    // What the parser builds must pass the same validation a submit applies.
    const scenario = answer.scenario as Record<string, unknown>;
    validateScenario(scenarioFamily(scenario, twinType), scenario, context);
    return { ...answer, scenario, digitalTwinId: twinId, digitalTwinVersionId: version.id };
  }

  async list(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string } & RunFilters): Promise<Page<SimulationRunSummary>> {
    await this.access.require(principal, workspaceId, 'read');
    const { limit, cursor, ...filters } = query;
    const scope = filterScope({ list: 'simulations', workspaceId, ...filters });
    const page = pageRequest(this.cursors, { ...(limit === undefined ? {} : { limit }), ...(cursor === undefined ? {} : { cursor }) }, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, workspaceId, filters, page);
    const inputs = await this.repo.inputs(rows.slice(0, page.limit).map((row) => row.id));
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], (row) => ({ ...presentRun(row), scenario: JSON.parse(inputs.get(row.id) ?? '{}') as Record<string, unknown> }));
  }

  /**
   * The run record as JSON text; a completed run carries its outputs. Outputs are stored as JSON text and spliced in
   * as they are: a 100,000-row prediction is never parsed and re-serialized to be read.
   */
  async get(principal: Principal, workspaceId: string, id: string): Promise<string> {
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, workspaceId, id);
    const outputs = runStatus(row) === 'completed' ? await this.outputsText(row) : null;
    return spliceJson(presentRun(row), { scenario: await this.repo.input(row.id), outputs });
  }

  /** The run record without its scenario and outputs: what pollers read. */
  async status(principal: Principal, workspaceId: string, id: string) {
    await this.access.require(principal, workspaceId, 'read');
    return presentRun(await this.find(principal, workspaceId, id));
  }

  /** The outputs as JSON text; 404 until the run has completed with them. */
  async results(principal: Principal, workspaceId: string, id: string): Promise<string> {
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, workspaceId, id);
    const outputs = runStatus(row) === 'completed' ? await this.outputsText(row) : null;
    if (outputs === null) throw new AppError('not_found', `Simulation run ${id} has no outputs yet (status ${runStatus(row)})`);
    return outputs;
  }

  /** The json bundle (run metadata, scenario, outputs); csv only for panel forecast-shaped runs, so 400 here. */
  async exportRun(principal: Principal, workspaceId: string, id: string, format: 'json' | 'csv'): Promise<string> {
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, workspaceId, id);
    const status = runStatus(row);
    if (status !== 'completed') throw new AppError('invalid_request', `Simulation run ${id} cannot be exported: it is ${status}, not completed`);
    if (format === 'csv') throw new AppError('invalid_request', CSV_NOT_OFFERED);
    return spliceJson({ run: presentRun(row), exportedAt: new Date().toISOString(), format: 'json' }, { scenario: await this.repo.input(row.id), outputs: await this.outputsText(row) });
  }

  /** The wide csv of a panel run's result artifacts; 400 for a run without them, unfinished, or whose artifacts are gone. */
  async exportCsv(principal: Principal, workspaceId: string, id: string, signal?: AbortSignal): Promise<Readable> {
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, workspaceId, id);
    const status = runStatus(row);
    if (status !== 'completed') throw new AppError('invalid_request', `Simulation run ${id} cannot be exported: it is ${status}, not completed`);
    const artifacts = row.result === null ? undefined : (JSON.parse(row.result) as RunResult).artifacts;
    if (artifacts === undefined) throw new AppError('invalid_request', CSV_NOT_OFFERED);
    const stream = await this.artifacts.csv(principal.organisationId, artifacts, signal);
    if (stream === null) throw new AppError('invalid_request', `The panel results of run ${id} are gone (its twin was deleted); its json export keeps the combined results`);
    return stream;
  }

  /** Drops the data store tables of a twin's runs, panel artifacts and batch results (the twin is being deleted; the runs stay as history). */
  async dropArtifactsOf(organisationId: string, twinId: string): Promise<void> {
    for (const row of await this.repo.resultsOfTwin(organisationId, twinId)) {
      const result = row.result === null ? null : (JSON.parse(row.result) as RunResult);
      if (result?.artifacts !== undefined) await this.artifacts.drop(organisationId, result.artifacts);
      if (result?.rowsTable !== undefined) await this.batch.results.drop(organisationId, result.rowsTable);
    }
  }

  /** One page of a batch run's row results (keyset on the row number): 409 while executing, 404 when not a batch. */
  async rows(principal: Principal, workspaceId: string, id: string, query: { limit?: number; cursor?: string }) {
    await this.access.require(principal, workspaceId, 'read');
    const table = await this.rowsTable(principal, workspaceId, id);
    const scope = filterScope({ list: 'rows', runId: id });
    const page = pageRequest(this.cursors, query, scope);
    const rows = await this.batch.results.page(principal.organisationId, table, page.after === null ? null : Number(page.after[0]), page.limit + 1);
    return toPage(this.cursors, rows, page, table.rows, scope, (row) => [Number(row.row)], (row) => row);
  }

  /** A batch run's row results as a csv, ndjson or parquet file, streamed. */
  async exportRows(principal: Principal, workspaceId: string, id: string, format: RowsExportFormat, signal?: AbortSignal) {
    await this.access.require(principal, workspaceId, 'read');
    return this.batch.results.export(principal.organisationId, await this.rowsTable(principal, workspaceId, id), format, signal);
  }

  async cancel(principal: Principal, workspaceId: string, id: string): Promise<{ runId: string; status: SimulationRunSummary['status'] }> {
    await this.access.require(principal, workspaceId, 'write');
    const row = await this.find(principal, workspaceId, id);
    await this.jobs.cancelRow(row);
    return { runId: id, status: runStatus(await this.find(principal, workspaceId, id)) };
  }

  /** A range intervention's dose-response curve: 409 while executing, 404 when the run swept nothing. */
  async sweep(principal: Principal, workspaceId: string, id: string, query: { metric?: string; environment?: string; filter?: string }) {
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, workspaceId, id);
    const stored = await this.finishedDetail(principal, row, 'sweep');
    if (stored === null) throw new AppError('not_found', `Simulation run ${id} has no sweep (only a completed intervention with a range valueSpec has one)`);
    const panel = 'environments' in (stored as object) ? (stored as StoredPanelSweep).environments : null;
    if (panel === null && query.environment !== undefined) throw new AppError('invalid_request', 'This run is on a single-environment twin: it has no environments; omit `environment`');
    if (panel !== null && query.environment === undefined) {
      // A panel run: the environments are listed (with the text filter) until one is named.
      const keys = Object.keys(panel);
      const first = panel[keys[0]!]!;
      const needle = query.filter?.toLowerCase();
      return {
        runId: id, variable: first.variable, steps: first.steps, confidenceLevel: first.confidenceLevel, metrics: [], metric: null, points: [],
        digest: { from: first.curves[0]?.points[0]?.value ?? 0, to: first.curves[0]?.points.at(-1)?.value ?? 0, bestValue: null, bestMean: null, curves: first.curves.length },
        environment: null,
        environments: keys.filter((key) => needle === undefined || key.toLowerCase().includes(needle)),
      };
    }
    const sweep = panel === null ? (stored as SweepResult) : panel[query.environment!];
    if (sweep === undefined) throw new AppError('invalid_request', `This run has no environment '${query.environment}'; omit \`environment\` to list them`);
    const needle = query.filter?.toLowerCase();
    const curves = sweep.curves.filter((curve) => needle === undefined || curve.metric.toLowerCase().includes(needle));
    const identification = (curve: SweepResult['curves'][number]) => ({ identified: curve.identified ?? null, ...(curve.decidingEdges === undefined ? {} : { decidingEdges: curve.decidingEdges }) });
    const metrics = curves.map((curve) => ({ name: curve.metric, ...(curve.unit === undefined ? {} : { unit: curve.unit }), ...identification(curve) }));
    let chosen = query.metric === undefined && sweep.curves.length === 1 ? sweep.curves[0] : undefined;
    if (query.metric !== undefined) {
      chosen = sweep.curves.find((curve) => curve.metric === query.metric);
      if (chosen === undefined) throw new AppError('invalid_request', `No curve '${query.metric}' in this sweep; it has ${sweep.curves.map((c) => c.metric).join(', ')}`);
    }
    const best = chosen?.points.reduce((a, b) => (b.mean > a.mean ? b : a));
    const grid = sweep.curves[0]?.points ?? [];
    return {
      runId: id,
      variable: sweep.variable,
      steps: sweep.steps,
      confidenceLevel: sweep.confidenceLevel,
      metrics,
      metric: chosen?.metric ?? null,
      ...(chosen?.unit === undefined ? {} : { unit: chosen.unit }),
      ...(chosen === undefined ? {} : identification(chosen)),
      points: chosen?.points ?? [],
      digest: { from: grid[0]?.value ?? 0, to: grid.at(-1)?.value ?? 0, bestValue: best?.value ?? null, bestMean: best?.mean ?? null, curves: sweep.curves.length },
      ...(panel === null ? {} : { environment: query.environment! }),
    };
  }

  /** A scoring run's digest and one page of per-row detail: 409 while executing, 404 when not a scoring run. */
  async score(principal: Principal, workspaceId: string, id: string, query: { limit?: number; cursor?: string }) {
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, workspaceId, id);
    if ((JSON.parse(row.params) as RunParams).kind !== 'score') throw new AppError('not_found', `Simulation run ${id} is not a scoring run`);
    const scope = filterScope({ list: 'score', runId: id });
    const page = pageRequest(this.cursors, query, scope);
    const table = (JSON.parse(row.result ?? '{}') as RunResult).rowsTable;
    if (table === undefined) {
      // In flight (409), ended without scores (404), or scored before results tables: the digest and every row in one stored document.
      const stored = (await this.finishedDetail(principal, row, 'score')) as { digest: ScoreDigest; rows: ScoredRow[] } | null;
      if (stored === null) throw new AppError('not_found', `Scoring run ${id} has no scores (status ${runStatus(row)})`);
      const start = page.after === null ? 0 : Number(page.after[0]) + 1;
      const { items, pagination } = toPage(this.cursors, stored.rows.slice(start, start + page.limit + 1), page, stored.rows.length, scope, (r) => [r.index], (r) => r);
      return { runId: id, digest: stored.digest, rows: items, pagination };
    }
    const outputs = JSON.parse((await this.outputsText(row)) ?? '{}') as Record<string, { details: { digest: ScoreDigest; targets: string[] } }>;
    const { digest, targets } = Object.values(outputs)[0]!.details;
    const rows = await this.batch.results.page(principal.organisationId, table, page.after === null ? null : Number(page.after[0]), page.limit + 1);
    const { items, pagination } = toPage(this.cursors, rows.map((r) => presentScoredRow(r, targets)), page, table.rows, scope, (r) => [r.index], (r) => r);
    return { runId: id, digest, rows: items, pagination };
  }

  private async queue(
    principal: Principal,
    workspaceId: string,
    twinId: string,
    subtype: string,
    params: RunParams,
    scenario: { type: string },
    webhookUrl: string | undefined,
  ): Promise<SimulationAccepted> {
    const accepted = await this.jobs.submit({
      input: JSON.stringify(scenario),
      organisationId: principal.organisationId,
      workspaceId,
      type: SIMULATION_JOB,
      subtype,
      resource: { type: 'digital-twin', id: twinId },
      params: params as unknown as Record<string, unknown>,
      webhookUrl: webhookUrl ?? null,
      createdBy: principal.userId,
    });
    this.handoff.put(accepted.jobId, scenario);
    const self = `/api/v1/workspaces/${workspaceId}/simulations/${accepted.jobId}`;
    return { runId: accepted.jobId, status: 'pending', createdAt: accepted.createdAt, links: { self, results: `${self}/results`, cancel: `${self}/cancel` } };
  }

  /** The sweep or score of a run: 409 while it executes, null when it ended without one. */
  private async finishedDetail(principal: Principal, row: RunRow, kind: 'sweep' | 'score'): Promise<unknown> {
    const status = runStatus(row);
    if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') throw new AppError('conflict', IN_FLIGHT_MESSAGE);
    if (status !== 'completed') return null;
    const result = row.result === null ? null : (JSON.parse(row.result) as RunResult);
    if (kind === 'sweep' && result?.hasSweep !== true) return null;
    const stored = await this.repo.findOutputs(principal.organisationId, row.id);
    const text = stored?.[kind] ?? null;
    return text === null ? null : JSON.parse(text);
  }

  /** The results table of a completed batch run: 409 while it executes, 404 when it kept its rows inline or has none. */
  private async rowsTable(principal: Principal, workspaceId: string, id: string): Promise<RowsTableRecord> {
    const row = await this.find(principal, workspaceId, id);
    const status = runStatus(row);
    if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') throw new AppError('conflict', IN_FLIGHT_MESSAGE);
    const table = row.result === null ? undefined : (JSON.parse(row.result) as RunResult).rowsTable;
    if (table === undefined) throw new AppError('not_found', `Simulation run ${id} has no row results table (only a completed scoring run, or batch prediction with rowsFrom or resultsStorage datastore, has one)`);
    return table;
  }

  private async outputsText(row: RunRow): Promise<string | null> {
    return (await this.repo.findOutputs(row.organisation_id, row.id))?.outputs ?? null;
  }

  private async find(principal: Principal, workspaceId: string, id: string): Promise<RunRow> {
    const row = await this.repo.find(principal.organisationId, workspaceId, id);
    if (row === undefined) throw notFound('Simulation run', id);
    return row;
  }
}

/** A scoring request checked as a counterfactual scenario: its errors located in the score body (`rows`, `targets`). */
function inScoreBody(check: () => void, locateRow: (location: string) => string): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof AppError) || error.extras.errors === undefined) throw error;
    const relocate = (location: string) => {
      const row = /^body\/scenario\/samples(\/.*)?$/.exec(location);
      return row !== null ? locateRow(row[1] ?? '') : location.replace(/^body\/scenario/, 'body');
    };
    throw invalidScoreRequest(error.extras.errors.map((e) => ({ ...e, location: relocate(e.location) })));
  }
}


/** A version answers questions once it is trained. */
function requireTrained(versionLabel: string, model: unknown) {
  if (model === null) throw new AppError('conflict', `Version ${versionLabel} is not trained: train it (or run the pipeline) before simulating`);
  return model;
}

/** The concepts a scenario's objectives name (any family with `objectives`), with where they are. */
function objectiveConcepts(scenario: object): Array<{ conceptId: string; conceptEditVersion?: number; location: string }> {
  const objectives = (scenario as { objectives?: Array<{ conceptId?: string; conceptEditVersion?: number }> }).objectives ?? [];
  return objectives.flatMap((objective, i) => (objective.conceptId === undefined ? [] : [{ conceptId: objective.conceptId, ...(objective.conceptEditVersion !== undefined && { conceptEditVersion: objective.conceptEditVersion }), location: `body/scenario/objectives/${i}` }]));
}
