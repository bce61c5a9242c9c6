/**
 * Piscina entry of the compute pool: runs engine tasks (src/compute/protocol.ts) over the WASM kernels. Never
 * imports chdb (DESIGN.md: chDB in a worker crashes the process) nor anything that touches stores or HTTP.
 */
import type { EngineTask, FitOutcome } from '../src/compute/protocol.js';
import type { Kernels } from '../src/compute/kernels.js';
import { loadWasmKernels } from '../src/compute/wasm.js';
import { discoverStatic } from '../src/engine/discovery/discover-static.js';
import { resampleFrame } from '../src/engine/discovery/bootstrap.js';
import { fitCbn } from '../src/engine/cbn/fit.js';
import { evaluateCbn, splitHoldout } from '../src/engine/cbn/evaluate.js';
import type { DiscoveryResult } from '../src/engine/types.js';

let kernels: Kernels | null = null;
const wasm = (): Kernels => (kernels ??= loadWasmKernels());

/** Progress is posted at most this often: a discovery may report thousands of times. */
const PROGRESS_INTERVAL_MS = 200;

export default function run(task: EngineTask): DiscoveryResult | FitOutcome {
  switch (task.kind) {
    case 'discover': {
      let last = 0;
      const port = task.progress;
      const result = discoverStatic(task.frame, task.options, wasm(), {
        progress(fraction, state) {
          const now = Date.now();
          if (port === undefined || now - last < PROGRESS_INTERVAL_MS) return;
          last = now;
          port.postMessage({ fraction, state });
        },
      });
      port?.close();
      return result;
    }
    case 'bootstrap':
      return discoverStatic(resampleFrame(task.frame, task.seed), { ...task.options, seed: task.seed }, wasm());
    case 'fit': {
      const { train, test } = splitHoldout(task.frame, task.options.testFraction, task.options.seed ?? 1);
      const evaluation = evaluateCbn(fitCbn(train, task.edges, task.options, wasm()), test);
      return { model: fitCbn(task.frame, task.edges, task.options, wasm()), evaluation, nTrain: train.nRows, nTest: test.nRows };
    }
  }
}
