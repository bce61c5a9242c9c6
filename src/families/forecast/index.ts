import { ForecastScenarioSchema } from '../../../schemas/simulations.js';
import type { ForecastScenario } from '../../engine/temporal/scenario.js';
import { parseForecast } from '../../simulations/from-query/families/forecast.js';
import { defineFamily } from '../family.js';
import { timeRule } from '../shared/time.js';

/** The simulated future of a temporal twin, step by step (spec: forecast). */
export default defineFamily<ForecastScenario>({
  type: 'forecast',
  twinKinds: ['temporal'],
  schema: ForecastScenarioSchema,
  references: (s) => (s.targetVars ?? []).map((v, i): [string, string] => [v, `/targetVars/${i}`]),
  rules: (s, { time }) => [
    ...(s.targetVars !== undefined && new Set(s.targetVars).size !== s.targetVars.length ? [{ location: '/targetVars', message: 'a variable is named twice' }] : []),
    ...timeRule(s.originTimestamp, time, '/originTimestamp'),
  ],
  fromQuery: [{ order: 10, parse: parseForecast }],
  engine: new URL('./engine.js', import.meta.url).href,
});
