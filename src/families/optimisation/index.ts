import { OptimisationScenarioSchema } from '../../../schemas/simulations.js';
import type { OptimisationScenario } from '../../engine/inference/scenario.js';
import { parseOptimisation } from '../../simulations/from-query/families/optimisation.js';
import { type ScenarioError, type Variables, defineFamily } from '../family.js';
import { objectiveRules, optimisationQueries, optimisationReferences } from '../shared/optimisation.js';
import { scopeReferences, segmentRules } from '../shared/scope.js';

/** The best values of the decision variables for the objectives, within the constraints (spec: optimisation). */
export default defineFamily<OptimisationScenario>({
  type: 'optimisation',
  twinKinds: ['static'],
  schema: OptimisationScenarioSchema,
  references: (s) => [...scopeReferences(s), ...optimisationReferences(s)],
  rules: (s, { variables, twinType }) => [...objectiveRules(s, variables), ...segmentRules(s), ...leverRules(s, variables), ...windowRules(s, twinType)],
  metricQueries: optimisationQueries,
  fromQuery: [{ order: 40, parse: parseOptimisation }],
  engine: new URL('./engine.js', import.meta.url).href,
});

/** interventionTypes names decision variables, a relative change a numeric one without per-unit values. */
function leverRules(s: OptimisationScenario, variables: Variables): ScenarioError[] {
  const errors: ScenarioError[] = [];
  for (const [variable, type] of Object.entries(s.interventionTypes ?? {})) {
    const at = `/interventionTypes/${variable}`;
    if (!s.decisionVars.includes(variable)) errors.push({ location: at, message: `'${variable}' is not a decision variable` });
    else if (type === 'relative_change' && variables.get(variable)?.kind === 'categorical') errors.push({ location: at, message: `relative_change needs a numeric variable; '${variable}' is categorical` });
    else if (type === 'relative_change' && s.variableConstraints?.some((c) => c.variable === variable && c.conditionalAllowedValues !== undefined)) {
      errors.push({ location: at, message: 'conditionalAllowedValues set values per unit: use set_value for this variable' });
    }
  }
  s.objectives.forEach((o, i) => {
    if (o.variablesRelevantToMetric !== undefined && o.metricSqlQuery === undefined) {
      errors.push({ location: `/objectives/${i}/variablesRelevantToMetric`, message: 'names the variables a metricSqlQuery reads; this objective has none' });
    }
  });
  return errors;
}

function windowRules(s: OptimisationScenario, twinType: string): ScenarioError[] {
  return (s.metricConstraints ?? []).flatMap((c, i) =>
    c.temporal && Object.keys(c.temporal).length > 0
      ? [{ location: `/metricConstraints/${i}/temporal`, message: `a temporal window applies to temporal twins; this twin is ${twinType} (its population has no time axis): leave temporal out` }]
      : [],
  );
}
