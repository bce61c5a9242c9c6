/**
 * Units' counterfactual worlds, evaluated under many candidate changes at once: each unit's abducted noise is
 * repeated once per candidate row, every row of every unit asked in one round goes through one vectorised
 * propagate() (scm.ts), and a row's settings are `each` treatments (its own value per node, NaN elsewhere).
 */
import { predictContinuous, predictProbabilities } from '../cbn/predict.js';
import type { Frame, FrameColumn } from '../types.js';
import type { Setting } from './search-candidates.js';
import type { ResolvedTarget } from './target-match.js';
import { abduct, type Noise, plansOf, propagate, type Scm, type Treatment } from './scm.js';

/** Reads each target per row from a propagated frame: a number, or a category code. */
export type Readout = (frame: Frame) => Float64Array[];

/** Rows propagated together at most: a round asking for more is evaluated in several passes (memory stays bounded). */
const MAX_PASS_ROWS = 65_536;

/** Rows of candidate settings for one unit. */
export interface UnitRequest {
  unit: number;
  rows: readonly Setting[][];
}

export class UnitProbe {
  constructor(
    readonly scm: Scm,
    /** Per node, one value per unit: the units' noise. */
    private readonly noise: Noise,
    private readonly readout: Readout,
  ) {}

  get units(): number {
    return this.noise[0]?.length ?? 0;
  }

  /** Every unit unchanged: its nodes' values (numbers, category codes) and its targets' values. */
  baselines(): Array<{ nodes: Float64Array; targets: number[] }> {
    const frame = propagate(this.scm, this.noise);
    const targets = this.readout(frame);
    return Array.from({ length: this.units }, (_, u) => ({
      nodes: Float64Array.from(frame.columns, (c) => (c.kind === 'continuous' ? c.values[u]! : c.codes[u]!)),
      targets: targets.map((c) => c[u]!),
    }));
  }

  /** Per request, per row: the targets' values under the row's settings (a row without settings keeps the unit's world). */
  evaluate(requests: readonly UnitRequest[]): number[][][] {
    const out: number[][][] = [];
    let from = 0;
    while (from < requests.length) {
      let to = from;
      let rows = 0;
      while (to < requests.length && (to === from || rows + requests[to]!.rows.length <= MAX_PASS_ROWS)) rows += requests[to++]!.rows.length;
      const columns = this.readout(this.frame(requests.slice(from, to), rows));
      let offset = 0;
      for (let q = from; q < to; q++) {
        const asked = requests[q]!.rows.length;
        const values: number[][] = new Array(asked);
        for (let r = 0; r < asked; r++) values[r] = columns.map((c) => c[offset + r]!);
        out.push(values);
        offset += asked;
      }
      from = to;
    }
    return out;
  }

  /** The propagated rows of the requests, in order. */
  frame(requests: readonly UnitRequest[], rows = requests.reduce((sum, q) => sum + q.rows.length, 0)): Frame {
    const noise: Noise = this.noise.map((u) => {
      const column = new Float64Array(rows);
      let offset = 0;
      for (const q of requests) {
        column.fill(u[q.unit]!, offset, offset + q.rows.length);
        offset += q.rows.length;
      }
      return column;
    });
    return this.settingsFrame(noise, requests.flatMap((q) => q.rows));
  }

  /**
   * Per row of settings, the targets' values in a world of no unit: every continuous noise 0, every categorical
   * uniform 0.5. What holds in every world (an affine lever's slopes: search.ts) is read here, the same for any
   * set or order of units.
   */
  neutral(rows: readonly Setting[][]): number[][] {
    const noise: Noise = plansOf(this.scm).map((plan) => new Float64Array(rows.length).fill(plan.kind === 'categorical' ? 0.5 : 0));
    const columns = this.readout(this.settingsFrame(noise, rows));
    return rows.map((_, r) => columns.map((c) => c[r]!));
  }

  /** The noise's units propagated, row r with the settings of rows[r] (`each` treatments, NaN where a row sets nothing). */
  private settingsFrame(noise: Noise, rows: readonly (readonly Setting[])[]): Frame {
    const byNode = new Map<number, Float64Array>();
    rows.forEach((settings, row) => {
      for (const s of settings) {
        let values = byNode.get(s.node);
        if (!values) byNode.set(s.node, (values = new Float64Array(rows.length).fill(Number.NaN)));
        values[row] = s.value;
      }
    });
    const treatments = [...byNode].map(([node, values]): Treatment => ({ node: this.scm.names[node]!, kind: 'each', values }));
    return propagate(this.scm, noise, treatments);
  }
}

