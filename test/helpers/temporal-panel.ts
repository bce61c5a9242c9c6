/**
 * Generated temporal panels with known truth: one lagged linear-Gaussian process observed over time in many
 * environments of different lengths.
 *
 *   x(t-1) -> x, x(t-1) -> y, y(t-1) -> y, y -> z (same step, gated: present in a share of environments),
 *   z(t-1) -> z, z(t-1) -> w, x -> w (same step, environment-specific coefficient)
 *
 * z's level shifts per environment; y's mechanism is shared, so the environment (a context nothing causes) is
 * adjacent to z and w but not to y, which orients y -> z where one series alone leaves it open.
 */
import { continuousColumn, frameOf } from '../../src/engine/frame.js';
import { Rng } from '../../src/engine/random.js';

export interface TemporalPanelTruth {
  keys: string[];
  lengths: number[];
  /** Per environment: the coefficient of y -> z (0 where absent), of x -> w, and z's intercept. */
  yz: number[];
  xw: number[];
  zLevel: number[];
  presence: number;
}

export const TEMPORAL_PANEL_LINKS = ['x>x@1', 'x>y@1', 'y>y@1', 'y>z@0', 'z>z@1', 'z>w@1', 'x>w@0'];

export function temporalPanelTruth(environments: number, seed: number, options: { minSteps?: number; maxSteps?: number; presence?: number } = {}): TemporalPanelTruth {
  const rng = new Rng(seed);
  const minSteps = options.minSteps ?? 80;
  const maxSteps = options.maxSteps ?? 400;
  const presence = options.presence ?? 0.5;
  const keys = Array.from({ length: environments }, (_, e) => `site=s${String(e).padStart(3, '0')}`);
  const lengths = keys.map(() => Math.round(minSteps * (maxSteps / minSteps) ** rng.uniform()));
  const present = new Set(rng.shuffle(Array.from({ length: environments }, (_, e) => e)).slice(0, Math.round(presence * environments)));
  return {
    keys,
    lengths,
    yz: keys.map((_, e) => (present.has(e) ? 1 + 0.2 * rng.normal() : 0)),
    xw: keys.map(() => 0.9 * (1 + 0.25 * rng.normal())),
    zLevel: keys.map(() => 2 * rng.normal()),
    presence: present.size / environments,
  };
}

/** One environment's next step given the previous one and fresh noise (the oracle's mechanism). */
export function temporalPanelStep(truth: TemporalPanelTruth, e: number, previous: { x: number; y: number; z: number; w: number }, noise: { x: number; y: number; z: number; w: number }) {
  const x = 0.6 * previous.x + noise.x;
  const y = 0.8 * previous.x + 0.4 * previous.y + noise.y;
  const z = truth.zLevel[e]! * 0.5 + truth.yz[e]! * y + 0.5 * previous.z + noise.z;
  const w = 0.7 * previous.z + truth.xw[e]! * x + noise.w;
  return { x, y, z, w };
}

/** Daily rows of every environment from 2024-01-01 (`site`, `day`, x, y, z, w); `extra` steps past each environment's length are kept apart (held-out futures). */
export function temporalPanelRows(truth: TemporalPanelTruth, seed: number, extra = 0): { rows: Array<Record<string, number | string>>; future: Array<Array<{ x: number; y: number; z: number; w: number }>> } {
  const rng = new Rng(seed);
  const start = Date.UTC(2024, 0, 1);
  const rows: Array<Record<string, number | string>> = [];
  const future: Array<Array<{ x: number; y: number; z: number; w: number }>> = [];
  truth.keys.forEach((key, e) => {
    let state = { x: 0, y: 0, z: truth.zLevel[e]!, w: 0 };
    for (let burn = 0; burn < 50; burn++) state = temporalPanelStep(truth, e, state, { x: rng.normal(), y: rng.normal(), z: rng.normal(), w: rng.normal() });
    const ahead: Array<{ x: number; y: number; z: number; w: number }> = [];
    for (let t = 0; t < truth.lengths[e]! + extra; t++) {
      state = temporalPanelStep(truth, e, state, { x: rng.normal(), y: rng.normal(), z: rng.normal(), w: rng.normal() });
      if (t < truth.lengths[e]!) rows.push({ site: key.slice('site='.length), day: new Date(start + t * 86_400_000).toISOString().slice(0, 10), ...state });
      else ahead.push(state);
    }
    future.push(ahead);
  });
  return { rows, future };
}

/** The oracle's mean path h = 1..H steps past a state (noise at its mean, zero). */
export function oraclePath(truth: TemporalPanelTruth, e: number, last: { x: number; y: number; z: number; w: number }, horizon: number) {
  const path: Array<{ x: number; y: number; z: number; w: number }> = [];
  let state = last;
  for (let h = 0; h < horizon; h++) path.push((state = temporalPanelStep(truth, e, state, { x: 0, y: 0, z: 0, w: 0 })));
  return path;
}

/**
 * Two serially independent variables, a -> b at the same step, nothing lagged to orient the link: one series leaves
 * it reversible. `slopes` gives b's coefficient per environment; `noise` draws the noise (a heavy-tailed draw checks
 * that a spread which does not change raises no context edge).
 */
export function slopePanel(slopes: readonly number[], seed: number, noise: (rng: Rng) => number = (rng) => rng.normal(), steps = 250) {
  const rng = new Rng(seed);
  return slopes.map((slope) => {
    const a: number[] = [];
    const b: number[] = [];
    for (let t = 0; t < steps; t++) {
      a.push(noise(rng));
      b.push(slope * a[t]! + noise(rng));
    }
    return frameOf([continuousColumn('a', a), continuousColumn('b', b)]);
  });
}

/** A Laplace draw with unit variance (heavy tails beside the normal). */
export const laplace = (rng: Rng) => (rng.uniform() < 0.5 ? 1 : -1) * -Math.log(Math.max(rng.uniform(), 1e-300)) / Math.SQRT2;
