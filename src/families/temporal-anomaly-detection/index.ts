import { TemporalAnomalyScenarioSchema } from '../../../schemas/simulations.js';
import type { TemporalAnomalyScenario } from '../../engine/temporal/scenario.js';
import { parseTemporalAnomaly } from '../../simulations/from-query/families/history.js';
import { defineFamily } from '../family.js';
import { windowReferences, windowRules } from '../shared/window.js';

/** The steps of a window the twin finds improbable given the steps before them (spec: temporal_anomaly_detection). */
export default defineFamily<TemporalAnomalyScenario>({
  type: 'temporal_anomaly_detection',
  twinKinds: ['temporal'],
  schema: TemporalAnomalyScenarioSchema,
  references: (s, context) => windowReferences(s.samples, '/samples', context),
  rules: (s, context) => [
    ...windowRules(s.samples, '/samples', context, [[s.startStep, '/startStep'], [s.endStep, '/endStep']]),
    ...(s.startStep !== undefined && s.endStep !== undefined && s.startStep > s.endStep ? [{ location: '/endStep', message: 'endStep is before startStep' }] : []),
  ],
  fromQuery: [{ order: 15, parse: parseTemporalAnomaly }],
  engine: new URL('./engine.js', import.meta.url).href,
});
