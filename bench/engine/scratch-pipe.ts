import { referenceKernels as kernels } from '../../src/compute/reference.js';
import { prepareForDiscovery } from '../../src/engine/discovery/prepare.js';
import { ciTesterFor } from '../../src/engine/discovery/ci-tests.js';
import { pcStableSkeleton } from '../../src/engine/discovery/pc-skeleton.js';
import { buildKnowledge, skeletonMasks } from '../../src/engine/discovery/knowledge.js';
import { WorkBudget } from '../../src/engine/discovery/budget.js';
import { orientSkeleton } from '../../src/engine/discovery/orient-pc.js';
import { startingDag } from '../../src/engine/discovery/dag-from-pdag.js';
import { localScorerFor } from '../../src/engine/discovery/local-score.js';
import { hillClimb } from '../../src/engine/discovery/hill-climb.js';
import { greedyEquivalenceSearch } from '../../src/engine/discovery/ges.js';
import { consistentExtension } from '../../src/engine/graph/dag.js';
import { cpdagOfDag, dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { pdagFromEdges, pdagToEdges, emptyPdag, parentsOf, type Pdag } from '../../src/engine/graph/pdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import { modelEdges, randomModel, sampleModel } from '../../src/engine/simulate.js';
import { benchmarkDataDir, readGraphText, readTable, readEdgeCsv } from './benchmark-data.js';

const dir = benchmarkDataDir();
function load(which: string) {
  if (which.startsWith('linear')) {
    const i = which.slice(6);
    return { frame: readTable(`${dir}/causal_learn_linear10/data_linear_${i}.txt`, 'continuous'), truth: readGraphText(`${dir}/causal_learn_linear10/graph.${i}.txt`).edges };
  }
  if (which === 'sachs853') return { frame: readTable(`${dir}/sachs/derived_sachs_853_cd3cd28_observational.csv`, 'continuous'), truth: readEdgeCsv(`${dir}/sachs/derived_sachs_consensus17_edges.csv`).map((e) => ({ ...e, directed: true })) };
  if (which.startsWith('er')) {
    const [pp, seed] = which.slice(2).split('s').map(Number);
    const model = randomModel(pp!, 2, 1000 + seed!);
    return { frame: sampleModel(model, 10_000, 2000 + seed!), truth: modelEdges(model).map((e) => ({ ...e, directed: true })) };
  }
  return { frame: readTable(`${dir}/bnlearn_discrete_10000/data/${which}.txt`, 'categorical'), truth: readGraphText(`${dir}/bnlearn_discrete_10000/truth_dag_graph/${which}.graph.txt`).edges };
}
const variants = (process.env.VARIANTS ?? 'pc-hc,ges-all,ges-all-hc,ges-d0,ges-d0-hc').split(',');
for (const which of process.argv.slice(2)) {
  const { frame, truth } = load(which);
  const names = frame.columns.map((c) => c.name);
  const truthCpdag = dagToCpdag(names, truth);
  const data = prepareForDiscovery(frame, kernels);
  const p = data.p;
  const knowledge = buildKnowledge(names);
  const { pinned, excluded } = skeletonMasks(knowledge, p);
  const budget = new WorkBudget(1e9);
  const scorer = localScorerFor(data, kernels);
  const total = (g: Pdag) => { let s = 0; for (let j = 0; j < p; j++) s += scorer.score(j, parentsOf(g, j)); return s; };
  const out: string[] = [`${which}: truth ${total(pdagFromEdges(names, truth)).toFixed(0)}`];
  let t0 = performance.now();
  const sk = pcStableSkeleton(p, ciTesterFor(data, kernels), { alpha: 0.05, maxDepth: p, pinned, excluded, informative: data.informative, budget, progressSpan: [0, 1] });
  const tPc = performance.now() - t0;
  t0 = performance.now();
  const sk0 = pcStableSkeleton(p, ciTesterFor(data, kernels), { alpha: 0.05, maxDepth: 0, pinned, excluded, informative: data.informative, budget, progressSpan: [0, 1] });
  const tD0 = performance.now() - t0;
  out.push(`pc ${(tPc / 1000).toFixed(2)}s d0 ${(tD0 / 1000).toFixed(2)}s`);
  const pattern = orientSkeleton(p, sk, knowledge);
  const all = new Uint8Array(p * p).fill(1);
  for (const v of variants) {
    const t = performance.now();
    let dag: Pdag;
    if (v === 'pc-hc') dag = hillClimb(p, scorer, { candidates: sk.adjacency, knowledge, start: startingDag(pattern, knowledge), budget }).dag;
    else if (v === 'pc-hcd0') dag = hillClimb(p, scorer, { candidates: sk0.adjacency, knowledge, start: startingDag(pattern, knowledge), budget }).dag;
    else if (v === 'pc-hcall') dag = hillClimb(p, scorer, { candidates: all, knowledge, start: startingDag(pattern, knowledge), budget }).dag;
    else if (v === 'pcges-all-hc') {
      const ges = greedyEquivalenceSearch(p, scorer, { candidates: all, forbidden: knowledge.forbidden, pinned, start: cpdagOfDag(startingDag(pattern, knowledge)), budget });
      dag = hillClimb(p, scorer, { candidates: all, knowledge, start: consistentExtension(ges.cpdag)!, budget }).dag;
    }
    else {
      const cand = v.includes('all') ? all : sk0.adjacency;
      const ges = greedyEquivalenceSearch(p, scorer, { maxSubset: Number(process.env.MAXSUB ?? 4), candidates: cand, forbidden: knowledge.forbidden, pinned, start: emptyPdag(p), budget });
      dag = consistentExtension(ges.cpdag)!;
      if (v.endsWith('-hc')) dag = hillClimb(p, scorer, { candidates: cand, knowledge, start: dag, budget }).dag;
    }
    const shd = structuralHammingDistance(pdagToEdges(names, cpdagOfDag(dag)), truthCpdag);
    out.push(`${v}: SHD ${shd} score ${total(dag).toFixed(0)} ${((performance.now() - t) / 1000).toFixed(2)}s`);
  }
  console.log(out.join(' | '));
}
