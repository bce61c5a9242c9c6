/**
 * Multi-environment twins (panels): the same process observed in many places. Static panels learn a pooled graph
 * with per-environment mechanisms (learn.ts); temporal panels are recorded with their environment and time columns
 * and not learned yet.
 */
import type { TwinType } from '../../../../schemas/twins.js';
import type { PanelModel } from '../../../engine/panel/model.js';
import { defineKind, type KindLearner } from '../kind.js';
import { type PanelData, panelLearner } from './learn.js';

const panel = (type: TwinType, timed: boolean, learner?: KindLearner<PanelData>) =>
  defineKind<PanelData, PanelModel>({
    type,
    lagged: timed,
    requirements: (twin) => [
      ...(twin.environmentColumns.length === 0 ? [{ location: 'body/environmentColumns', message: `a ${type} twin needs environmentColumns` }] : []),
      ...(timed && twin.selectedTimeColumnName === null ? [{ location: 'body/selectedTimeColumnName', message: `a ${type} twin needs selectedTimeColumnName` }] : []),
    ],
    ...(learner === undefined ? {} : { learner }),
    questionContext: (model) => ({
      variables: new Map(model.pooled.nodes.map((node) => [node.name, { kind: node.kind, categories: node.kind === 'categorical' ? node.categories : [] }])),
      environments: model.environments.map((e) => e.key),
    }),
  });

export const multiEnvironmentStatic = panel('multi-environment-static', false, panelLearner);
export const multiEnvironmentTemporal = panel('multi-environment-temporal', true);
