/**
 * Why a row's target prediction sits where it does: the signed contribution of each variable to the target's
 * deviation from the model's average prediction. A parent's contribution is the prediction minus the prediction
 * with that parent replaced by its mean (a categorical parent: averaged over its categories by their marginal
 * shares). For a linear term this is exactly coefficient x (value - mean), so contributions add up to the
 * deviation. A parent the row did not hold was completed from its own parents (unit-probe.ts completeNeutral):
 * when the target is linear in it, its contribution passes on to those parents, coefficient times their
 * contributions to it (coefficient x deviation along the path); whatever does not pass on stays with it.
 * A categorical target's contributions are to the probability of its wanted class.
 */
import { predictContinuous, predictProbabilities } from '../cbn/predict.js';
import type { Frame, FrameColumn, NodeModel } from '../types.js';
import type { Scm } from './scm.js';

/** Per variable (node index), its contribution in every row. */
export type Contributions = Map<number, Float64Array>;

export class DriverAttribution {
  private readonly memo = new Map<number, Contributions>();

  constructor(
    private readonly scm: Scm,
    /** Every row's values with missing cells completed (model order). */
    private readonly completed: Frame,
    /** Per node, 1 in the rows where its value was completed rather than observed. */
    private readonly imputed: Uint8Array[],
  ) {}

  /** Contributions to a continuous node's conditional mean, or to a categorical node's probability of class `code`. */
  of(node: number, code = 0): Contributions {
    const key = node * 1024 + code;
    const cached = this.memo.get(key);
    if (cached) return cached;
    const model = this.scm.model.nodes[node]!;
    const score = (frame: Frame) => scoreOf(model, frame, code);
    const base = score(this.completed);
    const out: Contributions = new Map();
    const add = (variable: number, values: Float64Array, rows?: Uint8Array) => {
      let sum = out.get(variable);
      if (!sum) out.set(variable, (sum = new Float64Array(this.completed.nRows)));
      for (let r = 0; r < values.length; r++) if (!rows || rows[r] === 1) sum[r]! += values[r]!;
    };
    for (const name of model.parents) {
      const parent = this.scm.indexOf(name);
      const direct = this.replacementEffect(parent, base, score);
      const slope = linearSlope(model, name);
      const imputed = this.imputed[parent]!;
      const parentModel = this.scm.model.nodes[parent]!;
      if (slope === null || parentModel.kind !== 'continuous' || parentModel.parents.length === 0 || !imputed.includes(1)) {
        add(parent, direct);
        continue;
      }
      const observed = imputed.map((x) => 1 - x);
      add(parent, direct, observed);
      // Completed rows: the parent's own drivers, scaled by this node's slope in it; the rest stays with the parent.
      const remainder = direct.slice();
      for (const [variable, values] of this.of(parent)) {
        const passed = values.map((v) => slope * v);
        add(variable, passed, imputed);
        for (let r = 0; r < remainder.length; r++) remainder[r]! -= passed[r]!;
      }
      add(parent, remainder, imputed);
    }
    this.memo.set(key, out);
    return out;
  }

  /** score(rows) - score(rows with the parent at its mean, or averaged over its categories). */
  private replacementEffect(parent: number, base: Float64Array, score: (frame: Frame) => Float64Array): Float64Array {
    const model = this.scm.model.nodes[parent]!;
    const n = this.completed.nRows;
    const withColumn = (column: FrameColumn): Frame => ({ nRows: n, columns: this.completed.columns.map((c, i) => (i === parent ? column : c)) });
    const out = base.slice();
    if (model.kind === 'continuous') {
      const replaced = score(withColumn({ name: model.name, kind: 'continuous', values: new Float64Array(n).fill(model.mean) }));
      for (let r = 0; r < n; r++) out[r]! -= replaced[r]!;
      return out;
    }
    model.categories.forEach((_, k) => {
      const share = model.marginal[k]!;
      const replaced = score(withColumn({ name: model.name, kind: 'categorical', codes: new Int32Array(n).fill(k), categories: [...model.categories] }));
      for (let r = 0; r < n; r++) out[r]! -= share * replaced[r]!;
    });
    return out;
  }
}

function scoreOf(model: NodeModel, frame: Frame, code: number): Float64Array {
  if (model.kind === 'continuous') return predictContinuous(model, frame);
  const classes = model.categories.length;
  const probabilities = predictProbabilities(model, frame);
  return Float64Array.from({ length: frame.nRows }, (_, r) => probabilities[r * classes + code]!);
}

/** The coefficient of a continuous node's linear term in `parent` when that is the only term using it; else null. */
function linearSlope(model: NodeModel, parent: string): number | null {
  if (model.kind !== 'continuous') return null;
  const using = model.terms.map((t, i) => ({ t, i })).filter(({ t }) => t.parents.includes(parent));
  return using.length === 1 && using[0]!.t.kind === 'linear' ? model.coefficients[using[0]!.i]! : null;
}
