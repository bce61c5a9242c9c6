/**
 * Prediction by likelihood weighting (Fung & Chang 1990; Koller & Friedman 2009, 12.2) for twins without a
 * closed form: K particles per row are sampled ancestrally with the observed variables clamped to the row's
 * values, each weighted by the likelihood of those values given its sampled parents (a continuous node's
 * Gaussian residual density, a categorical node's class probability). Only the targets, the observed variables
 * and their ancestors are sampled: other nodes cannot change the answer. Rows sharing a pattern of observed
 * variables are sampled together, K particles each, in one column-wise pass.
 */
import { AbortError } from '../discovery/budget.js';
import type { Rng } from '../random.js';
import type { Frame, WorkHooks } from '../types.js';
import type { ResultRecord } from './outcome.js';
import { type Columns, conditionalMeanInto, cumulativeInto, inverseCdf, probabilitiesInto } from './scm-plan.js';
import { type Scm, ancestorsOf, plansOf, priorNoise } from './scm.js';

/** Particles sampled at once (rows x K), to bound memory. */
const CHUNK_PARTICLES = 200_000;
const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

export interface WeightingJob {
  scm: Scm;
  /** Input rows over the model's variables, model order. */
  frame: Frame;
  /** Rows of one pattern and the nodes observed in it (targets never are). */
  rows: number[];
  observed: number[];
  targets: number[];
  particles: number;
  z: number;
  confidenceLevel: number;
  rng: Rng;
  hooks: WorkHooks;
}

/** Writes each row's record for each target into out[target][row]. */
export function predictByWeighting(job: WeightingJob, out: Map<number, ResultRecord[]>): void {
  const { scm, frame, observed, targets, particles: k } = job;
  const plans = plansOf(scm);
  const relevant = new Uint8Array(plans.length);
  for (const i of [...targets, ...observed]) {
    relevant[i] = 1;
    for (const a of ancestorsOf(scm, i)) relevant[a] = 1;
  }
  const isObserved = new Uint8Array(plans.length);
  for (const i of observed) isObserved[i] = 1;
  const chunkRows = Math.max(1, Math.floor(CHUNK_PARTICLES / k));
  const scratch = new Float64Array(plans.reduce((m, p) => (p.kind === 'categorical' ? Math.max(m, p.classes) : m), 1));
  const cumulative = new Float64Array(scratch.length);
  for (let start = 0; start < job.rows.length; start += chunkRows) {
    if (job.hooks.aborted?.() === true) throw new AbortError();
    const rows = job.rows.slice(start, start + chunkRows);
    const n = rows.length * k;
    const logw = new Float64Array(n);
    const columns: Columns = [];
    for (const plan of plans) {
      const i = plan.index;
      if (relevant[i] === 0) {
        columns.push(plan.kind === 'continuous' ? new Float64Array(0) : new Int32Array(0));
        continue;
      }
      const given = frame.columns[i]!;
      if (plan.kind === 'continuous') {
        const v = new Float64Array(n);
        conditionalMeanInto(plan, columns, n, v);
        if (isObserved[i] === 1 && given.kind === 'continuous') {
          const sd = plan.noiseStd > 0 ? plan.noiseStd : 1e-9;
          rows.forEach((row, c) => {
            const x = given.values[row]!;
            for (let idx = c * k; idx < (c + 1) * k; idx++) {
              const zscore = (x - v[idx]!) / sd;
              logw[idx]! += -0.5 * zscore * zscore - Math.log(sd) - LOG_SQRT_2PI;
              v[idx] = x;
            }
          });
        } else {
          for (let idx = 0; idx < n; idx++) v[idx]! += plan.scale * priorNoise(plan, job.rng);
        }
        columns.push(v);
        continue;
      }
      const codes = new Int32Array(n);
      columns.push(codes);
      const clamp = isObserved[i] === 1 && given.kind === 'categorical';
      rows.forEach((row, c) => {
        const obs = clamp ? given.codes[row]! : -1;
        for (let idx = c * k; idx < (c + 1) * k; idx++) {
          probabilitiesInto(plan, columns, idx, scratch);
          if (clamp) {
            logw[idx]! += Math.log(Math.max(scratch[obs]!, 1e-300));
            codes[idx] = obs;
          } else {
            cumulativeInto(scratch, 0, plan.classes, cumulative, 0);
            codes[idx] = inverseCdf(cumulative, 0, plan.classes, job.rng.uniform());
          }
        }
      });
    }
    rows.forEach((row, c) => {
      const weights = normalisedWeights(logw, c * k, k);
      for (const t of targets) out.get(t)![row] = summarise(plans[t]!.kind === 'continuous' ? columns[t] as Float64Array : columns[t] as Int32Array,
        c * k, weights, job, scm.model.nodes[t]!);
    });
  }
}

/** exp(logw - max) over a row's particles, scaled to sum 1. */
function normalisedWeights(logw: Float64Array, from: number, k: number): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < k; i++) if (logw[from + i]! > max) max = logw[from + i]!;
  const w = new Float64Array(k);
  let sum = 0;
  for (let i = 0; i < k; i++) sum += w[i] = Math.exp(logw[from + i]! - max);
  for (let i = 0; i < k; i++) w[i]! /= sum;
  return w;
}

function summarise(column: Float64Array | Int32Array, from: number, w: Float64Array, job: WeightingJob, node: Scm['model']['nodes'][number]): ResultRecord {
  const k = w.length;
  const confidenceLevel = job.confidenceLevel;
  if (node.kind === 'continuous') {
    let mean = 0;
    for (let i = 0; i < k; i++) mean += w[i]! * column[from + i]!;
    let variance = 0;
    for (let i = 0; i < k; i++) variance += w[i]! * (column[from + i]! - mean) ** 2;
    const order = Array.from({ length: k }, (_, i) => i).sort((a, b) => column[from + a]! - column[from + b]!);
    const alpha = (1 - confidenceLevel) / 2;
    let lowerBound = column[from + order[0]!]!;
    let upperBound = column[from + order[k - 1]!]!;
    let acc = 0;
    let lowFound = false;
    for (const i of order) {
      acc += w[i]!;
      if (!lowFound && acc >= alpha) {
        lowerBound = column[from + i]!;
        lowFound = true;
      }
      if (acc >= 1 - alpha) {
        upperBound = column[from + i]!;
        break;
      }
    }
    return { timestamp: null, prediction: mean, std: Math.sqrt(variance), lowerBound, upperBound, confidenceLevel };
  }
  const classes = node.categories.length;
  const p = new Array<number>(classes).fill(0);
  let squares = 0;
  for (let i = 0; i < k; i++) {
    p[column[from + i]!]! += w[i]!;
    squares += w[i]! ** 2;
  }
  const ess = 1 / squares;
  const bounds = p.map((q) => wilson(q, ess, job.z));
  const best = p.reduce((b, q, c) => (q > p[b]! ? c : b), 0);
  return {
    timestamp: null, prediction: node.categories[best]!, std: null, probabilities: p, categories: [...node.categories],
    lowerBound: bounds.map((b) => b[0]), upperBound: bounds.map((b) => b[1]), confidenceLevel,
  };
}

/** Wilson score interval of a proportion from an effective sample size (Wilson 1927). */
export function wilson(p: number, n: number, z: number): [number, number] {
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
