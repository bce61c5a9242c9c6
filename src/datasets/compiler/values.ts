import type { ColumnType } from '../../tables/inference/infer-schema.js';
import { ISO_DATE, ISO_INSTANT, YEAR_RANGE } from '../../tables/inference/dates.js';
import { parseNumber } from '../../tables/inference/numbers.js';
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


/**
 * An ISO-8601 date or datetime (any text Date.parse reads when `lenient`) in the engine's text forms, or null
 * when it is not a real calendar date (2023-02-30) or lies outside the years the engine stores.
 */
export function readInstant(text: string, lenient: boolean): { date: string; datetime: string } | null {
  const trimmed = text.trim();
  const iso = ISO_INSTANT.test(trimmed);
  if (!iso && !lenient) return null;
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(trimmed);
  if (day !== null) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const check = new Date(Date.UTC(year, month - 1, date));
    if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== date) return null;
  }
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(trimmed);
  const ms = Date.parse(ISO_DATE.test(trimmed) ? `${trimmed}T00:00:00Z` : iso && !zoned ? `${trimmed.replace(' ', 'T')}Z` : trimmed);
  if (Number.isNaN(ms)) return null;
  const stamp = new Date(ms).toISOString();
  const year = Number(stamp.slice(0, 4));
  if (year < YEAR_RANGE.min || year > YEAR_RANGE.max) return null;
  return { date: stamp.slice(0, 10), datetime: stamp.replace('T', ' ').replace('Z', '') };
}

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
      const instant = typeof value === 'string' ? readInstant(value, correct) : null;
      if (instant === null) throw refuse(`a ${type} (ISO-8601 text, years ${YEAR_RANGE.min} to ${YEAR_RANGE.max})`);
      return type === 'date' ? instant.date : instant.datetime;
    }
    default:
      if (typeof value === 'string') return value;
      if (correct && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
      throw refuse('text');
  }
}

/** An array size: a whole number >= 0 (text only with correctType). */
export function coerceCount(value: unknown, correct: boolean, location: string): number {
  const number = typeof value === 'string' && correct ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) {
    throw definitionError(location, `${JSON.stringify(value)} is not a size (a whole number >= 0)${typeof value === 'string' && !correct ? ' (set correctType to convert it)' : ''}`);
  }
  return number;
}
