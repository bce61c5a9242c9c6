/**
 * The decision space of an optimisation: each decision variable's allowed values and how a chosen value becomes
 * set interventions on the population. A continuous lever moves in a box: its range constraint (default: the
 * baseline mean +- 3 baseline std) narrowed by maxChangePercent around the baseline mean; a `set` constraint on
 * it makes it discrete. A categorical lever takes its allowed categories. conditionalAllowedValues are read per
 * unit on the unit's baseline values: a unit meeting a rule's condition has the chosen value clamped into the
 * rule's [minValue, maxValue] and moved to the nearest of its allowedValues (continuous), or keeps its own
 * baseline value when the chosen category is not among the rule's allowedValues (categorical); a unit meeting
 * several rules honours all of them.
 */
import { AppError } from '../../errors.js';
import type { Frame } from '../types.js';
import { conditionMask } from './conditions.js';
import { both, maskedRows, segmentMasks } from './population.js';
import type { OptimisationScenario, Value, VariableConstraint } from './scenario.js';
import type { Scm, Treatment } from './scm.js';

/** Default box of a continuous lever without a range: baseline mean +- this many baseline std. */
const DEFAULT_BOX_STDS = 3;

export interface DecisionLever {
  node: number;
  name: string;
  kind: 'continuous' | 'categorical';
  /** Baseline mean (continuous) or most frequent baseline category code. */
  baselineValue: number;
  /** Continuous box. */
  low: number;
  high: number;
  /** Discrete choices: category codes, or the allowed numbers of a continuous lever with a `set` constraint. */
  options: number[] | null;
  /** Units grouped by the conditional rules they meet, each group's value rule. */
  groups: { rows: Uint8Array | null; rules: Rule[] }[];
  /** `set`: every unit gets the chosen value; `shift`: each unit's own value moves by the chosen mean's change. */
  mode: 'set' | 'shift';
  /** With segment interventions: the segment this lever acts on (its units only). */
  segment?: string;
}

interface Rule {
  low: number;
  high: number;
  allowed: number[] | null;
}

/**
 * The levers of an optimisation: one per decision variable, or with enableSegmentInterventions one per decision
 * variable and segment (acting on the segment's units only, starting from the segment's own baseline); units in no
 * segment keep their natural values.
 */
export function decisionLevers(scm: Scm, scenario: OptimisationScenario, baseline: Frame): DecisionLever[] {
  const levers = populationLevers(scm, scenario, baseline);
  if (scenario.enableSegmentInterventions !== true || !scenario.segmentDefinitions?.length) return levers;
  const definitions = scenario.segmentDefinitions;
  // A segment no unit meets keeps its levers (they change nothing), so every model of the class has the same levers.
  return segmentMasks(scm, baseline, definitions).flatMap((mask, s) => {
    const within = maskedRows(baseline, mask);
    return levers.map((lever): DecisionLever => {
      const column = within.columns[lever.node]!;
      const baselineValue = column.kind === 'continuous' ? meanStd(column.values).mean : modeOf(column.codes, column.categories.length);
      return { ...lever, baselineValue, segment: definitions[s]!.id, groups: lever.groups.map((g) => ({ rows: g.rows === null ? mask : both(g.rows, mask), rules: g.rules })) };
    });
  });
}

