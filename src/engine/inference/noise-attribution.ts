/**
 * Shapley attribution of a target's anomaly to the noise terms of its causal ancestors (Budhathoki et al. 2022,
 * "Causal structure-based root cause analysis of outliers", ICML): the players are the noises of the target and
 * its ancestors; a coalition keeps its members' noise at the unit's abducted values and redraws the others from
 * their prior; its worth is the expected anomaly score of the target, -log(tail probability of the target value).
 * Contributions sum to the unit's score minus the score the model expects (about 1), so each says how much of the
 * target's improbability that node's own behaviour explains. Redrawn noise is shared by every coalition (common
 * random numbers), which keeps the differences between coalitions precise. Exact over all coalitions up to
 * EXACT_PLAYERS players, else estimated from random permutations, each paired with its reverse (antithetic).
 */
import { AbortError } from '../discovery/budget.js';
import { Rng } from '../random.js';
import type { CbnModel, Frame, WorkHooks } from '../types.js';
import { type Noise, type Scm, abduct, ancestorsOf, compileScm, drawNoise, propagate } from './scm.js';

/** Largest player count attributed exactly (2^10 coalitions). */
const EXACT_PLAYERS = 10;
/** Redrawn noise samples per coalition. */
const DRAWS = 200;
/** Permutations (in antithetic pairs) when the players are too many for the exact sum. */
const PERMUTATIONS = 24;

export interface AttributionOptions {
  seed: number;
  hooks: WorkHooks;
  draws?: number;
  permutations?: number;
  /** Default: exact up to EXACT_PLAYERS players, sampled beyond. */
  method?: 'exact' | 'sampled';
}

/** The target's ancestors and itself as a closed sub-model (every parent of a member is a member). */
export interface TargetModel {
  /** Player node indices in the full model, in the sub-model's (topological) order. */
  players: number[];
  scm: Scm;
  /** The target's index in the sub-model. */
  target: number;
}

export function targetModel(scm: Scm, target: number): TargetModel {
  const members = ancestorsOf(scm, target);
  members.add(target);
  const players = scm.names.map((_, i) => i).filter((i) => members.has(i));
  const model: CbnModel = { nodes: players.map((i) => scm.model.nodes[i]!) };
  const sub = compileScm(model);
  return { players, scm: sub, target: sub.indexOf(scm.names[target]!) };
}

/**
 * Contributions of each player's noise (aligned with `model.players`) to the anomaly score of the target in one
 * unit. `unit` holds that unit's observed values (any columns of the model; missing ones are abducted from the
 * prior); `score` maps a target value (number, or category code) to its anomaly score.
 */
export function attributeTargetAnomaly(
  model: TargetModel,
  unit: Frame,
  score: (value: number) => number,
  options: AttributionOptions,
): Float64Array {
  if (unit.nRows !== 1) throw new Error('attribution explains one unit at a time');
  const d = model.players.length;
  const draws = options.draws ?? DRAWS;
  const observedNoise = abduct(model.scm, unit, options.seed);
  const fixed = observedNoise.map((u) => new Float64Array(draws).fill(u[0]!));
  const prior = drawNoise(model.scm, draws, options.seed + 1);
  const worth = (member: (j: number) => boolean): number => {
    if (options.hooks.aborted?.() === true) throw new AbortError();
    const noise: Noise = fixed.map((f, j) => (member(j) ? f : prior[j]!));
    const column = propagate(model.scm, noise).columns[model.target]!;
    const values = column.kind === 'continuous' ? column.values : column.codes;
    let sum = 0;
    for (let r = 0; r < draws; r++) sum += score(values[r]!);
    return sum / draws;
  };
  const exact = options.method === 'exact' || (options.method === undefined && d <= EXACT_PLAYERS);
  return exact ? exactShapley(d, worth) : sampledShapley(d, worth, options.permutations ?? PERMUTATIONS, options.seed + 2);
}

/** Shapley values from the worth of all 2^d coalitions (bit j of a mask = player j in). */
function exactShapley(d: number, worth: (member: (j: number) => boolean) => number): Float64Array {
  const size = 1 << d;
  const value = new Float64Array(size);
  for (let mask = 0; mask < size; mask++) value[mask] = worth((j) => ((mask >> j) & 1) === 1);
  // weight[s] = s! (d - s - 1)! / d!, the share of orderings in which a coalition of size s precedes a player.
  const weight = new Float64Array(d);
  for (let s = 0; s < d; s++) weight[s] = 1 / (d * binomial(d - 1, s));
  const phi = new Float64Array(d);
  for (let mask = 0; mask < size; mask++) {
    const s = popcount(mask);
    for (let j = 0; j < d; j++) if (((mask >> j) & 1) === 0) phi[j]! += weight[s]! * (value[mask | (1 << j)]! - value[mask]!);
  }
  return phi;
}

/** Permutation-sampling Shapley estimate (Castro et al. 2009) with antithetic (reversed) permutations. */
function sampledShapley(d: number, worth: (member: (j: number) => boolean) => number, permutations: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const phi = new Float64Array(d);
  const empty = worth(() => false);
  const full = worth(() => true);
  const inside = new Uint8Array(d);
  const member = (j: number) => inside[j] === 1;
  const pairs = Math.max(1, Math.round(permutations / 2));
  for (let p = 0; p < pairs; p++) {
    const order = rng.shuffle(Array.from({ length: d }, (_, j) => j));
    for (const sequence of [order, [...order].reverse()]) {
      inside.fill(0);
      let previous = empty;
      sequence.forEach((j, step) => {
        inside[j] = 1;
        const current = step === d - 1 ? full : worth(member);
        phi[j]! += current - previous;
        previous = current;
      });
    }
  }
  for (let j = 0; j < d; j++) phi[j]! /= 2 * pairs;
  return phi;
}

function binomial(n: number, k: number): number {
  let out = 1;
  for (let i = 1; i <= k; i++) out = (out * (n - k + i)) / i;
  return out;
}

function popcount(mask: number): number {
  let count = 0;
  for (let m = mask; m !== 0; m &= m - 1) count++;
  return count;
}
