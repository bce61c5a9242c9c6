import { sql } from 'kysely';
import type { PageRequest } from '../lib/page.js';
import { newestFirstPage } from '../store/meta/keyset.js';
import type { MetaDb } from '../store/meta/port.js';
import type { JobStatus, JobsTable } from '../store/meta/schema.js';

export type JobRow = JobsTable;

const IN_FLIGHT: JobStatus[] = ['queued', 'running'];

/** Simulation runs live in this table too (src/simulations): the jobs endpoints never show them. */
export const SIMULATION_JOB = 'simulation';

/**
 * Job rows are also the queue: a process claims a queued job with a conditional update, so two processes never
 * run the same job, and every later write names the owner, so a job taken from a stalled process stays taken.
 */
export class JobRepo {
  constructor(private readonly db: MetaDb) {}

  /** A job, and its input (a run's scenario) in its own table, in one transaction. */
  async insert(row: JobRow, input: string | null = null): Promise<void> {
    if (input === null) {
      await this.db.insertInto('jobs').values(row).execute();
      return;
    }
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('jobs').values(row).execute();
      await tx.insertInto('job_inputs').values({ job_id: row.id, input }).execute();
    });
  }

  find(organisationId: string, workspaceId: string, id: string): Promise<JobRow | undefined> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('type', '!=', SIMULATION_JOB)
      .executeTakeFirst();
  }

  findById(id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Keyset page, newest first; the total counts the workspace's jobs (simulation runs excluded). */
  async list(organisationId: string, workspaceId: string, page: PageRequest): Promise<{ rows: JobRow[]; total: number }> {
    const scope = this.db.selectFrom('jobs').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).where('type', '!=', SIMULATION_JOB);
    return newestFirstPage<JobRow>(scope, page);
  }

  /**
   * Candidates for a claim: the oldest `limit` queued jobs of each of `types`, all in queue order (a type with none
   * queued is absent). One statement of one index range per type (jobs_queued_type_created, partial on the literal
   * status), so the cost is types x limit rows whatever the backlog of types not asked for (`type IN (...)` ordered
   * by time read every queued job of every type).
   */
  async queued(limit: number, types: string[]): Promise<Array<{ id: string; type: string }>> {
    const ofType = (type: string) =>
      this.db
        .selectFrom((eb) => eb.selectFrom('jobs').select(['id', 'type', 'created_at']).where('status', '=', sql.lit('queued')).where('type', '=', type).orderBy('created_at').orderBy('id').limit(limit).as('queued'))
        .selectAll();
    const [first, ...rest] = types;
    if (first === undefined) return [];
    const rows = await rest.reduce((query, type) => query.unionAll(ofType(type)), ofType(first)).execute();
    rows.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return rows.map(({ id, type }) => ({ id, type }));
  }

  /** Whether the job is still `owner`'s running job. */
  async isRunningBy(id: string, owner: string): Promise<boolean> {
    const row = await this.db.selectFrom('jobs').select('id').where('id', '=', id).where('status', '=', 'running').where('owner', '=', owner).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Takes a queued job for `owner` and answers its row as claimed; undefined when another process (or a cancel) got
   * there first. A run starts its phases anew (a run requeued keeps nothing of an earlier attempt).
   */
  claim(id: string, owner: string, now: string): Promise<JobRow | undefined> {
    return this.db
      .updateTable('jobs')
      .set({ status: 'running', owner, started_at: now, heartbeat_at: now, phase: null })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
  }

  /** Records progress and that the owner is alive; false when the job is no longer this owner's running job. */
  async heartbeat(id: string, owner: string, progress: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ progress, heartbeat_at: now })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .where('owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Moves the owner's running job to a terminal state; false when it was cancelled or taken meanwhile. */
  async finish(id: string, owner: string, change: { status: JobStatus; progress: string; result: string | null; error: string | null; completedAt: string }): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ status: change.status, progress: change.progress, result: change.result, error: change.error, completed_at: change.completedAt })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .where('owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Cancels a job still in flight; false when it had already reached a terminal state. */
  async cancel(id: string, progress: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ status: 'cancelled', progress, completed_at: now })
      .where('id', '=', id)
      .where('status', 'in', IN_FLIGHT)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Running jobs of these types whose owner stopped saying it is alive: heartbeats older than `before`, or (when
   * this process is the only one, as in the embedded profile) any owner but `except`.
   */
  async orphaned(before: string, except: string | null, types: string[]): Promise<JobRow[]> {
    if (types.length === 0) return [];
    let query = this.db.selectFrom('jobs').selectAll().where('status', '=', 'running').where('type', 'in', types);
    query = except === null ? query.where('heartbeat_at', '<', before) : query.where((eb) => eb.or([eb('owner', '!=', except), eb('owner', 'is', null), eb('heartbeat_at', '<', before)]));
    return query.orderBy('created_at').limit(1000).execute();
  }

  /** Fails an orphaned job, if it is still the running job of the owner it was found with. */
  async failOrphan(row: JobRow, error: string, now: string): Promise<boolean> {
    let query = this.db
      .updateTable('jobs')
      .set({ status: 'failed', error, completed_at: now })
      .where('id', '=', row.id)
      .where('status', '=', 'running');
    query = row.owner === null ? query.where('owner', 'is', null) : query.where('owner', '=', row.owner);
    if (row.heartbeat_at !== null) query = query.where('heartbeat_at', '=', row.heartbeat_at);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** A job of this type still waiting to start on this resource in this workspace, if any. */
  queuedFor(organisationId: string, workspaceId: string, type: string, resourceId: string): Promise<JobRow | undefined> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('type', '=', type)
      .where('resource_id', '=', resourceId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
  }

  /** Ids of in-flight jobs working on any of these resources (a twin being deleted cancels them). */
  async inFlightFor(organisationId: string, resourceIds: string[]): Promise<string[]> {
    if (resourceIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('organisation_id', '=', organisationId)
      .where('resource_id', 'in', resourceIds)
      .where('status', 'in', IN_FLIGHT)
      .execute();
    return rows.map((row) => row.id);
  }
}
