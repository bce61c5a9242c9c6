import { referenceKernels as kernels } from '../../src/compute/reference.js';
import { localScorerFor } from '../../src/engine/discovery/local-score.js';
import { greedyEquivalenceSearch } from '../../src/engine/discovery/ges.js';
import { hillClimb } from '../../src/engine/discovery/hill-climb.js';
import { WorkBudget } from '../../src/engine/discovery/budget.js';
import { buildKnowledge } from '../../src/engine/discovery/knowledge.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { consistentExtension } from '../../src/engine/graph/dag.js';
import { emptyPdag, pdagToEdges, parentsOf, pdagFromEdges, type Pdag, countEdges } from '../../src/engine/graph/pdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import { modelEdges, randomModel } from '../../src/engine/simulate.js';
import type { PreparedData } from '../../src/engine/discovery/prepare.js';
const [p, deg, seed] = process.argv.slice(2).map(Number) as [number, number, number];
const model = randomModel(p, deg, seed);
// Population covariance: x = B^T x + e  => Sigma = A A^T with A = (I - B^T)^-1, computed in causal order.
const cov = new Float64Array(p * p);
const order = model.order;
// express each variable as linear combination of noises: coef[j][k]
const coef: Float64Array[] = Array.from({ length: p }, () => new Float64Array(p));
for (const j of order) { const node = model.nodes[j]!; coef[j]![j] = 1; node.parents.forEach((q, t) => { for (let k = 0; k < p; k++) coef[j]![k]! += node.weights[t]! * coef[q]![k]!; }); }
for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) { let s = 0; for (let k = 0; k < p; k++) s += coef[a]![k]! * coef[b]![k]!; cov[a * p + b] = s; }
const n = 1e7;
const data: PreparedData = { names: model.nodes.map((x) => x.name), p, n, mode: 'continuous', kinds: model.nodes.map(() => 'continuous'), levels: new Int32Array(p), informative: new Uint8Array(p).fill(1), values: [], codes: [], blocks: model.nodes.map((_, j) => [j]), moments: { q: p, means: new Float64Array(p), cov, effectiveN: n }, completeShare: 1 };
const scorer = localScorerFor(data, kernels);
const names = data.names;
const truth = dagToCpdag(names, modelEdges(model));
const tot = (g: Pdag) => { let s = 0; for (let j = 0; j < p; j++) s += scorer.score(j, parentsOf(g, j)); return s; };
const all = new Uint8Array(p * p).fill(1);
const knowledge = buildKnowledge(names);
const ges = greedyEquivalenceSearch(p, scorer, { candidates: all, forbidden: knowledge.forbidden, pinned: new Uint8Array(p * p), start: emptyPdag(p), budget: new WorkBudget(1e9), maxSubset: 20 });
const gd = consistentExtension(ges.cpdag)!;
console.log('edges', modelEdges(model).length, 'truth score', tot(pdagFromEdges(names, modelEdges(model).map((e) => ({ ...e, directed: true })))).toFixed(0), 'GES score', tot(gd).toFixed(0), 'edges', countEdges(gd), 'SHD', structuralHammingDistance(pdagToEdges(names, ges.cpdag), truth));
{
  const hc = hillClimb(p, scorer, { candidates: all, knowledge, start: gd, budget: new WorkBudget(1e9), tabuSteps: 0 });
  console.log('HC after GES: score', hc.score.toFixed(0), 'edges', countEdges(hc.dag), 'iters', hc.iterations);
  // single-edge deletions that improve the GES DAG
  let improving = 0;
  for (let y = 0; y < p; y++) { const pa = parentsOf(gd, y); for (const x of pa) { if (scorer.gain(y, pa.filter((v) => v !== x), x) < 0) improving++; } }
  console.log('improving single deletions in GES DAG:', improving);
}
