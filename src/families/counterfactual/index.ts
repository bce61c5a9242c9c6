import { CounterfactualScenarioSchema } from '../../../schemas/simulations.js';
import type { CounterfactualScenario } from '../../engine/inference/scenario.js';
import { parseCounterfactual } from '../../simulations/from-query/families/counterfactual.js';
import { type ScenarioError, type Variables, defineFamily } from '../family.js';
import { distinctNames, rowReferences } from '../shared/rows.js';
import { sampleScopeRules, scopeReferences } from '../shared/scope.js';

/** Best action: the fewest changes to observed rows that would have reached the targets (spec: counterfactual). */
export default defineFamily<CounterfactualScenario>({
  type: 'counterfactual',
  twinKinds: ['static'],
  schema: CounterfactualScenarioSchema,
  references: (s) => [
    ...scopeReferences(s),
    ...rowReferences(s.samples, '/samples'),
    ...s.targets.map((t, i): [string, string] => [t.variable, `/targets/${i}/variable`]),
    ...Object.keys(s.constraints ?? {}).map((key): [string, string] => [key, `/constraints/${key}`]),
  ],
  rules: (s, { variables }) => [...targetRules(s, variables), ...sampleScopeRules(s.type, s)],
  fromQuery: [{ order: 30, parse: parseCounterfactual }],
  engine: new URL('./engine.js', import.meta.url).href,
});

/** Targets fit their variables (a category of a categorical one, a number for a numeric one), each named once. */
export function targetRules(s: Pick<CounterfactualScenario, 'targets'>, variables: Variables): ScenarioError[] {
  const errors: ScenarioError[] = [];
  s.targets.forEach((t, i) => {
    const variable = variables.get(t.variable);
    if (variable?.kind === 'categorical' && !variable.categories.includes(String(t.value))) errors.push({ location: `/targets/${i}/value`, message: `'${String(t.value)}' is not a category of ${t.variable} (${variable.categories.join(', ')})` });
    if (variable?.kind === 'continuous' && typeof t.value !== 'number') errors.push({ location: `/targets/${i}/value`, message: `${t.variable} is numeric: the target value must be a number` });
    if (variable?.kind === 'categorical' && t.matchMode !== undefined) errors.push({ location: `/targets/${i}/matchMode`, message: 'matchMode applies to numeric targets only' });
  });
  return [...errors, ...distinctNames(s.targets.map((t) => t.variable), '/targets')];
}
