/**
 * Causal discovery for a static twin (DESIGN.md "Static discovery"): PC-stable skeleton with the CI test chosen by
 * data type, v-structures and Meek rules; then the better (extended BIC, local-score.ts) of two score searches
 * (tabu hill climbing from the PC pattern, and GES from the empty graph refined by the same hill climbing;
 * score-search.ts) picks the DAG, on continuous data refined further by seeded perturbation restarts and by the best
 * order score search (order-search.ts; past 100 variables it replaces GES and the restarts, over neighbourhoods), on
 * discrete and mixed data by the order search from the edge searches' DAG (score-search.ts says when it tries more
 * starts; with missing values it runs on the complete rows alone, when they are at least 90% of the rows). The
 * answer is that DAG with edge strengths, and its CPDAG.
 *
 * Missing values (nothing is imputed into the data): the Gaussian statistics use the EM maximum-likelihood
 * covariance (tests take the smallest pairwise count as n), G-square drops the rows missing in a test's variables
 * (test-wise deletion), and count/logistic scores use the rows observing each family (search moves compare two
 * families on their common rows).
 *
 * Every step is deterministic (the restarts' perturbations use a fixed seed), so `options.seed` changes nothing
 * here; bootstrap resamples carry their own seed (bootstrap.ts).
 */
import type { Kernels } from '../../compute/kernels.js';
import { completeRows, selectRows } from '../frame.js';
import { cpdagOfDag } from '../graph/cpdag.js';
import { applyMeekRules } from '../graph/meek.js';
import { clonePdag, isDirected, type Pdag, parentsOf, pdagToEdges, setDirected, setUndirected } from '../graph/pdag.js';
import type { DiscoveredEdge, DiscoveryOptions, DiscoveryResult, EdgeRef, Frame, WorkHooks } from '../types.js';
import { WorkBudget } from './budget.js';
import { ciTesterFor } from './ci-tests.js';
import { copyStrength } from './copies.js';
import { startingDag } from './dag-from-pdag.js';
import { buildKnowledge, type Knowledge, skeletonMasks } from './knowledge.js';
import { type LocalScorer, localScorerFor } from './local-score.js';
import type { GaussianMoments } from './order-search.js';
import { applyKnowledge, orientSkeleton } from './orient-pc.js';
import { pcStableSkeleton } from './pc-skeleton.js';
import { type PreparedData, prepareForDiscovery } from './prepare.js';
import { searchBestDag } from './score-search.js';
import { edgeStrength } from './strength.js';

export const DEFAULT_ALPHA = 0.05;
export const DEFAULT_TIME_BUDGET_MS = 60_000;
/** Least share of complete rows for the order search on count or mixed scores to run on data with missing values
 * (on the complete rows alone): one missing cell among 100,000 took dense mixed graphs from SHD 0 to 21-45. */
const COMPLETE_ROWS_FOR_ORDER_SEARCH = 0.9;

export function discoverStatic(frame: Frame, options: DiscoveryOptions, kernels: Kernels, hooks: WorkHooks = {}): DiscoveryResult {
  const budget = new WorkBudget(options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS, hooks);
  budget.checkpoint();
  budget.progress(0, 'prepare');
  const data = prepareForDiscovery(frame, kernels, { copies: options });
  const { p, names, copyOf } = data;
  // Knowledge between a column and its copy chose which of the two is searched (copies.ts); the rest is the search's.
  const index = new Map(names.map((name, j) => [name, j]));
  const standsFor = (name: string) => {
    const j = index.get(name);
    return j === undefined ? name : names[copyOf[j]! >= 0 ? copyOf[j]! : j];
  };
  const betweenCopies = (e: EdgeRef) => standsFor(e.source) === standsFor(e.target);
  const pinnedCopies = (options.required ?? []).filter(betweenCopies);
  const knowledge = buildKnowledge(names, options.required?.filter((e) => !betweenCopies(e)), options.forbidden?.filter((e) => !betweenCopies(e)));
  const { pinned, excluded } = skeletonMasks(knowledge, p);
  const skeleton = pcStableSkeleton(p, ciTesterFor(data, kernels), {
    alpha: options.alpha ?? DEFAULT_ALPHA,
    maxDepth: Math.max(0, Math.min(options.maxDepth ?? Number.POSITIVE_INFINITY, p - 2)),
    pinned, excluded, informative: data.informative, budget, progressSpan: [0.02, 0.6],
  });
  budget.progress(0.6, 'orient');
  const pattern = orientSkeleton(p, skeleton, knowledge);
  let dag = startingDag(pattern, knowledge);
  const scorer = localScorerFor(data, kernels);
  let timedOut = skeleton.timedOut;
  if (!timedOut) {
    const candidates = candidatePairs(data, skeleton.marginal, pinned, excluded);
    // Restarts with perturbation only with Gaussian scores (continuous data), where a family costs a small solve on
    // the covariance; count and logistic scores pass over the rows, and on bnlearn insurance a restart found a DAG
    // 172 BIC units better that is further from the truth (SHD 10 -> 14).
    const restarts = data.mode === 'continuous';
    const scoreOrderSearch = data.completeShare < COMPLETE_ROWS_FOR_ORDER_SEARCH ? undefined : data.mode === 'discrete' ? 'counts' : data.mode === 'mixed' ? 'mixed' : undefined;
    const reopenable = data.mode === 'discrete' || scoreOrderSearch === 'mixed' ? reopenablePairs(data, candidates, excluded) : undefined;
    const search = searchBestDag({
      p, scorer, knowledge, candidates, pinned, pattern, budget, progressSpan: [0.62, 0.95], restarts, informative: data.informative,
      moments: gaussianMoments(data), reopenable, scoreOrderSearch,
      ...(scoreOrderSearch === 'counts' ? { categories: data.levels } : {}),
      ...(scoreOrderSearch && data.completeShare < 1 ? { completeRowsScorer: completeRowsScorer(frame, data, kernels) } : {}),
    });
    dag = search.dag;
    timedOut = search.timedOut;
  }
  budget.checkpoint();
  budget.progress(0.96, 'summarise');
  // Each exact copy hangs off the column it copies; the data decide neither that edge's direction nor which of the
  // two carries the other edges (copies.ts), so the class leaves it undirected.
  for (let j = 0; j < p; j++) if (copyOf[j]! >= 0) setDirected(dag, copyOf[j]!, j);
  const classFromData = cpdagOfDag(dag);
  const cpdag = withKnowledge(classFromData, knowledge);
  for (let j = 0; j < p; j++) {
    if (copyOf[j]! < 0) continue;
    setUndirected(classFromData, copyOf[j]!, j);
    // A pinned edge between the two chose the one searched: the class keeps its direction.
    if (pinnedCopies.some((e) => e.target === names[j])) setDirected(cpdag, copyOf[j]!, j);
    else setUndirected(cpdag, copyOf[j]!, j);
  }
  const edges: DiscoveredEdge[] = [];
  for (let j = 0; j < p; j++) {
    const parents = parentsOf(dag, j);
    for (const i of parents) {
      edges.push({
        source: names[i]!,
        target: names[j]!,
        strength: copyOf[j] === i ? copyStrength(data, i, j) : edgeStrength(data, scorer, kernels, i, j, parents),
        orientationFromData: isDirected(classFromData, i, j),
      });
    }
  }
  budget.progress(1, 'done');
  const copies = [...copyOf].flatMap((i, j) => (i >= 0 ? [{ column: names[j]!, copyOf: names[i]! }] : []));
  return {
    edges,
    cpdag: pdagToEdges(names, cpdag),
    ...(copies.length > 0 ? { copies } : {}),
    stats: { tests: skeleton.tests, depthReached: skeleton.depthReached, timedOut, millis: Math.round(budget.elapsedMs) },
  };
}

