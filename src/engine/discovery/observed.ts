/**
 * How many rows observe each pair of variables, when values are missing. A test or a family resting on a pairwise
 * (EM) covariance has at most the evidence of its least observed pair: a column seen in 2% of the rows gives every
 * test it enters 2% of the rows, and no other.
 */
/** The columns as discovery prepared them (prepare.ts PreparedData): values of continuous, codes of categorical variables. */
interface Columns {
  n: number;
  p: number;
  kinds: readonly ('continuous' | 'categorical')[];
  values: readonly (Float64Array | null)[];
  codes: readonly (Int32Array | null)[];
}

export class PairCounts {
  private readonly counts: Int32Array;
  private readonly missing: Uint8Array[];

  constructor(private readonly data: Columns) {
    this.counts = new Int32Array(data.p * data.p).fill(-1);
    this.missing = Array.from({ length: data.p }, (_, v) => Uint8Array.from({ length: data.n }, (_, row) => (isMissing(data, v, row) ? 1 : 0)));
  }

  /** The smallest pairwise count among `variables` (a variable's own count for one). */
  smallest(variables: readonly number[]): number {
    let least = this.data.n;
    for (let a = 0; a < variables.length; a++) for (let b = a; b < variables.length; b++) least = Math.min(least, this.count(variables[a]!, variables[b]!));
    return least;
  }

  private count(i: number, j: number): number {
    const at = i * this.data.p + j;
    if (this.counts[at]! < 0) {
      const [mi, mj] = [this.missing[i]!, this.missing[j]!];
      let count = 0;
      for (let row = 0; row < this.data.n; row++) if ((mi[row]! | mj[row]!) === 0) count++;
      this.counts[at] = count;
      this.counts[j * this.data.p + i] = count;
    }
    return this.counts[at]!;
  }
}

export const isMissing = (data: Omit<Columns, 'n' | 'p'>, v: number, row: number) =>
  data.kinds[v] === 'continuous' ? Number.isNaN(data.values[v]![row]!) : data.codes[v]![row]! < 0;
