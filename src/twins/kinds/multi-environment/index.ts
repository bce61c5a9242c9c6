/**
 * Multi-environment twins (panels): the same process observed in many places. Static panels learn a pooled graph
 * with per-environment mechanisms (learn.ts); temporal panels the same over lagged and same-step links, with each
 * environment's own history (temporal-learn.ts).
 */
import type { TwinType } from '../../../../schemas/twins.js';
import type { PanelModel } from '../../../engine/panel/model.js';
import { type TemporalPanelModel, environmentTemporalModel } from '../../../engine/panel/temporal.js';
import { earliestOrigin } from '../../../engine/temporal/model.js';
import type { FieldError } from '../../../errors.js';
import type { TwinRecord } from '../../records.js';
import { defineKind, noStepAggregation } from '../kind.js';
import temporal from '../temporal/index.js';
import { panelLearner } from './learn.js';
import { panelScoring, temporalPanelScoring } from './scoring.js';
import { temporalPanelLearner } from './temporal-learn.js';

const requirements = (type: TwinType, timed: boolean) => (twin: Pick<TwinRecord, 'selectedTimeColumnName' | 'environmentColumns' | 'stepAggregation'>): FieldError[] => [
  ...(twin.environmentColumns.length === 0 ? [{ location: 'body/environmentColumns', message: `a ${type} twin needs environmentColumns` }] : []),
  ...(timed && twin.selectedTimeColumnName === null ? [{ location: 'body/selectedTimeColumnName', message: `a ${type} twin needs selectedTimeColumnName` }] : []),
  ...(timed ? [] : noStepAggregation(type, twin)),
];

export const multiEnvironmentStatic = defineKind({
  type: 'multi-environment-static',
  lagged: false,
  requirements: requirements('multi-environment-static', false),
  learner: panelLearner,
  questionContext: (model: PanelModel) => ({
    variables: new Map(model.pooled.nodes.map((node) => [node.name, { kind: node.kind, categories: node.kind === 'categorical' ? node.categories : [] }])),
    environments: model.environments.map((e) => e.key),
    environmentColumns: model.environmentColumns,
  }),
  scoring: panelScoring,
});

/**
 * A temporal panel's questions see its variables and one time axis over every environment: from the earliest
 * first step to the latest last one, an origin valid where every environment has the lags it needs.
 */
export const multiEnvironmentTemporal = defineKind({
  type: 'multi-environment-temporal',
  lagged: true,
  requirements: requirements('multi-environment-temporal', true),
  learner: temporalPanelLearner,
  questionContext: (model: TemporalPanelModel) => {
    // The longest history stands for the axis (plain-English windows read it); the bounds span every environment.
    const histories = model.environments.map((e) => e.history);
    const longest = model.environments.reduce((a, b) => (b.history.tail.times.length > a.history.tail.times.length ? b : a));
    const context = temporal.questionContext(environmentTemporalModel(model, longest.key));
    return {
      ...context,
      environments: model.environments.map((e) => e.key),
      time: {
        ...context.time!,
        first: Math.min(...histories.map((h) => h.stepTimes.first)),
        last: Math.max(...histories.map((h) => h.stepTimes.last)),
        earliestOrigin: Math.max(...histories.map((h) => earliestOrigin({ ...h, maxLag: model.maxLag }))),
      },
    };
  },
  scoring: temporalPanelScoring,
});
