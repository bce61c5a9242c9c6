/**
 * The score-based stage: two searches for the BIC-best DAG, the better one kept (two starts guard against the
 * local optima either search can end in):
 *  - from the PC pattern: its DAG extension refined by tabu hill climbing;
 *  - from nothing: greedy equivalence search (GES), its DAG refined by the same hill climbing, which also brings
 *    the required and forbidden edges in (GES itself only avoids inserting forbidden edges and deleting pinned
 *    pairs).
 * Both search over the same candidate pairs. With `restarts` the better of the two is then refined by iterated
 * local search (perturbAndClimb): random reversals followed by hill climbing. With Gaussian `moments` (continuous
 * data) and at most ORDER_SEARCH_MAX_VARIABLES variables, the best order score search (order-search.ts) finally
 * starts from the result's order (and from random ones) and is kept when it scores higher: on dense graphs (ER4,
 * average degree 8) every edge search ends in optima that compensate wrong orientations with extra edges, far below
 * the true graph's score. Past that size (continuous data) GES and the restarts give way to the order search over
 * neighbourhoods (neighbourhoodOrderSearch), from the hill-climbed PC pattern. With count scores (discrete data) the
 * candidate pairs are the marginally dependent ones (as in max-min hill climbing), which leaves out a parent whose
 * effect averages out over its co-parents (X independent of Y, but not given Y's other parents; bnlearn hepar2 has
 * several): `reopenable` pairs whose addition to the result raises the score given the child's parents there become
 * candidates (widenCandidates adds them to `candidates` in place), and hill climbing continues. Then, on complete
 * discrete data, families whose parents act only together are sought by backward elimination (jointFamilies;
 * bnlearn andes: SHD 37 -> 14), and the order search runs on count scores, over the candidates and the reopenable
 * pairs within two steps in the pattern or the result (orderSearchCandidates), from the edge searches' DAG only: on
 * data sampled from bnlearn's networks it finds DAGs that score higher than the edge searches' (win95pts at 1,000
 * rows: SHD 42 and 50 -> 31 and 29). On complete mixed data the order search runs over the same pairs, from the
 * edge searches' DAG and from random orders when that start scored higher than the edge searches (one 3-category
 * column among 20 number variables of degree 6 left the edge searches at SHD 91, the order search at 0).
 */
import { consistentExtension, reaches, topologicalOrder } from '../graph/dag.js';
import { clonePdag, emptyPdag, isDirected, parentsOf, type Pdag, removeEdge, setDirected } from '../graph/pdag.js';
import { Rng } from '../random.js';
import type { WorkBudget } from './budget.js';
import { startingDag } from './dag-from-pdag.js';
import { greedyEquivalenceSearch } from './ges.js';
import { hillClimb } from './hill-climb.js';
import type { Knowledge } from './knowledge.js';
import type { LocalScorer } from './local-score.js';
import { bestOrderSearch, type GaussianMoments } from './order-search.js';

/** The order search over every pair runs up to this many variables (a sweep re-chooses O(p^2) families, each
 * grown from up to p candidates); past it, the search over neighbourhoods (neighbourhoodOrderSearch) runs instead. */
export const ORDER_SEARCH_MAX_VARIABLES = 100;

