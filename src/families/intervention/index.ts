import { InterventionScenarioSchema } from '../../../schemas/simulations.js';
import type { InterventionScenario } from '../../engine/inference/scenario.js';
import { parseIntervention } from '../../simulations/from-query/families/intervention.js';
import { type ScenarioError, defineFamily } from '../family.js';
import { conditionReferences, listReferences } from '../shared/rows.js';
import { scopeReferences, segmentRules } from '../shared/scope.js';
import { interventionRules } from '../shared/value-spec.js';

/** What if: the simulated population with and without the interventions (spec: intervention). */
export default defineFamily<InterventionScenario>({
  type: 'intervention',
  twinKinds: ['static'],
  schema: InterventionScenarioSchema,
  references: (s) => [
    ...scopeReferences(s),
    ...s.interventions.flatMap((item, i): Array<[string, string]> => [[item.variable, `/interventions/${i}/variable`], ...conditionReferences(item.conditions, `/interventions/${i}/conditions`)]),
    ...listReferences(s.targetVars, '/targetVars'),
  ],
  rules: (s, { variables }) => [...interventionRules(s.interventions, variables), ...segmentRules(s), ...interventionTypeRules(s)],
  metricQueries: (s) => (s.metrics ?? []).map((m, i) => ({ sql: m.sqlQuery, location: `/metrics/${i}/sqlQuery` })),
  fromQuery: [{ order: 50, parse: parseIntervention }],
  engine: new URL('./engine.js', import.meta.url).href,
});

/** interventionTypes names intervened variables and agrees with their valueSpecs. */
function interventionTypeRules(s: InterventionScenario): ScenarioError[] {
  const errors: ScenarioError[] = [];
  for (const [variable, type] of Object.entries(s.interventionTypes ?? {})) {
    const items = s.interventions.filter((item) => item.variable === variable);
    if (items.length === 0) errors.push({ location: `/interventionTypes/${variable}`, message: `'${variable}' is not intervened on: interventionTypes names intervened variables` });
    const given = items.map((item) => (item.valueSpec.type === 'range' ? 'set_value' : item.valueSpec.type)).find((t) => t !== type);
    if (given !== undefined) errors.push({ location: `/interventionTypes/${variable}`, message: `'${type}' disagrees with the intervention's valueSpec.type '${given}'` });
  }
  return errors;
}
