/**
 * Scenario conditions (scenario.ts Condition) as a row mask over a frame of the model's variables: numbers for a
 * continuous variable, category labels for a categorical one. A missing cell satisfies no condition, as a NULL
 * in SQL satisfies no comparison.
 */
import { AppError } from '../../errors.js';
import type { Frame, FrameColumn } from '../types.js';
import type { Condition, Value } from './scenario.js';
import type { Scm } from './scm.js';

/** 1 where every condition holds (all units when there are none). */
export function conditionMask(frame: Frame, scm: Scm, conditions: readonly Condition[]): Uint8Array {
  const mask = new Uint8Array(frame.nRows).fill(1);
  for (const condition of conditions) {
    if (scm.indexOf(condition.variable) < 0) throw invalid(`condition on ${condition.variable}, which is not a variable of the model`);
    const column = frame.columns.find((c) => c.name === condition.variable);
    if (!column) throw invalid(`condition on ${condition.variable}, which the sampled frame does not hold`);
    const holds = column.kind === 'continuous' ? continuousTest(column.name, condition) : categoricalTest(column, condition);
    const cells = column.kind === 'continuous' ? column.values : column.codes;
    for (let r = 0; r < frame.nRows; r++) if (mask[r] === 1 && !holds(cells[r]!)) mask[r] = 0;
  }
  return mask;
}

/** A test of one continuous cell (NaN = missing). */
function continuousTest(name: string, condition: Condition): (v: number) => boolean {
  const number = (value: Value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`condition on ${name}: ${name} is continuous and takes numbers, not ${JSON.stringify(value)}`);
    return value;
  };
  const { operator } = condition;
  if (operator === 'in' || operator === 'not_in') {
    const set = new Set(listOf(condition).map(number));
    return operator === 'in' ? (v) => set.has(v) : (v) => !Number.isNaN(v) && !set.has(v);
  }
  const x = number(single(condition));
  switch (operator) {
    case 'eq': return (v) => v === x;
    case 'ne': return (v) => !Number.isNaN(v) && v !== x;
    case 'gt': return (v) => v > x;
    case 'lt': return (v) => v < x;
    case 'ge': return (v) => v >= x;
    case 'le': return (v) => v <= x;
  }
}

/** A test of one categorical code (-1 = missing). Ordering operators need numeric labels (e.g. ratings 1..5). */
function categoricalTest(column: Extract<FrameColumn, { kind: 'categorical' }>, condition: Condition): (code: number) => boolean {
  const { operator } = condition;
  const codeOf = (value: Value) => {
    const code = column.categories.indexOf(String(value));
    if (code < 0) throw invalid(`condition on ${column.name}: no category ${JSON.stringify(value)} (categories: ${column.categories.join(', ')})`);
    return code;
  };
  if (operator === 'in' || operator === 'not_in') {
    const set = new Set(listOf(condition).map(codeOf));
    return operator === 'in' ? (c) => set.has(c) : (c) => c >= 0 && !set.has(c);
  }
  if (operator === 'eq' || operator === 'ne') {
    const code = codeOf(single(condition));
    return operator === 'eq' ? (c) => c === code : (c) => c >= 0 && c !== code;
  }
  const levels = column.categories.map((label) => (label.trim() === '' ? Number.NaN : Number(label)));
  const x = Number(single(condition));
  if (levels.some(Number.isNaN) || typeof single(condition) === 'boolean' || Number.isNaN(x)) {
    throw invalid(`condition on ${column.name}: ${operator} needs a continuous variable or numeric categories`);
  }
  const compare = { gt: (a: number) => a > x, lt: (a: number) => a < x, ge: (a: number) => a >= x, le: (a: number) => a <= x }[operator];
  return (c) => c >= 0 && compare(levels[c]!);
}

function single(condition: Condition): Value {
  if (Array.isArray(condition.value)) throw invalid(`condition on ${condition.variable}: ${condition.operator} takes one value, not a list`);
  return condition.value;
}

/** `in` and `not_in` take a list; a single value is read as a list of one. */
function listOf(condition: Condition): Value[] {
  return Array.isArray(condition.value) ? condition.value : [condition.value];
}

function invalid(detail: string): AppError {
  return new AppError('validation_failed', detail);
}
