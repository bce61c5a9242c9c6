import { TemporalExplanationScenarioSchema } from '../../../schemas/simulations.js';
import type { TemporalExplanationScenario } from '../../engine/temporal/scenario.js';
import { parseExplanation } from '../../simulations/from-query/families/explanation.js';
import { defineFamily } from '../family.js';
import { explanationModeRules } from '../shared/explanation.js';
import { conditionReferences } from '../shared/rows.js';
import { segmentRules } from '../shared/scope.js';

/** Which past changes drive a variable, lag by lag (spec: temporal_explanation, modes discovery / impact / directional). */
export default defineFamily<TemporalExplanationScenario>({
  type: 'temporal_explanation',
  twinKinds: ['temporal'],
  schema: TemporalExplanationScenarioSchema,
  references: (s) => [
    ...(s.effectVariable === undefined ? [] : [[s.effectVariable, '/effectVariable'] as [string, string]]),
    ...(s.causeVariable === undefined ? [] : [[s.causeVariable, '/causeVariable'] as [string, string]]),
    ...(s.segments ?? []).flatMap((segment, i) => conditionReferences(segment.conditions, `/segments/${i}/conditions`)),
  ],
  rules: (s) => [...explanationModeRules(s), ...segmentRules({}, s.segments ?? [])],
  // The static wording ("what drives sales", "how does ads affect sales"), asked of a temporal twin.
  fromQuery: [{
    order: 70,
    parse: (reader) => {
      const parsed = parseExplanation(reader);
      return parsed === null ? null : { ...parsed, scenario: { ...parsed.scenario, type: 'temporal_explanation' } };
    },
  }],
  engine: new URL('./engine.js', import.meta.url).href,
});
