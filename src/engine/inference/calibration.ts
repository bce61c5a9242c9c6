/**
 * How improbable a unit is under a twin, as calibrated tail probabilities (DESIGN.md "root cause by noise anomaly
 * scores ... anomaly scan by calibrated tail probabilities").
 *
 * - A node's noise score is the tail probability of what its own mechanism produced given its parents. Continuous:
 *   two-sided tail of the standardised residual against the node's residual distribution (tail-probability.ts;
 *   the standard normal when too few residuals were kept). Categorical: P(the model draws a class at most as
 *   probable as the observed one | parents), the tail probability of the -log p score, exact given the parents.
 *   Under the model every continuous noise score is uniform and independent of everything upstream, so the
 *   scores of a unit are independent; a node is scored only when it and all its parents are observed, which keeps
 *   that property for the scored subset.
 * - A unit's score combines its scored nodes by the smallest noise score, Sidak-adjusted with an effective number
 *   of tests (Nyholt 2004): 1 - (1 - min p)^m. For continuous nodes m is their count (exact). Categorical scores
 *   are discrete and conservative, so m is calibrated by Monte Carlo from the model itself: the m for which a
 *   unit drawn from the model is flagged with probability targetFpr.
 * - A variable's value score (root cause analysis judges the target by it) is its two-sided marginal tail
 *   probability in normal operation: of the training values the fit kept (NodeModel.valueQuantiles), else of the
 *   same Monte Carlo units. The kept values come first because the model's margin is only as good as the model:
 *   on PetShop the linear twin's simulated PetSite latency ends well inside the range the training rows reach
 *   (its 99.75% point 0.112 s against the data's 0.127 s), so normal rows held out after training were flagged
 *   at several times the false-alarm rate.
 */
import type { Frame } from '../types.js';
import { type Columns, type NodePlan, conditionalMeanInto, probabilitiesInto } from './scm-plan.js';
import { type Scm, drawNoise, plansOf, propagate } from './scm.js';
import { MIN_TAIL_PROBABILITY, empiricalTail } from './tail-probability.js';

/** Units simulated from the model to calibrate categorical scores and marginal tails. */
export const MONTE_CARLO_UNITS = 20_000;
/** The effective number of tests is calibrated at no lower a rate than this (at least 50 simulated alarms);
 * it shrinks as the rate falls (categorical atoms matter less), so reusing it at a lower rate errs on the safe side. */
const LOWEST_CALIBRATED_RATE = 50 / MONTE_CARLO_UNITS;
/** Fewest training values that stand for a variable's margin; with fewer it is simulated from the model. */
const MIN_MARGIN_POINTS = 30;
/** Default false-alarm rate of the anomaly families (spec: targetFpr 0.0001 to 0.1). */
export const DEFAULT_TARGET_FPR = 0.01;

