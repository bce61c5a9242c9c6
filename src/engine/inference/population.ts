/**
 * The population a simulated question is about (spec Scenario object: `conditions`, `segmentDefinitions`): the
 * units' noise restricted to those whose baseline values meet the scenario's conditions, drawn by rejection on the
 * baseline until enough units qualify, and the segments as disjoint unit masks (a unit belongs to the first
 * segment whose conditions it meets, so per-segment answers add up without double counting).
 */
import { AppError } from '../../errors.js';
import { selectRows } from '../frame.js';
import type { Frame } from '../types.js';
import { conditionMask } from './conditions.js';
import type { Condition, Segment } from './scenario.js';
import { type Noise, type Scm, drawNoise, propagate } from './scm.js';

/** At most this many times the asked units are drawn to find enough that meet the conditions. */
const MAX_DRAW_FACTOR = 50;
/** Fewer qualifying units than this cannot carry an interval. */
const MIN_UNITS = 30;

export interface Population {
  noise: Noise;
  /** Share of simulated units that met the conditions (1 without conditions). */
  share: number;
}

/** `samples` units' noise (fewer only when the conditions are rare), every unit meeting `conditions` at baseline. */
export function populationNoise(scm: Scm, samples: number, seed: number, conditions: readonly Condition[] = []): Population {
  const first = drawNoise(scm, samples, seed);
  if (conditions.length === 0) return { noise: first, share: 1 };
  const mask = conditionMask(propagate(scm, first), scm, conditions);
  const met = count(mask);
  if (met >= samples) return { noise: select(first, mask, samples), share: met / samples };
  const drawn = Math.min(MAX_DRAW_FACTOR * samples, Math.ceil((1.1 * samples * samples) / Math.max(met, 1)));
  const noise = drawNoise(scm, drawn, seed);
  const wider = conditionMask(propagate(scm, noise), scm, conditions);
  const found = count(wider);
  if (found < MIN_UNITS) {
    throw new AppError('validation_failed', `The conditions select ${found} of ${drawn} simulated units (fewer than ${MIN_UNITS}): the twin finds them too rare to answer for; widen the conditions`);
  }
  return { noise: select(noise, wider, samples), share: found / drawn };
}

/** One mask per segment, disjoint: a unit is in the first segment whose conditions it meets. */
export function segmentMasks(scm: Scm, baseline: Frame, segments: readonly Segment[]): Uint8Array[] {
  const taken = new Uint8Array(baseline.nRows);
  return segments.map((segment) => {
    const mask = conditionMask(baseline, scm, segment.conditions);
    for (let r = 0; r < mask.length; r++) {
      if (taken[r] === 1) mask[r] = 0;
      else if (mask[r] === 1) taken[r] = 1;
    }
    return mask;
  });
}

/** The rows of a frame where `mask` is 1 (copies). */
export function maskedRows(frame: Frame, mask: Uint8Array): Frame {
  return selectRows(frame, indices(mask, Infinity));
}

/** `a AND b` as a new mask (b absent = a). */
export function both(a: Uint8Array, b?: Uint8Array): Uint8Array {
  if (b === undefined) return a;
  return Uint8Array.from(a, (v, r) => v & b[r]!);
}

export function count(mask: Uint8Array): number {
  let n = 0;
  for (const v of mask) n += v;
  return n;
}

function select(noise: Noise, mask: Uint8Array, limit: number): Noise {
  const rows = indices(mask, limit);
  return noise.map((u) => Float64Array.from(rows, (r) => u[r]!));
}

function indices(mask: Uint8Array, limit: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < mask.length && out.length < limit; r++) if (mask[r] === 1) out.push(r);
  return out;
}
