import { referenceKernels as kernels } from '../../src/compute/reference.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import { modelEdges, randomModel, sampleModel, withMissingValues } from '../../src/engine/simulate.js';
for (const [share, p, n, miss] of (process.env.CASES ? JSON.parse(process.env.CASES) : [[0, 10, 3000, 0], [0, 10, 3000, 0.1]]) as [number, number, number, number][]) {
  for (const seed of [1, 2, 3]) {
    const model = randomModel(p, 2, seed, { categoricalShare: share });
    let frame = sampleModel(model, n, seed + 100);
    if (miss > 0) frame = withMissingValues(frame, miss, seed + 7);
    const names = model.nodes.map((x) => x.name);
    const truth = dagToCpdag(names, modelEdges(model));
    const t = performance.now();
    const r = discoverStatic(frame, {}, kernels);
    console.log(`share ${share} p ${p} n ${n} miss ${miss} seed ${seed}: edges ${modelEdges(model).length} SHD ${structuralHammingDistance(r.cpdag, truth)} ${((performance.now() - t) / 1000).toFixed(2)}s tests ${r.stats.tests}`);
  }
}
