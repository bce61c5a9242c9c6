/** Temporal twins: lagged and same-step mechanisms over a time-ordered series (learn.ts). */
import { type TemporalModel, earliestOrigin } from '../../../engine/temporal/model.js';
import { stepLength } from '../../../engine/temporal/timeline.js';
import { defineKind, noStepAggregation } from '../kind.js';
import { temporalLearner } from './learn.js';
import { temporalScoring } from './scoring.js';

export default defineKind({
  type: 'temporal',
  lagged: true,
  requirements: (twin) => [
    ...(twin.selectedTimeColumnName === null ? [{ location: 'body/selectedTimeColumnName', message: 'a temporal twin needs selectedTimeColumnName' }] : []),
    ...noStepAggregation('temporal', twin),
  ],
  learner: temporalLearner,
  scoring: temporalScoring,
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
