import { ForecastScenarioSchema } from '../../../schemas/simulations.js';
import { DEFAULT_PATHS } from '../../engine/temporal/forecast.js';
import type { ForecastScenario } from '../../engine/temporal/scenario.js';
import { parseForecast } from '../../simulations/from-query/families/forecast.js';
import { defineFamily } from '../family.js';
import { distinctNames, listReferences } from '../shared/rows.js';
import { simulationBudget, timeRule } from '../shared/time.js';

/** The simulated future of a temporal twin, step by step (spec: forecast). */
export default defineFamily<ForecastScenario>({
  type: 'forecast',
  twinKinds: ['temporal'],
  schema: ForecastScenarioSchema,
  references: (s) => listReferences(s.targetVars, '/targetVars'),
  rules: (s, { time, variables }) => [
    ...simulationBudget(s.samples, s.forecastH, variables.size, DEFAULT_PATHS),
    ...distinctNames(s.targetVars, '/targetVars'),
    ...timeRule(s.originTimestamp, time, '/originTimestamp'),
  ],
  fromQuery: [{ order: 10, parse: parseForecast }],
  engine: new URL('./engine.js', import.meta.url).href,
});
