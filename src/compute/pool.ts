import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { EngineResults, EngineTask, ProgressMessage } from './protocol.js';

/** Workers idle this long are stopped; the next task starts one again (~30 ms). */
const IDLE_TIMEOUT_MS = 60_000;

/**
 * The compute pool: `size` worker threads (CAUSA_WORKERS, default = cores) running the engine over the WASM
 * kernels. Tasks are whole units of work (a discovery, a bootstrap resample, a fit: milliseconds to minutes),
 * so the ~65 us task overhead never dominates. Aborting a task's signal stops its worker.
 */
export class ComputePool {
  private readonly pool: Piscina<EngineTask, unknown>;

  constructor(readonly size: number) {
    this.pool = new Piscina({
      filename: new URL('../../workers/engine.js', import.meta.url).href,
      minThreads: 0,
      maxThreads: size,
      idleTimeout: IDLE_TIMEOUT_MS,
    });
  }

  /** Runs a task; `onProgress` receives the worker's progress reports (discovery only). */
  async run<K extends EngineTask['kind']>(
    task: Extract<EngineTask, { kind: K }>,
    options: { signal?: AbortSignal; onProgress?: (message: ProgressMessage) => void } = {},
  ): Promise<EngineResults[K]> {
    if (options.onProgress === undefined || task.kind !== 'discover') {
      return (await this.pool.run(task, { signal: options.signal ?? null })) as EngineResults[K];
    }
    const channel = new MessageChannel();
    const onProgress = options.onProgress;
    channel.port1.on('message', (message: ProgressMessage) => onProgress(message));
    try {
      return (await this.pool.run({ ...task, progress: channel.port2 }, { signal: options.signal ?? null, transferList: [channel.port2] })) as EngineResults[K];
    } finally {
      channel.port1.close();
    }
  }

  /** Tasks waiting for a free worker. */
  get queued(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}
