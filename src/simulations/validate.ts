/**
 * Submit-time validation of a scenario (spec "Scenario type values", "Scenario fields per family", "Intervention
 * details"): the discriminator, the family's shape, then what only the twin version can tell (its variables,
 * their kinds and categories). Everything here answers 422 with the offending member located under
 * body/scenario; nothing is stored before it passes.
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { SCENARIO_TYPES, SCENARIO_TYPES_BY_TWIN, STATIC_SCENARIO_SCHEMAS } from '../../schemas/simulations.js';
import type { StaticScenario, ValueSpec } from '../engine/inference/scenario.js';
import type { CbnModel } from '../engine/types.js';
import { AppError, type FieldError } from '../errors.js';

type TwinKind = keyof typeof SCENARIO_TYPES_BY_TWIN;
type Variables = Map<string, { kind: 'continuous' | 'categorical'; categories: string[] }>;

const BASE = 'body/scenario';
const validators = new Map<string, ReturnType<typeof Compile>>();

const fail = (errors: FieldError[], detail?: string) =>
  new AppError('validation_failed', detail ?? `The scenario is invalid: ${errors.map((e) => `${e.location}: ${e.message}`).join('; ')}`, { errors });

/** The family named by `type`, checked against the spellings and the twin's kind, before the twin is trained. */
export function scenarioFamily(scenario: Record<string, unknown>, twinType: string): string {
  const both = 'scenarioType' in scenario && 'type' in scenario;
  if ('scenarioType' in scenario) {
    throw fail([{ location: `${BASE}/scenarioType`, message: both ? 'both spellings given: use `type` only' : '`scenarioType` is not accepted: the discriminator is `type`' }]);
  }
  const type = scenario.type;
  if (typeof type !== 'string') throw fail([{ location: `${BASE}/type`, message: 'missing required member `type` (the scenario family)' }]);
  const allowed: readonly string[] = SCENARIO_TYPES_BY_TWIN[twinType as TwinKind] ?? [];
  if (!SCENARIO_TYPES.includes(type as never)) {
    throw fail([{ location: `${BASE}/type`, message: `unknown scenario family '${type}'; a ${twinType} twin answers ${allowed.join(', ')}` }]);
  }
  if (!allowed.includes(type)) {
    throw fail([{ location: `${BASE}/type`, message: `'${type}' does not match this ${twinType} twin; it answers ${allowed.join(', ')}` }]);
  }
  return type;
}

