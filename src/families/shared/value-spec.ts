/** The rules of an intervention's valueSpec a schema cannot state: which kinds of change fit which variables. */
import type { Intervention, ValueSpec } from '../../engine/inference/scenario.js';
import type { ScenarioError, VariableInfo, Variables } from '../family.js';

export function valueSpecRules(spec: ValueSpec, name: string, variable: VariableInfo, path: string): ScenarioError[] {
  const errors: ScenarioError[] = [];
  const at = (location: string, message: string) => errors.push({ location, message });
  const numericOnly = spec.type === 'range' || spec.type === 'relative_change';
  const categoricalOnly = spec.type === 'set_probability' || spec.type === 'adjust_probability' || spec.type === 'set_members';
  if (numericOnly && variable.kind !== 'continuous') at(`${path}/type`, `${spec.type} needs a numeric variable; '${name}' is categorical`);
  if (categoricalOnly && variable.kind !== 'categorical') at(`${path}/type`, `${spec.type} needs a categorical variable; '${name}' is numeric`);
  const category = (value: unknown, member: string) => {
    if (variable.kind === 'categorical' && !variable.categories.includes(String(value))) at(`${path}/${member}`, `'${String(value)}' is not a category of ${name} (${variable.categories.join(', ')})`);
  };
  if (spec.type === 'set_value') {
    if (variable.kind === 'continuous' && typeof spec.value !== 'number') at(`${path}/value`, `${name} is numeric: set_value needs a number`);
    category(spec.value, 'value');
  }
  if (spec.type === 'set_probability' || spec.type === 'adjust_probability') category(spec.category, 'category');
  if (spec.type === 'set_members') {
    spec.include?.forEach((value, i) => category(value, `include/${i}`));
    spec.exclude?.forEach((value, i) => category(value, `exclude/${i}`));
    if (spec.include === undefined && spec.exclude === undefined && spec.size === undefined) at(path, 'set_members needs include, exclude or size');
  }
  if (spec.type === 'range' && spec.from === spec.to) at(`${path}/to`, 'a range needs from and to to differ');
  return errors;
}

/** At most one range, and every valueSpec fits its variable. */
export function interventionRules(interventions: readonly Intervention[], variables: Variables): ScenarioError[] {
  const errors: ScenarioError[] = [];
  const ranges = interventions.filter((item) => item.valueSpec.type === 'range').length;
  if (ranges > 1) errors.push({ location: '/interventions', message: `at most one range per scenario (${ranges} given)` });
  interventions.forEach((item, i) => {
    const variable = variables.get(item.variable);
    if (variable !== undefined) errors.push(...valueSpecRules(item.valueSpec, item.variable, variable, `/interventions/${i}/valueSpec`));
  });
  return errors;
}
