import { randomBytes } from 'node:crypto';
import type { Progress } from '../../schemas/jobs.js';
import { AppError } from '../errors.js';
import { nowIso } from '../lib/ids.js';
import type { WebhookSender } from '../webhooks/deliver.js';
import { webhookEvent } from '../webhooks/deliver.js';
import type { TerminalStatus, WebhookPayload } from '../webhooks/events.js';
import type { JobRepo, JobRow } from './repo.js';

/** What a job's work sees: its inputs, a signal that fires on cancel or shutdown, and a progress reporter. */
export interface JobContext<P = unknown> {
  job: JobRow;
  /** The params the job was submitted with (the job type's own shape, as its submitter typed them). */
  params: P;
  signal: AbortSignal;
  /** fraction 0..1 of the work done, and what it is doing. Cheap: written at most once per heartbeat. */
  progress(fraction: number, state: string): void;
  /**
   * Throws unless the job is still this process's running job: call it right before the work records its
   * results, so a job cancelled from another process (noticed only at the next heartbeat) records nothing.
   */
  ensureActive(): Promise<void>;
}

/** A failure whose message is meant for the job's owner (it is stored and sent in the webhook as it is). */
export class JobError extends Error {
  override readonly name = 'JobError';
}

/**
 * The work of one job type; answers the job's result. Throwing fails the job: with the message of a JobError or
 * AppError, or with a generic message naming the job for anything else (internals stay in the log).
 */
export type JobHandler<P = unknown, R extends object = object> = (context: JobContext<P>) => Promise<R>;

/** The webhook body of a job type's terminal state (default: the job payload of the spec's Events section). */
export type WebhookBuilder = (job: JobRow, status: TerminalStatus, completedAt: string, error: string | null) => WebhookPayload;

const jobPayload: WebhookBuilder = (job, status, completedAt, error) => ({
  event: webhookEvent('job', status),
  jobId: job.id,
  status,
  workspaceId: job.workspace_id,
  completedAt,
  ...(error === null ? {} : { error }),
});

export interface RunnerOptions {
  /** Jobs of the default lane this process runs at once. */
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

/** How a job type is run: its handler, its webhook body, and the lane whose concurrency it shares. */
export interface JobTypeOptions {
  webhook?: WebhookBuilder;
  /** Lanes keep kinds of work from starving each other (short simulations never wait behind long learning jobs). */
  lane?: string;
}

const DEFAULT_LANE = 'default';

interface Running {
  lane: string;
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
  private readonly handlers = new Map<string, { handler: JobHandler; webhook: WebhookBuilder; lane: string }>();
  private readonly lanes = new Map<string, number>();
  private readonly running = new Map<string, Running>();
  private readonly pollMs: number;
  private readonly heartbeatMs: number;
  private readonly staleMs: number;
  private timer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private lastSweep = 0;
  private filling: Promise<void> | null = null;
  private refill = false;
  /**
   * Types the last look found no queued job of. They are not asked for again until a job of the type is submitted in
   * this process or the poll timer looks at every type (which is how jobs queued by other processes are found).
   */
  private readonly drained = new Set<string>();
  /** When (in wakes) a job of each type was last submitted here: a look that began before it cannot call it drained. */
  private readonly submittedAt = new Map<string, number>();
  private wakes = 0;
  private lookAtAll = true;
  private stopped = true;
  private logger: RunnerLogger | undefined;
  /** Webhooks on their way: sent in the background, awaited on stop. */
  private readonly deliveries = new Set<Promise<void>>();

  constructor(
    private readonly repo: JobRepo,
    private readonly webhooks: WebhookSender,
    private readonly options: RunnerOptions,
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 2000;
    this.staleMs = options.staleMs ?? 30_000;
  }

  /** The handler of a job type; P is the params its submitter stores (one JSON parse, typed here once). */
  register<P, R extends object>(type: string, handler: JobHandler<P, R>, options: JobTypeOptions = {}): void {
    this.handlers.set(type, { handler: handler as JobHandler, webhook: options.webhook ?? jobPayload, lane: options.lane ?? DEFAULT_LANE });
  }

  /** A lane running at most `concurrency` jobs at once in this process (the default lane has options.concurrency). */
  addLane(name: string, concurrency: number): void {
    this.lanes.set(name, concurrency);
  }

  async start(logger?: RunnerLogger): Promise<void> {
    this.logger = logger;
    this.stopped = false;
    // Jobs may have been queued while this runner was stopped: the first look asks for every type.
    this.lookAtAll = true;
    await this.recover(true);
    this.timer = setInterval(() => {
      this.lookAtAll = true;
      this.wake();
    }, this.pollMs);
    this.timer.unref();
    this.heartbeatTimer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeatTimer.unref();
    this.wake();
  }

  /**
   * Looks for work now: after a job of `submitted` is submitted in this process (nothing to do while its lane is full:
   * a job finishing there looks again), a job finishing, or the poll timer.
   */
  wake(submitted?: string): void {
    this.wakes++;
    if (submitted !== undefined) {
      this.drained.delete(submitted);
      this.submittedAt.set(submitted, this.wakes);
    }
    if (this.stopped) return;
    if (submitted !== undefined) {
      const registered = this.handlers.get(submitted);
      if (registered !== undefined && !this.hasRoom(registered.lane)) return;
    }
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
    await Promise.all([...this.deliveries]);
  }

  private capacity(lane: string): number {
    return lane === DEFAULT_LANE ? this.options.concurrency : this.lanes.get(lane) ?? this.options.concurrency;
  }

  private hasRoom(lane: string): boolean {
    let busy = 0;
    for (const entry of this.running.values()) if (entry.lane === lane) busy++;
    return busy < this.capacity(lane);
  }

