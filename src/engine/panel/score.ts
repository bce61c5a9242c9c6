/**
 * Scoring rows on a static panel: each row judged against the targets by the mechanisms of the environment it names
 * (routing.ts), its drivers and its fewest changes found in that environment's network, exactly as a static twin
 * scores (inference/score.ts); the groups' columns merged back into the rows' order.
 */
import { selectRows } from '../frame.js';
import type { InferenceContext, ScoredColumns } from '../inference/outcome.js';
import type { ScoreQuestion } from '../inference/scenario.js';
import { type UnknownEnvironmentRows, runScore, unscorableColumns } from '../inference/score.js';
import { SUMMARISED_ROWS } from '../inference/score-digest.js';
import type { Frame } from '../types.js';
import type { PanelModel } from './model.js';
import { routedLabel, routedNetwork, routeRows } from './routing.js';

/**
 * `unknown`: what the rows naming no environment of the twin get, the pooled network's answer or, where the
 * environment is what gives a row its meaning (a temporal panel's past), the verdict unscorable.
 */
export async function runPanelScore(panel: PanelModel, question: ScoreQuestion, frame: Frame, context: InferenceContext, unknown: UnknownEnvironmentRows = 'pooled'): Promise<ScoredColumns> {
  const { variables, groups } = routeRows(panel, frame);
  const parts: Array<{ rows: number[]; label: string; scored: ScoredColumns }> = [];
  let done = 0;
  for (const [code, rows] of groups) {
    if (code < 0 && unknown === 'unscorable') {
      const reason = 'Unscorable: the row names no environment of the twin, so it has no environment\'s past to follow.';
      parts.push({ rows, label: routedLabel(panel, code), scored: unscorableColumns(rows.length, question.targets.length, panel.pooled.nodes.length, reason) });
      continue;
    }
    const hooks: InferenceContext['hooks'] = {
      progress: (fraction, state) => context.hooks.progress?.((done + fraction * rows.length) / frame.nRows, state),
      ...(context.hooks.aborted === undefined ? {} : { aborted: context.hooks.aborted }),
    };
    const own = groups.size === 1 ? variables : selectRows(variables, rows);
    parts.push({ rows, label: routedLabel(panel, code), scored: await runScore(routedNetwork(panel, code), question, own, { ...context, hooks }) });
    done += rows.length;
  }
  if (parts.length === 0) return runScore(panel.pooled, question, variables, context);
  return mergeScored(parts, frame.nRows, panel.pooled.nodes.length);
}

/**
 * The groups' scored columns in the rows' order. Each group summarised its own first rows; a row among the batch's
 * first SUMMARISED_ROWS is among its group's first ones too, so every summary the digest keeps is there, prefixed
 * with the environment that answered it.
 */
function mergeScored(parts: ReadonlyArray<{ rows: number[]; label: string; scored: ScoredColumns }>, n: number, variables: number): ScoredColumns {
  const { driversPerRow, predictions: targets } = parts[0]!.scored;
  const counts = new Int32Array(n);
  for (const { rows, scored } of parts) rows.forEach((r, i) => (counts[r] = scored.changeStart[i + 1]! - scored.changeStart[i]!));
  const changeStart = new Int32Array(n + 1);
  for (let r = 0; r < n; r++) changeStart[r + 1] = changeStart[r]! + counts[r]!;
  const total = changeStart[n]!;
  const out: ScoredColumns = {
    nRows: n,
    verdicts: new Uint8Array(n),
    predictions: targets.map(() => new Float64Array(n)),
    driversPerRow,
    driverNodes: new Int32Array(n * driversPerRow),
    driverContributions: new Float64Array(n * driversPerRow),
    changeStart,
    changeNodes: new Int32Array(total),
    changeFrom: new Float64Array(total),
    changeTo: new Float64Array(total),
    reachable: new Int8Array(n),
    driverSums: new Float64Array(variables),
    topCounts: new Int32Array(variables),
    summaries: new Array<string>(Math.min(n, SUMMARISED_ROWS)),
  };
  for (const { rows, label, scored } of parts) {
    rows.forEach((r, i) => {
      out.verdicts[r] = scored.verdicts[i]!;
      out.reachable[r] = scored.reachable[i]!;
      scored.predictions.forEach((values, j) => (out.predictions[j]![r] = values[i]!));
      out.driverNodes.set(scored.driverNodes.subarray(i * driversPerRow, (i + 1) * driversPerRow), r * driversPerRow);
      out.driverContributions.set(scored.driverContributions.subarray(i * driversPerRow, (i + 1) * driversPerRow), r * driversPerRow);
      const from = scored.changeStart[i]!;
      const to = scored.changeStart[i + 1]!;
      out.changeNodes.set(scored.changeNodes.subarray(from, to), changeStart[r]!);
      out.changeFrom.set(scored.changeFrom.subarray(from, to), changeStart[r]!);
      out.changeTo.set(scored.changeTo.subarray(from, to), changeStart[r]!);
      if (r < out.summaries.length) out.summaries[r] = `${label}: ${scored.summaries[i]!}`;
    });
    for (let v = 0; v < variables; v++) {
      out.driverSums[v]! += scored.driverSums[v]!;
      out.topCounts[v]! += scored.topCounts[v]!;
    }
  }
  return out;
}
