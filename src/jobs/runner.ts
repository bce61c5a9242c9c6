import { randomBytes } from 'node:crypto';
import type { Progress } from '../../schemas/jobs.js';
import { nowIso } from '../lib/ids.js';
import type { WebhookSender } from '../webhooks/deliver.js';
import { webhookEvent } from '../webhooks/deliver.js';
import type { JobRepo, JobRow } from './repo.js';

/** What a job's work sees: its inputs, a signal that fires on cancel or shutdown, and a progress reporter. */
export interface JobContext {
  job: JobRow;
  params: Record<string, unknown>;
  signal: AbortSignal;
  /** fraction 0..1 of the work done, and what it is doing. Cheap: written at most once per heartbeat. */
  progress(fraction: number, state: string): void;
}

/** The work of one job type; answers the job's result. Throwing fails the job with the error's message. */
export type JobHandler = (context: JobContext) => Promise<Record<string, unknown>>;

export interface RunnerOptions {
  /** Jobs this process runs at once. */
  concurrency: number;
  /** How often an idle process looks for queued jobs submitted by other processes. */
  pollMs?: number;
  /** How often a running job's owner records progress and that it is alive. */
  heartbeatMs?: number;
  /** A running job whose heartbeat is older than this is failed as orphaned. */
  staleMs?: number;
  /** True when this process is the only one using the metadata store (embedded profile): on start, every job left
   * running belongs to a process that is gone. */
  exclusive: boolean;
}

export interface RunnerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

interface Running {
  controller: AbortController;
  progress: Progress;
  done: Promise<void>;
}

export const RESTART_ERROR = 'The service stopped while this job was running; its work was lost. Submit it again.';
export const ORPHAN_ERROR = 'The process running this job stopped responding; its work was lost. Submit it again.';

export const progressOf = (percentage: number, state: string, eta: string | null = null): Progress => ({ percentage, state, eta });

/**
 * Runs queued jobs: claims them from the metadata store (so any number of processes can share the queue), runs
 * their handlers with an AbortSignal, records progress and heartbeats, moves them to a terminal state exactly
 * once, and sends the webhook of that state. Jobs left running by a dead process are failed with a clear error.
 */
export class JobRunner {
  readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, Running>();
  private readonly pollMs: number;
  private readonly heartbeatMs: number;
  private readonly staleMs: number;
  private timer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private lastSweep = 0;
  private filling: Promise<void> | null = null;
  private refill = false;
  private stopped = true;
  private logger: RunnerLogger | undefined;

  constructor(
    private readonly repo: JobRepo,
    private readonly webhooks: WebhookSender,
    private readonly options: RunnerOptions,
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 2000;
    this.staleMs = options.staleMs ?? 30_000;
  }

  register(type: string, handler: JobHandler): void {
    this.handlers.set(type, handler);
  }

  async start(logger?: RunnerLogger): Promise<void> {
    this.logger = logger;
    this.stopped = false;
    await this.recover(true);
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.heartbeatTimer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeatTimer.unref();
    this.wake();
  }

  /** Looks for work now (after a submit in this process, a job finishing, or the poll timer). */
  wake(): void {
    if (this.stopped) return;
    if (this.filling !== null) {
      this.refill = true;
      return;
    }
    this.filling = this.fill()
      .catch((error: unknown) => this.logger?.error({ err: error }, 'job queue poll failed'))
      .finally(() => {
        this.filling = null;
        if (this.refill) {
          this.refill = false;
          this.wake();
        }
      });
  }

  /** Jobs running in this process now. */
  get active(): number {
    return this.running.size;
  }

  /** Stops the local work of a job that was cancelled (the row is already `cancelled`). */
  abortLocal(id: string): void {
    this.running.get(id)?.controller.abort(new Error('cancelled'));
  }