export interface ScoreSearchInput {
  p: number;
  scorer: LocalScorer;
  knowledge: Knowledge;
  candidates: Uint8Array;
  pinned: Uint8Array;
  pattern: Pdag;
  budget: WorkBudget;
  progressSpan: [number, number];
  /** Follow with perturbation restarts (perturbAndClimb). */
  restarts?: boolean;
  /** 1 for a variable searched, 0 for one kept out (no variation, or an exact copy): it gets no edges. */
  informative: Uint8Array;
  /** Gaussian moments of the variables (continuous data): enables the order search. */
  moments?: GaussianMoments;
  /** 1 at i * p + j: a pair left out of the candidates (count and logistic families are bounded by the marginal
   * screen) that the order search on scores may use near the result (orderSearchCandidates), and that on count
   * scores may join the candidates when i improves j's family in the result (widenCandidates). */
  reopenable?: Uint8Array;
  /**
   * The order search without Gaussian moments, on the scorer's gains, over the candidates and the reopenable pairs
   * near the result. On count scores (discrete data) one start, from the edge searches' DAG (a family costs a pass
   * over the rows). On mixed data a categorical node's family with a number parent is a logistic fit, so random
   * orders are tried only when the start from the edge searches' DAG improved on it (the sign of a graph where edge
   * moves stop short). With missing values each family's score rests on the rows that observe it, and the order
   * search compares sums of such scores (the edge searches compare moves on common rows instead): with 10% of the
   * values missing at random, 20 discrete 8-variable graphs went from summed SHD 22 to 53 with it, six 20-variable
   * mixed graphs from 26 to 34. So on data with missing values it runs only where the complete rows are most of
   * them, on those rows alone (completeRowsScorer).
   */
  scoreOrderSearch?: 'counts' | 'mixed';
  /** With a few incomplete rows: the scorer of the complete rows alone, which the order search on scores and its
   * comparison with the edge searches' DAG then use, so that every family rests on the same rows. */
  completeRowsScorer?: LocalScorer;
  /** The number of categories of each variable (count scores, with `reopenable`): enables the search for families
   * whose parents act only together (jointFamilies; with missing values on completeRowsScorer's rows). */
  categories?: Int32Array;
}

export interface ScoreSearchResult {
  dag: Pdag;
  score: number;
  timedOut: boolean;
  /** Which search found the DAG kept: hill climbing from the PC pattern, GES, or the order search. */
  start: 'pc' | 'ges' | 'order';
}

export function searchBestDag(input: ScoreSearchInput): ScoreSearchResult {
  const { p, scorer, knowledge, candidates, pinned, budget } = input;
  const [from, to] = input.progressSpan;
  const middle = (from + to) / 2;
  const fromPattern = hillClimb(p, scorer, { candidates, knowledge, start: startingDag(input.pattern, knowledge), budget, progressSpan: [from, middle] });
  if (fromPattern.timedOut) return { dag: fromPattern.dag, score: dagScore(fromPattern.dag, scorer), timedOut: true, start: 'pc' };
  if (input.moments && p > ORDER_SEARCH_MAX_VARIABLES) {
    return neighbourhoodOrderSearch(input, input.moments, { dag: fromPattern.dag, score: dagScore(fromPattern.dag, scorer), timedOut: false, start: 'pc' });
  }
  const ges = greedyEquivalenceSearch(p, scorer, {
    candidates, forbidden: knowledge.forbidden, pinned, start: emptyPdag(p), budget, progressSpan: [middle, middle + (to - middle) * 0.8],
  });
  const gesDag = consistentExtension(ges.cpdag) ?? emptyPdag(p);
  const fromGes = hillClimb(p, scorer, { candidates, knowledge, start: startingDag(gesDag, knowledge), budget, progressSpan: [middle + (to - middle) * 0.8, to] });
  const timedOut = ges.timedOut || fromGes.timedOut;
  // Compared by total score (the climbs track sums of gains, which with missing values are on differing rows).
  const patternScore = dagScore(fromPattern.dag, scorer);
  const gesScore = dagScore(fromGes.dag, scorer);
  let chosen: ScoreSearchResult = gesScore > patternScore + 1e-9 * Math.abs(patternScore)
    ? { dag: fromGes.dag, score: gesScore, timedOut, start: 'ges' }
    : { dag: fromPattern.dag, score: patternScore, timedOut, start: 'pc' };
  if (timedOut) return chosen;
  if (input.restarts) chosen = perturbAndClimb(input, chosen);
  // Widening on count scores only: a logistic family (mixed data) costs an iterative fit per pair.
  if (input.reopenable && input.scoreOrderSearch !== 'mixed') chosen = widenCandidates(input, input.reopenable, chosen);
  if (input.reopenable && input.categories && !chosen.timedOut) chosen = jointFamilies(input, input.categories, input.reopenable, chosen);
  if (chosen.timedOut || p > ORDER_SEARCH_MAX_VARIABLES) return chosen;
  if (input.moments) return orderSearches(input, input.moments, chosen);
  if (!input.scoreOrderSearch || !input.reopenable) return chosen;
  const orderScorer = input.completeRowsScorer ?? scorer;
  const near = { ...input, scorer: orderScorer, candidates: orderSearchCandidates(input, input.reopenable, chosen.dag) };
  const start = orderScorer === scorer ? chosen : { ...chosen, score: dagScore(chosen.dag, orderScorer) };
  const found = input.scoreOrderSearch === 'counts' ? orderSearches(near, undefined, start, 1) : orderSearches(near, undefined, start, ORDER_STARTS, 'after a gain');
  if (orderScorer === scorer) return found;
  return found.start === 'order' ? { ...found, score: dagScore(found.dag, scorer) } : { ...chosen, timedOut: found.timedOut };
}

