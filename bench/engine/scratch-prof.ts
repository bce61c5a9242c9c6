import { loadWasmKernels } from '../../src/compute/wasm.js';
import { referenceKernels } from '../../src/compute/reference.js';
import { prepareForDiscovery } from '../../src/engine/discovery/prepare.js';
import { ciTesterFor } from '../../src/engine/discovery/ci-tests.js';
import { pcStableSkeleton } from '../../src/engine/discovery/pc-skeleton.js';
import { buildKnowledge, skeletonMasks } from '../../src/engine/discovery/knowledge.js';
import { WorkBudget } from '../../src/engine/discovery/budget.js';
import { orientSkeleton } from '../../src/engine/discovery/orient-pc.js';
import { localScorerFor } from '../../src/engine/discovery/local-score.js';
import { searchBestDag } from '../../src/engine/discovery/score-search.js';
import { benchmarkDataDir, readTable } from './benchmark-data.js';
const kernels = process.env.REF === '1' ? referenceKernels : loadWasmKernels();
const dir = benchmarkDataDir();
for (const which of process.argv.slice(2)) {
  const frame = readTable(`${dir}/bnlearn_discrete_10000/data/${which}.txt`, 'categorical');
  let t = performance.now();
  const lap = (l: string) => { const now = performance.now(); const s = `${l} ${((now - t) / 1000).toFixed(3)}`; t = now; return s; };
  const out: string[] = [which];
  const data = prepareForDiscovery(frame, kernels);
  out.push(lap('prep'));
  const p = data.p;
  const knowledge = buildKnowledge(data.names);
  const { pinned, excluded } = skeletonMasks(knowledge, p);
  const budget = new WorkBudget(1e9);
  const sk = pcStableSkeleton(p, ciTesterFor(data, kernels), { alpha: 0.05, maxDepth: p, pinned, excluded, informative: data.informative, budget, progressSpan: [0, 1] });
  out.push(lap(`pc(${sk.tests})`));
  const pattern = orientSkeleton(p, sk, knowledge);
  const scorer = localScorerFor(data, kernels);



  const res = searchBestDag({ p, scorer, knowledge, candidates: sk.marginal, pinned, pattern, budget, progressSpan: [0, 1] });
  out.push(lap(`search(${res.start}, evals ${scorer.evaluations})`));
  console.log(out.join(' | '));
}
