import { TemporalRootCauseScenarioSchema } from '../../../schemas/simulations.js';
import type { TemporalRootCauseScenario } from '../../engine/temporal/scenario.js';
import { parseTemporalRootCause } from '../../simulations/from-query/families/history.js';
import { defineFamily } from '../family.js';
import { windowReferences, windowRules } from '../shared/window.js';

/** Why the target was anomalous at one step of a window, blamed on variables at the steps where they misbehaved (spec: temporal_root_cause_analysis). */
export default defineFamily<TemporalRootCauseScenario>({
  type: 'temporal_root_cause_analysis',
  twinKinds: ['temporal'],
  schema: TemporalRootCauseScenarioSchema,
  references: (s, context) => [[s.targetVariable, '/targetVariable'], ...windowReferences(s.samples, '/samples', context)],
  rules: (s, context) => windowRules(s.samples, '/samples', context, [[s.anomalyTimestep, '/anomalyTimestep']]),
  fromQuery: [{ order: 20, parse: parseTemporalRootCause }],
  engine: new URL('./engine.js', import.meta.url).href,
});
