import { PanelForecastScenarioSchema } from '../../../schemas/simulations.js';
import type { PanelForecastScenario } from '../../engine/panel/forecast.js';
import { DEFAULT_PATHS } from '../../engine/temporal/forecast.js';
import { defineFamily } from '../family.js';
import { distinctNames, listReferences } from '../shared/rows.js';
import { environmentRules } from '../shared/panel.js';
import { simulationBudget, timeRule } from '../shared/time.js';

/** Each environment's simulated future and their combined series (spec: panel_forecast, aggregateMode). */
export default defineFamily<PanelForecastScenario>({
  type: 'panel_forecast',
  twinKinds: ['multi-environment-temporal'],
  schema: PanelForecastScenarioSchema,
  references: (s) => listReferences(s.targetVars, '/targetVars'),
  rules: (s, context) => [
    // Environments are simulated one after another: the bound is per environment.
    ...simulationBudget(s.samples, s.forecastH, context.variables.size, DEFAULT_PATHS),
    ...distinctNames(s.targetVars, '/targetVars'),
    ...timeRule(s.originTimestamp, context.time, '/originTimestamp'),
    ...environmentRules(s, context),
  ],
  engine: new URL('./engine.js', import.meta.url).href,
});
