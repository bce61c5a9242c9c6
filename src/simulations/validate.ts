/**
 * Submit-time validation of a scenario (spec "Scenario type values", "Scenario fields per family", "Intervention
 * details"): the discriminator, then the registered family's shape, and what only the twin version can tell (its
 * variables, their kinds and categories) through the family's references and rules. Everything here answers 422
 * with the offending member located under body/scenario; nothing is stored before it passes.
 */
import { Compile } from 'typebox/compile';
import { SCENARIO_TYPES, SCENARIO_TYPES_BY_TWIN } from '../../schemas/simulations.js';
import type { TwinType } from '../../schemas/twins.js';
import { AppError, type FieldError } from '../errors.js';
import type { CheckContext, FamilyDefinition, Variables } from '../families/family.js';
import { familiesOf, familyOf } from '../families/registry.js';

const BASE = 'body/scenario';
const validators = new WeakMap<FamilyDefinition, ReturnType<typeof Compile>>();

const located = (errors: FieldError[]) => errors.map((e) => ({ location: `${BASE}${e.location}`, message: e.message }));
const fail = (errors: FieldError[], detail?: string) =>
  new AppError('validation_failed', detail ?? `The scenario is invalid: ${errors.map((e) => `${e.location}: ${e.message}`).join('; ')}`, { errors });

/** The family named by `type`, checked against the spellings and the twin's kind, before the twin is trained. */
export function scenarioFamily(scenario: Record<string, unknown>, twinType: TwinType): FamilyDefinition {
  const both = 'scenarioType' in scenario && 'type' in scenario;
  if ('scenarioType' in scenario) {
    throw fail([{ location: `${BASE}/scenarioType`, message: both ? 'both spellings given: use `type` only' : '`scenarioType` is not accepted: the discriminator is `type`' }]);
  }
  const type = scenario.type;
  if (typeof type !== 'string') throw fail([{ location: `${BASE}/type`, message: 'missing required member `type` (the scenario family)' }]);
  const answered = familiesOf(twinType).map((family) => family.type);
  const family = familyOf(type, twinType);
  if (family === undefined && !SCENARIO_TYPES.includes(type as never)) {
    throw fail([{ location: `${BASE}/type`, message: `unknown scenario family '${type}'; a ${twinType} twin answers ${answered.join(', ')}` }]);
  }
  if (family !== undefined && family.twinKinds.includes(twinType)) return family;
  const ofKind: readonly string[] = SCENARIO_TYPES_BY_TWIN[twinType];
  const answers = answered.length === 0 ? 'no question family is built for it yet' : `it answers ${answered.join(', ')}`;
  if (!ofKind.includes(type)) throw fail([{ location: `${BASE}/type`, message: `'${type}' does not match this ${twinType} twin; ${answers}` }]);
  throw fail([{ location: `${BASE}/type`, message: `'${type}' on a ${twinType} twin is not built yet; ${answers}` }]);
}

/** The family's shape and every reference to the version's variables; answers the scenario as the engine takes it. */
export function validateScenario<S extends { type: string }>(family: FamilyDefinition, scenario: Record<string, unknown>, context: CheckContext): S {
  bareInterventions(scenario);
  let validator = validators.get(family);
  if (validator === undefined) validators.set(family, (validator = Compile(family.schema)));
  if (!validator.Check(scenario)) {
    throw fail([...validator.Errors(scenario)].slice(0, 20).map((e) => ({ location: `${BASE}${e.instancePath}`, message: e.message })));
  }
  const valid = scenario as unknown as { type: string };
  const errors = [...unknownVariables(family.references(valid, context), context.variables), ...located(family.rules?.(valid, context) ?? [])];
  if (errors.length > 0) throw fail(errors);
  return valid as S;
}

/** Every metric SQL text of a scenario, located under body/scenario. */
export function metricQueries(family: FamilyDefinition, scenario: { type: string }): Array<{ sql: string; location: string }> {
  return (family.metricQueries?.(scenario) ?? []).map(({ sql, location }) => ({ sql, location: `${BASE}${location}` }));
}

/** `{variable, value}` without a valueSpec wrapper is a common mistake: say exactly that. */
function bareInterventions(scenario: Record<string, unknown>): void {
  const items = Array.isArray(scenario.interventions) ? scenario.interventions : [];
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    if (item !== null && typeof item === 'object' && !('valueSpec' in item) && 'value' in item) {
      errors.push({ location: `${BASE}/interventions/${i}`, message: 'a bare {variable, value} is invalid: wrap the value in `valueSpec`, e.g. {"type": "set_value", "value": 10}' });
    }
  });
  if (errors.length > 0) throw fail(errors);
}

function unknownVariables(references: Array<[string, string]>, variables: Variables): FieldError[] {
  const unknown = new Map<string, string>();
  for (const [name, at] of references) if (!variables.has(name) && !unknown.has(name)) unknown.set(name, at);
  if (unknown.size === 0) return [];
  const known = [...variables.keys()].slice(0, 50).join(', ');
  return [...unknown].map(([name, at]) => ({ location: `${BASE}${at}`, message: `unknown variable '${name}' (this version's variables: ${known})` }));
}
