import { RootCauseScenarioSchema } from '../../../schemas/simulations.js';
import type { RootCauseScenario } from '../../engine/inference/scenario.js';
import { parseRootCause } from '../../simulations/from-query/families/diagnosis.js';
import { defineFamily } from '../family.js';
import { rowReferences } from '../shared/rows.js';
import { sampleScopeRules, scopeReferences } from '../shared/scope.js';

/** Which upstream variables' unusual noise explains the target's value in given samples (spec: root_cause_analysis). */
export default defineFamily<RootCauseScenario>({
  type: 'root_cause_analysis',
  twinKinds: ['static'],
  schema: RootCauseScenarioSchema,
  references: (s) => [...scopeReferences(s), [s.targetVariable, '/targetVariable'], ...rowReferences(s.samples, '/samples'), ...rowReferences(s.baselineSamples ?? [], '/baselineSamples')],
  rules: (s) => sampleScopeRules(s.type, s),
  fromQuery: [{ order: 20, parse: parseRootCause }],
  engine: new URL('./engine.js', import.meta.url).href,
});
