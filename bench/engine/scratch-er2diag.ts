// Scratch diagnostics (to be removed): ER graphs, per seed SHD/score of each search start and of the truth.
import { loadWasmKernels } from '../../src/compute/wasm.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { prepareForDiscovery } from '../../src/engine/discovery/prepare.js';
import { localScorerFor } from '../../src/engine/discovery/local-score.js';
import { dagScore } from '../../src/engine/discovery/score-search.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { pdagFromEdges } from '../../src/engine/graph/pdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import { modelEdges, randomModel, sampleModel } from '../../src/engine/simulate.js';

const kernels = loadWasmKernels();
const ps = (process.env.PS ?? '50,100').split(',').map(Number);
const degree = Number(process.env.DEG ?? 4);
const seeds = (process.env.SEEDS ?? '0,1,2').split(',').map(Number);
for (const p of ps) for (const s of seeds) {
  const model = randomModel(p, degree, 1000 + s);
  const frame = sampleModel(model, 10_000, 2000 + s);
  const names = model.nodes.map((n) => n.name);
  const edges = modelEdges(model);
  const truth = dagToCpdag(names, edges);
  const data = prepareForDiscovery(frame, kernels);
  const scorer = localScorerFor(data, kernels);
  const truthScore = dagScore(pdagFromEdges(names, edges.map((e) => ({ ...e, directed: true }))), scorer);
  const t0 = performance.now();
  const result = discoverStatic(frame, {}, kernels);
  const secs = (performance.now() - t0) / 1000;
  const found = dagScore(pdagFromEdges(names, result.edges.map((e) => ({ source: e.source, target: e.target, directed: true }))), scorer);
  console.log(`p=${p} seed=${s} edges=${edges.length} SHD=${structuralHammingDistance(result.cpdag, truth)} secs=${secs.toFixed(2)} score-truth=${(found - truthScore).toFixed(1)} tests=${result.stats.tests} ${(globalThis as any).__searchInfo ?? ''}`);
}
