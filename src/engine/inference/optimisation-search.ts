/**
 * Derivative-free maximisation over a mixed box: compass (pattern) search on the continuous coordinates (Kolda,
 * Lewis & Torczon 2003: poll +- step on each axis, extend a successful move, halve the step when no poll improves)
 * alternating with full enumeration of each discrete coordinate, then seeded random restarts while the evaluation
 * budget lasts. Before a step is halved, random directions are polled too (as MADS does, Audet & Dennis 2006):
 * a constraint penalty running diagonally across the axes blocks every axis move, not every direction.
 * Evaluations are cached by point, so revisits are free.
 */
import { Rng } from '../random.js';

export type Dimension =
  | { kind: 'continuous'; low: number; high: number; start: number }
  | { kind: 'discrete'; options: number[]; start: number };

export interface SearchResult {
  best: number[];
  value: number;
  evaluations: number;
}

/** First poll step as a share of each continuous range, and the share at which the search stops refining. */
const FIRST_STEP = 0.25;
const LAST_STEP = 1e-4;
const MAX_RESTARTS = 4;

export async function maximise(
  dimensions: readonly Dimension[], objective: (x: number[]) => Promise<number>, budget: number, seed: number,
): Promise<SearchResult> {
  const cache = new Map<string, number>();
  let evaluations = 0;
  /** The objective at x, or null once the budget is spent. */
  const evaluate = async (x: number[]): Promise<number | null> => {
    const key = x.join(',');
    const known = cache.get(key);
    if (known !== undefined) return known;
    if (evaluations >= budget) return null;
    evaluations++;
    const value = await objective(x);
    cache.set(key, value);
    return value;
  };
  const rng = new Rng(seed);
  let best = dimensions.map((d) => d.start);
  let bestValue = (await evaluate(best)) ?? -Infinity;
  for (let restart = 0; restart <= MAX_RESTARTS && evaluations < budget; restart++) {
    const start = restart === 0 ? best : dimensions.map((d) => (d.kind === 'continuous' ? d.low + rng.uniform() * (d.high - d.low) : d.options[rng.int(d.options.length)]!));
    const found = await localSearch(dimensions, evaluate, start, rng);
    if (found && found.value > bestValue) {
      best = found.x;
      bestValue = found.value;
    }
    if (dimensions.every((d) => d.kind === 'discrete')) break;
  }
  return { best, value: bestValue, evaluations };
}

async function localSearch(
  dimensions: readonly Dimension[], evaluate: (x: number[]) => Promise<number | null>, start: number[], rng: Rng,
): Promise<{ x: number[]; value: number } | null> {
  const continuous = dimensions.flatMap((d, i) => (d.kind === 'continuous' && d.high > d.low ? [i] : []));
  let x = [...start];
  const first = await evaluate(x);
  if (first === null) return null;
  let value = first;
  let step = FIRST_STEP;
  for (;;) {
    let improved = false;
    for (let i = 0; i < dimensions.length; i++) {
      const d = dimensions[i]!;
      if (d.kind === 'discrete') {
        for (const option of d.options) {
          if (option === x[i]) continue;
          const candidate = x.map((v, k) => (k === i ? option : v));
          const v = await evaluate(candidate);
          if (v === null) return { x, value };
          if (v > value) {
            x = candidate;
            value = v;
            improved = true;
          }
        }
        continue;
      }
      const width = d.high - d.low;
      if (!(width > 0)) continue;
      for (const sign of [1, -1]) {
        let move = sign * step * width;
        let candidate = x.map((v, k) => (k === i ? clamp(v + move, d) : v));
        if (candidate[i] === x[i]) continue;
        let v = await evaluate(candidate);
        if (v === null) return { x, value };
        if (!(v > value)) continue;
        // A successful poll: keep doubling the move while it pays.
        while (v !== null && v > value) {
          x = candidate;
          value = v;
          improved = true;
          move *= 2;
          candidate = x.map((c, k) => (k === i ? clamp(c + move, d) : c));
          if (candidate[i] === x[i]) break;
          v = await evaluate(candidate);
        }
        if (v === null) return { x, value };
        break;
      }
    }
    if (improved) continue;
    if (continuous.length >= 2) {
      const moved = await pollDirections(dimensions, continuous, evaluate, x, value, step, rng);
      if (moved === null) return { x, value };
      if (moved.value > value) {
        x = moved.x;
        value = moved.value;
        continue;
      }
    }
    if (step <= LAST_STEP) return { x, value };
    step /= 2;
  }
}

/** Polls +- `step` along as many random directions as there are continuous axes (in range units), extending a success. */
async function pollDirections(
  dimensions: readonly Dimension[], axes: number[], evaluate: (x: number[]) => Promise<number | null>, x: number[], value: number, step: number, rng: Rng,
): Promise<{ x: number[]; value: number } | null> {
  for (let k = 0; k < axes.length; k++) {
    const direction = axes.map(() => rng.normal());
    const norm = Math.hypot(...direction) || 1;
    for (const sign of [1, -1]) {
      const at = (scale: number) => {
        const out = [...x];
        axes.forEach((i, a) => {
          const d = dimensions[i] as Extract<Dimension, { kind: 'continuous' }>;
          out[i] = clamp(x[i]! + (sign * scale * step * (d.high - d.low) * direction[a]!) / norm, d);
        });
        return out;
      };
      let scale = 1;
      let v = await evaluate(at(scale));
      if (v === null) return null;
      if (!(v > value)) continue;
      let best = { x: at(scale), value: v };
      for (;;) {
        scale *= 2;
        v = await evaluate(at(scale));
        if (v === null || !(v > best.value)) return best;
        best = { x: at(scale), value: v };
      }
    }
  }
  return { x, value };
}

const clamp = (v: number, d: { low: number; high: number }) => Math.min(d.high, Math.max(d.low, v));
