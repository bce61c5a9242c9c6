/**
 * Best order score search (BOSS; Andrews, Ramsey, Sanchez-Romero, Camchong & Kummerfeld 2023, "Fast scalable and
 * accurate discovery of DAGs using the best order score search and grow-shrink trees", NeurIPS): a local search
 * over causal orders instead of edges. An order defines a DAG -- each node's parents are chosen among its
 * predecessors by grow-shrink on the local score -- and each variable in turn moves to the position in the order
 * where the total score is highest, until a sweep moves none. One move rewires every node between the old and the
 * new position at once, which edge moves (GES, hill climbing) cannot do: on dense graphs those end in optima that
 * compensate wrong orientations with extra edges. Moving v changes only the families of v and of the nodes v may be a
 * parent of, so a move is judged from those alone: with sparse candidates (the neighbourhoods score-search.ts gives
 * past 100 variables) a sweep costs little more than p family lookups.
 *
 * With Gaussian moments (continuous data, one column per variable) grow picks the candidate that leaves the smallest
 * residual variance from partial covariances updated one parent at a time, shrink reads every removal's residual
 * from one inverse, and both judge a family by the local scorer's own score of a residual variance
 * (scoreOfResidual), so the result is scored as the other searches' are. Without them (count scores on discrete
 * data, mixed data) grow and shrink ask the local scorer for each step's gain; where a family costs an iterative fit
 * (a categorical node of mixed data: a logistic regression once a number parent joins), grow fits only the candidate
 * the scorer's estimated gain ranks first and shrink only the parent it ranks least (scorer.estimatedGain), so a
 * family costs a fit per step instead of one per candidate.
 * Required edges keep their order and parents; forbidden and non-candidate pairs are never parents.
 */
import { emptyPdag, type Pdag, setDirected } from '../graph/pdag.js';
import { invert } from '../linear-algebra.js';
import type { WorkBudget } from './budget.js';
import type { Knowledge } from './knowledge.js';
import type { LocalScorer } from './local-score.js';

/** Sweeps over all variables at most (the search usually settles in a few). */
const MAX_SWEEPS = 20;
/** A move must raise the total score by more than this share of it (guards against rounding loops). */
const RELATIVE_TOLERANCE = 1e-12;
/** Partial variances below this share of the variance are treated as determined (no further information). */
const DETERMINED = 1e-10;

export interface GaussianMoments {
  /** Covariance matrix of the columns, row-major q x q. */
  cov: Float64Array;
  q: number;
  /** The covariance column of each variable; -1 for a variable kept out of the search. */
  column: readonly number[];
}

export interface OrderSearchInput {
  p: number;
  scorer: LocalScorer;
  /** Gaussian moments (continuous data): families grown from partial covariances; without them, from the scorer's gains. */
  moments?: GaussianMoments;
  knowledge: Knowledge;
  /** 1 at i * p + j: i may be a parent of j. */
  candidates: Uint8Array;
  budget: WorkBudget;
  /** The order to start from (a topological order of the best DAG so far). */
  start: readonly number[];
}

export interface OrderSearchResult {
  dag: Pdag;
  score: number;
  order: number[];
  timedOut: boolean;
}

interface Family {
  parents: number[];
  score: number;
}

