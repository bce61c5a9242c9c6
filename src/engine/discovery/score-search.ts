/**
 * The score-based stage: two searches for the BIC-best DAG, the better one kept (two starts guard against the
 * local optima either search can end in):
 *  - from the PC pattern: its DAG extension refined by tabu hill climbing;
 *  - from nothing: greedy equivalence search (GES), its DAG refined by the same hill climbing, which also brings
 *    the required and forbidden edges in (GES itself only avoids inserting forbidden edges and deleting pinned
 *    pairs).
 * Both search over the same candidate pairs.
 */
import { consistentExtension } from '../graph/dag.js';
import { emptyPdag, parentsOf, type Pdag } from '../graph/pdag.js';
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
  (globalThis as any).__searchInfo = `pc=${patternScore.toFixed(1)} ges=${gesScore.toFixed(1)} gesRaw=${dagScore(gesDag, scorer).toFixed(1)} gesSteps=${ges.steps}`;
  return gesScore > patternScore + 1e-9 * Math.abs(patternScore)
    ? { dag: fromGes.dag, score: gesScore, timedOut, start: 'ges' }
    : { dag: fromPattern.dag, score: patternScore, timedOut, start: 'pc' };
}

/** Total BIC of a DAG (sum of local scores). */
export function dagScore(dag: Pdag, scorer: LocalScorer): number {
  let total = 0;
  for (let j = 0; j < dag.p; j++) total += scorer.score(j, parentsOf(dag, j));
  return total;
}
