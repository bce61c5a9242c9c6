import { loadWasmKernels } from '../../src/compute/wasm.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import { modelEdges, randomModel, sampleModel } from '../../src/engine/simulate.js';
const kernels = loadWasmKernels();
for (const p of [50, 100]) for (const s of [0, 1, 2]) {
  const model = randomModel(p, 4, 1000 + s);
  const frame = sampleModel(model, 10_000, 2000 + s);
  const t = performance.now();
  const r = discoverStatic(frame, {}, kernels);
  console.log(p, s, 'edges', modelEdges(model).length, 'SHD', structuralHammingDistance(r.cpdag, dagToCpdag(model.nodes.map((x) => x.name), modelEdges(model))), ((performance.now() - t) / 1000).toFixed(2), 's');
}