/**
 * The pairs the order search on scores may make parents: the hill climb's candidates, and any pair the search may
 * reopen whose ends lie within two steps of each other in the PC pattern or the DAG found so far. The marginal
 * screen that bounds the climb on count and logistic families drops parents whose effect averages out over a
 * co-parent or cancels along another path; an order move rewires a node's family at once, so such a parent can join
 * with the co-parent that reveals it (dense mixed graphs: SHD 34 -> 2 over four, against the candidates alone).
 */
function orderSearchCandidates(input: ScoreSearchInput, reopenable: Uint8Array, dag: Pdag): Uint8Array {
  const { p, candidates } = input;
  const open = Uint8Array.from(candidates, (c, k) => (c === 1 || reopenable[k] === 1 ? 1 : 0));
  const near = withinTwoSteps(p, open, [input.pattern, dag]);
  for (let k = 0; k < p * p; k++) if (candidates[k] === 1) near[k] = 1;
  return near;
}

/** Candidates a node's joint family starts from at most: backward elimination costs the square of their number in
 * family scores, each a pass over the rows (andes, 10k rows, seed 1: SHD 34 with 10, 26 with 14 or no limit). */
const JOINT_POOL_MAX = 14;

/**
 * Families whose parents act only together. A parent that matters only jointly with others (a noisy AND of several
 * inputs: in bnlearn andes a node is true with probability 0.1 unless all five of its binary parents are true) gains
 * less alone than it costs, so the searches that add one edge at a time never start such a family. For each node,
 * its candidate parents among the pairs the order search may use (orderSearchCandidates) that keep the graph acyclic
 * join its family at once, ranked by their gain alone, while the family's table has at least one row per cell (and
 * at most JOINT_POOL_MAX of them); they then leave it one at a time, the one whose removal leaves the best score
 * first (backward elimination, which finds the joint effects forward selection misses). The best family met on the
 * way replaces the node's when it scores higher (the largest improvements first, none that would close a cycle),
 * and hill climbing resumes.
 */
