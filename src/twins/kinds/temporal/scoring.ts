/**
 * Scoring rows on a temporal twin: the rows are steps, inline in time order or read by reference (ordered by the time
 * column); each is scored at its own step by the model's network over the lagged design (its values, the steps before
 * it, the seasons), the past and the seasons fixed so that the changes proposed fall on the row's own values.
 */
import { selectRows } from '../../../engine/frame.js';
import type { Frame } from '../../../engine/types.js';
import type { TemporalModel } from '../../../engine/temporal/model.js';
import { designOf, timeKeys, windowProblem, windowWithKeptPast } from '../../../engine/temporal/window.js';
import type { ScoredRecord, Scorer } from '../../../engine/inference/score.js';
import type { KindScoring } from '../kind.js';

/** The nodes of a temporal model's network that are not its variables at the step: past values and seasonal terms. */
export const pastAndSeasons = (model: Pick<TemporalModel, 'variables'>, network: { nodes: ReadonlyArray<{ name: string }> }): string[] =>
  network.nodes.map((n) => n.name).filter((name) => !model.variables.some((v) => v.name === name));

/**
 * The rows as the model's lagged design, one design row per given row: the rows before each (a step they skip is
 * missing) and, before the first, the data the version keeps.
 */
export function stepFrame(model: TemporalModel, rows: readonly ScoredRecord[], at = '/rows'): Frame {
  const window = windowWithKeptPast(model, rows, at);
  return selectRows(designOf(model, window), window.rowOf);
}

type Timed = Pick<TemporalModel, 'timeColumn' | 'maxLag' | 'variables'>;

/** Why a temporal model's rows cannot be read by reference (it does not record its time column), or null. */
export const seriesRefusal = (model: Timed): string | null =>
  model.timeColumn === undefined ? 'this version does not record its time column (learned before scoring by reference): send the rows inline, or relearn it' : null;

/** How rows by reference are read as a series: in the order of the time column, each chunk with the maxLag rows before it. */
export const seriesOf = (model: Timed): Pick<Scorer, 'series'> =>
  model.timeColumn === undefined ? {} : { series: { timeColumn: model.timeColumn, lookBack: model.maxLag, variables: { nodes: model.variables } } };

export const temporalScoring: KindScoring<TemporalModel> = {
  byReference: seriesRefusal,
  scorer: (model) => ({ network: model.cbn, answering: model.cbn, fixed: pastAndSeasons(model, model.cbn), ...seriesOf(model) }),
  rowKeys: (model) => timeKeys(model.timeColumn),
  rowRules: (model, rows) => {
    const problem = windowProblem(model, rows);
    return problem === null ? [] : [problem];
  },
  inlineFrame: (model, rows) => stepFrame(model, rows),
};