export function bestOrderSearch(input: OrderSearchInput): OrderSearchResult {
  const { p, knowledge, budget } = input;
  const grow = new GrowShrink(input);
  const order = [...input.start];
  const position = new Int32Array(p);
  order.forEach((w, at) => (position[w] = at));
  // Only a node's candidate parents matter to its family, so moving v changes the families of v and of the nodes v
  // may be a parent of, nothing else: a move is judged from those alone.
  const parentsOf = Array.from({ length: p }, (_, w) => grow.candidateParents(w));
  const childrenOf = Array.from({ length: p }, (): number[] => []);
  parentsOf.forEach((list, w) => list.forEach((u) => childrenOf[u]!.push(w)));
  const familyOf = (w: number, before: (u: number) => boolean, extra?: number) => {
    const pool = parentsOf[w]!.filter(before);
    if (extra !== undefined) pool.push(extra);
    return grow.familyOfPool(w, pool);
  };
  const current = Float64Array.from({ length: p }, (_, w) => familyOf(w, (u) => position[u]! < position[w]!).score);
  let total = current.reduce((a, b) => a + b, 0);
  let timedOut = false;
  for (let sweep = 0; sweep < MAX_SWEEPS && !timedOut; sweep++) {
    let moved = false;
    for (const v of [...order]) {
      if (budget.checkpoint()) {
        timedOut = true;
        break;
      }
      // Positions in the order without v; inserting v before rest[k] puts it ahead of the nodes at k and after.
      const at = position[v]!;
      const rank = (u: number) => position[u]! - (position[u]! > at ? 1 : 0);
      const [low, high] = allowedPositions(order, v, at, p, knowledge);
      // Each candidate child w: its family without v among its predecessors, and with v (v inserted at k <= rank(w)).
      const switchAt = new Map<number, number>();
      let children = 0;
      let base = total - current[v]!;
      const answers: Array<{ w: number; rw: number; without: number; withV: number }> = [];
      for (const w of childrenOf[v]!) {
        const rw = rank(w);
        const before = (u: number) => u !== v && rank(u) < rw;
        const without = familyOf(w, before).score;
        const withV = familyOf(w, before, v).score;
        base -= current[w]!;
        answers.push({ w, rw, without, withV });
        // Until k passes rank(w), w keeps v as a predecessor.
        if (low <= rw) children += withV;
        else children += without;
        if (rw >= low && rw < high) switchAt.set(rw, (switchAt.get(rw) ?? 0) + without - withV);
      }
      // v's own family: its candidate parents ranked before k, looked up again only when that set grows.
      const ranked = parentsOf[v]!.map((u) => ({ u, r: rank(u) })).sort((a, b) => a.r - b.r);
      let next = 0;
      const pool: number[] = [];
      while (next < ranked.length && ranked[next]!.r < low) pool.push(ranked[next++]!.u);
      let own = grow.familyOfPool(v, pool).score;
      let bestK = -1;
      let bestTotal = Number.NEGATIVE_INFINITY;
      for (let k = low; k <= high; k++) {
        if (k > low) {
          children += switchAt.get(k - 1) ?? 0;
          let grew = false;
          while (next < ranked.length && ranked[next]!.r < k) {
            pool.push(ranked[next++]!.u);
            grew = true;
          }
          if (grew) own = grow.familyOfPool(v, pool).score;
        }
        const candidate = base + children + own;
        if (candidate > bestTotal) {
          bestTotal = candidate;
          bestK = k;
        }
      }
      if (bestK < 0 || !(bestTotal > total + RELATIVE_TOLERANCE * Math.abs(total))) continue;
      order.splice(at, 1);
      order.splice(bestK, 0, v);
      for (let i = Math.min(at, bestK); i <= Math.max(at, bestK) && i < order.length; i++) position[order[i]!] = i;
      for (const { w, rw, without, withV } of answers) current[w] = bestK <= rw ? withV : without;
      current[v] = familyOf(v, (u) => position[u]! < position[v]!).score;
      total = current.reduce((a, b) => a + b, 0);
      moved = true;
    }
    if (!moved) break;
  }
  const dag = emptyPdag(p);
  for (let w = 0; w < p; w++) {
    for (const parent of familyOf(w, (u) => position[u]! < position[w]!).parents) setDirected(dag, parent, w);
  }
  return { dag, score: total, order, timedOut };
}

/** Positions k (inserting v, now at `at` in `order`, before the k-th node of the order without v) that keep every
 * required edge into and out of v pointing forward. */
function allowedPositions(order: readonly number[], v: number, at: number, p: number, knowledge: Knowledge): [number, number] {
  let low = 0;
  let high = order.length - 1;
  order.forEach((w, i) => {
    if (w === v) return;
    const r = i > at ? i - 1 : i;
    if (knowledge.required[w * p + v] === 1) low = Math.max(low, r + 1);
    if (knowledge.required[v * p + w] === 1) high = Math.min(high, r);
  });
  return [low, Math.max(low, high)];
}

/**
 * Grow-shrink parent selection of a node among given predecessors, memoised by the node and those of its
 * predecessors that may be its parents (a move that adds a predecessor which cannot be a parent costs nothing): grow adds
 * the predecessor that leaves the smallest residual variance while the score improves, shrink then drops parents
 * while that improves it. Required parents are always kept.
 */
class GrowShrink {
  private readonly memo = new Map<string, Family>();
  private readonly keyBits: Uint16Array;
  /** 1 at i * p + j: i may be a parent of j (a candidate pair, not forbidden; required pairs always). */
  private readonly parentMask: Uint8Array;

  constructor(private readonly input: OrderSearchInput) {
    const { p, knowledge, candidates } = input;
    this.keyBits = new Uint16Array(Math.ceil(p / 16) + 1);
    this.parentMask = new Uint8Array(p * p);
    for (let k = 0; k < p * p; k++) {
      const allowed = candidates[k] === 1 && knowledge.forbidden[k] !== 1;
      this.parentMask[k] = allowed || knowledge.required[k] === 1 ? 1 : 0;
    }
  }