function populationLevers(scm: Scm, scenario: OptimisationScenario, baseline: Frame): DecisionLever[] {
  if (scenario.decisionVars.length === 0) throw invalid('decisionVars must name at least one variable');
  const constraints = new Map<string, VariableConstraint[]>();
  for (const c of scenario.variableConstraints ?? []) constraints.set(c.variable, [...(constraints.get(c.variable) ?? []), c]);
  const seen = new Set<string>();
  return scenario.decisionVars.map((name) => {
    const node = scm.indexOf(name);
    if (node < 0) throw invalid(`decision variable ${name} is not a variable of the model`);
    if (seen.has(name)) throw invalid(`decision variable ${name} appears twice`);
    seen.add(name);
    const column = baseline.columns[node]!;
    const own = constraints.get(name) ?? [];
    if (column.kind === 'categorical') {
      const categories = column.categories;
      const code = (v: Value) => {
        const k = categories.indexOf(String(v));
        if (k < 0) throw invalid(`constraint on ${name}: no category ${JSON.stringify(v)} (categories: ${categories.join(', ')})`);
        return k;
      };
      let options = categories.map((_, k) => k);
      for (const c of own) if (c.type === 'set' && c.allowedValues) options = options.filter((k) => c.allowedValues!.map(code).includes(k));
      if (options.length === 0) throw invalid(`constraints on ${name} leave no allowed category`);
      const rules = own.flatMap((c) => c.conditionalAllowedValues ?? []).map((r) => ({
        condition: r.condition, rule: { low: -Infinity, high: Infinity, allowed: r.allowedValues ? r.allowedValues.map(code) : null },
      }));
      if (scenario.interventionTypes?.[name] === 'relative_change') throw invalid(`relative_change needs a numeric decision variable; ${name} is categorical`);
      return { node, name, kind: 'categorical', baselineValue: modeOf(column.codes, categories.length), low: 0, high: 0, options, groups: groupsOf(scm, baseline, rules), mode: 'set' };
    }
    const { mean, std } = meanStd(column.values);
    let low = mean - DEFAULT_BOX_STDS * std;
    let high = mean + DEFAULT_BOX_STDS * std;
    let options: number[] | null = null;
    for (const c of own) {
      if (c.minValue !== undefined) low = c.minValue;
      if (c.maxValue !== undefined) high = c.maxValue;
      if (c.type === 'set' && c.allowedValues) options = c.allowedValues.map((v) => number(name, v));
    }
    for (const c of own) {
      if (c.maxChangePercent === undefined) continue;
      const room = (Math.abs(mean) * c.maxChangePercent) / 100;
      low = Math.max(low, mean - room);
      high = Math.min(high, mean + room);
    }
    if (options) options = options.filter((v) => v >= low && v <= high);
    if (low > high || (options && options.length === 0)) throw invalid(`constraints on ${name} leave no allowed value`);
    const rules = own.flatMap((c) => c.conditionalAllowedValues ?? []).map((r) => ({
      condition: r.condition, rule: { low: r.minValue ?? -Infinity, high: r.maxValue ?? Infinity, allowed: r.allowedValues ? r.allowedValues.map((v) => number(name, v)) : null },
    }));
    const mode = scenario.interventionTypes?.[name] === 'relative_change' ? 'shift' : 'set';
    if (mode === 'shift' && rules.length > 0) throw invalid(`conditionalAllowedValues on ${name} set values per unit: use set_value for it`);
    return { node, name, kind: 'continuous', baselineValue: mean, low, high, options, groups: groupsOf(scm, baseline, rules), mode };
  });
}

/** Units partitioned by which conditional rules they meet (most units usually meet none). */
function groupsOf(scm: Scm, baseline: Frame, rules: { condition: Parameters<typeof conditionMask>[2][number]; rule: Rule }[]): DecisionLever['groups'] {
  if (rules.length === 0) return [{ rows: null, rules: [] }];
  const masks = rules.map((r) => conditionMask(baseline, scm, [r.condition]));
  const bySignature = new Map<string, Uint8Array>();
  for (let u = 0; u < baseline.nRows; u++) {
    const signature = masks.map((m) => m[u]).join('');
    let rows = bySignature.get(signature);
    if (!rows) bySignature.set(signature, (rows = new Uint8Array(baseline.nRows)));
    rows[u] = 1;
  }
  return [...bySignature].map(([signature, rows]) => ({ rows, rules: rules.filter((_, i) => signature[i] === '1').map((r) => r.rule) }));
}

/**
 * Interventions putting the lever at `value` (a number or a category code), honouring conditional rules; a shift
 * lever moves each unit by `value` minus the baseline mean, so the mean lands on `value` and units keep their spread.
 */
export function leverTreatments(scm: Scm, lever: DecisionLever, value: number): Treatment[] {
  const name = scm.names[lever.node]!;
  if (lever.mode === 'shift') {
    return lever.groups.map((g): Treatment => ({ node: name, kind: 'shift', mode: 'absolute', value: value - lever.baselineValue, ...(g.rows ? { rows: g.rows } : {}) }));
  }
  const out: Treatment[] = [];
  for (const group of lever.groups) {
    let v: number | null = value;
    for (const rule of group.rules) {
      if (v === null) break;
      if (lever.kind === 'categorical') {
        if (rule.allowed && !rule.allowed.includes(v)) v = null;
        continue;
      }
      v = Math.min(rule.high, Math.max(rule.low, v));
      if (rule.allowed) v = nearest(rule.allowed, v);
    }
    if (v === null) continue;
    const node = scm.model.nodes[lever.node]!;
    const set = node.kind === 'categorical' ? node.categories[v]! : v;
    out.push(group.rows ? { node: name, kind: 'set', value: set, rows: group.rows } : { node: name, kind: 'set', value: set });
  }
  return out;
}

const nearest = (values: number[], v: number) => values.reduce((best, x) => (Math.abs(x - v) < Math.abs(best - v) ? x : best), values[0]!);

function number(variable: string, v: Value): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`constraint on ${variable}: ${variable} is continuous and takes numbers, not ${JSON.stringify(v)}`);
  return v;
}

export function meanStd(values: Float64Array): { mean: number; std: number } {
  let sum = 0;
  for (const v of values) sum += v;
  const mean = values.length > 0 ? sum / values.length : 0;
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  const std = Math.sqrt(ss / Math.max(1, values.length - 1));
  return { mean, std: std > 0 ? std : 1 };
}

export function modeOf(codes: Int32Array, classes: number): number {
  const counts = new Float64Array(classes);
  for (const c of codes) if (c >= 0) counts[c]!++;
  return counts.reduce((best, c, k) => (c > counts[best]! ? k : best), 0);
}

function invalid(detail: string): AppError {
  return new AppError('validation_failed', detail);
}
