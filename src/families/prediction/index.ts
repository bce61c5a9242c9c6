import { PredictionScenarioSchema } from '../../../schemas/simulations.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import { parsePrediction } from '../../simulations/from-query/families/prediction.js';
import { defineFamily } from '../family.js';
import { distinctNames, listReferences, rowReferences } from '../shared/rows.js';
import { sampleScopeRules, scopeReferences } from '../shared/scope.js';

/** The twin's predictions of target variables for given rows (spec: prediction). */
export default defineFamily<PredictionScenario>({
  type: 'prediction',
  twinKinds: ['static'],
  schema: PredictionScenarioSchema,
  references: (s) => [...scopeReferences(s), ...rowReferences(s.sample, '/sample'), ...listReferences(s.targetVars, '/targetVars')],
  rules: (s) => [
    ...distinctNames(s.targetVars, '/targetVars'),
    ...sampleScopeRules(s.type, s),
  ],
  fromQuery: [
    { order: 60, parse: (reader) => parsePrediction(reader, { explicit: true }) },
    { order: 80, parse: (reader) => parsePrediction(reader, { explicit: false }) },
  ],
  engine: new URL('./engine.js', import.meta.url).href,
});
