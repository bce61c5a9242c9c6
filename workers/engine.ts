/**
 * Piscina entry of the compute pool: runs engine tasks (src/compute/protocol.ts) over the WASM kernels: a twin
 * kind's learning steps and a family's questions from their engine modules, and scoring. Never imports chdb (DESIGN.md: chDB in a worker crashes the process) nor anything that touches stores or HTTP.
 */
import type { MessagePort } from 'node:worker_threads';
import type { KindEngine } from '../src/compute/kind-engine.js';
import type { Kernels } from '../src/compute/kernels.js';
import type { EngineResults, EngineTask, MetricReply, TaskReply, WireTask, WorkerMessage } from '../src/compute/protocol.js';
import { ModelCache } from '../src/compute/shared-models.js';
import { ScoredRowEncoder } from '../src/compute/scored-rows.js';
import { loadWasmKernels } from '../src/compute/wasm.js';
import { type FamilyEngine, type InferenceContext, rowResultsOf } from '../src/engine/inference/outcome.js';
import { runScore } from '../src/engine/inference/score.js';
import { isPanelModel } from '../src/engine/panel/model.js';
import { runPanelScore } from '../src/engine/panel/score.js';
import type { Frame } from '../src/engine/types.js';
import { AppError } from '../src/errors.js';

let kernels: Kernels | null = null;
const wasm = (): Kernels => (kernels ??= loadWasmKernels());

/** Progress is posted at most this often, the first time when a task has run this long: a discovery may report
 * thousands of times, and a task done sooner is reported by its answer (a small run's progress message cost the main
 * thread a job write). */
const PROGRESS_INTERVAL_MS = 200;

/** The models this worker has read (a task names its model by reference: compute/shared-models.ts). */
const models = new ModelCache();

/** Every task answers its value, or the user-facing failure (an AppError) as {code, message} (TaskReply). */
export default async function run(task: WireTask): Promise<TaskReply<EngineResults[EngineTask['kind']]>> {
  try {
    return { value: await dispatch(task) };
  } catch (error) {
    if (error instanceof AppError) return { failure: { code: error.code, message: error.message } };
    throw error;
  } finally {
    if ('port' in task) task.port?.close();
  }
}

async function dispatch(wire: WireTask): Promise<EngineResults[EngineTask['kind']]> {
  const task = ('model' in wire ? { ...wire, model: wire.model === null ? null : models.read(wire.model) } : wire) as EngineTask;
  switch (task.kind) {
    case 'step': {
      const engine = await load<KindEngine>(task.engine);
      const step = engine[task.step];
      if (step === undefined) throw new Error(`${task.engine} has no step ${task.step}`);
      return step(task.input, wasm(), { progress: throttledProgress(task.port) });
    }
    case 'question':
      return answer(task.port, task.seed, async (context) => {
        const family = await load<FamilyEngine>(task.engine);
        const identification = task.identification === undefined ? {} : { identification: { ...task.identification, kernels: wasm() } };
        const outcome = await family.run(task.model, task.scenario, { ...context, ...identification, ...(task.rows === undefined ? {} : { rows: task.rows }) });
        // A batch chunk's records go back as columns: typed arrays cross threads as one copy each, records one by one.
        return task.rows === undefined ? outcome : { ...outcome, results: {}, rowResults: rowResultsOf(outcome.results, task.rows.nRows) };
      });
    case 'score':
      return answer(task.port, task.seed, async (context) => {
        const { model, question } = task;
        const scored = isPanelModel(model) ? await runPanelScore(model, question, task.rows, context, task.unknownEnvironments) : await runScore(model, question, task.rows, context);
        const network = isPanelModel(model) ? model.pooled : model;
        const { nRows, verdicts, reachable, driverSums, topCounts, summaries } = scored;
        return { tallied: { nRows, verdicts, reachable, driverSums, topCounts, summaries }, rowBinary: new ScoredRowEncoder(network, question.targets).encode(task.firstRow, scored) };
      });
  }
}

/**
 * An engine module's default export: a family's (src/families/<family>/engine.ts) or a twin kind's
 * (src/twins/kinds/<kind>/engine.ts). Addresses come from the service's registries, never from a request; each
 * module is loaded once per worker.
 */
const modules = new Map<string, Promise<unknown>>();
function load<T>(href: string): Promise<T> {
  let module = modules.get(href);
  if (module === undefined) modules.set(href, (module = import(href).then((loaded: { default: unknown }) => loaded.default)));
  return module as Promise<T>;
}

/** Runs a question with a context whose metrics are evaluated on the main thread (over the task's port). */
function answer<T>(port: MessagePort | undefined, seed: number, question: (context: InferenceContext) => Promise<T>): Promise<T> {
  const pending = new Map<number, { resolve(value: number): void; reject(error: Error): void }>();
  let next = 0;
  port?.on('message', (reply: MetricReply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if ('error' in reply) waiter?.reject(new AppError(reply.error.code, reply.error.message));
    else waiter?.resolve(reply.value);
  });
  return question({
    seed,
    hooks: { progress: throttledProgress(port) },
    evaluateMetric(frame: Frame, sql: string) {
      if (port === undefined) return Promise.reject(new AppError('validation_failed', 'metrics cannot be evaluated here'));
      const id = next++;
      return new Promise<number>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        port.postMessage({ type: 'metric', id, frame, sql } satisfies WorkerMessage);
      });
    },
  });
}

function throttledProgress(port: MessagePort | undefined): (fraction: number, state: string) => void {
  let last = Date.now();
  return (fraction, state) => {
    const now = Date.now();
    if (port === undefined || now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    port.postMessage({ type: 'progress', fraction, state } satisfies WorkerMessage);
  };
}
