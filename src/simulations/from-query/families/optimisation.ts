/**
 * Optimisation: "how should we set price and discount to maximise revenue", "minimise cost", "how can we reduce
 * churn", "what price gives the highest revenue". Objectives follow a direction word; bounds ("discount at most
 * 20", "price between 10 and 20") constrain a decision variable, or, on any other continuous variable, its mean
 * (a metric constraint); the other variables named are the decision variables. When none are named, the levers
 * are the version's source variables that are ancestors of an objective.
 */
import type { MetricConstraint, Objective, OptimisationScenario, VariableConstraint } from '../../../engine/inference/scenario.js';
import { ancestorsOf, sourceVariables } from '../graph.js';
import { unknownVariable, unmappable } from '../problems.js';
import type { QueryReader, QueryVariable } from '../reader.js';
import { readBounds, readLeverCount, type Bound } from '../bounds.js';
import * as words from '../vocabulary.js';
import type { Parsed } from './parsed.js';

type Direction = Objective['direction'];

/** The most decision variables an optimisation takes (schemas/simulations.ts). */
const DECISION_VARS_MAX = 20;

export function parseOptimisation(r: QueryReader): Parsed<OptimisationScenario> | null {
  const objectives = readObjectives(r);
  if (objectives === null) return null;
  const maxInterventions = readLeverCount(r);
  const bounds = readBounds(r);
  const objectiveNames = new Set(objectives.map((o) => o.variable));
  const fixed = new Set(bounds.filter((b) => b.fixed).map((b) => b.variable));
  let decisionVars = r.freeVariables().map((v) => v.name).filter((name) => !objectiveNames.has(name) && !fixed.has(name));
  const named = decisionVars.length > 0;
  if (!named) {
    const upstream = new Set(objectives.flatMap((o) => [...ancestorsOf(r.context, o.variable!)]));
    decisionVars = sourceVariables(r.context).filter((name) => upstream.has(name) && !fixed.has(name) && !objectiveNames.has(name));
  }
  if (!named && decisionVars.length > DECISION_VARS_MAX) {
    throw unmappable(`${decisionVars.length} source variables are upstream of ${[...objectiveNames].join(', ')}, more than the ${DECISION_VARS_MAX} decision variables a scenario takes; name the ones to change`);
  }
  if (decisionVars.length === 0) {
    throw unmappable(`Name the variables to change: no source variable of this twin is upstream of ${[...objectiveNames].join(', ')}`);
  }
  const scenario: OptimisationScenario = { type: 'optimisation', objectives, decisionVars };
  const { variableConstraints, metricConstraints } = constraintsOf(r, bounds.filter((b) => !b.fixed), new Set(decisionVars));
  if (variableConstraints.length > 0) scenario.variableConstraints = variableConstraints;
  if (metricConstraints.length > 0) scenario.metricConstraints = metricConstraints;
  if (maxInterventions !== undefined) scenario.interventionCountConfig = { maxInterventions };
  const goals = objectives.map((o) => `${o.direction} ${o.variable}`).join(' and ');
  const levers = `${decisionVars.join(', ')}${named ? '' : ' (the source variables upstream)'}`;
  const limits = [...(scenario.variableConstraints ?? []).map(describeVariableConstraint), ...(scenario.metricConstraints ?? []).map((m) => `${m.metricName} ${m.constraintType === 'max_value' ? '≤' : '≥'} ${m.value}`)];
  return { scenario, interpretation: `Find the settings of ${levers} that ${goals}${limits.length > 0 ? `, keeping ${limits.join(', ')}` : ''}.` };
}

/** Direction words and the variables after them ("maximise revenue and profit", "minimise cost"). */
function readObjectives(r: QueryReader): Objective[] | null {
  const objectives: Objective[] = [];
  let undirected: number | null = null;
  for (let i = 0; i < r.length; i++) {
    const direction = directionAt(r, i);
    if (direction === 'unknown') {
      undirected ??= i;
      continue;
    }
    if (direction === null) continue;
    const first = r.variableAt(direction.next);
    if (first === null) {
      const unknown = r.contentAfter(direction.next);
      if (unknown !== null && direction.strong) throw unknownVariable(unknown.phrase, r.names);
      continue;
    }
    const targets: QueryVariable[] = [first.variable];
    let next = first.next;
    while (r.is(next, ['and', ',']) && directionAt(r, next + 1) === null) {
      const more = r.variableAt(next + 1);
      if (more === null) break;
      targets.push(more.variable);
      next = more.next;
    }
    r.consume(i, next);
    for (const variable of targets) objectives.push(objectiveOf(variable, direction.direction));
    i = next - 1;
  }
  if (objectives.length === 0 && undirected !== null) {
    const named = r.freeVariables().map((v) => v.name);
    const [first] = named;
    const last = named[named.length - 1];
    if (first !== undefined && last !== undefined) {
      const example = first === last ? `"maximise ${first}" or "minimise ${first}"` : `"maximise ${last} by changing ${first}"`;
      throw unmappable(`Say whether to maximise or minimise, and what: e.g. ${example}`);
    }
  }
  return objectives.length === 0 ? null : objectives;
}

