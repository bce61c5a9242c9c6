/** The digest of a scoring run: verdict counts, the variables that drive the targets most, one sentence per row. */
import type { ScoredRow, ScoreResult } from './outcome.js';
import type { Scm } from './scm.js';
import type { Contributions } from './score-drivers.js';
import type { ResolvedTarget } from './target-match.js';

/** Rows given a one-sentence summary (the first ones). */
const SUMMARISED_ROWS = 100;
const TOP_DRIVERS = 10;

export function digestOf(rows: ScoredRow[], contributions: Contributions, scm: Scm, describe: (row: ScoredRow) => string): ScoreResult['digest'] {
  const verdicts = { meets: 0, misses: 0, unscorable: 0 };
  const topOf = new Map<string, number>();
  for (const row of rows) {
    verdicts[row.verdict]++;
    const top = row.drivers[0];
    if (top) topOf.set(top.variable, (topOf.get(top.variable) ?? 0) + 1);
  }
  const scored = Uint8Array.from(rows, (r) => (r.verdict === 'unscorable' ? 0 : 1));
  const count = rows.length - verdicts.unscorable;
  const topDrivers = [...contributions].map(([variable, values]) => {
    let sum = 0;
    for (let r = 0; r < scored.length; r++) if (scored[r] === 1) sum += Math.abs(values[r]!);
    const name = scm.names[variable]!;
    return { variable: name, meanAbsContribution: count > 0 ? sum / count : 0, rows: topOf.get(name) ?? 0 };
  }).filter((d) => d.meanAbsContribution > 0)
    .sort((a, b) => b.meanAbsContribution - a.meanAbsContribution)
    .slice(0, TOP_DRIVERS);
  const rowSummaries = rows.slice(0, SUMMARISED_ROWS).map((row) => ({ index: row.index, verdict: row.verdict, summary: describe(row) }));
  return { rows: rows.length, verdicts, topDrivers, rowSummaries };
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