  private async fill(): Promise<void> {
    if (Date.now() - this.lastSweep > this.staleMs / 2) await this.recover(false);
    if (this.lookAtAll) {
      this.lookAtAll = false;
      this.drained.clear();
    }
    while (!this.stopped) {
      const open = [...this.handlers.entries()].filter(([type, registered]) => !this.drained.has(type) && this.hasRoom(registered.lane)).map(([type]) => type);
      if (open.length === 0) return;
      const asked = this.wakes;
      const candidates = await this.repo.queued(Math.max(...open.map((type) => this.capacity(this.handlers.get(type)!.lane))) * 2, open);
      for (const type of open) {
        if ((this.submittedAt.get(type) ?? 0) <= asked && !candidates.some((candidate) => candidate.type === type)) this.drained.add(type);
      }
      let claimed = false;
      for (const { id, type } of candidates) {
        const lane = this.handlers.get(type)?.lane ?? DEFAULT_LANE;
        if (this.running.has(id) || !this.hasRoom(lane)) continue;
        const job = await this.repo.claim(id, this.owner, nowIso());
        if (job === undefined) continue;
        this.launch(job, lane);
        claimed = true;
      }
      if (!claimed) return;
    }
  }

  private launch(job: JobRow, lane: string): void {
    const controller = new AbortController();
    const entry: Running = { lane, controller, progress: progressOf(0, 'starting'), done: Promise.resolve() };
    this.running.set(job.id, entry);
    const started = Date.now();
    const context: JobContext = {
      job,
      params: {},
      signal: controller.signal,
      progress: (fraction, state) => {
        const clamped = Math.min(1, Math.max(0, fraction));
        const elapsed = Date.now() - started;
        const eta = clamped > 0.02 && clamped < 1 ? new Date(started + elapsed / clamped).toISOString() : null;
        entry.progress = progressOf(Math.round(clamped * 1000) / 10, state, eta);
      },
      ensureActive: async () => {
        controller.signal.throwIfAborted();
        if (!(await this.repo.isRunningBy(job.id, this.owner))) {
          controller.abort(new Error('cancelled'));
          controller.signal.throwIfAborted();
        }
      },
    };
    entry.done = this.execute(job, context, entry)
      .catch((error: unknown) => this.logger?.error({ jobId: job.id, err: error }, 'recording the outcome of a job failed'))
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
  }

  /**
   * Runs the handler and records exactly one outcome: its result (the conditional update loses to a cancel that
   * came first), its failure, or, when the abort came from a shutdown, RESTART_ERROR. A cancelled job's state and
   * webhook were recorded by the cancel.
   */
  private async execute(job: JobRow, context: JobContext, entry: Running): Promise<void> {
    let outcome: { status: 'completed' | 'failed'; result: string | null; error: string | null };
    try {
      const registered = this.handlers.get(job.type);
      if (registered === undefined) throw new Error(`No handler for job type ${job.type}`);
      context.params = JSON.parse(job.params) as unknown;
      outcome = { status: 'completed', result: JSON.stringify(await registered.handler(context)), error: null };
    } catch (error) {
      const reason = context.signal.aborted && context.signal.reason instanceof Error ? context.signal.reason.message : null;
      if (reason === 'cancelled') return;
      outcome = { status: 'failed', result: null, error: reason === 'shutdown' ? RESTART_ERROR : this.publicMessage(job, error) };
    }
    const progress = outcome.status === 'completed' ? progressOf(100, 'completed') : { ...entry.progress, state: outcome.status, eta: null };
    const completedAt = nowIso();
    const finished = await this.repo.finish(job.id, this.owner, { ...outcome, progress: JSON.stringify(progress), completedAt });
    if (finished) this.notify(job, outcome.status, completedAt, outcome.error);
  }

  /** What a failure says to the job's owner: the message of an expected failure, never internals. */
  private publicMessage(job: JobRow, error: unknown): string {
    if (error instanceof JobError || error instanceof AppError) {
      // An expected failure (the source refused, the data does not fit): a warning with the reason, no stack.
      const reason = error.message.slice(0, 2000);
      this.logger?.warn({ jobId: job.id, type: job.type, reason }, 'job failed');
      return reason;
    }
    this.logger?.error({ jobId: job.id, type: job.type, err: error }, 'job failed unexpectedly');
    return `The job failed on an internal error (job ${job.id}; the service log has the details).`;
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
    for (const row of await this.repo.orphaned(before, exclusive, [...this.handlers.keys()])) {
      if (this.running.has(row.id)) continue;
      const error = onStart && this.options.exclusive ? RESTART_ERROR : ORPHAN_ERROR;
      const completedAt = nowIso();
      if (await this.repo.failOrphan(row, error, completedAt)) {
        this.logger?.warn({ jobId: row.id, type: row.type }, 'orphaned job failed');
        this.notify(row, 'failed', completedAt, error);
      }
    }
  }

  /** Sends the one webhook of a terminal state in the background (best effort; the outcome is only logged). */
  notify(job: JobRow, status: 'completed' | 'failed' | 'cancelled', completedAt: string, error: string | null): void {
    const url = job.webhook_url;
    if (url === null) return;
    const payload = (this.handlers.get(job.type)?.webhook ?? jobPayload)(job, status, completedAt, error);
    const delivery = this.webhooks
      .send(url, payload)
      .then((outcome) => this.logger?.info({ jobId: job.id, webhook: outcome }, 'job webhook'))
      .finally(() => this.deliveries.delete(delivery));
    this.deliveries.add(delivery);
  }
}