  /**
   * Stops taking work, aborts what runs here and fails it with RESTART_ERROR (its webhook is sent), then waits for
   * the handlers to unwind.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    await this.filling;
    for (const entry of this.running.values()) entry.controller.abort(new Error('shutdown'));
    await Promise.all([...this.running.values()].map((entry) => entry.done));
  }

  private async fill(): Promise<void> {
    if (Date.now() - this.lastSweep > this.staleMs / 2) await this.recover(false);
    while (!this.stopped && this.running.size < this.options.concurrency) {
      const candidates = await this.repo.queued(this.options.concurrency * 2);
      let claimed = false;
      for (const id of candidates) {
        if (this.running.size >= this.options.concurrency) break;
        if (this.running.has(id)) continue;
        if (!(await this.repo.claim(id, this.owner, nowIso()))) continue;
        const job = await this.repo.findById(id);
        if (job !== undefined) this.launch(job);
        claimed = true;
      }
      if (!claimed) return;
    }
  }

  private launch(job: JobRow): void {
    const controller = new AbortController();
    const entry: Running = { controller, progress: progressOf(0, 'starting'), done: Promise.resolve() };
    this.running.set(job.id, entry);
    const started = Date.now();
    const context: JobContext = {
      job,
      params: JSON.parse(job.params) as Record<string, unknown>,
      signal: controller.signal,
      progress: (fraction, state) => {
        const clamped = Math.min(1, Math.max(0, fraction));
        const elapsed = Date.now() - started;
        const eta = clamped > 0.02 && clamped < 1 ? new Date(started + elapsed / clamped).toISOString() : null;
        entry.progress = progressOf(Math.round(clamped * 1000) / 10, state, eta);
      },
    };
    entry.done = this.execute(job, context, entry).finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
  }

  private async execute(job: JobRow, context: JobContext, entry: Running): Promise<void> {
    const handler = this.handlers.get(job.type);
    let outcome: { status: 'completed' | 'failed' | 'cancelled'; result: string | null; error: string | null };
    try {
      if (handler === undefined) throw new Error(`No handler for job type ${job.type}`);
      const result = await handler(context);
      outcome = context.signal.aborted ? this.abortedOutcome(context.signal) : { status: 'completed', result: JSON.stringify(result), error: null };
    } catch (error) {
      outcome = context.signal.aborted ? this.abortedOutcome(context.signal) : { status: 'failed', result: null, error: messageOf(error) };
      if (!context.signal.aborted) this.logger?.warn({ jobId: job.id, type: job.type, err: error }, 'job failed');
    }
    // A cancel recorded the terminal state itself (and sent its webhook); nothing more to write then.
    if (outcome.status === 'cancelled') return;
    const progress = outcome.status === 'completed' ? progressOf(100, 'completed') : { ...entry.progress, state: outcome.status, eta: null };
    const completedAt = nowIso();
    const finished = await this.repo.finish(job.id, this.owner, { ...outcome, progress: JSON.stringify(progress), completedAt });
    if (finished) await this.notify(job, outcome.status, completedAt, outcome.error);
  }

  /** Aborted by a cancel (already recorded), or by shutdown (recorded here as a failure). */
  private abortedOutcome(signal: AbortSignal): { status: 'failed' | 'cancelled'; result: null; error: string | null } {
    const reason = signal.reason instanceof Error ? signal.reason.message : '';
    return reason === 'shutdown' ? { status: 'failed', result: null, error: RESTART_ERROR } : { status: 'cancelled', result: null, error: null };
  }

  /** Writes the progress of each running job (and that this process is alive); a job no longer ours is aborted. */
  private async beat(): Promise<void> {
    const now = nowIso();
    await Promise.all(
      [...this.running.entries()].map(async ([id, entry]) => {
        try {
          const alive = await this.repo.heartbeat(id, this.owner, JSON.stringify(entry.progress), now);
          if (!alive) entry.controller.abort(new Error('cancelled'));
        } catch (error) {
          this.logger?.warn({ jobId: id, err: error }, 'job heartbeat failed');
        }
      }),
    );
  }

  /** Fails jobs whose process is gone (all of them on an exclusive start), sending their webhooks. */
  private async recover(onStart: boolean): Promise<void> {
    this.lastSweep = Date.now();
    const before = new Date(Date.now() - this.staleMs).toISOString();
    const exclusive = onStart && this.options.exclusive ? this.owner : null;
    for (const row of await this.repo.orphaned(before, exclusive)) {
      if (this.running.has(row.id)) continue;
      const error = onStart && this.options.exclusive ? RESTART_ERROR : ORPHAN_ERROR;
      const completedAt = nowIso();
      if (await this.repo.failOrphan(row, error, completedAt)) {
        this.logger?.warn({ jobId: row.id, type: row.type }, 'orphaned job failed');
        await this.notify(row, 'failed', completedAt, error);
      }
    }
  }

  /** The one webhook of a terminal state (best effort; the outcome is only logged). */
  async notify(job: JobRow, status: 'completed' | 'failed' | 'cancelled', completedAt: string, error: string | null): Promise<void> {
    if (job.webhook_url === null) return;
    const outcome = await this.webhooks.send(job.webhook_url, {
      event: webhookEvent('job', status),
      jobId: job.id,
      status,
      workspaceId: job.workspace_id,
      completedAt,
      ...(error === null ? {} : { error }),
    });
    this.logger?.info({ jobId: job.id, webhook: outcome }, 'job webhook');
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.slice(0, 2000);
  return String(error).slice(0, 2000);
}
