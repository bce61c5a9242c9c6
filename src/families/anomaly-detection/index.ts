import { AnomalyScenarioSchema } from '../../../schemas/simulations.js';
import type { AnomalyScenario } from '../../engine/inference/scenario.js';
import { parseAnomaly } from '../../simulations/from-query/families/diagnosis.js';
import { defineFamily } from '../family.js';
import { rowReferences } from '../shared/rows.js';
import { sampleScopeRules, scopeReferences } from '../shared/scope.js';

/** Samples the twin finds improbable, calibrated to a false-alarm rate (spec: anomaly_detection). */
export default defineFamily<AnomalyScenario>({
  type: 'anomaly_detection',
  twinKinds: ['static'],
  schema: AnomalyScenarioSchema,
  references: (s) => [...scopeReferences(s), ...rowReferences(s.samples, '/samples')],
  rules: (s) => sampleScopeRules(s.type, s),
  fromQuery: [{ order: 10, parse: parseAnomaly }],
  engine: new URL('./engine.js', import.meta.url).href,
});
