import { HealthMonitorScenarioSchema } from '../../../schemas/simulations.js';
import type { HealthMonitorScenario } from '../../engine/temporal/scenario.js';
import { parseHealth } from '../../simulations/from-query/families/history.js';
import { defineFamily } from '../family.js';
import { windowReferences, windowRules } from '../shared/window.js';

/** Whether the mechanisms the version learned still hold over recent data, per link and variable (spec: causal_health_monitor, AlertType). */
export default defineFamily<HealthMonitorScenario>({
  type: 'causal_health_monitor',
  twinKinds: ['temporal'],
  schema: HealthMonitorScenarioSchema,
  references: (s, context) => windowReferences(s.samples, '/samples', context),
  rules: (s, context) => [
    ...windowRules(s.samples, '/samples', context),
    ...(s.samples !== undefined && s.windowSteps !== undefined ? [{ location: '/windowSteps', message: 'windowSteps chooses how much of the version\'s own data to watch: give samples or windowSteps, not both' }] : []),
    ...(s.samples !== undefined && s.samples.length < 2 * (s.minSegmentSteps ?? 10) ? [{ location: '/samples', message: `at least ${2 * (s.minSegmentSteps ?? 10)} records are needed (twice minSegmentSteps)` }] : []),
  ],
  fromQuery: [{ order: 5, parse: parseHealth }],
  engine: new URL('./engine.js', import.meta.url).href,
});
