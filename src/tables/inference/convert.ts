import { DATE_FORMATS, YEAR_RANGE, readDate } from './dates.js';
import type { InferredColumn } from './infer-schema.js';
import { isNullCell } from './infer-schema.js';
import { parseNumber } from './numbers.js';

/** Why a cell was refused: the line, the column, the value and the type (and form) it had to have. */
export function refusal(line: number, column: InferredColumn, cell: string): string {
  const form = column.type === 'date' || column.type === 'datetime' ? ` (${column.originalFormat}, years ${YEAR_RANGE.min} to ${YEAR_RANGE.max})` : '';
  const elements = arrayElements(column);
  const kind = column.type === 'array' ? `an array${elements === undefined ? '' : ` of ${elements.plural} (or nulls)`}` : `${column.type === 'integer' ? 'an' : 'a'} ${column.type}`;
  return `Line ${line}, column "${column.field}": ${JSON.stringify(cell)} is not ${kind}${form}`;
}

/** Half of a UTF-16 surrogate pair without the other: JSON may escape one (RFC 8259 section 8.2), no text stores it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A JSON number (RFC 8259 section 6). */
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

export interface ArrayElements {
  /** The array column's stored type. */
  storage: string;
  plural: string;
  accepts: (element: unknown) => boolean;
  numbers: boolean;
  /** An element's JSON text (engine-ingest.ts matches each element against it). */
  pattern: RegExp;
}

/**
 * The elements an array column stored as an array holds, by its subtype: its stored type, and what a JSON element
 * must be (or null). Anything else is refused, on the JS path and the engine's alike. A subtype not listed (mixed
 * elements) keeps the array as its text.
 */
const ARRAY_ELEMENTS: Readonly<Record<string, ArrayElements>> = {
  integer: { storage: 'Array(Nullable(Float64))', plural: 'numbers', accepts: (e) => typeof e === 'number' && Number.isFinite(e), numbers: true, pattern: JSON_NUMBER },
  decimal: { storage: 'Array(Nullable(Float64))', plural: 'numbers', accepts: (e) => typeof e === 'number' && Number.isFinite(e), numbers: true, pattern: JSON_NUMBER },
  boolean: { storage: 'Array(Nullable(Bool))', plural: 'booleans', accepts: (e) => typeof e === 'boolean', numbers: false, pattern: /^(true|false)$/ },
  text: { storage: 'Array(Nullable(String))', plural: 'texts', accepts: (e) => typeof e === 'string' && !LONE_SURROGATE.test(e), numbers: false, pattern: /^"/ },
};

/** What an array column stored as an array holds; undefined for other columns (and arrays kept as text). */
export function arrayElements(column: InferredColumn): ArrayElements | undefined {
  return column.type === 'array' ? ARRAY_ELEMENTS[column.subtype ?? ''] : undefined;
}

/** How each inferred column type is stored in the data engine (all nullable: cells may be empty). */
export function storageType(column: InferredColumn): string {
  switch (column.type) {
    case 'integer':
      return 'Nullable(Int64)';
    case 'decimal':
      return 'Nullable(Float64)';
    case 'boolean':
      return 'Nullable(Bool)';
    case 'date':
      return 'Nullable(Date32)';
    case 'datetime':
      return "Nullable(DateTime64(3, 'UTC'))";
    case 'categorical':
      return 'LowCardinality(Nullable(String))';
    case 'array':
      return arrayElements(column)?.storage ?? 'Nullable(String)';
    default:
      return 'Nullable(String)';
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const PLAIN_INTEGER = /^-?\d{1,19}$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A cell's text as the stored value of its column (JSONEachRow), or null when it is empty or does not convert. */
export function convertCell(column: InferredColumn, cell: string | null): unknown {
  if (isNullCell(cell)) return arrayElements(column) === undefined ? null : [];
  const text = cell!.trim();
  switch (column.type) {
    case 'integer': {
      const value = parseNumber(text)?.value ?? null;
      if (value === null || Number.isSafeInteger(value)) return value;
      // Beyond 2^53 a double would round: the digits go to the engine as text, which it reads exactly; beyond
      // Int64 there is no stored form (the cell is refused).
      const digits = text.replace(/^\+/, '');
      return PLAIN_INTEGER.test(digits) && BigInt(digits) >= INT64_MIN && BigInt(digits) <= INT64_MAX ? digits : null;
    }
    case 'decimal':
      return parseNumber(text)?.value ?? null;
    case 'boolean': {
      const token = text.toLowerCase();
      return ['true', 'yes', 'y', 't', '1'].includes(token) ? true : ['false', 'no', 'n', 'f', '0'].includes(token) ? false : null;
    }
    case 'date': {
      const format = DATE_FORMATS.find((f) => f.name === column.originalFormat);
      const parts = format === undefined ? null : readDate(format, text);
      return parts === null ? null : `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}`;
    }
    case 'datetime':
      return toUtcDateTime(column, text);
    case 'array': {
      const elements = arrayElements(column);
      if (elements === undefined) return text;
      try {
        const value: unknown = JSON.parse(text);
        if (!Array.isArray(value) || !value.every((e) => e === null || elements.accepts(e))) return null;
        // Integers written out beyond 64 bits are refused as the engine's JSON reader refuses them.
        return elements.numbers && !integerLiteralsFit(text) ? null : value;
      } catch {
        return null;
      }
    }
    default:
      return text;
  }
}

/** Whether every integer literal (no fraction, no exponent) of a JSON text of numbers is within [-2^63, 2^64 - 1]. */
function integerLiteralsFit(text: string): boolean {
  for (const match of text.matchAll(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g)) {
    if (match[1] !== undefined || match[2] !== undefined || match[0].replace('-', '').length < 19) continue;
    const value = BigInt(match[0]);
    if (value < INT64_MIN || value > 2n ** 64n - 1n) return false;
  }
  return true;
}

/** Datetime cells become UTC "YYYY-MM-DD HH:MM:SS.mmm"; a stated zone offset is applied, none means UTC. */
function toUtcDateTime(column: InferredColumn, text: string): string | null {
  const format = DATE_FORMATS.find((f) => f.name === column.originalFormat);
  const groups = format?.pattern.exec(text)?.groups;
  const parts = format === undefined ? null : readDate(format, text);
  if (groups === undefined || parts === null) return null;
  const fraction = Number(`0.${groups.fraction ?? '0'}`);
  let ms = Date.UTC(parts.year, parts.month - 1, parts.day, Number(groups.hour ?? 0), Number(groups.minute ?? 0), Number(groups.second ?? 0)) + Math.round(fraction * 1000);
  const zone = groups.zone;
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}