function jointFamilies(input: ScoreSearchInput, categories: Int32Array, reopenable: Uint8Array, start: ScoreSearchResult): ScoreSearchResult {
  const { p, knowledge, candidates, budget } = input;
  // Families of one node with different parents are compared: with missing values, on the complete rows alone.
  const scorer = input.completeRowsScorer ?? input.scorer;
  const dag = clonePdag(start.dag);
  const open = orderSearchCandidates(input, reopenable, start.dag);
  const found: Array<{ node: number; added: number[]; improvement: number }> = [];
  for (let j = 0; j < p && !budget.checkpoint(); j++) {
    if (input.informative[j] !== 1) continue;
    const parents = parentsOf(dag, j);
    const ranked: Array<{ i: number; gain: number }> = [];
    for (let i = 0; i < p; i++) {
      if (i === j || open[i * p + j] !== 1 || knowledge.forbidden[i * p + j] === 1 || parents.includes(i) || reaches(dag, j, i)) continue;
      ranked.push({ i, gain: scorer.gain(j, parents, i) });
    }
    ranked.sort((a, b) => b.gain - a.gain || a.i - b.i);
    let cells = categories[j]! * parents.reduce((c, v) => c * categories[v]!, 1);
    const pool: number[] = [];
    for (const { i } of ranked) {
      if (pool.length === JOINT_POOL_MAX) break;
      if (cells * categories[i]! > scorer.n) continue;
      cells *= categories[i]!;
      pool.push(i);
    }
    if (pool.length < 2) continue;
    let family = [...parents, ...pool];
    const current = scorer.score(j, parents);
    let best = current;
    let bestFamily: number[] | null = null;
    while (family.length > parents.length + 1) {
      let drop = -1;
      let dropScore = Number.NEGATIVE_INFINITY;
      for (let a = parents.length; a < family.length; a++) {
        const smaller = scorer.score(j, family.filter((_, b) => b !== a));
        if (smaller > dropScore) {
          dropScore = smaller;
          drop = a;
        }
      }
      family = family.filter((_, b) => b !== drop);
      if (dropScore > best + 1e-9 * Math.abs(best)) {
        best = dropScore;
        bestFamily = family;
      }
    }
    if (bestFamily) found.push({ node: j, added: bestFamily.filter((i) => !parents.includes(i)), improvement: best - current });
  }
  // The largest improvements first; a family whose parents would now close a cycle is left out.
  found.sort((a, b) => b.improvement - a.improvement || a.node - b.node);
  let changed = false;
  for (const { node, added } of found) {
    if (added.some((i) => reaches(dag, node, i))) continue;
    for (const i of added) setDirected(dag, i, node);
    changed = true;
  }
  if (!changed) return start;
  const climbed = hillClimb(p, input.scorer, { candidates, knowledge, start: dag, budget });
  const before = scorer === input.scorer ? start.score : dagScore(start.dag, scorer);
  const after = dagScore(climbed.dag, scorer);
  if (!(after > before + 1e-9 * Math.abs(before))) return start;
  return { ...start, dag: climbed.dag, score: scorer === input.scorer ? after : dagScore(climbed.dag, input.scorer), timedOut: climbed.timedOut };
}

/** Rounds of candidate widening at most (each usually adds a handful of pairs; the second rarely any). */
const WIDEN_ROUNDS = 3;

/**
 * Pairs outside the candidates that raise a child's score given its parents in the best DAG join them (both ways:
 * the climb may orient the pair either way), and hill climbing resumes from that DAG; repeated while pairs join and
 * the score improves.
 */
function widenCandidates(input: ScoreSearchInput, reopenable: Uint8Array, start: ScoreSearchResult): ScoreSearchResult {
  const { p, scorer, knowledge, candidates, budget } = input;
  let best = start;
  for (let round = 0; round < WIDEN_ROUNDS && !best.timedOut; round++) {
    let joined = 0;
    for (let j = 0; j < p; j++) {
      const parents = parentsOf(best.dag, j);
      for (let i = 0; i < p; i++) {
        if (reopenable[i * p + j] !== 1 || candidates[i * p + j] === 1 || scorer.gain(j, parents, i) <= 0) continue;
        candidates[i * p + j] = 1;
        if (reopenable[j * p + i] === 1) candidates[j * p + i] = 1;
        joined++;
      }
    }
    if (joined === 0 || budget.checkpoint()) break;
    const climbed = hillClimb(p, scorer, { candidates, knowledge, start: best.dag, budget });
    const score = dagScore(climbed.dag, scorer);
    if (climbed.timedOut) return score > best.score ? { ...best, dag: climbed.dag, score, timedOut: true } : { ...best, timedOut: true };
    if (!(score > best.score + 1e-9 * Math.abs(best.score))) break;
    best = { ...best, dag: climbed.dag, score };
  }
  return best;
}