/**
 * Pairs the score search may join. Between two continuous variables (in continuous or mixed data) either family is
 * Gaussian and costs a small solve on the covariance, so every such pair is a candidate: a pair whose direct effect
 * is cancelled along another path looks marginally independent and must stay open (a panel's heterogeneous
 * mechanisms, searched with the environment indicator, hit this). Count and logistic scores pass over the rows, so
 * pairs with a categorical end are bounded by those PC found marginally dependent (the idea of max-min hill
 * climbing, Tsamardinos et al. 2006). Pinned pairs are always candidates; pairs forbidden both ways never are.
 */
function candidatePairs(data: PreparedData, marginal: Uint8Array, pinned: Uint8Array, excluded: Uint8Array): Uint8Array {
  const { p } = data;
  const out = new Uint8Array(p * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) {
    if (i === j) continue;
    const gaussianPair = data.kinds[i] === 'continuous' && data.kinds[j] === 'continuous' && data.informative[i] === 1 && data.informative[j] === 1;
    const open = gaussianPair || marginal[i * p + j] === 1;
    out[i * p + j] = pinned[i * p + j] === 1 || (open && excluded[i * p + j] === 0) ? 1 : 0;
  }
  return out;
}

/** Pairs of informative variables left out of the candidates and not excluded by knowledge. */
function reopenablePairs(data: PreparedData, candidates: Uint8Array, excluded: Uint8Array): Uint8Array {
  const { p } = data;
  const out = new Uint8Array(p * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) {
    const k = i * p + j;
    if (i !== j && candidates[k] === 0 && excluded[k] === 0 && data.informative[i] === 1 && data.informative[j] === 1) out[k] = 1;
  }
  return out;
}

/** The local scorer of the rows where every variable searched is observed, over the same variables searched. */
function completeRowsScorer(frame: Frame, data: PreparedData, kernels: Kernels): LocalScorer {
  const rows = completeRows(frame, data.names.filter((_, j) => data.informative[j] === 1));
  const subset = prepareForDiscovery(selectRows(frame, rows), kernels);
  // A variable searched in the whole data but constant on these rows scores nothing here, as a copy does.
  return localScorerFor({ ...subset, informative: Uint8Array.from(data.informative, (v, j) => v & subset.informative[j]!) }, kernels);
}

/** The covariance view the order search needs: continuous data with one column per variable searched, else none. */
function gaussianMoments(data: PreparedData): GaussianMoments | undefined {
  if (data.mode !== 'continuous' || !data.moments || data.blocks.some((b, j) => b.length !== data.informative[j])) return undefined;
  return { cov: data.moments.cov, q: data.moments.q, column: data.blocks.map((b) => b[0] ?? -1) };
}

/** The equivalence class narrowed by background knowledge: required/forbidden orientations, then Meek R1-R4. */
function withKnowledge(cpdag: Pdag, knowledge: Knowledge): Pdag {
  const out = clonePdag(cpdag);
  applyKnowledge(out, knowledge);
  applyMeekRules(out, true);
  return out;
}
