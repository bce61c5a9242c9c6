/**
 * Inline row results of a batch: the chunks' columns kept in row order and written once as the outputs' `results`
 * (JSON text, spec "Outputs": per target one record per row), without building a record object per row.
 */
import type { RowResultColumn, RowResults } from '../../engine/inference/outcome.js';

export class InlineRows {
  private readonly chunks: Array<{ offset: number; results: RowResults }> = [];

  add(offset: number, results: RowResults): void {
    this.chunks.push({ offset, results });
  }

  /** `{"<target>": [record, ...], ...}` with the records in row order. */
  json(): string {
    const ordered = [...this.chunks].sort((a, b) => a.offset - b.offset);
    const names = ordered[0]?.results.targets.map((t) => t.name) ?? [];
    const members = names.map((name, i) => {
      const records: string[] = [];
      for (const { results } of ordered) {
        const target = results.targets[i]!;
        for (let r = 0; r < results.nRows; r++) records.push(recordJson(target, r));
      }
      return `${JSON.stringify(name)}:[${records.join(',')}]`;
    });
    return `{${members.join(',')}}`;
  }
}

const number = (x: number) => (x === x && Number.isFinite(x) ? String(x) : 'null');
const list = (values: Float64Array, from: number, to: number) => {
  const out: string[] = [];
  for (let i = from; i < to; i++) out.push(number(values[i]!));
  return `[${out.join(',')}]`;
};

/** One row's record, as the engine states it (ResultRecord). */
function recordJson(target: RowResultColumn, r: number): string {
  if (target.kind === 'continuous') {
    return `{"timestamp":null,"prediction":${number(target.prediction[r]!)},"std":${number(target.std[r]!)},"lowerBound":${number(target.lower[r]!)},"upperBound":${number(target.upper[r]!)},"confidenceLevel":${target.confidenceLevel}}`;
  }
  const k = target.categories.length;
  const code = target.codes[r]!;
  const prediction = code < 0 ? 'null' : JSON.stringify(target.categories[code]);
  return `{"timestamp":null,"prediction":${prediction},"std":null,"probabilities":${list(target.probabilities, r * k, r * k + k)},"categories":${JSON.stringify(target.categories)},`
    + `"lowerBound":${list(target.lower, r * k, r * k + k)},"upperBound":${list(target.upper, r * k, r * k + k)},"confidenceLevel":${target.confidenceLevel}}`;
}
