import { TemporalCounterfactualScenarioSchema } from '../../../schemas/simulations.js';
import type { TemporalCounterfactualScenario } from '../../engine/temporal/scenario.js';
import { parseTemporalCounterfactual } from '../../simulations/from-query/families/history.js';
import { defineFamily } from '../family.js';
import { targetValueRules } from '../shared/targets.js';
import { timeRule } from '../shared/time.js';
import { windowReferences, windowRules } from '../shared/window.js';

/** Best action in hindsight: the fewest earlier changes that would have reached the targets (spec: temporal_counterfactual). */
export default defineFamily<TemporalCounterfactualScenario>({
  type: 'temporal_counterfactual',
  twinKinds: ['temporal'],
  schema: TemporalCounterfactualScenarioSchema,
  references: (s, context) => [
    ...windowReferences(s.samples, '/samples', context),
    ...s.targets.map((t, i): [string, string] => [t.variable, `/targets/${i}/variable`]),
    ...Object.keys(s.constraints ?? {}).map((key): [string, string] => [key, `/constraints/${key}`]),
  ],
  rules: (s, context) => [
    ...windowRules(s.samples, '/samples', context),
    ...targetValueRules(s.targets, context.variables),
    ...(s.samples !== undefined && s.samples.length < 2 ? [{ location: '/samples', message: 'give at least two records: changes fall on steps before the targets' }] : []),
    ...(s.samples !== undefined && s.historyUntil !== undefined ? [{ location: '/historyUntil', message: 'historyUntil picks the stored history: give samples or historyUntil, not both' }] : []),
    ...timeRule(s.historyUntil, context.time, '/historyUntil'),
    ...s.targets.flatMap((t, i) => s.targets.slice(0, i).some((u) => u.variable === t.variable && u.timestamp === t.timestamp) ? [{ location: `/targets/${i}`, message: `${t.variable} is targeted twice at the same time` }] : []),
  ],
  fromQuery: [{ order: 25, parse: parseTemporalCounterfactual }],
  engine: new URL('./engine.js', import.meta.url).href,
});
