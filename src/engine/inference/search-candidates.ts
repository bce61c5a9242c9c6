/**
 * The bookkeeping of the change search (search.ts): levers, candidate settings, their cost, and the best
 * candidate seen so far. Every evaluated row passes through the tracker, so nothing the search simulated is lost.
 */
import { type ResolvedTarget, shortfall, targetMet } from './target-match.js';

/** A variable the search may change: its plausible range (continuous) or its categories. */
export interface Lever {
  node: number;
  name: string;
  kind: 'continuous' | 'categorical';
  /** Scale of a continuous change (the variable's std); a category switch costs 1. */
  std: number;
  mean: number;
  classes: number;
}

/** A lever set to a value (a number, or a category code). */
export interface Setting {
  node: number;
  value: number;
}

export interface Candidate {
  settings: Setting[];
  /** Sum over the changed levers of |change| / std, a category switch counting 1. */
  cost: number;
  values: number[];
  met: boolean;
  shortfall: number;
}

export class CandidateTracker {
  /** Best met candidate among those the search solved for (roots, boundaries, enumerated categories). */
  private aimed: Candidate | null = null;
  /** Best met candidate met on the way (grid points, iterates): used only when no solved one meets. */
  private incidental: Candidate | null = null;
  private nearest: Candidate | null = null;
  /** Per lever, the smallest shortfall any single change of it reached: ranks levers for larger subsets. */
  readonly singleShortfall = new Map<number, number>();

  constructor(
    private readonly targets: readonly ResolvedTarget[],
    private readonly levers: ReadonlyMap<number, Lever>,
    /** The unit's baseline value of every node (numbers, category codes). */
    readonly base: Float64Array,
    /** The targets' values in the unit as it is (every lever at its own value). */
    readonly baseTargets: readonly number[],
  ) {}

  costOf(settings: readonly Setting[]): number {
    let cost = 0;
    for (const s of settings) {
      const lever = this.levers.get(s.node)!;
      cost += lever.kind === 'categorical' ? (s.value === this.base[s.node] ? 0 : 1) : Math.abs(s.value - this.base[s.node]!) / lever.std;
    }
    return cost;
  }

  consider(settings: Setting[], values: number[], aimed: boolean): Candidate {
    const met = this.targets.every((t, j) => targetMet(t, values[j]!));
    const short = this.targets.reduce((s, t, j) => s + shortfall(t, values[j]!), 0);
    const candidate: Candidate = { settings, cost: this.costOf(settings), values, met, shortfall: short };
    if (settings.length === 1) {
      const node = settings[0]!.node;
      this.singleShortfall.set(node, Math.min(this.singleShortfall.get(node) ?? Infinity, short));
    }
    if (met) {
      if (aimed && (!this.aimed || better(candidate, this.aimed))) this.aimed = candidate;
      if (!aimed && (!this.incidental || better(candidate, this.incidental))) this.incidental = candidate;
    } else if (!this.nearest || short < this.nearest.shortfall - 1e-12 || (Math.abs(short - this.nearest.shortfall) <= 1e-12 && better(candidate, this.nearest))) {
      this.nearest = candidate;
    }
    return candidate;
  }

  /** The best met candidate so far (fewest changes, then lowest cost), or null. */
  get bestMet(): Candidate | null {
    return this.aimed ?? this.incidental;
  }

  /** The unmet candidate closest to meeting every target, for an honest "not achieved" answer. */
  get closest(): Candidate | null {
    return this.nearest;
  }
}

const better = (a: Candidate, b: Candidate) => a.settings.length < b.settings.length || (a.settings.length === b.settings.length && a.cost < b.cost);

/**
 * A unit's search, run as a coroutine: it yields rows of candidate settings and is resumed with each row's target
 * values. A driver (search.ts searchUnits) runs many units' searches in lockstep, every round's rows in one
 * propagation, so the cost of a pass is shared by all the units that asked in it.
 */
export type Search<T> = Generator<Setting[][], T, number[][]>;