/** A stream of seeds derived from one run seed, so each random step is reproducible on its own. */
export function subSeed(seed: number, stream: number): number {
  return (Math.imul(seed >>> 0, 0x9e3779b1) + Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
}

/** The frame's columns in model order as typed arrays (continuous values, categorical codes); the frame must be
 * over the model's variables in model order (frameFromRecords, propagate). */
export function modelColumns(scm: Scm, frame: Frame): Columns {
  if (frame.columns.length !== scm.names.length || frame.columns.some((c, i) => c.name !== scm.names[i])) {
    throw new Error('the frame is not over the model variables in model order');
  }
  return frame.columns.map((c) => (c.kind === 'continuous' ? c.values : c.codes));
}

/** Per node, per row: 1 when the value is observed. */
export function observedMasks(columns: Columns): Uint8Array[] {
  return columns.map((values) => {
    const out = new Uint8Array(values.length);
    if (values instanceof Float64Array) for (let r = 0; r < values.length; r++) out[r] = Number.isNaN(values[r]!) ? 0 : 1;
    else for (let r = 0; r < values.length; r++) out[r] = values[r]! >= 0 ? 1 : 0;
    return out;
  });
}

/**
 * Noise scores of every node for every row (model order): the tail probability of the node's own noise given its
 * parents; NaN where the node or one of its parents is missing.
 */
export function noiseTailProbabilities(scm: Scm, frame: Frame): Float64Array[] {
  const plans = plansOf(scm);
  const columns = modelColumns(scm, frame);
  const scorable = scorableRows(scm, columns);
  const residuals = noiseResiduals(scm, frame);
  const n = frame.nRows;
  const scratch = new Float64Array(plans.reduce((m, p) => (p.kind === 'categorical' ? Math.max(m, p.classes) : m), 1));
  return plans.map((plan, j) => {
    const out = new Float64Array(n).fill(Number.NaN);
    if (plan.kind === 'continuous') {
      for (let r = 0; r < n; r++) if (scorable(j, r)) out[r] = plan.noise.twoSided(residuals[j]![r]! / plan.scale);
      return out;
    }
    const codes = columns[j] as Int32Array;
    for (let r = 0; r < n; r++) {
      if (!scorable(j, r)) continue;
      probabilitiesInto(plan, columns, r, scratch);
      out[r] = categoricalTail(scratch, plan.classes, codes[r]!);
    }
    return out;
  });
}

/** Each continuous node's own noise per row: its value less its conditional mean given its parents (NaN where it or
 * a parent is missing, and for categorical nodes). */
export function noiseResiduals(scm: Scm, frame: Frame): Float64Array[] {
  const columns = modelColumns(scm, frame);
  const scorable = scorableRows(scm, columns);
  const n = frame.nRows;
  return plansOf(scm).map((plan, j) => {
    const out = new Float64Array(n).fill(Number.NaN);
    if (plan.kind !== 'continuous') return out;
    const mean = new Float64Array(n);
    conditionalMeanInto(plan, columns, n, mean);
    const values = columns[j] as Float64Array;
    for (let r = 0; r < n; r++) if (scorable(j, r)) out[r] = values[r]! - mean[r]!;
    return out;
  });
}

/** Whether node j's noise can be scored in row r: it and all its parents are observed. */
function scorableRows(scm: Scm, columns: Columns): (j: number, r: number) => boolean {
  const observed = observedMasks(columns);
  return (j, r) => observed[j]![r] === 1 && scm.parentsOf(j).every((q) => observed[q]![r] === 1);
}

/** P(a draw is a class at most as probable as class c): the exact tail of the -log p score. */
export function categoricalTail(probabilities: ArrayLike<number>, classes: number, c: number): number {
  const own = probabilities[c] ?? 0;
  if (!(own > 0)) return MIN_TAIL_PROBABILITY;
  let tail = 0;
  for (let k = 0; k < classes; k++) if (probabilities[k]! <= own * (1 + 1e-9)) tail += probabilities[k]!;
  return Math.min(1, Math.max(MIN_TAIL_PROBABILITY, tail));
}

/** A unit-level score: the smallest noise score, Sidak-adjusted with `tests` effective tests. */
export function sidakScore(minimum: number, tests: number): number {
  if (Number.isNaN(minimum)) return Number.NaN;
  return Math.min(1, Math.max(MIN_TAIL_PROBABILITY, -Math.expm1(tests * Math.log1p(-Math.min(minimum, 1)))));
}

/** The noise score below which a unit with `tests` effective tests is flagged at rate targetFpr. */
export function nodeThreshold(targetFpr: number, tests: number): number {
  return -Math.expm1(Math.log1p(-targetFpr) / tests);
}

export interface UnitScores {
  /** Per row: the unit's calibrated tail probability (NaN when no node could be scored). */
  score: Float64Array;
  /** Per row: the noise score at or below which a node makes the unit anomalous. */
  nodeThreshold: Float64Array;
  /** Per node (model order), per row: the noise scores. */
  noise: Float64Array[];
}

/**
 * Monte Carlo calibration of one twin: units simulated from the model (lazily, seeded) give the effective number
 * of tests of each set of scored nodes that holds a categorical node, and every variable's marginal distribution.
 */
export class ModelCalibration {
  private simulatedFrame: Frame | undefined;
  private simulatedNoise: Float64Array[] | undefined;
  private readonly testsCache = new Map<string, number>();
  private readonly valueTails = new Map<number, (value: number) => number>();
  private readonly modelValueTails = new Map<number, (value: number) => number>();
  private readonly plans: NodePlan[];

  constructor(
    readonly scm: Scm,
    private readonly seed: number,
    private readonly units = MONTE_CARLO_UNITS,
  ) {
    this.plans = plansOf(scm);
  }

  /** Units drawn from the model. */
  simulated(): Frame {
    this.simulatedFrame ??= propagate(this.scm, drawNoise(this.scm, this.units, subSeed(this.seed, 101)));
    return this.simulatedFrame;
  }

  /** Scores of units: noise scores per node, combined per row over the nodes that could be scored. */
  scoreUnits(frame: Frame, targetFpr: number): UnitScores {
    const noise = noiseTailProbabilities(this.scm, frame);
    const n = frame.nRows;
    const score = new Float64Array(n).fill(Number.NaN);
    const threshold = new Float64Array(n).fill(Number.NaN);
    const scored = new Uint8Array(noise.length);
    for (let r = 0; r < n; r++) {
      let minimum = Number.POSITIVE_INFINITY;
      for (let j = 0; j < noise.length; j++) {
        const p = noise[j]![r]!;
        scored[j] = Number.isNaN(p) ? 0 : 1;
        if (p < minimum) minimum = p;
      }
      if (minimum === Number.POSITIVE_INFINITY) continue;
      const tests = this.effectiveTests(scored, targetFpr);
      score[r] = sidakScore(minimum, tests);
      threshold[r] = nodeThreshold(targetFpr, tests);
    }
    return { score, nodeThreshold: threshold, noise };
  }

  /**
   * The effective number of independent tests of a set of scored nodes (1 = scored): their count when all are
   * continuous, else the m with P_model(1 - (1 - min p)^m <= rate) = rate, from the simulated units.
   */
  effectiveTests(scored: Uint8Array, targetFpr: number): number {
    let count = 0;
    let categorical = false;
    for (let j = 0; j < scored.length; j++) if (scored[j] === 1) {
      count++;
      if (this.plans[j]!.kind === 'categorical') categorical = true;
    }
    if (!categorical) return Math.max(count, 1);
    const rate = Math.max(targetFpr, LOWEST_CALIBRATED_RATE);
    const key = `${rate}:${scored.join('')}`;
    const cached = this.testsCache.get(key);
    if (cached !== undefined) return cached;
    this.simulatedNoise ??= noiseTailProbabilities(this.scm, this.simulated());
    const noise = this.simulatedNoise;
    const minima = new Float64Array(this.units).fill(1);
    for (let j = 0; j < scored.length; j++) {
      if (scored[j] !== 1) continue;
      const p = noise[j]!;
      for (let r = 0; r < this.units; r++) if (p[r]! < minima[r]!) minima[r] = p[r]!;
    }
    minima.sort();
    const threshold = largestThresholdWithin(minima, Math.floor(rate * this.units));
    const tests = Math.log1p(-rate) / Math.log1p(-Math.max(threshold, MIN_TAIL_PROBABILITY));
    this.testsCache.set(key, tests);
    return tests;
  }

  /**
   * The two-sided tail probability of a variable's value in normal operation (value = number, or a category code
   * of the node): against the training values the fit kept when there are enough (the anomaly decisions), else
   * the model's own margin (modelValueTail).
   */
  valueTail(node: number): (value: number) => number {
    let tail = this.valueTails.get(node);
    if (tail) return tail;
    const kept = this.scm.model.nodes[node]!;
    if (kept.kind === 'continuous' && (kept.valueQuantiles?.length ?? 0) >= MIN_MARGIN_POINTS) {
      const distribution = empiricalTail(kept.valueQuantiles!);
      tail = (value) => (Number.isNaN(value) ? Number.NaN : distribution.twoSided(value));
    } else {
      tail = this.modelValueTail(node);
    }
    this.valueTails.set(node, tail);
    return tail;
  }

  /**
   * The two-sided marginal tail probability of a variable's value under the model: from the simulated units,
   * exponential tails beyond them (tail-probability.ts). Smooth in the value wherever the model's noise is, so
   * attributions that move the value unit by unit (root-cause.ts) read every step.
   */
  modelValueTail(node: number): (value: number) => number {
    let tail = this.modelValueTails.get(node);
    if (tail) return tail;
    const column = this.simulated().columns[node]!;
    if (column.kind === 'continuous') {
      const distribution = empiricalTail(Float64Array.from(column.values).sort());
      tail = (value) => (Number.isNaN(value) ? Number.NaN : distribution.twoSided(value));
    } else {
      const classes = column.categories.length;
      const frequencies = new Float64Array(classes).fill(0.5);
      for (const c of column.codes) frequencies[c]!++;
      const total = this.units + 0.5 * classes;
      for (let k = 0; k < classes; k++) frequencies[k]! /= total;
      tail = (value) => (value < 0 ? Number.NaN : categoricalTail(frequencies, classes, value));
    }
    this.modelValueTails.set(node, tail);
    return tail;
  }
}

/** The largest value v of an ascending sample with at most `allowed` entries <= v (half the smallest when none). */
function largestThresholdWithin(sorted: Float64Array, allowed: number): number {
  if (allowed <= 0 || sorted.length === 0) return (sorted[0] ?? 1) / 2;
  if (allowed >= sorted.length) return sorted[sorted.length - 1]!;
  const boundary = sorted[allowed]!;
  // Step down past ties with the first excluded value: a threshold on an atom would take the whole atom.
  let i = allowed - 1;
  while (i >= 0 && sorted[i]! >= boundary) i--;
  return i >= 0 ? sorted[i]! : sorted[0]! / 2;
}
