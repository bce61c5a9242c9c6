import { PredictionScenarioSchema } from '../../../schemas/simulations.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import { parsePrediction } from '../../simulations/from-query/families/prediction.js';
import { defineFamily } from '../family.js';
import { rowReferences } from '../shared/rows.js';
import { sampleScopeRules, scopeReferences } from '../shared/scope.js';

/** The twin's predictions of target variables for given rows (spec: prediction). */
export default defineFamily<PredictionScenario>({
  type: 'prediction',
  twinKinds: ['static'],
  schema: PredictionScenarioSchema,
  references: (s) => [...scopeReferences(s), ...rowReferences(s.sample, '/sample'), ...s.targetVars.map((v, i): [string, string] => [v, `/targetVars/${i}`])],
  rules: (s) => [
    ...(new Set(s.targetVars).size === s.targetVars.length ? [] : [{ location: '/targetVars', message: 'a variable is named twice' }]),
    ...sampleScopeRules(s.type, s),
  ],
  fromQuery: [
    { order: 60, parse: (reader) => parsePrediction(reader, { explicit: true }) },
    { order: 80, parse: (reader) => parsePrediction(reader, { explicit: false }) },
  ],
  engine: new URL('./engine.js', import.meta.url).href,
});
