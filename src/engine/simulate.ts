/**
 * Seeded data from known causal models, for tests and benchmarks: Erdos-Renyi random DAGs, linear-Gaussian,
 * categorical (random CPTs) and mixed structural models, and missing values completely at random.
 * Conventions (documented for the benchmarks): `expectedDegree` k means each of the p(p-1)/2 pairs is an edge
 * with probability k/(p-1) (k*p/2 edges on average) along a random causal order. Note the literature's "ERk"
 * (NOTEARS, gCastle, causal-learn) counts edges instead: ERk has k*p expected edges, i.e. expected degree 2k, so
 * the standard ER2 is `randomModel(p, 4, ..)`. Linear weights are uniform on +-[0.5, 2]; noise is N(0, 1).
 */
import { Rng } from './random.js';
import type { EdgeRef, Frame, FrameColumn } from './types.js';

export interface SimulatedNode {
  name: string;
  kind: 'continuous' | 'categorical';
  parents: number[];
  /** Continuous: weight per parent (continuous parents). Categorical: unused. */
  weights: number[];
  /** Continuous: per parent, an offset per category of a categorical parent (first category 0). */
  offsets: number[][];
  noiseStd: number;
  levels: number;
  /** Categorical with only categorical parents: row-major CPT, one row per parent configuration (last parent fastest). */
  cpt: number[][];
  /** Categorical with a continuous parent: logits[class][parent] slope (continuous parent, on its standardised scale)
   * or logits[class] offsets per category (categorical parent), class 0 fixed at 0. */
  logitSlopes: number[][];
  logitOffsets: number[][][];
  logitIntercepts: number[];
}

export interface SimulatedModel {
  nodes: SimulatedNode[];
  /** Causal order (indices into nodes). */
  order: number[];
}

export interface ModelOptions {
  /** Share of categorical nodes (0 = linear-Gaussian, 1 = all categorical). */
  categoricalShare?: number;
  minLevels?: number;
  maxLevels?: number;
  /** Cap on in-degree (keeps CPTs small); default unlimited for linear models, 3 when categorical nodes exist. */
  maxParents?: number;
  weightRange?: [number, number];
  /** Dirichlet concentration of random CPT rows (smaller = stronger dependence). */
  cptConcentration?: number;
}

/** An ER random DAG: node names X1..Xp; the causal order is a random permutation so column order says nothing. */
export function randomDag(p: number, expectedDegree: number, rng: Rng, maxParents = Infinity): { order: number[]; parents: number[][] } {
  const order = rng.shuffle(Array.from({ length: p }, (_, i) => i));
  const parents: number[][] = Array.from({ length: p }, () => []);
  const prob = p > 1 ? Math.min(1, expectedDegree / (p - 1)) : 0;
  for (let b = 1; b < p; b++) {
    for (let a = 0; a < b; a++) {
      const child = order[b]!;
      if (rng.uniform() < prob && parents[child]!.length < maxParents) parents[child]!.push(order[a]!);
    }
  }
  return { order, parents };
}

/** A random structural model on an ERk DAG with the node kinds and mechanisms of `options`. */
export function randomModel(p: number, expectedDegree: number, seed: number, options: ModelOptions = {}): SimulatedModel {
  const rng = new Rng(seed);
  const share = options.categoricalShare ?? 0;
  const maxParents = options.maxParents ?? (share > 0 ? 3 : Infinity);
  const [wLow, wHigh] = options.weightRange ?? [0.5, 2];
  const minLevels = options.minLevels ?? 2;
  const maxLevels = options.maxLevels ?? 3;
  const { order, parents } = randomDag(p, expectedDegree, rng, maxParents);
  const kinds = Array.from({ length: p }, () => (rng.uniform() < share ? 'categorical' : 'continuous') as SimulatedNode['kind']);
  const levels = kinds.map((k) => (k === 'categorical' ? minLevels + rng.int(maxLevels - minLevels + 1) : 0));
  const signed = () => (rng.uniform() < 0.5 ? -1 : 1) * (wLow + (wHigh - wLow) * rng.uniform());
  const nodes: SimulatedNode[] = [];
  for (let j = 0; j < p; j++) {
    const pa = parents[j]!;
    const node: SimulatedNode = {
      name: `X${j + 1}`, kind: kinds[j]!, parents: pa, weights: [], offsets: [], noiseStd: 1, levels: levels[j]!,
      cpt: [], logitSlopes: [], logitOffsets: [], logitIntercepts: [],
    };
    if (node.kind === 'continuous') {
      for (const q of pa) {
        node.weights.push(kinds[q] === 'continuous' ? signed() : 0);
        node.offsets.push(kinds[q] === 'categorical' ? Array.from({ length: levels[q]! }, (_, c) => (c === 0 ? 0 : signed())) : []);
      }
    } else if (pa.every((q) => kinds[q] === 'categorical')) {
      const configs = pa.reduce((acc, q) => acc * levels[q]!, 1);
      for (let c = 0; c < configs; c++) node.cpt.push(dirichlet(rng, node.levels, options.cptConcentration ?? 1));
    } else {
      for (let k = 0; k < node.levels; k++) {
        node.logitIntercepts.push(k === 0 ? 0 : rng.uniform() - 0.5);
        node.logitSlopes.push(pa.map((q) => (k === 0 || kinds[q] !== 'continuous' ? 0 : 1.5 * signed())));
        node.logitOffsets.push(pa.map((q) => (kinds[q] !== 'categorical' ? [] : Array.from({ length: levels[q]! }, (_, c) => (k === 0 || c === 0 ? 0 : signed())))));
      }
    }
    nodes.push(node);
  }
  return { nodes, order };
}

