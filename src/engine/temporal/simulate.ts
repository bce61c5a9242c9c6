/**
 * Seeded time series from known lagged structural models, for tests and benchmarks: each variable at t is an
 * intercept, a weighted sum of its parents (lagged, and same-step ones earlier in a causal order), a seasonal
 * wave, and Gaussian noise; a categorical variable thresholds that sum into 2 or 3 ordered classes (as a parent it
 * enters by its class index). Lagged weights are scaled so each variable's lagged weights sum to at most 0.9 in
 * absolute value, and then, with the same-step links, until the reduced form's companion matrix has a spectral
 * radius of at most 0.95: the process is stationary.
 */
import { categoricalColumn, continuousColumn, frameOf } from '../frame.js';
import { Rng } from '../random.js';
import type { Frame } from '../types.js';

export interface LaggedLink {
  source: string;
  target: string;
  lag: number;
  weight: number;
}

export interface LaggedScm {
  names: string[];
  kinds: ('continuous' | 'categorical')[];
  /** Classes of a categorical variable (its thresholds split the standard normal into equal shares). */
  levels: number[];
  /** Same-step causal order (indices). */
  order: number[];
  links: LaggedLink[];
  intercepts: number[];
  noiseStd: number[];
  seasonal: Array<{ variable: string; period: number; amplitude: number }>;
}

export interface LaggedScmOptions {
  maxLag?: number;
  /** Lagged parents per variable besides its own past (default 1..2). */
  laggedParents?: number;
  /** Probability of a same-step edge between two variables (default 0). */
  contemporaneous?: number;
  categoricalShare?: number;
  /** Variables with a seasonal wave of this period (steps). */
  seasonalPeriod?: number;
  seasonalShare?: number;
}

export function randomLaggedScm(n: number, seed: number, options: LaggedScmOptions = {}): LaggedScm {
  const rng = new Rng(seed);
  const L = options.maxLag ?? 2;
  const names = Array.from({ length: n }, (_, i) => `V${i + 1}`);
  const kinds = names.map(() => (rng.uniform() < (options.categoricalShare ?? 0) ? 'categorical' : 'continuous') as 'continuous' | 'categorical');
  const levels = kinds.map((k) => (k === 'categorical' ? 2 + rng.int(2) : 0));
  const order = rng.shuffle(names.map((_, i) => i));
  const links: LaggedLink[] = [];
  const signed = (low: number, high: number) => (rng.uniform() < 0.5 ? -1 : 1) * (low + (high - low) * rng.uniform());
  for (let j = 0; j < n; j++) {
    const own: LaggedLink[] = [{ source: names[j]!, target: names[j]!, lag: 1, weight: 0.3 + 0.3 * rng.uniform() }];
    const count = options.laggedParents ?? 1 + rng.int(2);
    for (let k = 0; k < count; k++) {
      const i = rng.int(n);
      const lag = 1 + rng.int(L);
      if (i === j || own.some((l) => l.source === names[i] && l.lag === lag)) continue;
      own.push({ source: names[i]!, target: names[j]!, lag, weight: signed(0.4, 0.8) });
    }
    const total = own.reduce((s, l) => s + Math.abs(l.weight), 0);
    const scale = total > 0.9 ? 0.9 / total : 1;
    links.push(...own.map((l) => ({ ...l, weight: l.weight * scale })));
  }
  const p = options.contemporaneous ?? 0;
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (rng.uniform() < p) links.push({ source: names[order[a]!]!, target: names[order[b]!]!, lag: 0, weight: signed(0.5, 1) });
  stabilise(names, links, L);
  const seasonal = options.seasonalPeriod === undefined ? [] : names.filter(() => rng.uniform() < (options.seasonalShare ?? 0.5)).map((variable) => ({ variable, period: options.seasonalPeriod!, amplitude: 1 + rng.uniform() }));
  return { names, kinds, levels, order, links, intercepts: names.map(() => signed(0, 2)), noiseStd: names.map(() => 0.5 + 0.5 * rng.uniform()), seasonal };
}

/** Normal quantiles splitting into equal shares (2 or 3 classes). */
const THRESHOLDS: Record<number, number[]> = { 2: [0], 3: [-0.4307, 0.4307] };

/** One step's values given the history (rows of numbers per variable, class index for categorical ones). */
export function stepValues(model: LaggedScm, history: number[][], t: number, noise: (j: number) => number, set?: Map<number, number>): number[] {
  const n = model.names.length;
  const index = new Map(model.names.map((name, i) => [name, i]));
  const values = new Array<number>(n).fill(0);
  // Every variable's noise is drawn, set or not, in one order: two arms of a comparison share it exactly.
  const e = model.names.map((_, j) => noise(j));
  const z = model.names.map((_, j) => (model.kinds[j] === 'categorical' ? noise(j) : 0));
  for (const j of model.order) {
    const fixed = set?.get(j);
    if (fixed !== undefined) {
      values[j] = fixed;
      continue;
    }
    let sum = model.intercepts[j]!;
    for (const link of model.links) {
      if (index.get(link.target) !== j) continue;
      const i = index.get(link.source)!;
      const value = link.lag === 0 ? values[i]! : history[t - link.lag]?.[i] ?? 0;
      sum += link.weight * value;
    }
    for (const wave of model.seasonal) if (index.get(wave.variable) === j) sum += wave.amplitude * Math.sin((2 * Math.PI * t) / wave.period);
    if (model.kinds[j] === 'continuous') values[j] = sum + model.noiseStd[j]! * e[j]!;
    else {
      // The class of the standardized latent: thresholds on (sum - intercept) / 2 + noise.
      const latent = (sum - model.intercepts[j]!) * 0.5 + z[j]!;
      values[j] = (THRESHOLDS[model.levels[j]!] ?? [0]).filter((cut) => latent > cut).length;
    }
  }
  return values;
}

