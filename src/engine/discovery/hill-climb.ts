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
  const candidate = new Uint8Array(p * p); // candidate[i * p + j] = 1: i is a candidate parent of j
  for (let j = 0; j < p; j++) for (const i of candidateParents[j]!) candidate[i * p + j] = 1;
  const nodeScore = new Float64Array(p);
  const toggle = new Float64Array(p * p); // toggle[j * p + i]: score change of adding/removing i as a parent of j
  const rescore = (j: number) => {
    const pa = parents[j]!;
    nodeScore[j] = scorer.score(j, pa);
    for (const i of candidateParents[j]!) {
      toggle[j * p + i] = g.m[i * p + j] === 1 ? -scorer.gain(j, pa.filter((v) => v !== i), i) : scorer.gain(j, pa, i);
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
  // The move list, reused: kind 0 add, 1 delete, 2 reverse.
  const capacity = 2 * p * p;
  const kinds = new Uint8Array(capacity);
  const froms = new Int32Array(capacity);
  const tos = new Int32Array(capacity);
  const deltas = new Float64Array(capacity);
  const sorted = new Float64Array(capacity);
  const reach = new Uint8Array(p * p); // reach[a * p + b] = 1: a directed path from a to b (a reaches itself)
  const stack: number[] = [];
  const moveKinds: Move['kind'][] = ['add', 'delete', 'reverse'];
  while (iterations < maxIterations) {
    if (budget.checkpoint()) {
      timedOut = true;
      break;
    }
    // Which nodes reach which (a DFS from each node over child lists): an addition that would close a cycle is
    // never listed, so few listed moves are refused below.
    const children: number[][] = Array.from({ length: p }, () => []);
    for (let j = 0; j < p; j++) for (const i of parents[j]!) children[i]!.push(j);
    reach.fill(0);
    for (let a = 0; a < p; a++) {
      const base = a * p;
      stack.length = 0;
      stack.push(a);
      reach[base + a] = 1;
      while (stack.length > 0) {
        const u = stack.pop()!;
        for (const v of children[u]!) {
          if (reach[base + v] === 1) continue;
          reach[base + v] = 1;
          stack.push(v);
        }
      }
    }
    let count = 0;
    const push = (kind: number, i: number, j: number, delta: number) => {
      kinds[count] = kind;
      froms[count] = i;
      tos[count] = j;
      deltas[count++] = delta;
    };
    for (let j = 0; j < p; j++) {
      for (const i of candidateParents[j]!) {
        if (g.m[i * p + j] === 1) {
          if (knowledge.required[i * p + j] === 1) continue;
          push(1, i, j, toggle[j * p + i]!);
          if (knowledge.forbidden[j * p + i] === 0 && candidate[j * p + i] === 1) push(2, i, j, toggle[j * p + i]! + toggle[i * p + j]!);
        } else if (g.m[j * p + i] !== 1 && knowledge.forbidden[i * p + j] === 0 && reach[j * p + i] === 0) {
          push(0, i, j, toggle[j * p + i]!);
        }
      }
    }
    // Best move first (ties in list order), the one that is neither tabu nor makes a cycle: a few argmax scans,
    // then a sort of what is left when many are refused.
    let chosen: Move | null = null;
    const tryMove = (k: number): boolean => {
      const move: Move = { kind: moveKinds[kinds[k]!]!, from: froms[k]!, to: tos[k]!, delta: deltas[k]! };
      const nextHash = hash ^ hashes[move.from * p + move.to]! ^ (move.kind === 'reverse' ? hashes[move.to * p + move.from]! : 0);
      if (tabu.includes(nextHash)) return false;
      if (move.kind === 'reverse' && reaches(g, move.from, move.to, move.from, move.to)) return false;
      chosen = move;
      hash = nextHash;
      return true;
    };
    let scans = 0;
    for (; scans < 3; scans++) {
      let top = -1;
      for (let k = 0; k < count; k++) if (deltas[k]! !== Number.NEGATIVE_INFINITY && (top < 0 || deltas[k]! > deltas[top]!)) top = k;
      if (top < 0 || tryMove(top)) break;
      deltas[top] = Number.NEGATIVE_INFINITY;
    }
    if (chosen === null && scans === 3) {
      // The best 64 left in order (a native sort of the deltas gives the threshold), then all the rest.
      sorted.set(deltas.subarray(0, count));
      const view = sorted.subarray(0, count).sort();
      const threshold = view[Math.max(0, count - 64)]!;
      const top: number[] = [];
      const rest: number[] = [];
      for (let k = 0; k < count; k++) {
        if (deltas[k]! === Number.NEGATIVE_INFINITY) continue;
        (deltas[k]! >= threshold ? top : rest).push(k);
      }
      const order = (a: number, b: number) => deltas[b]! - deltas[a]! || a - b;
      top.sort(order);
      for (const k of top) if (tryMove(k)) break;
      if (chosen === null) {
        rest.sort(order);
        for (const k of rest) if (tryMove(k)) break;
      }
    }
    if (chosen === null) break;
    const move: Move = chosen;
    applyMove(g, parents, move);
    rescore(move.to);
    if (move.kind === 'reverse') rescore(move.from);
    score += move.delta;
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
