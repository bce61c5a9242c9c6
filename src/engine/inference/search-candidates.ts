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

/** Where a judged candidate is kept (CandidateTracker.judge): nowhere, or the slot it is now the best of. */
const NOT_KEPT = 0;
const AIMED = 1;
const INCIDENTAL = 2;
const NEAREST = 3;

export class CandidateTracker {
  /** Best met candidate among those the search solved for (roots, boundaries, enumerated categories). */
  private aimed: Candidate | null = null;
  /** Best met candidate met on the way (grid points, iterates): used only when no solved one meets. */
  private incidental: Candidate | null = null;
  private nearest: Candidate | null = null;
  /** Per node, the smallest shortfall any single change of that lever reached, where singleJudged is 1. */
  private readonly singleShortfalls: Float64Array;
  private readonly singleJudged: Uint8Array;
  /** What the last judge found of its candidate. */
  private judgedMet = false;
  private judgedShortfall = 0;

  constructor(
    private readonly targets: readonly ResolvedTarget[],
    private readonly levers: ReadonlyMap<number, Lever>,
    /** The unit's baseline value of every node (numbers, category codes). */
    readonly base: Float64Array,
    /** The targets' values in the unit as it is (every lever at its own value). */
    readonly baseTargets: readonly number[],
  ) {
    this.singleShortfalls = new Float64Array(base.length);
    this.singleJudged = new Uint8Array(base.length);
  }

  /** The smallest shortfall any single change of the lever reached (undefined: none judged): ranks levers for larger subsets. */
  singleShortfall(node: number): number | undefined {
    return this.singleJudged[node] === 1 ? this.singleShortfalls[node] : undefined;
  }

  costOf(settings: readonly Setting[]): number {
    let cost = 0;
    for (const s of settings) cost += this.leverCost(s.node, s.value);
    return cost;
  }

  /** Judges a candidate; answers whether it meets every target, and its cost. */
  consider(settings: Setting[], values: number[], aimed: boolean): { met: boolean; cost: number } {
    const cost = this.costOf(settings);
    const slot = this.judge(settings.length, cost, values, aimed, settings.length === 1 ? settings[0]!.node : -1);
    if (slot !== NOT_KEPT) this.keep(slot, settings, -1, 0, values, cost);
    return { met: this.judgedMet, cost };
  }

  /**
   * `fixed` with one more lever set to `value`, whose target values are `values` (read, not kept), so a search that
   * reads many points off a line allocates nothing for them.
   */
  considerSetting(fixed: Setting[], node: number, value: number, values: readonly number[], aimed: boolean): void {
    const cost = this.costOf(fixed) + this.leverCost(node, value);
    const slot = this.judge(fixed.length + 1, cost, values, aimed, fixed.length === 0 ? node : -1);
    if (slot !== NOT_KEPT) this.keep(slot, fixed, node, value, values, cost);
  }

  /** A lever's change to `value`: |change| / std, a category switch counting 1. */
  private leverCost(node: number, value: number): number {
    const lever = this.levers.get(node)!;
    return lever.kind === 'categorical' ? (value === this.base[node] ? 0 : 1) : Math.abs(value - this.base[node]!) / lever.std;
  }

  /**
   * Judges a candidate of `changes` changes (`single`: its one lever, else -1) against the targets (judgedMet,
   * judgedShortfall) and answers the slot it is now the best of: the best met, or the nearest unmet, so far.
   */
  private judge(changes: number, cost: number, values: readonly number[], aimed: boolean, single: number): number {
    let met = true;
    let short = 0;
    for (let j = 0; j < this.targets.length; j++) {
      const t = this.targets[j]!;
      if (!targetMet(t, values[j]!)) met = false;
      short += shortfall(t, values[j]!);
    }
    this.judgedMet = met;
    this.judgedShortfall = short;
    if (single >= 0) {
      this.singleShortfalls[single] = Math.min(this.singleJudged[single] === 1 ? this.singleShortfalls[single]! : Number.POSITIVE_INFINITY, short);
      this.singleJudged[single] = 1;
    }
    if (met) {
      if (aimed) return this.aimed === null || better(changes, cost, this.aimed) ? AIMED : NOT_KEPT;
      return this.incidental === null || better(changes, cost, this.incidental) ? INCIDENTAL : NOT_KEPT;
    }
    const nearest = this.nearest;
    return nearest === null || short < nearest.shortfall - 1e-12 || (Math.abs(short - nearest.shortfall) <= 1e-12 && better(changes, cost, nearest)) ? NEAREST : NOT_KEPT;
  }

  /**
   * Copies the judged candidate (`settings`, then `node` set to `value` when node >= 0) into the slot's own
   * candidate: a unit's search replaces its best and nearest candidates many times, and each slot's arrays and
   * settings are reused instead of made anew.
   */
  private keep(slot: number, settings: readonly Setting[], node: number, value: number, values: readonly number[], cost: number): void {
    let kept = slot === AIMED ? this.aimed : slot === INCIDENTAL ? this.incidental : this.nearest;
    if (kept === null) {
      kept = { settings: [], values: [], cost: 0, met: false, shortfall: 0 };
      if (slot === AIMED) this.aimed = kept;
      else if (slot === INCIDENTAL) this.incidental = kept;
      else this.nearest = kept;
    }
    const out = kept.settings;
    for (let i = 0; i < settings.length; i++) setAt(out, i, settings[i]!.node, settings[i]!.value);
    if (node >= 0) setAt(out, settings.length, node, value);
    out.length = settings.length + (node >= 0 ? 1 : 0);
    for (let j = 0; j < values.length; j++) kept.values[j] = values[j]!;
    kept.values.length = values.length;
    kept.cost = cost;
    kept.met = this.judgedMet;
    kept.shortfall = this.judgedShortfall;
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

/** Writes setting i of `out` (reusing the object there). */
function setAt(out: Setting[], i: number, node: number, value: number): void {
  const setting = out[i];
  if (setting === undefined) out[i] = { node, value };
  else {
    setting.node = node;
    setting.value = value;
  }
}

/** Fewer changes, then a lower cost. */
const better = (changes: number, cost: number, b: Candidate) => changes < b.settings.length || (changes === b.settings.length && cost < b.cost);

/**
 * A unit's search, run as a coroutine: it yields rows of candidate settings and is resumed with each row's target
 * values. A driver (search.ts searchUnits) runs many units' searches in lockstep, every round's rows in one
 * propagation, so the cost of a pass is shared by all the units that asked in it.
 */
export type Search<T> = Generator<Setting[][], T, number[][]>;
