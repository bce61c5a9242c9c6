import { TemporalInterventionScenarioSchema } from '../../../schemas/simulations.js';
import { DEFAULT_PATHS } from '../../engine/temporal/forecast.js';
import type { TemporalInterventionScenario } from '../../engine/temporal/scenario.js';
import { type ScenarioError, defineFamily } from '../family.js';
import { distinctNames, listReferences } from '../shared/rows.js';
import { simulationBudget, timeRule } from '../shared/time.js';
import { valueSpecRules } from '../shared/value-spec.js';

/** What if, over time: changes from a time on, for some steps or for good (spec: intervention family on temporal twins). */
export default defineFamily<TemporalInterventionScenario>({
  type: 'temporal_intervention',
  twinKinds: ['temporal'],
  schema: TemporalInterventionScenarioSchema,
  references: (s) => [
    ...s.interventions.map((item, i): [string, string] => [item.variable, `/interventions/${i}/variable`]),
    ...listReferences(s.targetVars, '/targetVars'),
  ],
  rules: (s, { variables, time }) => [
    // Without forecastH the horizon depends on the intervention times; it is checked again when the run starts.
    ...simulationBudget(s.samples, s.forecastH ?? 1, variables.size, DEFAULT_PATHS),
    ...(s.interventions.filter((item) => item.valueSpec.type === 'range').length > 1 ? [{ location: '/interventions', message: 'at most one range per scenario' }] : []),
    ...s.interventions.flatMap((item, i): ScenarioError[] => {
      const variable = variables.get(item.variable);
      return [
        ...(variable === undefined ? [] : valueSpecRules(item.valueSpec, item.variable, variable, `/interventions/${i}/valueSpec`)),
        ...(item.persistent === true && item.durationSteps !== undefined ? [{ location: `/interventions/${i}/durationSteps`, message: 'persistent holds to the end of the horizon: give durationSteps or persistent, not both' }] : []),
        ...timeRule(item.timestamp, time, `/interventions/${i}/timestamp`),
      ];
    }),
    ...timeRule(s.originTimestamp, time, '/originTimestamp'),
    ...distinctNames(s.targetVars, '/targetVars'),
  ],
  metricQueries: (s) => (s.metrics ?? []).map((m, i) => ({ sql: m.sqlQuery, location: `/metrics/${i}/sqlQuery` })),
  engine: new URL('./engine.js', import.meta.url).href,
});
