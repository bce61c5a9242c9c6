import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Frame } from '../engine/types.js';
import { AppError } from '../errors.js';
import type { KindEngine, KindEngineRef } from './kind-engine.js';
import type { EngineResults, EngineTask, MetricReply, ProgressMessage, TaskReply, WireTask, WorkerMessage } from './protocol.js';
import { ModelSharing } from './shared-models.js';

/** Workers idle this long are stopped; the next task starts one again (~30 ms). */
const IDLE_TIMEOUT_MS = 60_000;

export interface RunOptions {
  signal?: AbortSignal;
  /** Receives the worker's progress reports (discover, simulate, score). */
  onProgress?: (message: ProgressMessage) => void;
  /** Evaluates a metric's SQL for a simulation (the data engine lives on the main thread). */
  evaluateMetric?: (frame: Frame, sql: string) => Promise<number>;
}

/**
 * The compute pool: `size` worker threads (CAUSA_WORKERS, default = cores) running the engine over the WASM
 * kernels. Tasks are whole units of work (a discovery, a bootstrap resample, a fit, a simulation: milliseconds to
 * minutes), so the ~65 us task overhead never dominates. Tasks wait in one FIFO queue, so concurrent jobs and runs
 * share the workers in submission order. Aborting a task's signal stops its worker.
 */
export class ComputePool {
  private readonly pool: Piscina<WireTask, unknown>;
  private readonly models = new ModelSharing();

  constructor(readonly size: number) {
    this.pool = new Piscina({
      filename: new URL('../../workers/engine.js', import.meta.url).href,
      minThreads: 0,
      maxThreads: size,
      idleTimeout: IDLE_TIMEOUT_MS,
    });
  }

  async run<K extends EngineTask['kind']>(engineTask: Extract<EngineTask, { kind: K }>, options: RunOptions = {}): Promise<EngineResults[K]> {
    const task = this.wire(engineTask);
    const talks = task.kind === 'question' || task.kind === 'score' || options.onProgress !== undefined;
    if (!talks) return unwrap((await this.pool.run(task, { signal: options.signal ?? null })) as TaskReply<EngineResults[K]>);
    const channel = new MessageChannel();
    channel.port1.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') options.onProgress?.(message);
      else void answerMetric(channel.port1, message, options.evaluateMetric);
    });
    try {
      return unwrap((await this.pool.run({ ...task, port: channel.port2 }, { signal: options.signal ?? null, transferList: [channel.port2] })) as TaskReply<EngineResults[K]>);
    } finally {
      channel.port1.close();
    }
  }

  /** The task as it crosses to a worker: its model by reference to the model's bytes in shared memory. */
  private wire(task: EngineTask): WireTask {
    if (!('model' in task)) return task;
    return { ...task, model: typeof task.model === 'object' && task.model !== null ? this.models.share(task.model) : null };
  }

  /** A twin kind's learning step, typed by its engine module (src/compute/kind-engine.ts). */
  async step<E extends KindEngine, S extends keyof E & string>(ref: KindEngineRef<E>, step: S, input: Parameters<E[S]>[0], options: RunOptions = {}): Promise<Awaited<ReturnType<E[S]>>> {
    return (await this.run({ kind: 'step', engine: ref.href, step, input }, options)) as Awaited<ReturnType<E[S]>>;
  }

  /** Tasks waiting for a free worker. */
  get queued(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}

/** A worker's reply as a value, or its failure thrown again as the AppError it was. */
function unwrap<T>(reply: TaskReply<T>): T {
  if ('failure' in reply) throw new AppError(reply.failure.code, reply.failure.message);
  return reply.value;
}

async function answerMetric(
  port: MessagePort,
  message: Extract<WorkerMessage, { type: 'metric' }>,
  evaluate: RunOptions['evaluateMetric'],
): Promise<void> {
  let reply: MetricReply;
  try {
    if (evaluate === undefined) throw new Error('metrics cannot be evaluated here');
    reply = { id: message.id, value: await evaluate(message.frame, message.sql) };
  } catch (error) {
    reply = { id: message.id, error: { code: error instanceof AppError ? error.code : 'validation_failed', message: error instanceof Error ? error.message : String(error) } };
  }
  try {
    port.postMessage(reply);
  } catch {
    // The task ended (aborted) before the answer came back: nobody is waiting for it.
  }
}
