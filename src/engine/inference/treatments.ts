/**
 * A scenario's valueSpec (scenario.ts) as a structural Treatment (scm.ts) of one variable: set and shift for a
 * continuous variable, set or a re-draw from adjusted class probabilities for a categorical one. A range
 * expands to its grid of set values. Impossible specs are refused with a 422 naming the problem.
 */
import { AppError } from '../../errors.js';
import type { NodeModel } from '../types.js';
import type { Value, ValueSpec } from './scenario.js';
import type { Scm, Treatment } from './scm.js';

export type PointSpec = Exclude<ValueSpec, { type: 'range' }>;

/** The treatment of `variable` under `spec`; `rows` limits it to some units. */
export function treatmentFor(scm: Scm, variable: string, spec: PointSpec, rows?: Uint8Array): Treatment {
  const i = scm.indexOf(variable);
  if (i < 0) throw invalid(`intervention on ${variable}, which is not a variable of the model`);
  const node = scm.model.nodes[i]!;
  const masked = <T extends Treatment>(t: T): T => (rows ? { ...t, rows } : t);
  if (spec.type === 'set_value') {
    if (node.kind === 'continuous') return masked({ node: variable, kind: 'set', value: finite(variable, spec.value) });
    return masked({ node: variable, kind: 'set', value: node.categories[categoryIndex(node, spec.value)]! });
  }
  if (spec.type === 'relative_change') {
    if (node.kind !== 'continuous') throw invalid(`relative_change on ${variable}: it is categorical; use set_value, set_probability, adjust_probability or set_members`);
    if (spec.mode !== 'percentage' && spec.mode !== 'absolute') throw invalid(`relative_change on ${variable}: mode must be percentage or absolute`);
    return masked({ node: variable, kind: 'shift', mode: spec.mode, value: finite(variable, spec.value) });
  }
  if (node.kind !== 'categorical') throw invalid(`${spec.type} on ${variable}: it is continuous; use set_value or relative_change`);
  return masked({ node: variable, kind: 'distribution', adjust: adjusterFor(node, spec) });
}

/** The `steps` values of a range, from `from` to `to` inclusive, evenly spaced. */
export function rangeGrid(variable: string, spec: Extract<ValueSpec, { type: 'range' }>): number[] {
  const { from, to, steps } = spec;
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw invalid(`range on ${variable}: from and to must be finite numbers`);
  if (!Number.isInteger(steps) || steps < 1) throw invalid(`range on ${variable}: steps must be a positive integer`);
  if (steps === 1) return [from];
  return Array.from({ length: steps }, (_, k) => (k === steps - 1 ? to : from + ((to - from) * k) / (steps - 1)));
}

type CategoricalNode = Extract<NodeModel, { kind: 'categorical' }>;

/** An in-place change of one unit's class probabilities (they sum to 1 before and after). */
function adjusterFor(node: CategoricalNode, spec: Exclude<PointSpec, { type: 'set_value' | 'relative_change' }>): (p: Float64Array) => void {
  if (spec.type === 'set_probability') {
    const c = categoryIndex(node, spec.category);
    const q = spec.probability;
    if (!Number.isFinite(q) || q < 0 || q > 1) throw invalid(`set_probability on ${node.name}: probability must lie in [0, 1], not ${q}`);
    return (p) => setShare(p, c, q);
  }
  if (spec.type === 'adjust_probability') {
    const c = categoryIndex(node, spec.category);
    if (!Number.isFinite(spec.delta)) throw invalid(`adjust_probability on ${node.name}: delta must be a finite number of percentage points`);
    const delta = spec.delta / 100;
    return (p) => setShare(p, c, Math.min(1, Math.max(0, p[c]! + delta)));
  }
  const members = memberSet(node, spec);
  return (p) => {
    let kept = 0;
    for (let k = 0; k < p.length; k++) if (members[k] === 1) kept += p[k]!;
    const count = members.reduce((a, b) => a + b, 0);
    // A unit whose model gives the members no mass at all spreads evenly over them.
    for (let k = 0; k < p.length; k++) p[k] = members[k] === 0 ? 0 : kept > 0 ? p[k]! / kept : 1 / count;
  };
}

/** Category c gets probability q; the others share 1 - q in their old proportions (evenly when they had none). */
function setShare(p: Float64Array, c: number, q: number): void {
  const rest = 1 - p[c]!;
  for (let k = 0; k < p.length; k++) {
    if (k === c) p[k] = q;
    else p[k] = rest > 0 ? (p[k]! / rest) * (1 - q) : (1 - q) / (p.length - 1);
  }
}

/** 1 for each category the variable may still take under set_members; `size` keeps the most likely (by marginal). */
function memberSet(node: CategoricalNode, spec: Extract<ValueSpec, { type: 'set_members' }>): Uint8Array {
  const members = new Uint8Array(node.categories.length);
  if (spec.include && spec.include.length > 0) for (const v of spec.include) members[categoryIndex(node, v)] = 1;
  else members.fill(1);
  for (const v of spec.exclude ?? []) members[categoryIndex(node, v)] = 0;
  if (spec.size !== undefined) {
    if (!Number.isInteger(spec.size) || spec.size < 1) throw invalid(`set_members on ${node.name}: size must be a positive integer`);
    const ranked = node.categories.map((_, k) => k).filter((k) => members[k] === 1).sort((a, b) => node.marginal[b]! - node.marginal[a]! || a - b);
    for (const k of ranked.slice(spec.size)) members[k] = 0;
  }
  if (members.every((m) => m === 0)) throw invalid(`set_members on ${node.name} leaves no category`);
  return members;
}

function categoryIndex(node: CategoricalNode, value: Value): number {
  const k = node.categories.indexOf(String(value));
  if (k < 0) throw invalid(`${node.name} has no category ${JSON.stringify(value)} (categories: ${node.categories.join(', ')})`);
  return k;
}

function finite(variable: string, value: Value): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${variable} is continuous: it takes a finite number, not ${JSON.stringify(value)}`);
  return value;
}

function invalid(detail: string): AppError {
  return new AppError('validation_failed', detail);
}
