import type { Job, JobAccepted } from '../../schemas/jobs.js';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors.js';
import type { CursorCodec } from '../lib/cursor.js';
import { newId, nowIso } from '../lib/ids.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import { parseWebhookUrl } from '../webhooks/url.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import type { JobRepo, JobRow, SIMULATION_JOB } from './repo.js';
import { type JobRunner, progressOf } from './runner.js';

export interface JobSubmission {
  organisationId: string;
  workspaceId: string;
  type: Job['type'] | typeof SIMULATION_JOB;
  resource: { type: string; id: string; twinId?: string } | null;
  params: Record<string, unknown>;
  webhookUrl: string | null;
  createdBy: string;
  /** Simulation runs: the scenario type (listed and filtered by it). */
  subtype?: string;
  /** Simulation runs: the scenario, JSON text. */
  input?: string;
}

/** Jobs of a workspace: submitted by the resources that start pipelines, read and cancelled here. */
export class JobService {
  constructor(
    private readonly repo: JobRepo,
    private readonly runner: JobRunner,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly webhookAllowHosts: readonly string[],
  ) {}

  /**
   * Records a queued job and wakes the runner; answers the 202 body of the spec (convention 3). A webhook URL that
   * can never be called (not http(s), credentials in it, a literal internal address) is refused here with 422.
   */
  async submit(submission: JobSubmission): Promise<JobAccepted> {
    if (submission.webhookUrl !== null) parseWebhookUrl(submission.webhookUrl, { allowHosts: this.webhookAllowHosts });
    const row: JobRow = {
      id: newId('job'),
      organisation_id: submission.organisationId,
      workspace_id: submission.workspaceId,
      type: submission.type,
      status: 'queued',
      resource_type: submission.resource?.type ?? null,
      resource_id: submission.resource?.id ?? null,
      params: JSON.stringify({ ...submission.params, ...(submission.resource?.twinId === undefined ? {} : { twinId: submission.resource.twinId }) }),
      progress: JSON.stringify(progressOf(0, 'queued')),
      result: null,
      error: null,
      webhook_url: submission.webhookUrl,
      created_by: submission.createdBy,
      created_at: nowIso(),
      started_at: null,
      completed_at: null,
      owner: null,
      heartbeat_at: null,
      subtype: submission.subtype ?? null,
      phase: null,
    };
    await this.repo.insert(row, submission.input ?? null);
    this.runner.wake(row.type);
    return accepted(row);
  }

  /**
   * Submits unless the same work is already waiting: a job of the type queued on the same resource answers instead
   * (batches uploaded in a row are described by one extraction, not one each).
   */
  async submitOnce(submission: JobSubmission & { resource: { type: string; id: string } }): Promise<JobAccepted> {
    const waiting = await this.repo.queuedFor(submission.organisationId, submission.workspaceId, submission.type, submission.resource.id);
    return waiting === undefined ? this.submit(submission) : accepted(waiting);
  }

  async list(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string }): Promise<Page<Job>> {
    await this.access.require(principal, workspaceId, 'read');
    const scope = filterScope({ list: 'jobs', workspaceId });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, workspaceId, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], present);
  }

  async get(principal: Principal, workspaceId: string, id: string): Promise<Job> {
    await this.access.require(principal, workspaceId, 'read');
    return present(await this.find(principal, workspaceId, id));
  }

  /**
   * Cancels a queued or running job: the row turns `cancelled` first (so the work can never record another
   * outcome), then the work is stopped (here at once; in another process at its next heartbeat). A job already
   * in a terminal state is answered as it is.
   */
  async cancel(principal: Principal, workspaceId: string, id: string): Promise<{ jobId: string; status: Job['status'] }> {
    await this.access.require(principal, workspaceId, 'write');
    const row = await this.find(principal, workspaceId, id);
    return { jobId: row.id, status: await this.cancelRow(row) };
  }

  /** Cancels the job of a row found by its owner's rules (a job, or a simulation run); answers the status it ends with. */
  async cancelRow(row: JobRow): Promise<Job['status']> {
    const now = nowIso();
    const progress = { ...(JSON.parse(row.progress) as object), state: 'cancelled', eta: null };
    if (await this.repo.cancel(row.id, JSON.stringify(progress), now)) {
      this.runner.abortLocal(row.id);
      this.runner.notify(row, 'cancelled', now, null);
      return 'cancelled';
    }
    return (await this.repo.findById(row.id))?.status ?? row.status;
  }

  /** Ids of the queued or running jobs working on these resources. */
  inFlightFor(organisationId: string, resourceIds: string[]): Promise<string[]> {
    return this.repo.inFlightFor(organisationId, resourceIds);
  }

  /** Cancels the in-flight jobs working on these resources (a twin being deleted). */
  async cancelFor(organisationId: string, resourceIds: string[]): Promise<void> {
    for (const id of await this.repo.inFlightFor(organisationId, resourceIds)) {
      const row = await this.repo.findById(id);
      const now = nowIso();
      if (row !== undefined && (await this.repo.cancel(id, JSON.stringify(progressOf(0, 'cancelled')), now))) {
        this.runner.abortLocal(id);
        this.runner.notify(row, 'cancelled', now, null);
      }
    }
  }

  private async find(principal: Principal, workspaceId: string, id: string): Promise<JobRow> {
    const row = await this.repo.find(principal.organisationId, workspaceId, id);
    if (row === undefined) throw notFound('Job', id);
    return row;
  }
}

export function accepted(row: Pick<JobRow, 'id' | 'workspace_id' | 'status' | 'created_at'>): JobAccepted {
  const self = `/api/v1/workspaces/${row.workspace_id}/jobs/${row.id}`;
  return { jobId: row.id, status: row.status, createdAt: row.created_at, links: { self, cancel: `${self}/cancel` } };
}

function present(row: JobRow): Job {
  const params = JSON.parse(row.params) as Record<string, unknown>;
  const twinId = typeof params.twinId === 'string' ? params.twinId : undefined;
  return {
    id: row.id,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    type: row.type as Job['type'],
    status: row.status,
    resource: row.resource_type === null || row.resource_id === null ? null : { type: row.resource_type, id: row.resource_id, ...(twinId === undefined ? {} : { twinId }) },
    params,
    progress: JSON.parse(row.progress) as Job['progress'],
    result: row.result === null ? null : (JSON.parse(row.result) as Record<string, unknown>),
    error: row.error,
    webhookUrl: row.webhook_url === null ? null : maskedWebhook(row.webhook_url),
    createdBy: row.created_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  };
}

/** Receivers often carry a token in the path or query: a job shows only where its webhook goes. */
export function maskedWebhook(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname === '/' && parsed.search === '' ? parsed.origin : `${parsed.origin}/…`;
  } catch {
    return '…';
  }
}
