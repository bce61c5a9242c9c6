import type { ComparisonOperator, Filter, FilterGroup } from '../../../schemas/datasets.js';
import type { Params } from './params.js';
import { type Column, type Relation, definitionError, findColumn, isNumeric, isStoredArray, isTextual, qualified } from './relation.js';
import { coerce, coerceCount, elementType, paramType } from './values.js';

const isGroup = (entry: Filter | FilterGroup): entry is FilterGroup => 'booleanOperator' in entry;

/**
 * Compiles a filter or filter group over the columns of `relation` (referenced through `alias`) into a SQL
 * condition; values are bound parameters. Empty groups match every row.
 */
export function compileCondition(entry: Filter | FilterGroup, relation: Pick<Relation, 'columns'>, alias: string, params: Params, location: string): string {
  if (!isGroup(entry)) return compileFilter(entry, relation, alias, params, location);
  if (entry.filters.length === 0) return '1';
  const parts = entry.filters.map((member, i) => `(${compileCondition(member, relation, alias, params, `${location}/filters/${i}`)})`);
  return parts.join(entry.booleanOperator === 'AND' ? ' AND ' : ' OR ');
}

const TEXT_OPERATORS = new Set<ComparisonOperator>(['Contains', 'Does not contain', 'Starts with', 'Ends with']);
const ORDER_OPERATORS: Partial<Record<ComparisonOperator, string>> = {
  'Less than': '<',
  'Greater than': '>',
  'Less than or equal to': '<=',
  'Greater than or equal to': '>=',
  Before: '<',
  After: '>',
};
const ARRAY_OPERATORS: Partial<Record<ComparisonOperator, { fn: 'has' | 'hasAny' | 'hasAll'; negate: boolean }>> = {
  'Array contains': { fn: 'has', negate: false },
  'Array contains any': { fn: 'hasAny', negate: false },
  'Array contains all': { fn: 'hasAll', negate: false },
  'Array does not contain': { fn: 'has', negate: true },
  'Array does not contain any': { fn: 'hasAny', negate: true },
  'Array does not contain all': { fn: 'hasAll', negate: true },
};
const SIZE_OPERATORS: Partial<Record<ComparisonOperator, string>> = {
  'Array size equal to': '=',
  'Array size greater than': '>',
  'Array size less than': '<',
};

function compileFilter(filter: Filter, relation: Pick<Relation, 'columns'>, alias: string, params: Params, location: string): string {
  const column = findColumn(relation, filter.column, `${location}/column`);
  const c = qualified(alias, column.name);
  const operator = filter.comparisonOperator;
  const correct = filter.correctType === true;
  const at = `${location}/value`;
  const value = filter.value ?? null;
  const wrong = (what: string) => definitionError(`${location}/comparisonOperator`, `"${operator}" needs ${what}; column "${column.name}" is ${column.type}${column.subtype === null ? '' : ` of ${column.subtype}`}`);

  if (operator === 'Is Empty' || operator === 'Is not Empty') {
    // Arrays of objects and JSON objects are kept as JSON text: [] and {} are empty too.
    const emptyJson = column.type === 'array' ? ` OR ${c} = '[]'` : column.type === 'object' && column.subtype !== 'map' ? ` OR ${c} = '{}'` : '';
    const empty = isStoredArray(column) ? `empty(${c})` : isTextual(column) ? `(${c} IS NULL OR ${c} = ''${emptyJson})` : `${c} IS NULL`;
    return operator === 'Is Empty' ? empty : `NOT (${empty})`;
  }
  if (value === null && operator !== 'Equal to' && operator !== 'Not Equal to') throw definitionError(at, `"${operator}" needs a value`);

  if (operator === 'Equal to' || operator === 'Not Equal to') {
    if (isStoredArray(column) || (column.type === 'object' && column.subtype === 'map')) throw wrong('a scalar column (use the Array operators)');
    const equal = operator === 'Equal to';
    if (value === null) return equal ? `${c} IS NULL` : `${c} IS NOT NULL`;
    if (Array.isArray(value)) {
      const values = value.map((v, i) => coerce(v, column.type, correct, `${at}/${i}`));
      const list = params.bind(values, `Array(${bindType(column, values)})`);
      return equal ? `${c} IN ${list}` : `(${c} IS NULL OR ${c} NOT IN ${list})`;
    }
    const scalar = coerce(value, column.type, correct, at);
    const bound = params.bind(scalar, bindType(column, [scalar]));
    // "Not equal" keeps rows without a value: they are not equal to it.
    return equal ? `${c} = ${bound}` : `(${c} IS NULL OR ${c} != ${bound})`;
  }

  if (TEXT_OPERATORS.has(operator)) {
    if (!isTextual(column)) throw wrong('a text column');
    const text = params.bind(coerce(single(value, at), 'text', correct, at), 'String');
    const haystack = `lowerUTF8(toString(${c}))`;
    const needle = `lowerUTF8(${text})`;
    switch (operator) {
      case 'Contains':
        return `position(${haystack}, ${needle}) > 0`;
      case 'Does not contain':
        return `(${c} IS NULL OR position(${haystack}, ${needle}) = 0)`;
      case 'Starts with':
        return `startsWith(${haystack}, ${needle})`;
      default:
        return `endsWith(${haystack}, ${needle})`;
    }
  }

  const comparison = ORDER_OPERATORS[operator];
  if (comparison !== undefined) {
    const temporal = column.type === 'date' || column.type === 'datetime';
    if ((operator === 'Before' || operator === 'After') && !temporal) throw wrong('a date or datetime column');
    if (!temporal && !isNumeric(column) && !isTextual(column)) throw wrong('a number, date or text column');
    const scalar = coerce(single(value, at), isTextual(column) ? 'text' : column.type, correct, at);
    return `${c} ${comparison} ${params.bind(scalar, bindType(column, [scalar]))}`;
  }

  const membership = ARRAY_OPERATORS[operator];
  if (membership !== undefined) {
    if (!isStoredArray(column)) throw wrong('an array column');
    const element = elementType(column);
    let test: string;
    if (membership.fn === 'has') {
      test = `has(${c}, ${params.bind(coerce(single(value, at), element, correct, at), paramType(element))})`;
    } else {
      const list = (Array.isArray(value) ? value : [value]).map((v, i) => coerce(v, element, correct, `${at}/${i}`));
      test = `${membership.fn}(${c}, ${params.bind(list, `Array(${paramType(element)})`)})`;
    }
    return membership.negate ? `NOT ${test}` : test;
  }

  const size = SIZE_OPERATORS[operator];
  if (size === undefined) throw definitionError(`${location}/comparisonOperator`, `unknown operator "${operator}"`);
  if (!isStoredArray(column)) throw wrong('an array column');
  return `length(${c}) ${size} ${params.bind(coerceCount(single(value, at), correct, at), 'UInt64')}`;
}

function single(value: unknown, location: string): unknown {
  if (Array.isArray(value)) throw definitionError(location, 'this operator takes one value, not a list');
  return value;
}

/** Integer columns compare with fractional values as Float64 (age < 2.5 is meaningful). */
function bindType(column: Column, values: unknown[]): string {
  if (column.type === 'integer' && values.some((v) => !Number.isInteger(v))) return 'Float64';
  return paramType(isTextual(column) ? 'text' : column.type);
}