/** Order searches at most: from the best DAG's order, then from seeded random orders. */
export const ORDER_STARTS = 4;
/** Up to this many variables a start costs milliseconds, and every start runs. */
const ALL_STARTS_UP_TO = 30;
const ORDER_SEED = 0x0b055;

/**
 * The order search from the edge searches' DAG, then from seeded random orders until one finds no better DAG than
 * the starts before it (at most ORDER_STARTS in all; up to ALL_STARTS_UP_TO variables all of them); the best is kept when it scores higher than the edge
 * searches' DAG. Order search has local optima too: on dense graphs one start in four or five ends in one far from
 * the best, and an edge-search optimum can be an order-search optimum as well (a 10-variable graph whose truth
 * scores 11.5 higher came back at SHD 11 from both).
 */
function orderSearches(input: ScoreSearchInput, moments: GaussianMoments | undefined, edgeSearch: ScoreSearchResult, starts = ORDER_STARTS, randomStarts: 'always' | 'after a gain' = 'always'): ScoreSearchResult {
  const { p, scorer, knowledge, candidates, budget } = input;
  const rng = new Rng(ORDER_SEED);
  const searched = Array.from({ length: p }, (_, j) => j).filter((j) => input.informative[j] === 1);
  const idle = Array.from({ length: p }, (_, j) => j).filter((j) => input.informative[j] !== 1);
  let best = edgeSearch;
  for (let start = 0; start < starts; start++) {
    // Random orders of the variables searched (those kept out go last), so a column that carries nothing does not
    // change the orders the others are tried in.
    const order = start === 0 ? topologicalOrder(edgeSearch.dag)! : [...rng.shuffle([...searched]), ...idle];
    const found = bestOrderSearch({ p, scorer, ...(moments === undefined ? {} : { moments }), knowledge, candidates, budget, start: consistentWithRequired(order, knowledge, p) });
    const score = dagScore(found.dag, scorer);
    const improved = score > best.score + 1e-9 * Math.abs(best.score);
    if (improved) best = { dag: found.dag, score, timedOut: found.timedOut, start: 'order' };
    if (found.timedOut) return { ...best, timedOut: true };
    if (start > 0 && !improved && p > ALL_STARTS_UP_TO) break;
    if (start === 0 && !improved && randomStarts === 'after a gain') break;
  }
  return best;
}

/** Rounds of the neighbourhood order search at most (each from the last one's DAG, over its neighbourhoods). */
const NEIGHBOURHOOD_ROUNDS = 5;

/**
 * The order search past ORDER_SEARCH_MAX_VARIABLES, where GES from nothing takes minutes (ER2 at 500 variables: not
 * done after 2.5 min) and an order search over every pair grows as p^4. Each node's candidate parents are the nodes
 * within two steps of it in the PC skeleton or in the DAG found so far (its neighbours, spouses and their
 * neighbours: a true parent the skeleton missed is usually one step from a node it kept); a move then re-chooses
 * the families of the moved node and its candidate children only. The search starts from hill climbing's DAG and
 * runs again over the neighbourhoods of each result while the score improves (a better DAG brings candidates the
 * last neighbourhoods lacked).
 */
function neighbourhoodOrderSearch(input: ScoreSearchInput, moments: GaussianMoments, start: ScoreSearchResult): ScoreSearchResult {
  let best = start;
  for (let round = 0; round < NEIGHBOURHOOD_ROUNDS; round++) {
    const near = withinTwoSteps(input.p, input.candidates, [input.pattern, best.dag]);
    const found = orderSearches({ ...input, candidates: near }, moments, best, 1);
    const improved = found.score > best.score + 1e-9 * Math.abs(best.score);
    if (improved) best = found;
    if (found.timedOut) return { ...best, timedOut: true };
    if (!improved) break;
  }
  return best;
}

