import { TemporalOptimisationScenarioSchema } from '../../../schemas/simulations.js';
import { FINAL_PATHS } from '../../engine/temporal/optimisation.js';
import type { TemporalOptimisationScenario } from '../../engine/temporal/scenario.js';
import { parseOptimisation } from '../../simulations/from-query/families/optimisation.js';
import { readSpan } from '../../simulations/from-query/steps.js';
import { type ScenarioError, defineFamily } from '../family.js';
import { objectiveRules, optimisationQueries, optimisationReferences } from '../shared/optimisation.js';
import { distinctNames } from '../shared/rows.js';
import { simulationBudget, timeRule } from '../shared/time.js';

/** Without a horizon in the query, a plan is judged over this many steps. */
const DEFAULT_HORIZON = 10;

/** The lever settings over the forecast horizon that best meet the objectives (spec: temporal_optimisation). */
export default defineFamily<TemporalOptimisationScenario>({
  type: 'temporal_optimisation',
  twinKinds: ['temporal'],
  schema: TemporalOptimisationScenarioSchema,
  references: optimisationReferences,
  rules: (s, { variables, time }) => [
    ...objectiveRules(s, variables),
    ...distinctNames(s.decisionVars, '/decisionVars'),
    ...simulationBudget(FINAL_PATHS, s.forecastHorizon, variables.size, FINAL_PATHS).map((e) => ({ ...e, location: '/forecastHorizon' })),
    ...timeRule(s.originTimestamp, time, '/originTimestamp'),
    ...timeRule(s.interventionTiming?.start, time, '/interventionTiming/start'),
    ...(s.interventionTiming?.blockSteps !== undefined && s.interventionTiming.mode !== 'schedule' ? [{ location: '/interventionTiming/blockSteps', message: 'blockSteps sets how often a lever may change under mode schedule; with hold each lever keeps one value' }] : []),
    ...(s.variableConstraints ?? []).flatMap((c, i): ScenarioError[] => [
      ...(c.conditionalAllowedValues === undefined ? [] : [{ location: `/variableConstraints/${i}/conditionalAllowedValues`, message: 'a temporal plan sets each lever for every path alike: conditionalAllowedValues applies to static twins' }]),
      ...(s.decisionVars.includes(c.variable) ? [] : [{ location: `/variableConstraints/${i}/variable`, message: `'${c.variable}' is not a decision variable: a temporal optimisation constrains outcomes through metricConstraints` }]),
      ...(c.type === 'set' && (c.allowedValues ?? []).length === 0 ? [{ location: `/variableConstraints/${i}/allowedValues`, message: 'a set constraint lists the values the lever may take' }] : []),
      ...(c.minValue !== undefined && c.maxValue !== undefined && c.minValue > c.maxValue ? [{ location: `/variableConstraints/${i}/maxValue`, message: 'maxValue is below minValue' }] : []),
    ]),
  ],
  metricQueries: optimisationQueries,
  // The static wording ("how should we set price to maximise revenue"), over a horizon read from the query; read
  // before forecasts, whose future words ("over the next 2 weeks") such a question carries too.
  fromQuery: [{
    order: 8,
    parse: (reader) => {
      // The horizon first: its number is not a target or a bound of the optimisation.
      const span = readSpan(reader);
      const parsed = parseOptimisation(reader);
      if (parsed === null) return null;
      const { type: _type, ...rest } = parsed.scenario;
      const forecastHorizon = span?.steps ?? DEFAULT_HORIZON;
      return { scenario: { ...rest, type: 'temporal_optimisation', forecastHorizon }, interpretation: `${parsed.interpretation} Judged over the next ${forecastHorizon} steps${span === null ? ' (the default)' : ` (${span.said})`}.` };
    },
  }],
  engine: new URL('./engine.js', import.meta.url).href,
});
