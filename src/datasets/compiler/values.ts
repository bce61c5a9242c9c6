import type { ColumnType } from '../../sources/inference/infer-schema.js';
import { parseNumber } from '../../sources/inference/numbers.js';
import { type Column, definitionError } from './relation.js';

/** The ClickHouse type a value compared with a column of this type is bound as. */
export function paramType(type: ColumnType, subtype: string | null = null): string {
  switch (type) {
    case 'integer':
      return 'Int64';
    case 'decimal':
      return 'Float64';
    case 'boolean':
      return 'Bool';
    case 'date':
      return 'Date32';
    case 'datetime':
      return "DateTime64(3, 'UTC')";
    case 'array':
      return paramType(subtype === 'integer' || subtype === 'decimal' ? 'decimal' : subtype === 'boolean' ? 'boolean' : 'text');
    default:
      return 'String';
  }
}

/** The element type of a stored array column, as a column type. */
export const elementType = (column: Column): ColumnType =>
  column.subtype === 'integer' || column.subtype === 'decimal' ? 'decimal' : column.subtype === 'boolean' ? 'boolean' : 'text';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A filter value as a value of `type`. Without `correct`, the value must already be of that type (a 422 says
 * to set correctType); with it, text is read as a number, boolean or date and scalars as text.
 */
export function coerce(value: unknown, type: ColumnType, correct: boolean, location: string): unknown {
  const refuse = (what: string) =>
    definitionError(location, `${JSON.stringify(value)} is not ${what}${correct ? '' : ' (set correctType to convert it)'}`);
  switch (type) {
    case 'integer':
    case 'decimal': {
      const number = typeof value === 'number' ? value : correct && typeof value === 'string' ? parseNumber(value.trim())?.value : undefined;
      if (number === undefined || !Number.isFinite(number)) throw refuse('a number');
      return number;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (correct && (value === 'true' || value === 1 || value === '1')) return true;
      if (correct && (value === 'false' || value === 0 || value === '0')) return false;
      throw refuse('a boolean');
    }
    case 'date':
    case 'datetime': {
      if (typeof value !== 'string') throw refuse(`a ${type} (ISO-8601 text)`);
      const text = value.trim();
      const iso = ISO_DATE.test(text) || ISO_DATETIME.test(text);
      const ms = iso || correct ? Date.parse(ISO_DATE.test(text) ? `${text}T00:00:00Z` : /Z|[+-]\d{2}:?\d{2}$/.test(text) || !iso ? text : `${text.replace(' ', 'T')}Z`) : Number.NaN;
      if (Number.isNaN(ms)) throw refuse(`a ${type} (ISO-8601 text)`);
      const stamp = new Date(ms).toISOString();
      return type === 'date' ? stamp.slice(0, 10) : stamp.replace('T', ' ').replace('Z', '');
    }
    default:
      if (typeof value === 'string') return value;
      if (correct && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
      throw refuse('text');
  }
}

/** Binds the integer type a value needs when it is not a column's type (array sizes). */
export function coerceCount(value: unknown, location: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) throw definitionError(location, `${JSON.stringify(value)} is not a size (a whole number >= 0)`);
  return number;
}
