import { CounterfactualScenarioSchema } from '../../../schemas/simulations.js';
import type { CounterfactualScenario } from '../../engine/inference/scenario.js';
import { parseCounterfactual } from '../../simulations/from-query/families/counterfactual.js';
import { type ScenarioError, type Variables, defineFamily } from '../family.js';
import { distinctNames, rowReferences } from '../shared/rows.js';
import { targetValueRules } from '../shared/targets.js';
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

/** Targets fit their variables, each named once. */
const targetRules = (s: Pick<CounterfactualScenario, 'targets'>, variables: Variables): ScenarioError[] => [...targetValueRules(s.targets, variables), ...distinctNames(s.targets.map((t) => t.variable), '/targets')];
