/**
 * The PC-stable skeleton (Colombo & Maathuis 2014): at each depth d, every adjacent pair is tested given the
 * size-d subsets of either endpoint's neighbours as they stood at the start of the level, so the result does not
 * depend on the variable order. The tests of a level run in rounds, each round one batch (one kernel call) holding
 * the next few subsets of every pair still standing (1, 1, 2, 4, then 8 per round, so a pair separated early costs
 * few tests). Candidate separators are tried strongest first: neighbours ordered by the smaller of their marginal
 * dependence on x and on y (a separator must be associated with both), a heuristic that only changes how soon an
 * independence is found, not which edges PC-stable keeps.
 */
import type { WorkBudget } from './budget.js';
import type { CiTest, CiTester } from './ci-tests.js';

export interface SkeletonOptions {
  alpha: number;
  maxDepth: number;
  /** Symmetric p x p: 1 = the pair is pinned (never tested, never removed). */
  pinned: Uint8Array;
  /** Symmetric p x p: 1 = the pair may not be adjacent at all. */
  excluded: Uint8Array;
  /** 1 = the variable takes part (uninformative columns stay isolated). */
  informative: Uint8Array;
  budget: WorkBudget;
  /** Progress is reported between these two fractions. */
  progressSpan: [number, number];
}

export interface Skeleton {
  /** Symmetric p x p adjacency. */
  adjacency: Uint8Array;
  /** Separating set of each removed pair, keyed x * p + y with x < y. */
  sepsets: Map<number, number[]>;
  /** Largest p-value seen for each pair (x * p + y, x < y): how close a kept edge came to removal. */
  maxPValue: Float64Array;
  /** Symmetric p x p adjacency after depth 0: the pairs found marginally dependent (or pinned). */
  marginal: Uint8Array;
  tests: number;
  depthReached: number;
  timedOut: boolean;
}

const subsetsInRound = (round: number) => Math.min(8, round < 2 ? 1 : 2 ** (round - 1));

export function pcStableSkeleton(p: number, tester: CiTester, options: SkeletonOptions): Skeleton {
  const { alpha, pinned, excluded, informative, budget } = options;
  const adjacency = new Uint8Array(p * p);
  for (let x = 0; x < p; x++) for (let y = 0; y < p; y++) {
    if (x !== y && informative[x] === 1 && informative[y] === 1 && excluded[x * p + y] === 0) adjacency[x * p + y] = 1;
    if (x !== y && pinned[x * p + y] === 1) adjacency[x * p + y] = 1;
  }
  const sepsets = new Map<number, number[]>();
  const maxPValue = new Float64Array(p * p);
  let tests = 0;
  let depthReached = -1;
  let timedOut = false;
  const [from, to] = options.progressSpan;
  let marginal: Uint8Array | null = null;
  const dependence = new Float64Array(p * p); // depth-0 dependence of each pair, both orders
  for (let depth = 0; depth <= options.maxDepth; depth++) {
    if (budget.checkpoint()) {
      timedOut = true;
      break;
    }
    const neighbours = Array.from({ length: p }, (_, x) => {
      const out: number[] = [];
      for (let y = 0; y < p; y++) if (adjacency[x * p + y] === 1) out.push(y);
      return out;
    });
    // Each testable pair walks its candidate conditioning sets: subsets of adj(x)\{y}, then of adj(y)\{x}.
    const walkers: PairWalker[] = [];
    for (let x = 0; x < p; x++) {
      for (const y of neighbours[x]!) {
        if (y <= x || pinned[x * p + y] === 1) continue;
        const strength = (v: number) => Math.min(dependence[v * p + x]!, dependence[v * p + y]!);
        const byStrength = (a: number, b: number) => strength(b) - strength(a) || a - b;
        const fromX = neighbours[x]!.filter((v) => v !== y).sort(byStrength);
        const fromY = neighbours[y]!.filter((v) => v !== x).sort(byStrength);
        if (fromX.length < depth && fromY.length < depth) continue;
        walkers.push(new PairWalker(x, y, fromX, fromY, depth));
      }
    }
    if (walkers.length === 0) break;
    depthReached = depth;
    const fraction = (progressOfDepth: number) => from + (to - from) * Math.min(1, (depth + progressOfDepth) / (Math.min(options.maxDepth, 6) + 1));
    let active = walkers;
    let rounds = 0;
    while (active.length > 0) {
      const batch: CiTest[] = [];
      const owner: PairWalker[] = [];
      for (const walker of active) {
        for (let k = 0; k < subsetsInRound(rounds); k++) {
          const s = walker.next();
          if (s === null) break;
          batch.push({ x: walker.x, y: walker.y, s });
          owner.push(walker);
        }
      }
      if (batch.length === 0) break;
      const results = tester.run(batch);
      tests += batch.length;
      for (let i = 0; i < batch.length; i++) {
        const walker = owner[i]!;
        const pv = results.pValue[i]!;
        const key = walker.x * p + walker.y;
        if (depth === 0) {
          dependence[key] = results.dependence[i]!;
          dependence[walker.y * p + walker.x] = results.dependence[i]!;
        }
        if (pv > maxPValue[key]!) maxPValue[key] = pv;
        if (walker.separated === null && pv > alpha) walker.separated = [...batch[i]!.s];
      }
      active = active.filter((w) => w.separated === null && !w.done);
      rounds++;
      if (budget.checkpoint()) {
        timedOut = true;
        break;
      }
      budget.progress(fraction(1 - 1 / (rounds + 1)), 'skeleton');
    }
    for (const walker of walkers) {
      if (walker.separated === null) continue;
      adjacency[walker.x * p + walker.y] = 0;
      adjacency[walker.y * p + walker.x] = 0;
      sepsets.set(walker.x * p + walker.y, walker.separated);
    }
    if (depth === 0) marginal = adjacency.slice();
    if (timedOut) break;
  }
  return { adjacency, sepsets, maxPValue, marginal: marginal ?? adjacency.slice(), tests, depthReached: Math.max(depthReached, 0), timedOut };
}

/** Enumerates the size-d conditioning sets of one pair, each set once, in lexicographic order. */
class PairWalker {
  separated: number[] | null = null;
  done = false;
  private readonly seen = new Set<string>();
  private readonly sources: number[][];
  private source = 0;
  private indices: number[] | null = null;

  constructor(
    readonly x: number,
    readonly y: number,
    fromX: number[],
    fromY: number[],
    private readonly depth: number,
  ) {
    this.sources = [fromX, fromY].filter((s) => s.length >= depth);
  }

  next(): number[] | null {
    for (;;) {
      const pool = this.sources[this.source];
      if (pool === undefined) {
        this.done = true;
        return null;
      }
      if (this.indices === null) this.indices = Array.from({ length: this.depth }, (_, i) => i);
      else if (!advance(this.indices, pool.length)) {
        this.source++;
        this.indices = null;
        continue;
      }
      const subset = this.indices.map((i) => pool[i]!);
      if (this.sources.length > 1) {
        const key = [...subset].sort((a, b) => a - b).join(',');
        if (this.seen.has(key)) continue;
        this.seen.add(key);
      }
      return subset;
    }
  }
}

// Next k-combination of 0..m-1 in lexicographic order; false when exhausted.
function advance(indices: number[], m: number): boolean {
  const k = indices.length;
  let i = k - 1;
  while (i >= 0 && indices[i] === m - k + i) i--;
  if (i < 0) return false;
  indices[i]!++;
  for (let j = i + 1; j < k; j++) indices[j] = indices[j - 1]! + 1;
  return true;
}
