/**
 * Score-based refinement: hill climbing with a tabu list over DAGs (as bnlearn's `tabu`, after Russell & Norvig),
 * restricted to candidate pairs (the max-min hill-climbing idea of Tsamardinos, Brown & Aliferis 2006: the
 * constraint-based skeleton bounds where edges may go). Moves: add, delete, reverse one edge. Each node caches the
 * score change of toggling each candidate parent, so a move costs rescoring only the one or two nodes it touches.
 * Required edges are never deleted or reversed; forbidden edges are never added or produced by a reversal.
 */
import { reaches } from '../graph/dag.js';
import { clonePdag, isDirected, type Pdag } from '../graph/pdag.js';
import type { WorkBudget } from './budget.js';
import type { Knowledge } from './knowledge.js';
import type { LocalScorer } from './local-score.js';

export interface HillClimbOptions {
  /** Symmetric p x p: 1 = the search may put an edge (either way) between the pair. */
  candidates: Uint8Array;
  knowledge: Knowledge;
  /** Starting DAG (must be acyclic and hold the required edges). */
  start: Pdag;
  budget: WorkBudget;
  /** Non-improving steps allowed before stopping (bnlearn's max.tabu), and the length of the tabu list. */
  tabuSteps?: number;
  maxIterations?: number;
  progressSpan?: [number, number];
}

export interface HillClimbResult {
  dag: Pdag;
  score: number;
  iterations: number;
  timedOut: boolean;
}

interface Move {
  kind: 'add' | 'delete' | 'reverse';
  from: number;
  to: number;
  delta: number;
}

export function hillClimb(p: number, scorer: LocalScorer, options: HillClimbOptions): HillClimbResult {
  const { candidates, knowledge, budget } = options;
  const tabuSteps = options.tabuSteps ?? 10;
  const maxIterations = options.maxIterations ?? 50 * p + 1000;
  const g = clonePdag(options.start);
  const parents: number[][] = Array.from({ length: p }, (_, j) => {
    const out: number[] = [];
    for (let i = 0; i < p; i++) if (isDirected(g, i, j)) out.push(i);
    return out;
  });
  const candidateParents: number[][] = Array.from({ length: p }, (_, j) => {
    const out: number[] = [];
    for (let i = 0; i < p; i++) if (i !== j && (candidates[i * p + j] === 1 || isDirected(g, i, j))) out.push(i);
    return out;
  });
  const nodeScore = new Float64Array(p);
  const toggle = new Float64Array(p * p); // toggle[j * p + i]: score change of adding/removing i as a parent of j
  const rescore = (j: number) => {
    const pa = parents[j]!;
    nodeScore[j] = scorer.score(j, pa);
    for (const i of candidateParents[j]!) {
      toggle[j * p + i] = pa.includes(i) ? -scorer.gain(j, pa.filter((v) => v !== i), i) : scorer.gain(j, pa, i);
    }
  };
  for (let j = 0; j < p; j++) rescore(j);
  const hashes = edgeHashes(p);
  let hash = 0;
  for (let j = 0; j < p; j++) for (const i of parents[j]!) hash ^= hashes[i * p + j]!;
  const tabu: number[] = [hash];
  let score = nodeScore.reduce((a, b) => a + b, 0);
  let best = { dag: clonePdag(g), score };
  let sinceBest = 0;
  let iterations = 0;
  let timedOut = false;
  const [from, to] = options.progressSpan ?? [0, 1];
  while (iterations < maxIterations) {
    if (budget.checkpoint()) {
      timedOut = true;
      break;
    }
    const moves: Move[] = [];
    for (let j = 0; j < p; j++) {
      for (const i of candidateParents[j]!) {
        if (isDirected(g, i, j)) {
          if (knowledge.required[i * p + j] === 1) continue;
          moves.push({ kind: 'delete', from: i, to: j, delta: toggle[j * p + i]! });
          if (knowledge.forbidden[j * p + i] === 0 && candidateParents[i]!.includes(j)) {
            moves.push({ kind: 'reverse', from: i, to: j, delta: toggle[j * p + i]! + toggle[i * p + j]! });
          }
        } else if (!isDirected(g, j, i) && knowledge.forbidden[i * p + j] === 0) {
          moves.push({ kind: 'add', from: i, to: j, delta: toggle[j * p + i]! });
        }
      }
    }
    moves.sort((a, b) => b.delta - a.delta);
    let chosen: Move | null = null;
    for (const move of moves) {
      const nextHash = hash ^ hashes[move.from * p + move.to]! ^ (move.kind === 'reverse' ? hashes[move.to * p + move.from]! : 0);
      if (tabu.includes(nextHash)) continue;
      if (move.kind === 'add' && reaches(g, move.to, move.from)) continue;
      if (move.kind === 'reverse' && reaches(g, move.from, move.to, move.from, move.to)) continue;
      chosen = move;
      hash = nextHash;
      break;
    }
    if (chosen === null) break;
    applyMove(g, parents, chosen);
    rescore(chosen.to);
    if (chosen.kind === 'reverse') rescore(chosen.from);
    score += chosen.delta;
    iterations++;
    tabu.push(hash);
    if (tabu.length > tabuSteps) tabu.shift();
    if (score > best.score + 1e-9 * Math.max(1, Math.abs(best.score))) {
      best = { dag: clonePdag(g), score };
      sinceBest = 0;
    } else if (++sinceBest >= tabuSteps) {
      break;
    }
    if (iterations % 16 === 0) budget.progress(from + (to - from) * Math.min(0.95, iterations / (2 * p + 20)), 'refine');
  }
  return { dag: best.dag, score: best.score, iterations, timedOut };
}

function applyMove(g: Pdag, parents: number[][], move: Move): void {
  const { p } = g;
  const { from, to } = move;
  if (move.kind === 'add') {
    g.m[from * p + to] = 1;
    parents[to]!.push(from);
    return;
  }
  g.m[from * p + to] = 0;
  parents[to] = parents[to]!.filter((v) => v !== from);
  if (move.kind === 'reverse') {
    g.m[to * p + from] = 1;
    parents[from]!.push(to);
  }
}

// Zobrist hashing of directed edges: a graph's hash is the XOR of its edges' random words.
function edgeHashes(p: number): Uint32Array {
  const out = new Uint32Array(p * p);
  let state = 0x2545f491;
  for (let k = 0; k < out.length; k++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[k] = state >>> 0;
  }
  return out;
}
