/**
 * The plain-language summary of a prediction, from running tallies of its row results: a batch answered chunk by
 * chunk is summarised as it goes, without holding its rows (mean, range and the most frequent class over all rows).
 */
import type { RowResults } from './outcome.js';

export type PredictionMethod = 'gaussian_conditioning' | 'variable_elimination' | 'likelihood_weighting';

const METHODS: Record<PredictionMethod, string> = {
  gaussian_conditioning: 'exact Gaussian conditioning on each row\'s provided values',
  variable_elimination: 'exact variable elimination given each row\'s provided values',
  likelihood_weighting: 'likelihood weighting given each row\'s provided values',
};

type Tally =
  | { name: string; kind: 'continuous'; n: number; sum: number; min: number; max: number; first: { prediction: number; lower: number; upper: number } | null }
  | { name: string; kind: 'categorical'; counts: Map<string, number>; firstProbability: number | null };

export class PredictionTally {
  private rows = 0;
  private tallied: Tally[] = [];

  /** Adds a chunk of row results (the chunks of one prediction, in any order). */
  add(results: RowResults): void {
    if (this.tallied.length === 0) {
      this.tallied = results.targets.map((t): Tally => (t.kind === 'continuous'
        ? { name: t.name, kind: 'continuous', n: 0, sum: 0, min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY, first: null }
        : { name: t.name, kind: 'categorical', counts: new Map(), firstProbability: null }));
    }
    results.targets.forEach((target, i) => {
      const tally = this.tallied[i]!;
      if (target.kind === 'continuous' && tally.kind === 'continuous') {
        for (let r = 0; r < results.nRows; r++) {
          const x = target.prediction[r]!;
          if (x !== x) continue;
          tally.first ??= { prediction: x, lower: target.lower[r]!, upper: target.upper[r]! };
          tally.n++;
          tally.sum += x;
          if (x < tally.min) tally.min = x;
          if (x > tally.max) tally.max = x;
        }
      } else if (target.kind === 'categorical' && tally.kind === 'categorical') {
        const k = target.categories.length;
        for (let r = 0; r < results.nRows; r++) {
          const code = target.codes[r]!;
          if (code < 0) continue;
          const label = target.categories[code]!;
          tally.counts.set(label, (tally.counts.get(label) ?? 0) + 1);
          tally.firstProbability ??= target.probabilities[r * k + code]!;
        }
      }
    });
    this.rows += results.nRows;
  }

  /** `Predicted <targets> for <n> rows.` with a key point per target (at most four) and the method. */
  summary(confidenceLevel: number, method: PredictionMethod, note?: string): { summary: string; keyPoints: string[] } {
    const rows = this.rows;
    const level = `${Math.round(confidenceLevel * 100)}%`;
    const points = this.tallied.map((tally) => {
      if (tally.kind === 'continuous') {
        if (tally.n === 0) return `${tally.name}: no rows to predict.`;
        if (rows === 1 && tally.first !== null) return `${tally.name}: ${show(tally.first.prediction)} (${level} interval ${show(tally.first.lower)} to ${show(tally.first.upper)})`;
        return `${tally.name}: mean prediction ${show(tally.sum / tally.n)} over ${rows} rows (from ${show(tally.min)} to ${show(tally.max)})`;
      }
      const top = [...tally.counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
      if (top === undefined) return `${tally.name}: no rows to predict.`;
      if (rows === 1) return `${tally.name}: most likely ${top[0]} (probability ${show(tally.firstProbability ?? Number.NaN)})`;
      return `${tally.name}: most likely ${top[0]} in ${top[1]} of ${rows} rows`;
    });
    const names = this.tallied.map((t) => t.name).join(', ');
    return {
      summary: `Predicted ${names} for ${rows} row${rows === 1 ? '' : 's'}. ${points[0] ?? ''}`.trim(),
      keyPoints: [...points.slice(0, 4), `Method: ${METHODS[method]}.`, ...(note === undefined ? [] : [note])],
    };
  }
}

/** Four significant digits, or an exponent for very large or small values. */
export function show(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return String(x);
  return Math.abs(x) >= 1e6 || Math.abs(x) < 1e-3 ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}