/** The family's shape and every reference to the version's variables; answers the scenario as the engine takes it. */
export function validateStaticScenario(scenario: Record<string, unknown>, model: CbnModel): StaticScenario {
  const type = scenario.type as keyof typeof STATIC_SCENARIO_SCHEMAS;
  bareInterventions(scenario);
  const schema: TSchema = STATIC_SCENARIO_SCHEMAS[type];
  let validator = validators.get(type);
  if (validator === undefined) validators.set(type, (validator = Compile(schema)));
  if (!validator.Check(scenario)) {
    const errors = [...validator.Errors(scenario)].slice(0, 20).map((e) => ({ location: `${BASE}${e.instancePath}`, message: e.message }));
    throw fail(errors);
  }
  const valid = scenario as unknown as StaticScenario;
  const variables: Variables = new Map(model.nodes.map((node) => [node.name, { kind: node.kind, categories: node.kind === 'categorical' ? node.categories : [] }]));
  const errors = [...unknownVariables(valid, variables), ...familyRules(valid, variables), ...scopeRules(valid, variables)];
  if (errors.length > 0) throw fail(errors);
  return valid;
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

/** Every variable the scenario names, with where it names it. */
function references(s: StaticScenario): Array<[string, string]> {
  const refs: Array<[string, string]> = [];
  const rows = (records: Record<string, unknown>[], at: string) => {
    const keys = new Set<string>();
    for (const record of records) for (const key of Object.keys(record)) keys.add(key);
    for (const key of keys) refs.push([key, at]);
  };
  const conditions = (list: { variable: string }[] | undefined, at: string) => list?.forEach((c, i) => refs.push([c.variable, `${at}/${i}/variable`]));
  if ('conditions' in s) conditions(s.conditions, '/conditions');
  if ('segmentDefinitions' in s) s.segmentDefinitions?.forEach((segment, i) => conditions(segment.conditions, `/segmentDefinitions/${i}/conditions`));
  if ('interventionTypes' in s) for (const key of Object.keys(s.interventionTypes ?? {})) refs.push([key, `/interventionTypes/${key}`]);
  switch (s.type) {
    case 'prediction':
      rows(s.sample, '/sample');
      s.targetVars.forEach((v, i) => refs.push([v, `/targetVars/${i}`]));
      break;
    case 'intervention':
      s.interventions.forEach((item, i) => {
        refs.push([item.variable, `/interventions/${i}/variable`]);
        conditions(item.conditions, `/interventions/${i}/conditions`);
      });
      s.targetVars?.forEach((v, i) => refs.push([v, `/targetVars/${i}`]));
      break;
    case 'optimisation':
      s.objectives.forEach((o, i) => {
        if (o.variable !== undefined) refs.push([o.variable, `/objectives/${i}/variable`]);
        o.variablesRelevantToMetric?.forEach((v, j) => refs.push([v, `/objectives/${i}/variablesRelevantToMetric/${j}`]));
      });
      s.decisionVars.forEach((v, i) => refs.push([v, `/decisionVars/${i}`]));
      s.variableConstraints?.forEach((c, i) => {
        refs.push([c.variable, `/variableConstraints/${i}/variable`]);
        c.conditionalAllowedValues?.forEach((rule, j) => refs.push([rule.condition.variable, `/variableConstraints/${i}/conditionalAllowedValues/${j}/condition/variable`]));
      });
      break;
    case 'counterfactual':
      rows(s.samples, '/samples');
      s.targets.forEach((t, i) => refs.push([t.variable, `/targets/${i}/variable`]));
      for (const key of Object.keys(s.constraints ?? {})) refs.push([key, `/constraints/${key}`]);
      break;
    case 'explanation':
      if (s.effectVariable !== undefined) refs.push([s.effectVariable, '/effectVariable']);
      if (s.causeVariable !== undefined) refs.push([s.causeVariable, '/causeVariable']);
      s.segments?.forEach((segment, i) => conditions(segment.conditions, `/segments/${i}/conditions`));
      break;
    case 'root_cause_analysis':
      refs.push([s.targetVariable, '/targetVariable']);
      rows(s.samples, '/samples');
      break;
    case 'anomaly_detection':
      rows(s.samples, '/samples');
      break;
  }
  return refs;
}

function unknownVariables(s: StaticScenario, variables: Variables): FieldError[] {
  const unknown = new Map<string, string>();
  for (const [name, at] of references(s)) if (!variables.has(name) && !unknown.has(name)) unknown.set(name, at);
  if (unknown.size === 0) return [];
  const known = [...variables.keys()].slice(0, 50).join(', ');
  return [...unknown].map(([name, at]) => ({ location: `${BASE}${at}`, message: `unknown variable '${name}' (this version's variables: ${known})` }));
}

/** The rules a shape cannot state: ranges, kinds of change per variable kind, categories, mode requirements. */
function familyRules(s: StaticScenario, variables: Variables): FieldError[] {
  const errors: FieldError[] = [];
  const at = (path: string, message: string) => errors.push({ location: `${BASE}${path}`, message });
  if (s.type === 'intervention') {
    const ranges = s.interventions.filter((item) => item.valueSpec.type === 'range').length;
    if (ranges > 1) at('/interventions', `at most one range per scenario (${ranges} given)`);
    s.interventions.forEach((item, i) => {
      const variable = variables.get(item.variable);
      if (variable !== undefined) valueSpecRules(item.valueSpec, item.variable, variable, `/interventions/${i}/valueSpec`, at);
    });
  }
  if (s.type === 'explanation') {
    if (s.explanationMode !== 'impact' && s.effectVariable === undefined) at('/effectVariable', `explanationMode '${s.explanationMode}' needs effectVariable`);
    if (s.explanationMode !== 'discovery' && s.causeVariable === undefined) at('/causeVariable', `explanationMode '${s.explanationMode}' needs causeVariable`);
  }
  if (s.type === 'optimisation') {
    s.objectives.forEach((o, i) => {
      if ((o.variable === undefined) === (o.metricSqlQuery === undefined)) at(`/objectives/${i}`, 'give exactly one of variable or metricSqlQuery');
      if (o.variable !== undefined && variables.get(o.variable)?.kind === 'categorical') at(`/objectives/${i}/variable`, `'${o.variable}' is categorical: optimise a metricSqlQuery that counts the wanted class instead`);
    });
    s.metricConstraints?.forEach((c, i) => {
      if (c.constraintType === 'fixed_boolean' ? c.booleanValue === undefined : c.value === undefined) {
        at(`/metricConstraints/${i}`, c.constraintType === 'fixed_boolean' ? 'fixed_boolean needs booleanValue' : `${c.constraintType} needs value`);
      }
    });
  }
  if (s.type === 'prediction' || s.type === 'counterfactual') {
    const targets = s.type === 'prediction' ? s.targetVars : s.targets.map((t) => t.variable);
    if (s.type === 'counterfactual') {
      s.targets.forEach((t, i) => {
        const variable = variables.get(t.variable);
        if (variable?.kind === 'categorical' && !variable.categories.includes(String(t.value))) at(`/targets/${i}/value`, `'${String(t.value)}' is not a category of ${t.variable} (${variable.categories.join(', ')})`);
        if (variable?.kind === 'continuous' && typeof t.value !== 'number') at(`/targets/${i}/value`, `${t.variable} is numeric: the target value must be a number`);
        if (variable?.kind === 'categorical' && t.matchMode !== undefined) at(`/targets/${i}/matchMode`, `matchMode applies to numeric targets only`);
      });
    }
    if (new Set(targets).size !== targets.length) at(s.type === 'prediction' ? '/targetVars' : '/targets', 'a variable is named twice');
  }
  return errors;
}

/** Families that answer the samples they are given: a population scope cannot apply to them. */
const SAMPLE_FAMILIES = new Set(['prediction', 'counterfactual', 'root_cause_analysis', 'anomaly_detection']);

/** Where the spec's shared Scenario members apply on a static twin, and what each needs. */
function scopeRules(s: StaticScenario, variables: Variables): FieldError[] {
  const errors: FieldError[] = [];
  const at = (path: string, message: string) => errors.push({ location: `${BASE}${path}`, message });
  const raw = s as unknown as Record<string, unknown>;
  if (SAMPLE_FAMILIES.has(s.type)) {
    const reasons: Record<string, string> = {
      conditions: `${s.type} answers the samples it is given: send only the samples to answer instead of conditions`,
      segmentDefinitions: `${s.type} answers the samples it is given: segments apply to intervention, optimisation and explanation`,
      enableSegmentInterventions: `${s.type} makes no intervention on a population: segment interventions apply to intervention and optimisation`,
      interventionTypes: `${s.type} has no decision variables: interventionTypes applies to optimisation (and must agree with an intervention's valueSpec)`,
    };
    for (const [member, reason] of Object.entries(reasons)) if (raw[member] !== undefined) at(`/${member}`, reason);
    return errors;
  }
  if (s.type !== 'intervention' && s.type !== 'optimisation' && s.type !== 'explanation') return errors;
  const segments = [...(s.segmentDefinitions ?? []), ...(s.type === 'explanation' ? (s.segments ?? []) : [])];
  const ids = segments.map((segment) => segment.id);
  if (new Set(ids).size !== ids.length) at(s.segmentDefinitions ? '/segmentDefinitions' : '/segments', 'segment ids must be distinct');
  if (s.enableSegmentInterventions === true) {
    if ((s.segmentDefinitions ?? []).length === 0) at('/enableSegmentInterventions', 'enableSegmentInterventions needs segmentDefinitions');
    if (s.type === 'explanation') at('/enableSegmentInterventions', 'an explanation makes no intervention: segment interventions apply to intervention and optimisation');
  }
  const types = Object.entries(s.interventionTypes ?? {});
  if (s.type === 'explanation' && types.length > 0) at('/interventionTypes', 'an explanation has no decision variables: interventionTypes applies to optimisation');
  if (s.type === 'intervention') {
    for (const [variable, type] of types) {
      const items = s.interventions.filter((item) => item.variable === variable);
      if (items.length === 0) at(`/interventionTypes/${variable}`, `'${variable}' is not intervened on: interventionTypes names intervened variables`);
      const given = items.map((item) => (item.valueSpec.type === 'range' ? 'set_value' : item.valueSpec.type)).find((t) => t !== type);
      if (given !== undefined) at(`/interventionTypes/${variable}`, `'${type}' disagrees with the intervention's valueSpec.type '${given}'`);
    }
  }
  if (s.type === 'optimisation') {
    for (const [variable, type] of types) {
      if (!s.decisionVars.includes(variable)) at(`/interventionTypes/${variable}`, `'${variable}' is not a decision variable`);
      else if (type === 'relative_change' && variables.get(variable)?.kind === 'categorical') at(`/interventionTypes/${variable}`, `relative_change needs a numeric variable; '${variable}' is categorical`);
      else if (type === 'relative_change' && s.variableConstraints?.some((c) => c.variable === variable && c.conditionalAllowedValues !== undefined)) {
        at(`/interventionTypes/${variable}`, 'conditionalAllowedValues set values per unit: use set_value for this variable');
      }
    }
    s.objectives.forEach((o, i) => {
      if (o.variablesRelevantToMetric !== undefined && o.metricSqlQuery === undefined) at(`/objectives/${i}/variablesRelevantToMetric`, 'names the variables a metricSqlQuery reads; this objective has none');
    });
    s.metricConstraints?.forEach((c, i) => {
      if (c.temporal && Object.keys(c.temporal).length > 0) at(`/metricConstraints/${i}/temporal`, 'a temporal window applies to temporal twins; this twin is static (its population has no time axis): leave temporal out');
    });
  }
  return errors;
}

function valueSpecRules(
  spec: ValueSpec,
  name: string,
  variable: { kind: 'continuous' | 'categorical'; categories: string[] },
  path: string,
  at: (path: string, message: string) => void,
): void {
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
}

/** Every metric SQL text of a scenario, with where it is (checked by the data engine's parser at submit). */
export function metricQueries(s: StaticScenario): Array<{ sql: string; location: string }> {
  const out: Array<{ sql: string; location: string }> = [];
  if (s.type === 'intervention') s.metrics?.forEach((m, i) => out.push({ sql: m.sqlQuery, location: `${BASE}/metrics/${i}/sqlQuery` }));
  if (s.type === 'optimisation') {
    s.objectives.forEach((o, i) => o.metricSqlQuery !== undefined && out.push({ sql: o.metricSqlQuery, location: `${BASE}/objectives/${i}/metricSqlQuery` }));
    s.metricConstraints?.forEach((c, i) => out.push({ sql: c.sqlQuery, location: `${BASE}/metricConstraints/${i}/sqlQuery` }));
  }
  return out;
}
