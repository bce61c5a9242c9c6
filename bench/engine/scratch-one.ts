import { referenceKernels as kernels } from '../../src/compute/reference.js';
import { prepareForDiscovery } from '../../src/engine/discovery/prepare.js';
import { localScorerFor } from '../../src/engine/discovery/local-score.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { pdagFromEdges, parentsOf } from '../../src/engine/graph/pdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import { modelEdges, randomModel, sampleModel } from '../../src/engine/simulate.js';
const [p, seed, n, share] = process.argv.slice(2).map(Number);
const model = randomModel(p!, 2, seed!, { categoricalShare: share ?? 0 });
const frame = sampleModel(model, n!, seed! + 100);
const names = model.nodes.map((x) => x.name);
const truthEdges = modelEdges(model);
const truth = dagToCpdag(names, truthEdges);
const data = prepareForDiscovery(frame, kernels);
const scorer = localScorerFor(data, kernels);
const total = (edges: { source: string; target: string }[]) => { const g = pdagFromEdges(names, edges.map((e) => ({ ...e, directed: true }))); let s = 0; for (let j = 0; j < p!; j++) s += scorer.score(j, parentsOf(g, j)); return s; };
const r = discoverStatic(frame, {}, kernels);
console.log('truth score', total(truthEdges).toFixed(1), 'found score', total(r.edges).toFixed(1), 'SHD', structuralHammingDistance(r.cpdag, truth));
console.log('truth', truthEdges.map((e) => `${e.source}->${e.target}`).join(' '));
console.log('found', r.edges.map((e) => `${e.source}->${e.target}`).join(' '));
for (const node of model.nodes) if (node.kind === 'continuous' && node.parents.length) console.log(node.name, node.parents.map((q, t) => `${model.nodes[q]!.name}:${node.weights[t]!.toFixed(2)}`).join(' '));
import { greedyEquivalenceSearch } from '../../src/engine/discovery/ges.js';
import { hillClimb } from '../../src/engine/discovery/hill-climb.js';
import { buildKnowledge } from '../../src/engine/discovery/knowledge.js';
import { WorkBudget } from '../../src/engine/discovery/budget.js';
import { consistentExtension } from '../../src/engine/graph/dag.js';
import { emptyPdag, pdagToEdges, type Pdag } from '../../src/engine/graph/pdag.js';
import { cpdagOfDag } from '../../src/engine/graph/cpdag.js';
{
  const pp = p!;
  const all = new Uint8Array(pp * pp).fill(1);
  const knowledge = buildKnowledge(names);
  const budget = new WorkBudget(1e9);
  const tot = (g: Pdag) => { let s = 0; for (let j = 0; j < pp; j++) s += scorer.score(j, parentsOf(g, j)); return s; };
  const ges = greedyEquivalenceSearch(pp, scorer, { candidates: all, forbidden: knowledge.forbidden, pinned: new Uint8Array(pp * pp), start: emptyPdag(pp), budget, maxSubset: 10 });
  const gd = consistentExtension(ges.cpdag)!;
  console.log('GES score', tot(gd).toFixed(1), 'SHD', structuralHammingDistance(pdagToEdges(names, ges.cpdag), truth), 'steps', ges.steps);
  for (const tabu of [10, 30, 100]) {
    const hc = hillClimb(pp, scorer, { candidates: all, knowledge, start: gd, budget, tabuSteps: tabu });
    console.log('GES+HC tabu', tabu, hc.score.toFixed(1), 'SHD', structuralHammingDistance(pdagToEdges(names, cpdagOfDag(hc.dag)), truth));
    const hc0 = hillClimb(pp, scorer, { candidates: all, knowledge, start: emptyPdag(pp), budget, tabuSteps: tabu });
    console.log('HC empty tabu', tabu, hc0.score.toFixed(1), 'SHD', structuralHammingDistance(pdagToEdges(names, cpdagOfDag(hc0.dag)), truth));
  }
}
import { Rng } from '../../src/engine/random.js';
import { reaches } from '../../src/engine/graph/dag.js';
{
  const pp = p!;
  const all = new Uint8Array(pp * pp).fill(1);
  const knowledge = buildKnowledge(names);
  const budget = new WorkBudget(1e9);
  const ges = greedyEquivalenceSearch(pp, scorer, { candidates: all, forbidden: knowledge.forbidden, pinned: new Uint8Array(pp * pp), start: emptyPdag(pp), budget });
  let best = hillClimb(pp, scorer, { candidates: all, knowledge, start: consistentExtension(ges.cpdag)!, budget });
  const rng = new Rng(7);
  for (let restart = 0; restart < 20; restart++) {
    const g: Pdag = { p: pp, m: best.dag.m.slice() };
    for (let k = 0; k < Math.max(3, pp / 2); k++) {
      const i = rng.int(pp), j = rng.int(pp);
      if (i === j) continue;
      if (g.m[i * pp + j]) { g.m[i * pp + j] = 0; if (rng.uniform() < 0.5 && !reaches(g, i, j)) g.m[j * pp + i] = 1; }
      else if (!g.m[j * pp + i] && !reaches(g, j, i)) g.m[i * pp + j] = 1;
    }
    const hc = hillClimb(pp, scorer, { candidates: all, knowledge, start: g, budget });
    if (hc.score > best.score) best = hc;
    console.log('restart', restart, hc.score.toFixed(1), 'best', best.score.toFixed(1), 'SHD', structuralHammingDistance(pdagToEdges(names, cpdagOfDag(best.dag)), truth));
  }
}
