/** The interpretation's wording: how a scenario's parts read back in plain English. */
import type { Condition, Intervention, Value, ValueSpec } from '../../engine/inference/scenario.js';

const OPERATOR_TEXT: Record<Condition['operator'], string> = { eq: '=', ne: '≠', gt: '>', lt: '<', ge: '≥', le: '≤', in: 'in', not_in: 'not in' };

export function describeRow(row: Record<string, Value | null>): string {
  const parts = Object.entries(row).map(([name, value]) => `${name} = ${String(value)}`);
  return parts.length === 0 ? 'no values given' : parts.join(', ');
}

function describeCondition(condition: Condition): string {
  const value = Array.isArray(condition.value) ? `{${condition.value.join(', ')}}` : String(condition.value);
  return `${condition.variable} ${OPERATOR_TEXT[condition.operator]} ${value}`;
}

export function describeIntervention(intervention: Intervention): string {
  const change = describeSpec(intervention.variable, intervention.valueSpec);
  const where = intervention.conditions?.map(describeCondition).join(' and ');
  return where === undefined || where === '' ? change : `${change} where ${where}`;
}

function describeSpec(variable: string, spec: ValueSpec): string {
  switch (spec.type) {
    case 'set_value':
      return `set ${variable} to ${String(spec.value)}`;
    case 'relative_change': {
      const verb = spec.value >= 0 ? 'raise' : 'lower';
      return `${verb} ${variable} by ${Math.abs(spec.value)}${spec.mode === 'percentage' ? '%' : ''}`;
    }
    case 'set_probability':
      return `set the probability of ${variable} = ${String(spec.category)} to ${spec.probability}`;
    case 'adjust_probability': {
      const verb = spec.delta >= 0 ? 'raise' : 'lower';
      return `${verb} the probability of ${variable} = ${String(spec.category)} by ${Math.abs(spec.delta)} percentage points`;
    }
    case 'set_members':
      return `restrict ${variable} to its allowed categories`;
    case 'range':
      return `sweep ${variable} from ${spec.from} to ${spec.to} in ${spec.steps} steps`;
  }
}
