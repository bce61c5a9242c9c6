/** Static twins: one causal Bayesian network over the columns, learned from rows in any order. */
import { frameFromRecords, frameFromTable } from '../../../engine/inference/scm.js';
import type { CbnModel } from '../../../engine/types.js';
import { defineKind, noStepAggregation } from '../kind.js';
import { staticLearner } from './learn.js';

export default defineKind({
  type: 'static',
  lagged: false,
  requirements: (twin) => noStepAggregation('static', twin),
  learner: staticLearner,
  questionContext: (model: CbnModel) => ({ variables: new Map(model.nodes.map((node) => [node.name, { kind: node.kind, categories: node.kind === 'categorical' ? node.categories : [] }])) }),
  scoring: {
    byReference: () => null,
    scorer: (model: CbnModel) => ({ network: model, answering: model, fixed: [] }),
    rowKeys: () => [],
    inlineFrame: (model: CbnModel, rows) => frameFromRecords({ model }, [...rows]),
    tableFrame: (model: CbnModel, table) => frameFromTable({ model }, table),
  },
});
