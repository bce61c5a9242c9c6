/** Temporal twins: lagged and same-step mechanisms over a time-ordered series (learn.ts). */
import { selectRows } from '../../../engine/frame.js';
import { type TemporalModel, earliestOrigin } from '../../../engine/temporal/model.js';
import { designOf, timeKeys, windowProblem, windowWithKeptPast } from '../../../engine/temporal/window.js';
import { stepLength } from '../../../engine/temporal/timeline.js';
import { defineKind, noStepAggregation } from '../kind.js';
import { temporalLearner } from './learn.js';

export default defineKind({
  type: 'temporal',
  lagged: true,
  requirements: (twin) => [
    ...(twin.selectedTimeColumnName === null ? [{ location: 'body/selectedTimeColumnName', message: 'a temporal twin needs selectedTimeColumnName' }] : []),
    ...noStepAggregation('temporal', twin),
  ],
  learner: temporalLearner,
  scoring: {
    // Rows by reference would need each chunk's preceding steps: not built; inline rows only.
    byReference: false,
    // Each row is scored at its own step: its targets from the same step's inputs and the rows before it (the lagged
    // design the model was fitted on); the past and the seasons are what they were, so changes fall on the row itself.
    scorer: (model: TemporalModel) => ({ network: model.cbn, answering: model.cbn, fixed: model.cbn.nodes.map((n) => n.name).filter((name) => !model.variables.some((v) => v.name === name)) }),
    rowKeys: (model: TemporalModel) => timeKeys(model.timeColumn),
    rowRules: (model: TemporalModel, rows) => {
      const problem = windowProblem(model, rows);
      return problem === null ? [] : [problem];
    },
    inlineFrame: (model: TemporalModel, rows) => {
      const window = windowWithKeptPast(model, rows, '/rows');
      return selectRows(designOf(model, window), window.rowOf);
    },
  },
  questionContext: (model: TemporalModel) => ({
    variables: new Map(model.variables.map((v) => [v.name, { kind: v.kind, categories: v.categories }])),
    time: {
      axis: model.timeline.axis,
      granularity: model.timeline.granularity,
      first: model.stepTimes.first,
      last: model.stepTimes.last,
      earliestOrigin: earliestOrigin(model),
      ...(stepLength(model.timeline) === null ? {} : { stepMs: stepLength(model.timeline)! }),
      ...(model.timeColumn === undefined ? {} : { column: model.timeColumn }),
      history: { times: model.tail.times, values: model.tail.values, maxLag: model.maxLag },
    },
  }),
});
