import { referenceKernels as kernels } from '../../src/compute/reference.js';
import { loadWasmKernels } from '../../src/compute/wasm.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { fitCbn } from '../../src/engine/cbn/fit.js';
import { evaluateCbn } from '../../src/engine/cbn/evaluate.js';
import { randomModel, sampleModel, withMissingValues } from '../../src/engine/simulate.js';
import { selectRows } from '../../src/engine/frame.js';
for (const k of [kernels, loadWasmKernels()]) {
  for (const [p, n, share, miss] of [[5, 1, 0, 0], [5, 2, 0, 0], [5, 3, 0.5, 0], [30, 10, 0, 0], [30, 10, 1, 0], [8, 50, 0.5, 0.6], [6, 200, 1, 0.9], [6, 200, 0, 0.9]]) {
    const model = randomModel(p!, 2, 3, { categoricalShare: share! });
    const frame = withMissingValues(sampleModel(model, n!, 4), miss!, 5);
    try {
      const r = discoverStatic(frame, {}, k);
      const m = fitCbn(frame, r.edges, {}, k);
      const e = evaluateCbn(m, selectRows(frame, Array.from({ length: n! }, (_, i) => i)));
      const bad = r.edges.filter((x) => !Number.isFinite(x.strength)).length;
      console.log(p, n, share, miss, 'edges', r.edges.length, 'nonfinite strengths', bad, 'eval', e.skippedReason, Object.keys(e.nodeMetrics).length);
    } catch (err) {
      console.log(p, n, share, miss, 'ERROR', (err as Error).stack?.split('\n').slice(0, 4).join(' | '));
    }
  }
}
