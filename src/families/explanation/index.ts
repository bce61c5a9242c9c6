import { ExplanationScenarioSchema } from '../../../schemas/simulations.js';
import type { ExplanationScenario } from '../../engine/inference/scenario.js';
import { parseExplanation } from '../../simulations/from-query/families/explanation.js';
import { type ScenarioError, defineFamily } from '../family.js';
import { conditionReferences } from '../shared/rows.js';
import { explanationModeRules as modeRules } from '../shared/explanation.js';
import { scopeReferences, segmentRules } from '../shared/scope.js';

/** What drives a variable, or what a cause moves (spec: explanation, modes discovery / impact / directional). */
export default defineFamily<ExplanationScenario>({
  type: 'explanation',
  twinKinds: ['static'],
  schema: ExplanationScenarioSchema,
  references: (s) => [
    ...scopeReferences(s),
    ...(s.effectVariable === undefined ? [] : [[s.effectVariable, '/effectVariable'] as [string, string]]),
    ...(s.causeVariable === undefined ? [] : [[s.causeVariable, '/causeVariable'] as [string, string]]),
    ...(s.segments ?? []).flatMap((segment, i) => conditionReferences(segment.conditions, `/segments/${i}/conditions`)),
  ],
  rules: (s) => [...modeRules(s), ...segmentRules(s, s.segments ?? []), ...noDecisions(s)],
  fromQuery: [{ order: 70, parse: parseExplanation }],
  engine: new URL('./engine.js', import.meta.url).href,
});

function noDecisions(s: ExplanationScenario): ScenarioError[] {
  const errors: ScenarioError[] = [];
  if (s.enableSegmentInterventions === true) errors.push({ location: '/enableSegmentInterventions', message: 'an explanation makes no intervention: segment interventions apply to intervention and optimisation' });
  if (Object.keys(s.interventionTypes ?? {}).length > 0) errors.push({ location: '/interventionTypes', message: 'an explanation has no decision variables: interventionTypes applies to optimisation' });
  return errors;
}