/** The targets' own columns: the counterfactual values of the unit (continuous values, categorical codes). */
export function targetColumns(targets: readonly ResolvedTarget[]): Readout {
  return (frame) => targets.map((t) => {
    const column = frame.columns[t.index]!;
    return column.kind === 'continuous' ? column.values : Float64Array.from(column.codes);
  });
}

/**
 * The targets as the model predicts them from their parents in the frame: the conditional mean of a continuous
 * target, the most likely class of a categorical one (scoring judges this prediction, not a noisy draw).
 */
export function targetPredictions(scm: Scm, targets: readonly ResolvedTarget[]): Readout {
  return (frame) => targets.map((t) => predictNode(scm, t.index, frame));
}

/** A node's prediction from its parents in the frame: conditional mean, or most likely class code. */
export function predictNode(scm: Scm, index: number, frame: Frame): Float64Array {
  const node = scm.model.nodes[index]!;
  if (node.kind === 'continuous') return predictContinuous(node, frame);
  const classes = node.categories.length;
  const probabilities = predictProbabilities(node, frame);
  const out = new Float64Array(frame.nRows);
  for (let r = 0; r < frame.nRows; r++) out[r] = argmax(probabilities, r * classes, classes);
  return out;
}

function argmax(values: Float64Array, from: number, length: number): number {
  let best = 0;
  for (let k = 1; k < length; k++) if (values[from + k]! > values[from + best]!) best = k;
  return Number.isNaN(values[from]!) ? Number.NaN : best;
}

/**
 * Abduction with missing cells made neutral instead of drawn (completeNeutral), then abduction of the completed
 * rows. So a unit's answer does not hang on a random draw for a value nobody observed, and observed descendants
 * keep their own values.
 */
export function abductNeutral(scm: Scm, rows: Frame, seed: number): Noise {
  const { frame, middles } = completeNeutral(scm, rows);
  const noise = abduct(scm, frame, seed);
  for (const [i, middle] of middles) for (const [r, u] of middle) noise[i]![r] = u;
  return noise;
}

/**
 * The rows over the model's variables (model order and categories) with every missing cell completed in causal
 * order: a continuous value by its conditional mean given its parents (noise 0), a category by its most likely
 * class; `middles` holds, per completed categorical cell, the uniform at the middle of that class's CDF slice.
 */
export function completeNeutral(scm: Scm, rows: Frame): { frame: Frame; middles: Map<number, Map<number, number>> } {
  const byName = new Map(rows.columns.map((c) => [c.name, c]));
  const n = rows.nRows;
  const columns: FrameColumn[] = [];
  const frame: Frame = { nRows: n, columns };
  const middles = new Map<number, Map<number, number>>();
  scm.model.nodes.forEach((node, i) => {
    const given = byName.get(node.name);
    if (node.kind === 'continuous') {
      const values = given?.kind === 'continuous' ? given.values.slice() : new Float64Array(n).fill(Number.NaN);
      columns.push({ name: node.name, kind: 'continuous', values });
      let missing = false;
      for (let r = 0; r < n && !missing; r++) missing = Number.isNaN(values[r]!);
      if (!missing) return;
      const mean = predictContinuous(node, frame);
      for (let r = 0; r < n; r++) if (Number.isNaN(values[r]!)) values[r] = mean[r]!;
      return;
    }
    const codes = new Int32Array(n).fill(-1);
    if (given?.kind === 'categorical') {
      const translate = given.categories.map((label) => node.categories.indexOf(label));
      for (let r = 0; r < n; r++) codes[r] = given.codes[r]! < 0 ? -1 : translate[given.codes[r]!] ?? -1;
    }
    columns.push({ name: node.name, kind: 'categorical', codes, categories: [...node.categories] });
    if (codes.indexOf(-1) < 0) return;
    const classes = node.categories.length;
    const probabilities = predictProbabilities(node, frame);
    const marginal = Float64Array.from(node.marginal);
    const middle = new Map<number, number>();
    for (let r = 0; r < n; r++) {
      if (codes[r]! >= 0) continue;
      // An unseen parent category leaves no probabilities: propagate draws from the marginal then, so do we.
      const row = Number.isNaN(probabilities[r * classes]!) ? marginal : probabilities.subarray(r * classes, (r + 1) * classes);
      const mode = argmax(row, 0, classes);
      let below = 0;
      for (let k = 0; k < mode; k++) below += row[k]!;
      codes[r] = mode;
      middle.set(r, below + row[mode]! / 2);
    }
    middles.set(i, middle);
  });
  return { frame, middles };
}