/**
 * A fault injected into a simulation, at a step counted after the burn-in: a shock adds `size` noise standard
 * deviations to one variable at one step; a mechanism change sets one link's weight from a step on; a set fixes a
 * variable's value at one step.
 */
export type Fault =
  | { kind: 'shock'; variable: number; step: number; size: number }
  | { kind: 'mechanism'; link: number; from: number; weight: number }
  /** do(variable = value) at one step (a class index for a categorical variable): a counterfactual replayed on the same noise. */
  | { kind: 'set'; variable: number; step: number; value: number };

/** `steps` steps after a burn-in, as a frame (categorical classes labelled c0, c1, ...), with any faults injected. */
export function simulateLagged(model: LaggedScm, steps: number, seed: number, burnIn = 200, faults: readonly Fault[] = []): Frame {
  const rng = new Rng(seed);
  const history: number[][] = [];
  const changed = (k: number): LaggedScm => {
    const active = faults.filter((f): f is Extract<Fault, { kind: 'mechanism' }> => f.kind === 'mechanism' && k >= f.from);
    return active.length === 0 ? model : { ...model, links: model.links.map((l, i) => ({ ...l, weight: active.find((f) => f.link === i)?.weight ?? l.weight })) };
  };
  for (let t = 0; t < burnIn + steps; t++) {
    const k = t - burnIn;
    const shock = (j: number) => faults.reduce((sum, f) => sum + (f.kind === 'shock' && f.variable === j && f.step === k ? f.size : 0), 0);
    const set = new Map(faults.flatMap((f) => (f.kind === 'set' && f.step === k ? [[f.variable, f.value] as const] : [])));
    history.push(stepValues(changed(k), history, t, (j) => rng.normal() + shock(j), set));
  }
  const kept = history.slice(burnIn);
  return frameOf(
    model.names.map((name, j) =>
      model.kinds[j] === 'continuous'
        ? continuousColumn(name, kept.map((row) => row[j]!))
        : categoricalColumn(name, kept.map((row) => `c${row[j]!}`), Array.from({ length: model.levels[j]! }, (_, k) => `c${k}`)),
    ),
  );
}

/** Shrinks the lagged weights until the reduced form X(t) = (I - B0)^-1 (sum of B_l X(t-l) + ...) is stable. */
function stabilise(names: string[], links: LaggedLink[], L: number): void {
  const n = names.length;
  const index = new Map(names.map((name, i) => [name, i]));
  for (let round = 0; round < 50; round++) {
    // (I - B0)^-1 by fixed-point iteration: B0 is nilpotent (a DAG), so n terms are exact.
    const b0 = new Float64Array(n * n);
    for (const l of links) if (l.lag === 0) b0[index.get(l.target)! * n + index.get(l.source)!] = l.weight;
    let inverse = identity(n);
    for (let k = 0; k < n; k++) inverse = add(identity(n), multiply(b0, inverse, n));
    const size = n * L;
    const companion = new Float64Array(size * size);
    for (let lag = 1; lag <= L; lag++) {
      const b = new Float64Array(n * n);
      for (const l of links) if (l.lag === lag) b[index.get(l.target)! * n + index.get(l.source)!]! += l.weight;
      const a = multiply(inverse, b, n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) companion[i * size + (lag - 1) * n + j] = a[i * n + j]!;
    }
    for (let i = n; i < size; i++) companion[i * size + i - n] = 1;
    if (spectralRadius(companion, size) <= 0.95) return;
    for (const l of links) if (l.lag > 0) l.weight *= 0.9;
  }
}

const identity = (n: number) => {
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) m[i * n + i] = 1;
  return m;
};
const add = (a: Float64Array, b: Float64Array) => a.map((v, k) => v + b[k]!);
function multiply(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) out[i * n + j]! += a[i * n + k]! * b[k * n + j]!;
  return out;
}

/** The growth rate of ||M^k v||^(1/k) for a generic start: the spectral radius (Gelfand). */
function spectralRadius(m: Float64Array, size: number): number {
  let v = Float64Array.from({ length: size }, (_, i) => 1 + ((i * 7919) % 13) / 13);
  let log = 0;
  const steps = 400;
  for (let k = 0; k < steps; k++) {
    const next = new Float64Array(size);
    for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) next[i]! += m[i * size + j]! * v[j]!;
    const norm = Math.hypot(...next);
    if (norm === 0) return 0;
    log += Math.log(norm);
    v = next.map((x) => x / norm);
  }
  return Math.exp(log / steps);
}
