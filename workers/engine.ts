/**
 * Piscina entry of the compute pool: runs engine tasks (src/compute/protocol.ts) over the WASM kernels. Never
 * imports chdb (DESIGN.md: chDB in a worker crashes the process) nor anything that touches stores or HTTP.
 */
import type { MessagePort } from 'node:worker_threads';
import type { EngineResults, EngineTask, MetricReply, TaskReply, WorkerMessage } from '../src/compute/protocol.js';
import { discoverTemporal } from '../src/engine/temporal/discover.js';
import { evaluateTemporal } from '../src/engine/temporal/evaluate.js';
import { fitTemporal } from '../src/engine/temporal/model.js';
import type { Kernels } from '../src/compute/kernels.js';
import { loadWasmKernels } from '../src/compute/wasm.js';
import { discoverStatic } from '../src/engine/discovery/discover-static.js';
import { resampleFrame } from '../src/engine/discovery/bootstrap.js';
import { fitCbn } from '../src/engine/cbn/fit.js';
import { withAssumedOrientations } from '../src/engine/identification/assume.js';
import { evaluateCbn, splitHoldout } from '../src/engine/cbn/evaluate.js';
import type { FamilyEngine, FamilyOutcome, InferenceContext } from '../src/engine/inference/outcome.js';
import { runScore } from '../src/engine/inference/score.js';
import type { DiscoveryResult, Frame } from '../src/engine/types.js';
import { AppError } from '../src/errors.js';

let kernels: Kernels | null = null;
const wasm = (): Kernels => (kernels ??= loadWasmKernels());

/** Progress is posted at most this often: a discovery may report thousands of times. */
const PROGRESS_INTERVAL_MS = 200;

/** Every task answers its value, or the user-facing failure (an AppError) as {code, message} (TaskReply). */
export default async function run(task: EngineTask): Promise<TaskReply<EngineResults[EngineTask['kind']]>> {
  try {
    return { value: await dispatch(task) };
  } catch (error) {
    if (error instanceof AppError) return { failure: { code: error.code, message: error.message } };
    throw error;
  } finally {
    if ('port' in task) task.port?.close();
  }
}

function dispatch(task: EngineTask): EngineResults[EngineTask['kind']] | Promise<EngineResults[EngineTask['kind']]> {
  switch (task.kind) {
    case 'discover':
      return withAssumedOrientations(task.frame, discoverStatic(task.frame, task.options, wasm(), { progress: throttledProgress(task.port) }), task.options, wasm());
    case 'discover_temporal':
      return discoverTemporal(task.series, task.options, wasm(), { progress: throttledProgress(task.port) });
    case 'fit_temporal':
      return {
        model: fitTemporal(task.series, task.stepTimes, task.timeline, task.structure, { seed: task.options.seed }, wasm()),
        evaluation: evaluateTemporal(task.series, task.stepTimes, task.timeline, task.structure, task.options, wasm()),
      };
    case 'bootstrap':
      return discoverStatic(resampleFrame(task.frame, task.seed), { ...task.options, seed: task.seed }, wasm());
    case 'fit': {
      const { train, test } = splitHoldout(task.frame, task.options.testFraction, task.options.seed ?? 1);
      const evaluation = evaluateCbn(fitCbn(train, task.edges, task.options, wasm()), test);
      return { model: fitCbn(task.frame, task.edges, task.options, wasm()), evaluation, nTrain: train.nRows, nTest: test.nRows };
    }
    case 'question':
      return answer(task.port, task.seed, async (context) => {
        const family = await familyEngine(task.engine);
        return family.run(task.model, task.scenario, task.identification === undefined ? context : { ...context, identification: { ...task.identification, kernels: wasm() } });
      });
    case 'score':
      return answer(task.port, task.seed, (context) => runScore(task.model, task.request, context));
  }
}

/** A family's engine module (its path comes from the service's family registry, never from a request), loaded once. */
const engines = new Map<string, Promise<FamilyEngine>>();
function familyEngine(href: string): Promise<FamilyEngine> {
  let engine = engines.get(href);
  if (engine === undefined) engines.set(href, (engine = import(href).then((module: { default: FamilyEngine }) => module.default)));
  return engine;
}

/** Runs a question with a context whose metrics are evaluated on the main thread (over the task's port). */
function answer(port: MessagePort | undefined, seed: number, question: (context: InferenceContext) => Promise<FamilyOutcome>): Promise<FamilyOutcome> {
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
  let last = 0;
  return (fraction, state) => {
    const now = Date.now();
    if (port === undefined || now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    port.postMessage({ type: 'progress', fraction, state } satisfies WorkerMessage);
  };
}