/**
 * "maximise", "minimise" (strong: what follows must be a variable), "highest"/"lowest" before a variable, and
 * "how can we reduce/increase X" without an amount. "optimise"/"best" give no direction: 'unknown'.
 */
function directionAt(r: QueryReader, at: number): { direction: Direction; next: number; strong: boolean } | 'unknown' | null {
  if (r.is(at, words.MAXIMISE_WORDS)) return { direction: 'maximise', next: at + 1, strong: true };
  if (r.is(at, words.MINIMISE_WORDS)) return { direction: 'minimise', next: at + 1, strong: true };
  if (r.is(at, words.OPTIMISE_WORDS)) return 'unknown';
  const named = r.is(at, words.HIGHEST_WORDS) || r.is(at, words.LOWEST_WORDS) ? r.variableAt(at + 1) : null;
  if (named !== null) return { direction: r.is(at, words.HIGHEST_WORDS) ? 'maximise' : 'minimise', next: named.start, strong: false };
  const wish = r.is(at - 3, 'how') && r.is(at - 2, words.MODAL_WORDS) && r.is(at - 1, ['we', 'i', 'you']);
  if (!wish) return null;
  const target = r.variableAt(at + 1);
  const amount = target === null ? null : r.numberAt(r.is(target.next, ['by', 'to']) ? target.next + 1 : target.next);
  if (amount !== null) return null;
  if (r.is(at, words.IMPROVE_VERBS)) return { direction: 'maximise', next: at + 1, strong: true };
  if (r.is(at, words.REDUCE_VERBS)) return { direction: 'minimise', next: at + 1, strong: true };
  return null;
}

function objectiveOf(variable: QueryVariable, direction: Direction): Objective {
  if (variable.type === 'categorical') {
    throw unmappable(`${variable.name} is categorical: optimise a number, e.g. a continuous variable, not a category label`);
  }
  return { direction, variable: variable.name };
}

/** Bounds on decision variables constrain the search; bounds on other continuous variables constrain their mean. */
function constraintsOf(r: QueryReader, bounds: Bound[], decision: Set<string>): { variableConstraints: VariableConstraint[]; metricConstraints: MetricConstraint[] } {
  const variableConstraints: VariableConstraint[] = [];
  const metricConstraints: MetricConstraint[] = [];
  for (const bound of bounds) {
    if (decision.has(bound.variable)) {
      const constraint: VariableConstraint = { variable: bound.variable, type: bound.allowedValues === undefined ? 'range' : 'set' };
      if (bound.min !== undefined) constraint.minValue = bound.min;
      if (bound.max !== undefined) constraint.maxValue = bound.max;
      if (bound.allowedValues !== undefined) constraint.allowedValues = bound.allowedValues;
      if (bound.maxChangePercent !== undefined) constraint.maxChangePercent = bound.maxChangePercent;
      variableConstraints.push(constraint);
      continue;
    }
    if (r.variable(bound.variable).type !== 'continuous' || bound.allowedValues !== undefined || bound.maxChangePercent !== undefined) {
      throw unmappable(`${bound.variable} is not a decision variable: only the mean of a continuous outcome can be bounded, with a minimum or a maximum`);
    }
    const sqlQuery = `SELECT avg(${quoteIdentifier(bound.variable)}) AS value FROM df`;
    const metricName = `Mean ${bound.variable}`;
    if (bound.min !== undefined) metricConstraints.push({ metricName, sqlQuery, constraintType: 'min_value', value: bound.min });
    if (bound.max !== undefined) metricConstraints.push({ metricName, sqlQuery, constraintType: 'max_value', value: bound.max });
  }
  return { variableConstraints, metricConstraints };
}

/** ClickHouse identifier quoting (the metric engine's dialect; twins/suggestions.ts quotes the same way). */
function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

function describeVariableConstraint(c: VariableConstraint): string {
  if (c.allowedValues !== undefined) return `${c.variable} in {${c.allowedValues.join(', ')}}`;
  const parts = [c.minValue === undefined ? null : `${c.variable} ≥ ${c.minValue}`, c.maxValue === undefined ? null : `${c.variable} ≤ ${c.maxValue}`, c.maxChangePercent === undefined ? null : `${c.variable} changing at most ${c.maxChangePercent}%`];
  return parts.filter((p) => p !== null).join(', ');
}
