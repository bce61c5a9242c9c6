/**
 * The last word before a scenario leaves: it must pass the static twin's scenario shapes (scenario.ts, spec
 * "Scenario fields per family" and "Intervention details"): every variable exists, values fit their variable
 * (labels of a categorical one, finite numbers for a continuous one), at most one range, relative changes and
 * ranges only on continuous variables, no variable changed twice for the same rows, and no list longer than the
 * shapes allow.
 */
import type { Intervention, StaticScenario, Value } from '../../engine/inference/scenario.js';
import { listOf, unknownVariable, unmappable } from './problems.js';
import type { QueryContext, QueryVariable } from './reader.js';

/** The longest lists and largest counts the scenario shapes take (schemas/simulations.ts). */
const LIMITS = { interventions: 50, targetVars: 100, objectives: 10, decisionVars: 20, targets: 20, maxChanges: 10 };

function atMost(count: number, limit: number, what: string): void {
  if (count > limit) throw unmappable(`a scenario takes at most ${limit} ${what}; this query gives ${count}`);
}

function atLeastOneRow(rows: unknown[]): void {
  if (rows.length === 0) throw unmappable('this question needs at least one row of values');
}

function distinct(names: string[], what: string): void {
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw unmappable(`${twice} is named twice as ${what}`);
}

/** A static family's scenario checked here; the other families' (forecast) are checked by the service's validation. */
export function assertFitsTwin(built: StaticScenario | { type: string }, context: QueryContext): void {
  const scenario = built as StaticScenario;
  const byName = new Map(context.variables.map((v) => [v.name, v]));
  const known = (name: string | undefined): QueryVariable => {
    const variable = name === undefined ? undefined : byName.get(name);
    if (variable === undefined) throw unknownVariable(name ?? '', context.variables.map((v) => v.name));
    return variable;
  };
  const rows = (records: Record<string, Value | null>[]) => {
    for (const record of records) for (const [name, value] of Object.entries(record)) if (value !== null) assertValueFits(known(name), value);
  };
  switch (scenario.type) {
    case 'intervention':
      atMost(scenario.interventions.length, LIMITS.interventions, 'changes');
      atMost(scenario.targetVars?.length ?? 0, LIMITS.targetVars, 'outcome variables');
      assertInterventions(scenario.interventions, known);
      scenario.targetVars?.forEach(known);
      return;
    case 'prediction': {
      // The reader builds records (`sample`); the other ways in are for clients that send rows themselves.
      const sample = scenario.sample ?? [];
      atLeastOneRow(sample);
      atMost(scenario.targetVars.length, LIMITS.targetVars, 'predicted variables');
      distinct(scenario.targetVars, 'a predicted variable');
      rows(sample);
      const given = new Set(sample.flatMap((row) => Object.keys(row)));
      for (const name of scenario.targetVars) if (given.has(known(name).name)) throw unmappable(`${name} is both given and predicted; leave it out of the values`);
      return;
    }
    case 'optimisation':
      atMost(scenario.objectives.length, LIMITS.objectives, 'objectives');
      atMost(scenario.decisionVars.length, LIMITS.decisionVars, 'decision variables');
      for (const objective of scenario.objectives) if (scenario.decisionVars.includes(known(objective.variable).name)) throw unmappable(`${objective.variable} cannot be both an objective and a decision variable`);
      scenario.decisionVars.forEach(known);
      scenario.variableConstraints?.forEach((c) => known(c.variable));
      return;
    case 'counterfactual':
      atLeastOneRow(scenario.samples);
      atMost(scenario.targets.length, LIMITS.targets, 'targets');
      atMost(scenario.maxChanges ?? 0, LIMITS.maxChanges, 'changes per row');
      distinct(scenario.targets.map((t) => t.variable), 'a target');
      rows(scenario.samples);
      for (const target of scenario.targets) assertValueFits(known(target.variable), target.value);
      Object.keys(scenario.constraints ?? {}).forEach(known);
      return;
    case 'explanation':
      if (scenario.explanationMode !== 'impact') known(scenario.effectVariable);
      if (scenario.explanationMode !== 'discovery') known(scenario.causeVariable);
      return;
    case 'root_cause_analysis':
      known(scenario.targetVariable);
      atLeastOneRow(scenario.samples);
      rows(scenario.samples);
      return;
    case 'anomaly_detection':
      atLeastOneRow(scenario.samples);
      rows(scenario.samples);
  }
}

function assertInterventions(interventions: Intervention[], known: (name: string) => QueryVariable): void {
  const ranges = interventions.filter((i) => i.valueSpec.type === 'range');
  if (ranges.length > 1) throw unmappable(`a scenario sweeps at most one range; this asks for ranges of ${listOf(ranges.map((i) => i.variable))}`);
  const seen = new Set<string>();
  for (const intervention of interventions) {
    const variable = known(intervention.variable);
    const key = `${variable.name} ${JSON.stringify(intervention.conditions ?? [])}`;
    if (seen.has(key)) throw unmappable(`${variable.name} is changed twice for the same rows; give it one change`);
    seen.add(key);
    for (const condition of intervention.conditions ?? []) {
      const on = known(condition.variable);
      for (const value of Array.isArray(condition.value) ? condition.value : [condition.value]) assertValueFits(on, value);
    }
    const spec = intervention.valueSpec;
    switch (spec.type) {
      case 'set_value':
        assertValueFits(variable, spec.value);
        break;
      case 'relative_change':
      case 'range':
        if (variable.type !== 'continuous') throw unmappable(`${spec.type === 'range' ? 'a range' : 'a relative change'} applies only to continuous variables; ${variable.name} is categorical`);
        break;
      case 'set_probability':
      case 'adjust_probability':
        if (variable.type !== 'categorical') throw unmappable(`a probability applies to a category of a categorical variable; ${variable.name} is continuous`);
        assertValueFits(variable, spec.category);
        break;
      case 'set_members':
        break;
    }
  }
}

function assertValueFits(variable: QueryVariable, value: Value): void {
  if (variable.type === 'continuous') {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw unmappable(`${variable.name} is continuous: ${String(value)} is not a number`);
    return;
  }
  if (!(variable.categories ?? []).includes(String(value))) {
    throw unmappable(`${variable.name} has no category "${String(value)}"; its categories are: ${listOf(variable.categories ?? [])}`);
  }
}