/** n rows sampled ancestrally from the model (seeded). */
export function sampleModel(model: SimulatedModel, n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const p = model.nodes.length;
  const values: Float64Array[] = Array.from({ length: p }, () => new Float64Array(n));
  const codes: Int32Array[] = Array.from({ length: p }, () => new Int32Array(n));
  const stds = new Float64Array(p).fill(1);
  for (const j of model.order) {
    const node = model.nodes[j]!;
    if (node.kind === 'continuous') {
      const out = values[j]!;
      for (let r = 0; r < n; r++) {
        let v = node.noiseStd * rng.normal();
        node.parents.forEach((q, t) => {
          v += model.nodes[q]!.kind === 'continuous' ? node.weights[t]! * values[q]![r]! : node.offsets[t]![codes[q]![r]!]!;
        });
        out[r] = v;
      }
      stds[j] = standardDeviation(out);
      continue;
    }
    const out = codes[j]!;
    const probs = new Float64Array(node.levels);
    for (let r = 0; r < n; r++) {
      if (node.cpt.length > 0) {
        let config = 0;
        for (const q of node.parents) config = config * model.nodes[q]!.levels + codes[q]![r]!;
        const row = node.cpt[config]!;
        for (let k = 0; k < node.levels; k++) probs[k] = row[k]!;
      } else {
        let max = -Infinity;
        for (let k = 0; k < node.levels; k++) {
          let logit = node.logitIntercepts[k]!;
          node.parents.forEach((q, t) => {
            logit += model.nodes[q]!.kind === 'continuous'
              ? (node.logitSlopes[k]![t]! * values[q]![r]!) / stds[q]!
              : node.logitOffsets[k]![t]![codes[q]![r]!]!;
          });
          probs[k] = logit;
          max = Math.max(max, logit);
        }
        let sum = 0;
        for (let k = 0; k < node.levels; k++) sum += probs[k] = Math.exp(probs[k]! - max);
        for (let k = 0; k < node.levels; k++) probs[k]! /= sum;
      }
      out[r] = drawCategory(rng, probs);
    }
  }
  const columns = model.nodes.map((node, j): FrameColumn => node.kind === 'continuous'
    ? { name: node.name, kind: 'continuous', values: values[j]! }
    : { name: node.name, kind: 'categorical', codes: codes[j]!, categories: Array.from({ length: node.levels }, (_, k) => `c${k}`) });
  return { nRows: n, columns };
}

/** The model's edges by name. */
/**
 * Total effects of node x on every node of a linear simulated model (continuous nodes, continuous parents): the
 * sum over directed paths of the products of weights (Wright 1921); 1 at x itself. The truth effects are checked against.
 */
export function totalEffects(truth: SimulatedModel, x: number): Float64Array {
  const effect = new Float64Array(truth.nodes.length);
  effect[x] = 1;
  for (const j of truth.order) {
    if (j === x) continue;
    effect[j] = truth.nodes[j]!.parents.reduce((s, q, t) => s + truth.nodes[j]!.weights[t]! * effect[q]!, 0);
  }
  return effect;
}

export function modelEdges(model: SimulatedModel): EdgeRef[] {
  return model.nodes.flatMap((node) => node.parents.map((q) => ({ source: model.nodes[q]!.name, target: node.name })));
}

/** A copy of the frame with each cell missing independently with probability `share` (MCAR). */
export function withMissingValues(frame: Frame, share: number, seed: number): Frame {
  const rng = new Rng(seed);
  const columns = frame.columns.map((c): FrameColumn => {
    if (c.kind === 'continuous') {
      const values = c.values.slice();
      for (let r = 0; r < values.length; r++) if (rng.uniform() < share) values[r] = Number.NaN;
      return { ...c, values };
    }
    const codes = c.codes.slice();
    for (let r = 0; r < codes.length; r++) if (rng.uniform() < share) codes[r] = -1;
    return { ...c, codes, categories: [...c.categories] };
  });
  return { nRows: frame.nRows, columns };
}

function dirichlet(rng: Rng, k: number, alpha: number): number[] {
  const draws = Array.from({ length: k }, () => rng.gamma(alpha));
  const sum = draws.reduce((a, b) => a + b, 0);
  return draws.map((d) => d / sum);
}

function drawCategory(rng: Rng, probs: Float64Array): number {
  let u = rng.uniform();
  for (let k = 0; k < probs.length - 1; k++) {
    u -= probs[k]!;
    if (u < 0) return k;
  }
  return probs.length - 1;
}

function standardDeviation(values: Float64Array): number {
  let mean = 0;
  for (const v of values) mean += v;
  mean /= Math.max(1, values.length);
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  return Math.sqrt(ss / Math.max(1, values.length - 1)) || 1;
}
