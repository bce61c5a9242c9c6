import { TemporalInterventionScenarioSchema } from '../../../schemas/simulations.js';
import { DEFAULT_PATHS } from '../../engine/temporal/forecast.js';
import type { TemporalInterventionScenario } from '../../engine/temporal/scenario.js';
import { parseIntervention } from '../../simulations/from-query/families/intervention.js';
import { unmappable } from '../../simulations/from-query/problems.js';
import type { QueryReader } from '../../simulations/from-query/reader.js';
import { readStart } from '../../simulations/from-query/dates.js';
import { readSpan } from '../../simulations/from-query/steps.js';
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
  // Read before forecasts: a what-if over time carries their future words ("over the next 2 weeks") too.
  fromQuery: [{ order: 9, parse: parseWhatIfOverTime }],
  engine: new URL('./engine.js', import.meta.url).href,
});

/**
 * The static what-if wording ("what if ads rise 10%"), applied from a start date read from the query ("from June")
 * or else from the first forecast step, over a horizon read from the query.
 */
function parseWhatIfOverTime(r: QueryReader) {
  // The start and the horizon first: their numbers are not values of the change.
  const start = readStart(r);
  const span = readSpan(r);
  const parsed = parseIntervention(r);
  if (parsed === null) return null;
  const { interventions, targetVars, confidenceLevel } = parsed.scenario;
  if (interventions.some((i) => i.conditions !== undefined && i.conditions.length > 0)) {
    throw unmappable('a change over time applies to the whole series: conditions on other variables apply to static twins');
  }
  const at = start === null ? {} : { timestamp: start.time };
  const scenario: TemporalInterventionScenario = { type: 'temporal_intervention', interventions: interventions.map(({ variable, valueSpec }) => ({ variable, valueSpec, ...at })) };
  if (span !== null) scenario.forecastH = span.steps;
  if (targetVars !== undefined) scenario.targetVars = targetVars;
  if (confidenceLevel !== undefined) scenario.confidenceLevel = confidenceLevel;
  const horizon = span === null ? ' over 10 steps past its start (the default)' : ` over the next ${span.steps} steps (${span.said})`;
  const from = start === null ? 'the first forecast step' : `${new Date(start.time).toISOString().slice(0, 10)} ("${start.said}")`;
  return { scenario, interpretation: `${parsed.interpretation.replace(/\.$/, '')}; held from ${from}${horizon}.` };
}
