import { loadWasmKernels } from '../../src/compute/wasm.js';
const kernels = loadWasmKernels();
import { prepareForDiscovery } from '../../src/engine/discovery/prepare.js';
import { ciTesterFor } from '../../src/engine/discovery/ci-tests.js';
import { pcStableSkeleton } from '../../src/engine/discovery/pc-skeleton.js';
import { buildKnowledge, skeletonMasks } from '../../src/engine/discovery/knowledge.js';
import { WorkBudget } from '../../src/engine/discovery/budget.js';
import { benchmarkDataDir, readTable } from './benchmark-data.js';
const dir = benchmarkDataDir();
for (const which of process.argv.slice(2)) {
  const frame = readTable(`${dir}/bnlearn_discrete_10000/data/${which}.txt`, 'categorical');
  const data = prepareForDiscovery(frame, kernels);
  const p = data.p;
  const { pinned, excluded } = skeletonMasks(buildKnowledge(data.names), p);
  let prevTests = 0; let prevT = performance.now();
  for (let d = 0; d <= 8; d++) {
    const t = performance.now();
    const sk = pcStableSkeleton(p, ciTesterFor(data, kernels), { alpha: 0.05, maxDepth: d, pinned, excluded, informative: data.informative, budget: new WorkBudget(1e9), progressSpan: [0, 1] });
    let e = 0; for (let i = 0; i < p * p; i++) e += sk.adjacency[i]!;
    console.log(which, 'depth<=', d, 'tests', sk.tests, 'edges', e / 2, 'secs', ((performance.now() - t) / 1000).toFixed(2));
    if (sk.depthReached < d) break;
  }
}