  /** The nodes that may be parents of `node` (candidate, not forbidden, or required). */
  candidateParents(node: number): number[] {
    const { p } = this.input;
    const out: number[] = [];
    for (let u = 0; u < p; u++) if (u !== node && this.parentMask[u * p + node] === 1) out.push(u);
    return out;
  }

  /** The family of `node` among `pool`, which must hold only candidate parents of it (candidateParents). */
  familyOfPool(node: number, pool: readonly number[]): Family {
    const key = this.keyOf(node, pool);
    let found = this.memo.get(key);
    if (!found) {
      // Selected from the pool in index order, so a family does not depend on the order its pool was listed in.
      found = this.select(node, [...pool].sort((a, b) => a - b));
      this.memo.set(key, found);
    }
    return found;
  }

  /** Grow-shrink on the scorer alone (count families): grow adds the predecessor of the largest gain
   * while one gains, shrink drops the parent whose removal raises the score most while one does. */
  private selectByGain(node: number, pool: readonly number[]): Family {
    const { p, scorer, knowledge } = this.input;
    const parents = pool.filter((w) => knowledge.required[w * p + node] === 1);
    let score = scorer.score(node, parents);
    for (;;) {
      let best = -1;
      let bestGain = 0;
      for (const w of this.growCandidates(node, pool, parents)) {
        const gain = scorer.gain(node, parents, w);
        if (gain > bestGain) {
          bestGain = gain;
          best = w;
        }
      }
      if (best < 0) break;
      parents.push(best);
      score = scorer.score(node, parents);
    }
    for (;;) {
      let drop = -1;
      let dropScore = score;
      for (const a of this.shrinkCandidates(node, parents)) {
        const smaller = scorer.score(node, parents.filter((_, b) => b !== a));
        if (smaller > dropScore) {
          dropScore = smaller;
          drop = a;
        }
      }
      if (drop < 0) break;
      parents.splice(drop, 1);
      score = dropScore;
    }
    return { parents, score };
  }

  /**
   * The parents (positions in `parents`, required ones excluded) a shrink step refits without: all of them, or where
   * a fit is costly (scorer.estimatedGain) the one whose estimated contribution is the least.
   */
  private shrinkCandidates(node: number, parents: readonly number[]): number[] {
    const { p, scorer, knowledge } = this.input;
    const open = parents.flatMap((w, a) => (knowledge.required[w * p + node] === 1 ? [] : [a]));
    if (open.length <= 1) return open;
    let least = -1;
    let leastEstimate = Number.POSITIVE_INFINITY;
    for (const a of open) {
      const estimate = scorer.estimatedGain(node, parents.filter((_, b) => b !== a), parents[a]!);
      if (estimate === null) return open;
      if (estimate < leastEstimate) {
        leastEstimate = estimate;
        least = a;
      }
    }
    return [least];
  }

  /**
   * The members of the pool a grow step fits: all of them, or where a fit is costly (scorer.estimatedGain) the one
   * the estimate ranks first, if it estimates any gain (on the dense mixed graphs of bench/engine/
   * discovery-robustness.ts: the same graphs as fitting every member, in half the time).
   */
  private growCandidates(node: number, pool: readonly number[], parents: readonly number[]): number[] {
    const open = pool.filter((w) => !parents.includes(w));
    const { scorer } = this.input;
    if (open.length <= 1) return open;
    let best = -1;
    let bestEstimate = 0;
    for (const w of open) {
      const estimate = scorer.estimatedGain(node, parents, w);
      if (estimate === null) return open;
      if (estimate > bestEstimate) {
        bestEstimate = estimate;
        best = w;
      }
    }
    return best < 0 ? [] : [best];
  }

  private keyOf(node: number, predecessors: readonly number[]): string {
    const bits = this.keyBits;
    bits.fill(0);
    bits[0] = node;
    for (const w of predecessors) bits[1 + (w >> 4)]! |= 1 << (w & 15);
    return String.fromCharCode.apply(null, bits as unknown as number[]);
  }

