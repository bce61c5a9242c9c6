/**
 * The score-based stage: two searches for the BIC-best DAG, the better one kept (two starts guard against the
 * local optima either search can end in):
 *  - from the PC pattern: its DAG extension refined by tabu hill climbing;
 *  - from nothing: greedy equivalence search (GES), its DAG refined by the same hill climbing, which also brings
 *    the required and forbidden edges in (GES itself only avoids inserting forbidden edges and deleting pinned
 *    pairs).
 * Both search over the same candidate pairs. With `restarts` the better of the two is then refined by iterated local
 * search (perturbAndClimb): on dense graphs (ER2, average degree 4) both greedy starts can end in a local optimum
 * that compensates wrong orientations with extra edges, and random reversals followed by hill climbing get out.
 */
import { consistentExtension, reaches } from '../graph/dag.js';
import { clonePdag, emptyPdag, isDirected, parentsOf, type Pdag, removeEdge, setDirected } from '../graph/pdag.js';
import { Rng } from '../random.js';
import type { WorkBudget } from './budget.js';
import { startingDag } from './dag-from-pdag.js';
import { greedyEquivalenceSearch } from './ges.js';
import { hillClimb } from './hill-climb.js';
import type { Knowledge } from './knowledge.js';
import type { LocalScorer } from './local-score.js';

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
}

export interface ScoreSearchResult {
  dag: Pdag;
  score: number;
  timedOut: boolean;
  /** Which start won: 'pc' or 'ges'. */
  start: 'pc' | 'ges';
}

export function searchBestDag(input: ScoreSearchInput): ScoreSearchResult {
  const { p, scorer, knowledge, candidates, pinned, budget } = input;
  const [from, to] = input.progressSpan;
  const middle = (from + to) / 2;
  const fromPattern = hillClimb(p, scorer, { candidates, knowledge, start: startingDag(input.pattern, knowledge), budget, progressSpan: [from, middle] });
  if (fromPattern.timedOut) return { dag: fromPattern.dag, score: dagScore(fromPattern.dag, scorer), timedOut: true, start: 'pc' };
  const ges = greedyEquivalenceSearch(p, scorer, {
    candidates, forbidden: knowledge.forbidden, pinned, start: emptyPdag(p), budget, progressSpan: [middle, middle + (to - middle) * 0.8],
  });
  const gesDag = consistentExtension(ges.cpdag) ?? emptyPdag(p);
  const fromGes = hillClimb(p, scorer, { candidates, knowledge, start: startingDag(gesDag, knowledge), budget, progressSpan: [middle + (to - middle) * 0.8, to] });
  const timedOut = ges.timedOut || fromGes.timedOut;
  // Compared by total score (the climbs track sums of gains, which with missing values are on differing rows).
  const patternScore = dagScore(fromPattern.dag, scorer);
  const gesScore = dagScore(fromGes.dag, scorer);
  const chosen: ScoreSearchResult = gesScore > patternScore + 1e-9 * Math.abs(patternScore)
    ? { dag: fromGes.dag, score: gesScore, timedOut, start: 'ges' }
    : { dag: fromPattern.dag, score: patternScore, timedOut, start: 'pc' };
  if (timedOut || !input.restarts) return chosen;
  return perturbAndClimb(input, chosen);
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
