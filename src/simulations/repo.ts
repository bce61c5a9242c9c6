import { SIMULATION_JOB } from '../jobs/repo.js';
import type { PageRequest } from '../lib/page.js';
import { newestFirstPage } from '../store/meta/keyset.js';
import type { MetaDb } from '../store/meta/port.js';
import type { JobsTable, SimulationOutputsTable } from '../store/meta/schema.js';

export type RunRow = JobsTable;
export type OutputsRow = SimulationOutputsTable;

export type InFlightPhase = 'configuring' | 'configured' | 'running';

export interface RunFilters {
  status?: string;
  scenarioType?: string;
  digitalTwinId?: string;
}

/**
 * Simulation runs are rows of the jobs table of type `simulation` (one queue, one recovery path). A run's shown
 * status maps from the row: queued = pending; running = its phase; terminal states as they are.
 */
export class SimulationRepo {
  constructor(private readonly db: MetaDb) {}

  find(organisationId: string, workspaceId: string, id: string): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('type', '=', SIMULATION_JOB)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Keyset page, newest first (rows hold only the small result; outputs live apart); the total counts the runs matching the filters. */
  list(organisationId: string, workspaceId: string, filters: RunFilters, page: PageRequest): Promise<{ rows: RunRow[]; total: number }> {
    let scope = this.db.selectFrom('jobs').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('type', '=', SIMULATION_JOB);
    if (filters.scenarioType !== undefined) scope = scope.where('subtype', '=', filters.scenarioType);
    if (filters.digitalTwinId !== undefined) scope = scope.where('resource_id', '=', filters.digitalTwinId);
    const status = filters.status;
    if (status === 'pending') scope = scope.where('status', '=', 'queued');
    else if (status === 'configuring') scope = scope.where('status', '=', 'running').where((eb) => eb.or([eb('phase', '=', 'configuring'), eb('phase', 'is', null)]));
    else if (status === 'configured' || status === 'running') scope = scope.where('status', '=', 'running').where('phase', '=', status);
    else if (status !== undefined) scope = scope.where('status', '=', status as RunRow['status']);
    return newestFirstPage<RunRow>(scope, page);
  }

  /** The completed runs of a twin with their results (for the artifacts a deleted twin leaves). */
  resultsOfTwin(organisationId: string, twinId: string): Promise<Array<Pick<RunRow, 'id' | 'result'>>> {
    return this.db.selectFrom('jobs').select(['id', 'result']).where('organisation_id', '=', organisationId).where('type', '=', SIMULATION_JOB).where('resource_id', '=', twinId).where('status', '=', 'completed').execute();
  }

  /** Moves the owner's running run to another in-flight phase; false when it is no longer that owner's running run. */
  async setPhase(id: string, owner: string, phase: InFlightPhase): Promise<boolean> {
    const result = await this.db.updateTable('jobs').set({ phase }).where('id', '=', id).where('status', '=', 'running').where('owner', '=', owner).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** A run's scenario as submitted (JSON text), kept apart from its row. */
  async input(id: string): Promise<string | null> {
    return (await this.inputs([id])).get(id) ?? null;
  }

  /** The scenarios of several runs (a list page), by run id. */
  async inputs(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('job_inputs').select(['job_id', 'input']).where('job_id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.job_id, row.input]));
  }

  /** Stores a run's outputs (once, right before the run is marked completed). */
  async insertOutputs(row: OutputsRow): Promise<void> {
    await this.db.insertInto('simulation_outputs').values(row).execute();
  }

  findOutputs(organisationId: string, runId: string): Promise<OutputsRow | undefined> {
    return this.db.selectFrom('simulation_outputs').selectAll().where('organisation_id', '=', organisationId).where('run_id', '=', runId).executeTakeFirst();
  }
}
