/**
 * The digest of a scoring run, added up chunk by chunk: verdict counts, the variables that drive the targets most,
 * one sentence for each of the first rows; and the run's plain-language summary.
 */
import type { CbnModel } from '../types.js';
import { type ScoreDigest, type ScoredColumns, type ScoredRow, VERDICTS } from './outcome.js';
import type { ResolvedTarget } from './target-match.js';

/** What the digest adds up of a chunk's scored columns. */
export type TalliedColumns = Pick<ScoredColumns, 'nRows' | 'verdicts' | 'reachable' | 'driverSums' | 'topCounts' | 'summaries'>;

/** Rows given a one-sentence summary (the batch's first ones; each chunk describes its own first ones). */
export const SUMMARISED_ROWS = 100;
const TOP_DRIVERS = 10;

export class ScoreTally {
  private rows = 0;
  private readonly verdicts = { meets: 0, misses: 0, unscorable: 0 };
  private reachable = 0;
  private readonly driverSums: Float64Array;
  private readonly topCounts: Float64Array;
  private readonly summaries: ScoreDigest['rowSummaries'] = [];

  constructor(private readonly model: CbnModel) {
    this.driverSums = new Float64Array(model.nodes.length);
    this.topCounts = new Float64Array(model.nodes.length);
  }

  /** A chunk's rows, the first of them at `offset` in the batch. */
  add(offset: number, scored: TalliedColumns): void {
    this.rows += scored.nRows;
    for (let r = 0; r < scored.nRows; r++) {
      this.verdicts[VERDICTS[scored.verdicts[r]!]!]++;
      if (scored.reachable[r] === 1) this.reachable++;
    }
    for (let i = 0; i < this.driverSums.length; i++) {
      this.driverSums[i]! += scored.driverSums[i]!;
      this.topCounts[i]! += scored.topCounts[i]!;
    }
    scored.summaries.forEach((summary, r) => {
      if (offset + r < SUMMARISED_ROWS) this.summaries.push({ index: offset + r, verdict: VERDICTS[scored.verdicts[r]!]!, summary });
    });
  }

  digest(): ScoreDigest {
    const count = this.rows - this.verdicts.unscorable;
    const topDrivers = this.model.nodes.map((node, i) => ({ variable: node.name, meanAbsContribution: count > 0 ? this.driverSums[i]! / count : 0, rows: this.topCounts[i]! }))
      .filter((d) => d.meanAbsContribution > 0)
      .sort((a, b) => b.meanAbsContribution - a.meanAbsContribution)
      .slice(0, TOP_DRIVERS);
    return { rows: this.rows, verdicts: { ...this.verdicts }, topDrivers, rowSummaries: [...this.summaries].sort((a, b) => a.index - b.index) };
  }

  summary(maxChanges: number): { summary: string; keyPoints: string[] } {
    const { meets, misses, unscorable } = this.verdicts;
    const keyPoints = [
      `${meets} row${meets === 1 ? '' : 's'} meet the targets, ${misses} miss, ${unscorable} cannot be scored.`,
      ...(misses > 0 ? [`${this.reachable} of the ${misses} rows that miss can meet the targets with at most ${maxChanges} change${maxChanges === 1 ? '' : 's'}.`] : []),
      ...this.digest().topDrivers.slice(0, 3).map((d) => `${d.variable} moves the targets most in ${d.rows} row${d.rows === 1 ? '' : 's'} (mean |contribution| ${Number(d.meanAbsContribution.toPrecision(3))}).`),
    ];
    return { summary: `Scored ${this.rows} rows: ${meets} meet, ${misses} miss, ${unscorable} unscorable.`, keyPoints };
  }
}

/** One short sentence: the verdict, the predictions against the wanted values, and the top driver or the fix. */
export function describeRow(targets: readonly ResolvedTarget[], row: ScoredRow, missingInputs: string[]): string {
  if (row.verdict === 'unscorable') {
    return `Unscorable: no value for ${missingInputs.join(', ') || 'an input'}, which the targets need and the row does not let the model infer.`;
  }
  const judged = targets.map((t) => `${t.name} ${format(row.predictions[t.name] ?? null)} (wanted ${wanted(t)})`).join(', ');
  const top = row.drivers[0];
  if (row.verdict === 'meets') return `Meets: ${judged}${top ? `; top driver ${top.variable} (${signed(top.contribution)})` : ''}.`;
  if (row.reachable && row.changes.length > 0) {
    return `Misses: ${judged}; ${row.changes.map((c) => `${c.variable} ${format(c.from)} -> ${format(c.to)}`).join(' and ')} would meet the targets.`;
  }
  return `Misses: ${judged}; no change within the allowed number meets the targets${top ? `; top driver ${top.variable} (${signed(top.contribution)})` : ''}.`;
}

function wanted(t: ResolvedTarget): string {
  if (t.kind === 'categorical') return t.label;
  if (t.matchMode === 'orMore') return `>= ${format(t.value)}`;
  if (t.matchMode === 'orLess') return `<= ${format(t.value)}`;
  return `${format(t.value)} +- ${format(t.tolerance)}`;
}

const format = (v: number | string | null) => (v === null ? 'missing' : typeof v === 'number' ? Number(v.toPrecision(4)).toString() : v);
const signed = (v: number) => `${v >= 0 ? '+' : ''}${Number(v.toPrecision(3))}`;
