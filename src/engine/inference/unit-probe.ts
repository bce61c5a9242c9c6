/**
 * One unit's counterfactual world, evaluated under many candidate changes at once: the unit's abducted noise is
 * repeated once per candidate row and propagate() runs every row in one vectorised pass (scm.ts). A row's lever
 * values become `set` treatments grouped by distinct value, so a grid of candidates costs one propagation.
 */
import { predictContinuous, predictProbabilities } from '../cbn/predict.js';
import type { Frame, FrameColumn } from '../types.js';
import type { ResolvedTarget } from './target-match.js';
import { abduct, type Noise, propagate, type Scm, type Treatment } from './scm.js';

/** A node's value per evaluated row: a number for a continuous node, a category code for a categorical one;
 * NaN leaves the node to its mechanism in that row. */
export interface RowSetting {
  node: number;
  values: Float64Array;
}

/** Reads each target per row from a propagated frame: a number, or a category code. */
export type Readout = (frame: Frame) => Float64Array[];

export class UnitProbe {
  /** Rows propagated so far (a cost measure for budgets and reports). */
  rowsEvaluated = 0;

  constructor(
    readonly scm: Scm,
    /** One value per node: the unit's noise. */
    private readonly noise: Float64Array,
    private readonly readout: Readout,
  ) {}

  /** The targets' values in each of `rows` rows under the settings (rows without a setting keep the unit's world). */
  evaluate(rows: number, settings: readonly RowSetting[]): Float64Array[] {
    return this.readout(this.frame(rows, settings));
  }

  /** The unit unchanged: every node's value (numbers, category codes) and the targets' values. */
  baseline(): { nodes: Float64Array; targets: number[] } {
    const frame = this.frame(1, []);
    const nodes = Float64Array.from(frame.columns, (c) => (c.kind === 'continuous' ? c.values[0]! : c.codes[0]!));
    return { nodes, targets: this.readout(frame).map((c) => c[0]!) };
  }

  frame(rows: number, settings: readonly RowSetting[]): Frame {
    const noise: Noise = Array.from(this.noise, (u) => new Float64Array(rows).fill(u));
    this.rowsEvaluated += rows;
    return propagate(this.scm, noise, settings.flatMap((s) => rowSetTreatments(this.scm, s.node, s.values)));
  }
}

/** `set` treatments that give each row its own value: one treatment (with a row mask) per distinct value. */
function rowSetTreatments(scm: Scm, node: number, values: Float64Array): Treatment[] {
  const name = scm.names[node]!;
  const model = scm.model.nodes[node]!;
  const masks = new Map<number, Uint8Array>();
  for (let r = 0; r < values.length; r++) {
    const v = values[r]!;
    if (Number.isNaN(v)) continue;
    let mask = masks.get(v);
    if (!mask) masks.set(v, (mask = new Uint8Array(values.length)));
    mask[r] = 1;
  }
  return [...masks].map(([v, rows]): Treatment => ({
    node: name, kind: 'set', value: model.kind === 'categorical' ? model.categories[v]! : v, ...(rows.every((x) => x === 1) ? {} : { rows }),
  }));
}

/** The unit's noise: one value per node. */
export const unitNoise = (noise: Noise, unit: number): Float64Array => Float64Array.from(noise, (u) => u[unit]!);

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
