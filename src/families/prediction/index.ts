import { PredictionScenarioSchema } from '../../../schemas/simulations.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import { parsePrediction } from '../../simulations/from-query/families/prediction.js';
import { defineFamily } from '../family.js';
import { environmentRules } from '../shared/panel.js';
import { distinctNames, listReferences, rowReferences } from '../shared/rows.js';
import { sampleScopeRules, scopeReferences } from '../shared/scope.js';

/** The twin's predictions of target variables for given rows (spec: prediction); on a panel, per environment and combined. */
export default defineFamily<PredictionScenario>({
  type: 'prediction',
  twinKinds: ['static', 'multi-environment-static'],
  schema: PredictionScenarioSchema,
  references: (s) => [...scopeReferences(s), ...rowReferences(s.sample, '/sample'), ...listReferences(s.targetVars, '/targetVars')],
  rules: (s, context) => [
    ...distinctNames(s.targetVars, '/targetVars'),
    ...environmentRules(s, context),
    ...sampleScopeRules(s.type, s),
  ],
  fromQuery: [
    { order: 60, parse: (reader) => parsePrediction(reader, { explicit: true }) },
    { order: 80, parse: (reader) => parsePrediction(reader, { explicit: false }) },
  ],
  engine: new URL('./engine.js', import.meta.url).href,
});
