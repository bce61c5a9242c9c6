/** What the optimisation families (static and temporal) share: the variables they name, objective rules, metric SQL. */
import type { OptimisationScenario } from '../../engine/inference/scenario.js';
import type { ScenarioError, Variables } from '../family.js';
import { listReferences } from './rows.js';

type Optimisation = Pick<OptimisationScenario, 'objectives' | 'decisionVars' | 'variableConstraints' | 'metricConstraints'>;

export const optimisationReferences = (s: Optimisation): Array<[string, string]> => [
  ...s.objectives.flatMap((o, i): Array<[string, string]> => [
    ...(o.variable === undefined ? [] : [[o.variable, `/objectives/${i}/variable`] as [string, string]]),
    ...(o.variablesRelevantToMetric ?? []).map((v, j): [string, string] => [v, `/objectives/${i}/variablesRelevantToMetric/${j}`]),
  ]),
  ...listReferences(s.decisionVars, '/decisionVars'),
  ...(s.variableConstraints ?? []).flatMap((c, i): Array<[string, string]> => [
    [c.variable, `/variableConstraints/${i}/variable`],
    ...(c.conditionalAllowedValues ?? []).map((rule, j): [string, string] => [rule.condition.variable, `/variableConstraints/${i}/conditionalAllowedValues/${j}/condition/variable`]),
  ]),
];

export const optimisationQueries = (s: Optimisation) => [
  ...s.objectives.flatMap((o, i) => (o.metricSqlQuery === undefined ? [] : [{ sql: o.metricSqlQuery, location: `/objectives/${i}/metricSqlQuery` }])),
  ...(s.metricConstraints ?? []).map((c, i) => ({ sql: c.sqlQuery, location: `/metricConstraints/${i}/sqlQuery` })),
];

export function objectiveRules(s: Optimisation, variables: Variables): ScenarioError[] {
  const errors: ScenarioError[] = [];
  s.objectives.forEach((o, i) => {
    if ((o.variable === undefined) === (o.metricSqlQuery === undefined)) errors.push({ location: `/objectives/${i}`, message: 'give exactly one of variable or metricSqlQuery' });
    if (o.variable !== undefined && variables.get(o.variable)?.kind === 'categorical') {
      errors.push({ location: `/objectives/${i}/variable`, message: `'${o.variable}' is categorical: optimise a metricSqlQuery that counts the wanted class instead` });
    }
  });
  s.metricConstraints?.forEach((c, i) => {
    if (c.constraintType === 'fixed_boolean' ? c.booleanValue === undefined : c.value === undefined) {
      errors.push({ location: `/metricConstraints/${i}`, message: c.constraintType === 'fixed_boolean' ? 'fixed_boolean needs booleanValue' : `${c.constraintType} needs value` });
    }
  });
  return errors;
}