  private select(node: number, candidates: readonly number[]): Family {
    if (!this.input.moments) return this.selectByGain(node, candidates);
    const { p, scorer, knowledge } = this.input;
    const { cov, q, column } = this.input.moments;
    // A variable kept out of the search (no variation, or an exact copy) has no column: no parents, none of it.
    if (column[node]! < 0) return { parents: [], score: scorer.score(node, []) };
    const pool = candidates.filter((w) => column[w]! >= 0);
    const required = pool.filter((w) => knowledge.required[w * p + node] === 1);
    // Incremental Cholesky over the chosen parents: factor[t][i] is column t of the factor at member i of
    // [pool..., node], so the partial covariance of members i and j given the parents is
    // cov_ij - sum_t factor[t][i] factor[t][j]; the diagonal and the covariance with the node are kept current.
    const m = pool.length;
    const columns = Int32Array.from({ length: m + 1 }, (_, i) => column[i === m ? node : pool[i]!]!);
    const own = columns[m]!;
    const variance = Float64Array.from(columns, (c) => cov[c * q + c]!);
    const withNode = Float64Array.from(columns, (c) => cov[c * q + own]!);
    const factor: Float64Array[] = [];
    const chosen = new Uint8Array(m);
    const parents: number[] = [];
    const add = (a: number) => {
      chosen[a] = 1;
      parents.push(pool[a]!);
      const pivot = variance[a]!;
      if (!(pivot > 0)) return;
      const scale = 1 / Math.sqrt(pivot);
      const next = new Float64Array(m + 1);
      const base = columns[a]! * q;
      for (let i = 0; i <= m; i++) {
        let partial = cov[base + columns[i]!]!;
        for (const f of factor) partial -= f[i]! * f[a]!;
        next[i] = partial * scale;
      }
      factor.push(next);
      for (let i = 0; i <= m; i++) {
        variance[i]! -= next[i]! * next[i]!;
        withNode[i]! -= next[i]! * next[m]!;
      }
    };
    for (const w of required) add(pool.indexOf(w));
    // With missing values each family pays its own penalty scale (local-score.ts): the candidates are then compared
    // by score, not by the variance they explain.
    const scaleOf = scorer.penaltyScale === null ? null : (members: readonly number[]) => scorer.penaltyScale!(node, members);
    let residual = variance[m]!;
    let score = scorer.scoreOfResidual(residual, parents.length, scaleOf?.(parents));
    for (;;) {
      let best = -1;
      let bestExplained = 0;
      let bestScore = Number.NEGATIVE_INFINITY;
      for (let a = 0; a < m; a++) {
        if (chosen[a] === 1) continue;
        const pivot = variance[a]!;
        if (!(pivot > DETERMINED * cov[columns[a]! * q + columns[a]!]!)) continue;
        const c = withNode[a]!;
        const explained = (c * c) / pivot;
        if (scaleOf) {
          const grown = scorer.scoreOfResidual(residual - explained, parents.length + 1, scaleOf([...parents, pool[a]!]));
          if (grown > bestScore) {
            bestScore = grown;
            best = a;
          }
        } else if (explained > bestExplained) {
          bestExplained = explained;
          best = a;
        }
      }
      if (best < 0) break;
      const grown = scaleOf ? bestScore : scorer.scoreOfResidual(residual - bestExplained, parents.length + 1);
      if (!(grown > score)) break;
      add(best);
      residual = variance[m]!;
      score = grown;
    }
    // Shrink: drop the parent whose removal raises the score most, while one does. With B = S_PP^-1 and
    // beta = B S_Py, dropping parent a raises the residual variance by beta_a^2 / B_aa; B is then downdated to the
    // inverse without a (B - B_.a B_a. / B_aa, rows and column a removed), so the whole shrink costs one inversion.
    let k = parents.length;
    const inverse = k === 0 ? null : invert(parents.flatMap((a) => parents.map((b) => cov[column[a]! * q + column[b]!]!)), k);
    if (inverse) {
      let b = inverse;
      const cross = parents.map((a) => cov[column[a]! * q + own]!);
      for (;;) {
        const beta = cross.map((_, a) => {
          let sum = 0;
          for (let c = 0; c < k; c++) sum += b[a * k + c]! * cross[c]!;
          return sum;
        });
        let explained = 0;
        for (let a = 0; a < k; a++) explained += cross[a]! * beta[a]!;
        const full = cov[own * q + own]! - explained;
        let drop = -1;
        let dropScore = score;
        for (let a = 0; a < k; a++) {
          if (knowledge.required[parents[a]! * p + node] === 1) continue;
          const smaller = scorer.scoreOfResidual(full + beta[a]! ** 2 / b[a * k + a]!, k - 1, scaleOf?.(parents.filter((_, x) => x !== a)));
          if (smaller > dropScore) {
            dropScore = smaller;
            drop = a;
          }
        }
        if (drop < 0) break;
        const next: number[] = [];
        const pivot = b[drop * k + drop]!;
        for (let x = 0; x < k; x++) {
          if (x === drop) continue;
          for (let y = 0; y < k; y++) if (y !== drop) next.push(b[x * k + y]! - (b[x * k + drop]! * b[drop * k + y]!) / pivot);
        }
        b = next;
        parents.splice(drop, 1);
        cross.splice(drop, 1);
        k--;
        score = dropScore;
        if (k === 0) break;
      }
    }
    return { parents, score };
  }
}
