/**
 * Standing conditions: anomalies that were already there before the incident. Root cause analysis asks what changed;
 * a variable that was as far from the twin's normal in the baseline (observations from just before the samples
 * diagnosed) as it is in a sample, on the same side, is a standing condition of the system -- a configuration or
 * traffic change the twin never saw, say -- not a cause of what the sample shows. Such a variable's noise or value
 * is then not counted as anomalous (root-cause.ts): it is neither a candidate nor part of a cascade, and the answer
 * lists it under `standing`.
 *
 * Continuous: a sample's noise (residual given the parents) or value is standing when some baseline row's was at
 * least as far from normal on the same side -- the residual's sign, the value's side of the twin's median. Categorical:
 * when some baseline row's tail probability was at most the sample's (a class as improbable or more).
 */
import { selectRows } from '../frame.js';
import type { Frame } from '../types.js';
import { type ModelCalibration, modelColumns, noiseResiduals, noiseTailProbabilities } from './calibration.js';

export class StandingConditions {
  /** Per node: the baseline's noise residuals (continuous) or noise tail probabilities (categorical). */
  private readonly noise: Float64Array[];
  /** Per node: the baseline's values less the twin's median (continuous) or value tail probabilities (categorical). */
  private readonly value: Float64Array[];
  /** Per node: the twin's median (NaN for categorical nodes). */
  private readonly medians: number[];

  constructor(
    private readonly calibration: ModelCalibration,
    baseline: Frame,
  ) {
    this.medians = calibration.simulated().columns.map((c) => (c.kind === 'continuous' ? median(c.values) : Number.NaN));
    this.noise = this.noiseMeasure(baseline);
    this.value = this.valueMeasure(baseline);
  }

  /** Per node, for row `row` of `frame` (over the model's variables in model order): [noise standing, value standing]. */
  of(frame: Frame, row: number): { noise: boolean[]; value: boolean[] } {
    const sample = selectRows(frame, [row]);
    const standing = (baseline: Float64Array[], own: Float64Array[]) => own.map((x, j) => covered(baseline[j]!, x[0]!, !Number.isNaN(this.medians[j]!)));
    return { noise: standing(this.noise, this.noiseMeasure(sample)), value: standing(this.value, this.valueMeasure(sample)) };
  }

  private noiseMeasure(frame: Frame): Float64Array[] {
    const residuals = noiseResiduals(this.calibration.scm, frame);
    // Tail probabilities only for categorical nodes (their medians are NaN); they recompute the residuals.
    const tails = this.medians.some((m) => Number.isNaN(m)) ? noiseTailProbabilities(this.calibration.scm, frame) : null;
    return residuals.map((r, j) => (Number.isNaN(this.medians[j]!) ? tails![j]! : r));
  }

  private valueMeasure(frame: Frame): Float64Array[] {
    const columns = modelColumns(this.calibration.scm, frame);
    return columns.map((values, j) => {
      if (!Number.isNaN(this.medians[j]!)) return Float64Array.from(values as Float64Array, (x) => x - this.medians[j]!);
      const tail = this.calibration.valueTail(j);
      return Float64Array.from(values, (code) => tail(code));
    });
  }
}

/** Whether some baseline measure covers x: a deviation at least as large on the same side (continuous), or a tail
 * probability at most x's (categorical). Missing values cover nothing and are covered by nothing. */
function covered(baseline: Float64Array, x: number, continuous: boolean): boolean {
  if (Number.isNaN(x)) return false;
  for (const b of baseline) {
    if (Number.isNaN(b)) continue;
    if (continuous ? (x === 0 || Math.sign(b) === Math.sign(x)) && Math.abs(b) >= Math.abs(x) : b <= x) return true;
  }
  return false;
}

function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  return sorted.length === 0 ? Number.NaN : sorted[sorted.length >> 1]!;
}
