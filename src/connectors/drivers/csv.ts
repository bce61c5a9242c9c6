import { Transform } from 'node:stream';
import type { DeclaredColumn, DeclaredKind } from './port.js';

/**
 * How values leave a source on their way to the data store: CSV with a header row, each cell in the one form
 * the upload path reads back exactly (ISO dates, UTC ISO datetimes, plain numbers, JSON for objects and
 * arrays). A null is an empty unquoted cell; so is an empty string (the upload path reads both as missing).
 */

/** A cell of CSV text: quoted (quotes doubled) when it holds a delimiter, quote, line break or edge space. */
function csvCell(text: string | null): string {
  if (text === null || text === '') return '';
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record; a record of one empty cell is written `""` so it is never a blank line. */
export function csvLine(cells: Array<string | null>): string {
  const line = cells.map(csvCell).join(',');
  return (line === '' ? '""' : line) + '\n';
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A Date as the UTC ISO instant the upload path reads (`YYYY-MM-DDTHH:mm:ss.sssZ`); invalid dates are null. */
function isoInstant(date: Date): string | null {
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** A Date holding a calendar day (drivers give midnight UTC or local midnight) as `YYYY-MM-DD`. */
function isoDay(date: Date, utc: boolean): string | null {
  if (Number.isNaN(date.getTime())) return null;
  return utc
    ? `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
    : `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** JSON text of any value a driver returns (64-bit integers as numbers, bytes as base64). */
function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === 'bigint') return Number(inner);
    if (inner !== null && typeof inner === 'object' && (inner as { type?: string }).type === 'Buffer' && Array.isArray((inner as { data?: unknown }).data)) {
      return Buffer.from((inner as { data: number[] }).data).toString('base64');
    }
    return inner;
  });
}

/**
 * A driver's JS value as the CSV cell text of a column of this kind. Strings are taken as the source wrote them
 * (drivers are asked for exact decimals and dates as text where they can).
 */
export function cellText(kind: DeclaredKind, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Date) return kind === 'date' ? isoDay(value, true) : isoInstant(value);
  switch (typeof value) {
    case 'string':
      return kind === 'object' || kind === 'array' ? normaliseJson(value) : value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return jsonText(value);
  }
}

/** JSON kept as text by a source: re-serialised compactly when it parses, else left as written. */
function normaliseJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/** A JS value made JSON-safe for a preview row (bigints beyond 2^53 and exact decimals keep every digit as text). */
export function jsonSafe(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Date) return isoInstant(value);
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, jsonSafe(v)]));
  return value;
}

/** Turns row objects (as a driver streams them) into CSV text with a header row, cells typed by `columns`. */
export function rowsToCsv(columns: DeclaredColumn[], read: (row: unknown, index: number) => unknown): Transform {
  let header = false;
  return new Transform({
    writableObjectMode: true,
    transform(row: unknown, _encoding, done) {
      let text = '';
      if (!header) {
        text = csvLine(columns.map((column) => column.name));
        header = true;
      }
      try {
        text += csvLine(columns.map((column, i) => cellText(column.kind, read(row, i))));
      } catch (error) {
        return done(error as Error);
      }
      done(null, text);
    },
    flush(done) {
      done(null, header ? '' : csvLine(columns.map((column) => column.name)));
    },
  });
}

/** An integer or decimal the source gave as text: a number when a double holds it exactly, else the text. */
export function exactNumber(kind: DeclaredKind | undefined, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (kind === 'integer') return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (kind === 'decimal') return sameDecimal(value, Number(value)) ? Number(value) : value;
  return value;
}

/** Whether a double is the decimal text's value exactly (trailing zeros aside). */
function sameDecimal(text: string, number: number): boolean {
  if (!Number.isFinite(number)) return false;
  const canonical = (s: string) => {
    const negative = s.startsWith('-');
    let [whole = '', fraction = ''] = s.replace(/^[+-]/, '').split('.');
    whole = whole.replace(/^0+(?=\d)/, '');
    fraction = fraction.replace(/0+$/, '');
    const digits = fraction === '' ? whole : `${whole}.${fraction}`;
    return negative && digits !== '0' ? `-${digits}` : digits;
  };
  const written = String(number);
  return !/e/i.test(written) && canonical(written) === canonical(text);
}