/** Candidate pairs (j may be a parent of i) with j within two steps of i in any of `graphs`, edges taken either way. */
function withinTwoSteps(p: number, candidates: Uint8Array, graphs: readonly Pdag[]): Uint8Array {
  const adjacent = Array.from({ length: p }, () => new Set<number>());
  for (const g of graphs) {
    for (let i = 0; i < p; i++) {
      for (let j = 0; j < p; j++) {
        if (g.m[i * p + j] !== 1) continue;
        adjacent[i]!.add(j);
        adjacent[j]!.add(i);
      }
    }
  }
  const out = new Uint8Array(p * p);
  for (let i = 0; i < p; i++) {
    for (const j of adjacent[i]!) {
      if (candidates[j * p + i] === 1) out[j * p + i] = 1;
      for (const k of adjacent[j]!) if (k !== i && candidates[k * p + i] === 1) out[k * p + i] = 1;
    }
  }
  return out;
}

/** The order with every required edge pointing forward (a stable topological sort of the required edges). */
function consistentWithRequired(order: readonly number[], knowledge: Knowledge, p: number): number[] {
  const out: number[] = [];
  const placed = new Uint8Array(p);
  const place = (v: number) => {
    if (placed[v] === 1) return;
    placed[v] = 1;
    for (let u = 0; u < p; u++) if (knowledge.required[u * p + v] === 1) place(u);
    out.push(v);
  };
  for (const v of order) place(v);
  return out;
}

/** Perturbation rounds at most; consecutive rounds without a better score before stopping; hill-climbing steps
 * (all rounds together) per variable at most; share of the edges a perturbation reverses. */
export const RESTART_ROUNDS = 60;
export const RESTART_PATIENCE = 6;
export const RESTART_STEPS_PER_VARIABLE = 80;
export const RESTART_REVERSE_SHARE = 0.15;
/** Fixed seed of the perturbations: the search stays deterministic. */
const RESTART_SEED = 0x1e5;

/**
 * Iterated local search (as the random restarts with perturbation of bnlearn's hill climbing): reverse a random
 * share of the best DAG's edges (deleting those whose reversal would close a cycle), hill-climb, keep the result
 * when its score is better. Bounded by rounds, patience and a step count proportional to p, all deterministic.
 */
function perturbAndClimb(input: ScoreSearchInput, start: ScoreSearchResult): ScoreSearchResult {
  const { p, scorer, knowledge, candidates, budget } = input;
  const rng = new Rng(RESTART_SEED);
  let best = start;
  let fails = 0;
  let iterations = 0;
  for (let round = 0; round < RESTART_ROUNDS && fails < RESTART_PATIENCE && iterations < RESTART_STEPS_PER_VARIABLE * p; round++) {
    if (budget.checkpoint()) break;
    const g = clonePdag(best.dag);
    const edges: [number, number][] = [];
    for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) if (isDirected(g, i, j) && knowledge.required[i * p + j] !== 1) edges.push([i, j]);
    for (const [i, j] of rng.shuffle(edges)) {
      if (rng.uniform() >= RESTART_REVERSE_SHARE) continue;
      removeEdge(g, i, j);
      if (knowledge.forbidden[j * p + i] !== 1 && !reaches(g, i, j)) setDirected(g, j, i);
    }
    const climbed = hillClimb(p, scorer, { candidates, knowledge, start: g, budget });
    const score = dagScore(climbed.dag, scorer);
    iterations += climbed.iterations;
    if (score > best.score + 1e-9 * Math.abs(best.score)) {
      best = { ...best, dag: climbed.dag, score };
      fails = 0;
    } else fails++;
    if (climbed.timedOut) return { ...best, timedOut: true };
  }
  return best;
}

/** Total BIC of a DAG (sum of local scores). */
export function dagScore(dag: Pdag, scorer: LocalScorer): number {
  let total = 0;
  for (let j = 0; j < dag.p; j++) total += scorer.score(j, parentsOf(dag, j));
  return total;
}
