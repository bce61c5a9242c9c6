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

  /** Judges a candidate; answers whether it meets every target, and its cost. */
  consider(settings: Setting[], values: number[], aimed: boolean): { met: boolean; cost: number } {
    const cost = this.costOf(settings);
    return { met: this.judge(settings.length, cost, values, aimed, settings.length === 1 ? settings[0]!.node : -1, (short, met) => ({ settings, values, cost, met, shortfall: short })), cost };
  }

  /**
   * `fixed` with one more lever set to `value`, whose target values are `values` (read, not kept: the candidate is
   * built, with copies, only when it is the best so far), so a search that reads many points off a line allocates
   * only for the few it keeps.
   */
  considerSetting(fixed: Setting[], node: number, value: number, values: readonly number[], aimed: boolean): void {
    const lever = this.levers.get(node)!;
    const cost = this.costOf(fixed) + (lever.kind === 'categorical' ? (value === this.base[node] ? 0 : 1) : Math.abs(value - this.base[node]!) / lever.std);
    this.judge(fixed.length + 1, cost, values, aimed, fixed.length === 0 ? node : -1, (short, met) => ({ settings: [...fixed, { node, value }], values: [...values], cost, met, shortfall: short }));
  }

  /**
   * Keeps a candidate (made by `make`) where it is the best met, or the nearest unmet, so far; `single`: its one
   * lever, else -1. Answers whether it meets every target.
   */
  private judge(changes: number, cost: number, values: readonly number[], aimed: boolean, single: number, make: (shortfall: number, met: boolean) => Candidate): boolean {
    let met = true;
    let short = 0;
    for (let j = 0; j < this.targets.length; j++) {
      const t = this.targets[j]!;
      if (!targetMet(t, values[j]!)) met = false;
      short += shortfall(t, values[j]!);
    }
    if (single >= 0) this.singleShortfall.set(single, Math.min(this.singleShortfall.get(single) ?? Infinity, short));
    const candidate = { changes, cost };
    if (met) {
      if (aimed && (!this.aimed || better(candidate, this.aimed))) this.aimed = make(short, met);
      if (!aimed && (!this.incidental || better(candidate, this.incidental))) this.incidental = make(short, met);
    } else if (!this.nearest || short < this.nearest.shortfall - 1e-12 || (Math.abs(short - this.nearest.shortfall) <= 1e-12 && better(candidate, this.nearest))) {
      this.nearest = make(short, met);
    }
    return met;
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

/** Fewer changes, then a lower cost. */
const better = (a: { changes: number; cost: number }, b: Candidate) => a.changes < b.settings.length || (a.changes === b.settings.length && a.cost < b.cost);

/**
 * A unit's search, run as a coroutine: it yields rows of candidate settings and is resumed with each row's target
 * values. A driver (search.ts searchUnits) runs many units' searches in lockstep, every round's rows in one
 * propagation, so the cost of a pass is shared by all the units that asked in it.
 */
export type Search<T> = Generator<Setting[][], T, number[][]>;
