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
import { cpdagOfDag, dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { pdagFromEdges, pdagToEdges, emptyPdag, parentsOf, type Pdag } from '../../src/engine/graph/pdag.js';
import { structuralHammingDistance, skeletonScores } from '../../src/engine/graph/metrics.js';
import { benchmarkDataDir, readGraphText, readTable, readEdgeCsv } from './benchmark-data.js';

const dir = benchmarkDataDir();
const which = process.argv[2] ?? 'linear3';
let frame, truthEdges;
if (which.startsWith('linear')) {
  const i = which.slice(6);
  frame = readTable(`${dir}/causal_learn_linear10/data_linear_${i}.txt`, 'continuous');
  truthEdges = readGraphText(`${dir}/causal_learn_linear10/graph.${i}.txt`).edges;
} else if (which === 'sachs853') {
  frame = readTable(`${dir}/sachs/derived_sachs_853_cd3cd28_observational.csv`, 'continuous');
  truthEdges = readEdgeCsv(`${dir}/sachs/derived_sachs_consensus17_edges.csv`).map((e) => ({ ...e, directed: true }));
} else {
  frame = readTable(`${dir}/bnlearn_discrete_10000/data/${which}.txt`, 'categorical');
  truthEdges = readGraphText(`${dir}/bnlearn_discrete_10000/truth_dag_graph/${which}.graph.txt`).edges;
}
const names = frame.columns.map((c) => c.name);
const truthCpdag = dagToCpdag(names, truthEdges);
const truthDag = pdagFromEdges(names, truthEdges);
let t = performance.now();
const lap = (label: string) => { const now = performance.now(); console.log(label, ((now - t) / 1000).toFixed(3), 's'); t = now; };
const data = prepareForDiscovery(frame, kernels);
lap('prepare');
const p = data.p;
const knowledge = buildKnowledge(names);
const { pinned, excluded } = skeletonMasks(knowledge, p);
const budget = new WorkBudget(1e9);
const alpha = Number(process.env.ALPHA ?? 0.05);
const sk = pcStableSkeleton(p, ciTesterFor(data, kernels), { alpha, maxDepth: p, pinned, excluded, informative: data.informative, budget, progressSpan: [0, 1] });
lap(`skeleton tests=${sk.tests} depth=${sk.depthReached}`);
const skelEdges = [] as { source: string; target: string; directed: boolean }[];
for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) if (sk.adjacency[i * p + j]) skelEdges.push({ source: names[i]!, target: names[j]!, directed: false });
console.log('skeleton', skeletonScores(skelEdges, truthCpdag));
const missing = truthCpdag.filter((e) => !skelEdges.some((s) => (s.source === e.source && s.target === e.target) || (s.source === e.target && s.target === e.source)));
console.log('missing from skeleton', missing.map((e) => `${e.source}-${e.target}`).join(' '));
const pattern = orientSkeleton(p, sk, knowledge);
console.log('PC pattern SHD', structuralHammingDistance(pdagToEdges(names, pattern), truthCpdag));
const start = startingDag(pattern, knowledge);
const scorer = localScorerFor(data, kernels);
const total = (g: Pdag) => { let s = 0; for (let j = 0; j < p; j++) s += scorer.score(j, parentsOf(g, j)); return s; };
console.log('score truth', total(truthDag).toFixed(1), 'start', total(start).toFixed(1));
const candidates = sk.adjacency.map((v, k) => v | pinned[k]!);
for (const [label, s0] of [['pc-start', start], ['empty-start', emptyPdag(p)]] as const) {
  const hc = hillClimb(p, scorer, { candidates, knowledge, start: s0, budget });
  lap(`hc ${label} iterations=${hc.iterations}`);
  const cp = pdagToEdges(names, cpdagOfDag(hc.dag));
  console.log(label, 'score', hc.score.toFixed(1), 'SHD', structuralHammingDistance(cp, truthCpdag));
}
const all = new Uint8Array(p * p).fill(1);
const hcAll = hillClimb(p, scorer, { candidates: all, knowledge, start: emptyPdag(p), budget });
lap('hc unrestricted');
console.log('unrestricted score', hcAll.score.toFixed(1), 'SHD', structuralHammingDistance(pdagToEdges(names, cpdagOfDag(hcAll.dag)), truthCpdag));
for (const d of [0, 1, 2]) {
  const skd = pcStableSkeleton(p, ciTesterFor(data, kernels), { alpha, maxDepth: d, pinned, excluded, informative: data.informative, budget, progressSpan: [0, 1] });
  const cand = skd.adjacency;
  let count = 0; for (let i = 0; i < p * p; i++) count += cand[i]!; count /= 2;
  const e = [] as { source: string; target: string; directed: boolean }[];
  for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) if (cand[i * p + j]) e.push({ source: names[i]!, target: names[j]!, directed: false });
  const rec = skeletonScores(e, truthCpdag).recall;
  for (const [label, s0] of [['pc-start', start], ['empty-start', emptyPdag(p)]] as const) {
    const hc = hillClimb(p, scorer, { candidates: cand, knowledge, start: s0, budget });
    lap(`depth<=${d} cand=${count} recall=${rec.toFixed(2)} ${label}`);
    console.log('   score', hc.score.toFixed(1), 'SHD', structuralHammingDistance(pdagToEdges(names, cpdagOfDag(hc.dag)), truthCpdag));
  }
}
import { greedyEquivalenceSearch } from '../../src/engine/discovery/ges.js';
{
  const sk0 = pcStableSkeleton(p, ciTesterFor(data, kernels), { alpha, maxDepth: 0, pinned, excluded, informative: data.informative, budget, progressSpan: [0, 1] });
  for (const [label, cand] of [['depth0', sk0.adjacency], ['all', new Uint8Array(p * p).fill(1)], ['pcskel', candidates]] as const) {
    for (const [sl, s0] of [['empty', emptyPdag(p)], ['pc', pattern]] as const) {
      t = performance.now();
      const res = greedyEquivalenceSearch(p, scorer, { candidates: cand, forbidden: knowledge.forbidden, pinned, start: s0, budget });
      const dag = (await import('../../src/engine/graph/dag.js')).consistentExtension(res.cpdag)!;
      lap(`GES ${label} start=${sl} steps=${res.steps}`);
      console.log('   score', total(dag).toFixed(1), 'SHD', structuralHammingDistance(pdagToEdges(names, res.cpdag), truthCpdag));
    }
  }
}
