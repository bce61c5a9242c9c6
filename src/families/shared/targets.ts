/** Wanted values of the best-action families: a category of a categorical variable, a number for a numeric one. */
import type { CounterfactualTarget } from '../../engine/inference/scenario.js';
import type { ScenarioError, Variables } from '../family.js';

export function targetValueRules(targets: readonly CounterfactualTarget[], variables: Variables): ScenarioError[] {
  const errors: ScenarioError[] = [];
  targets.forEach((t, i) => {
    const variable = variables.get(t.variable);
    if (variable?.kind === 'categorical' && !variable.categories.includes(String(t.value))) errors.push({ location: `/targets/${i}/value`, message: `'${String(t.value)}' is not a category of ${t.variable} (${variable.categories.join(', ')})` });
    if (variable?.kind === 'continuous' && typeof t.value !== 'number') errors.push({ location: `/targets/${i}/value`, message: `${t.variable} is numeric: the target value must be a number` });
    if (variable?.kind === 'categorical' && t.matchMode !== undefined) errors.push({ location: `/targets/${i}/matchMode`, message: 'matchMode applies to numeric targets only' });
  });
  return errors;
}
