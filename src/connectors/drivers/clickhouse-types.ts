import { exactNumber, jsonSafe } from './csv.js';
import type { DeclaredColumn, DeclaredKind } from './port.js';

/** How ClickHouse types map to declared kinds, how each column is read, and its values for preview and CSV. */

/** A backquoted identifier (backslash escapes, which every ClickHouse version reads). */
export const ident = (name: string) => `\`${name.replace(/[\\`]/g, (c) => `\\${c}`)}\``;

const WRAPPER = /^(?:Nullable|LowCardinality)\((.*)\)$/s;

/** A type without its Nullable(...) / LowCardinality(...) wrappers. */
function bareType(type: string): string {
  let bare = type.trim();
  for (let m = WRAPPER.exec(bare); m !== null; m = WRAPPER.exec(bare)) bare = m[1]!.trim();
  return bare;
}

/** What a ClickHouse type is, reduced to a declared kind (UInt8 stays an integer: only Bool is boolean). */
export function clickHouseKind(type: string): { kind: DeclaredKind; elementKind?: DeclaredColumn['elementKind'] } {
  const bare = bareType(type);
  // The service stores integers as Int64: wider ones (UInt64, 128 and 256 bits) are stored as decimals.
  if (/^(U?Int(8|16|32)|Int64)$/.test(bare)) return { kind: 'integer' };
  if (/^U?Int\d+$/.test(bare)) return { kind: 'decimal' };
  if (/^(Float\d+|Decimal\d*(\(.*\))?)$/s.test(bare)) return { kind: 'decimal' };
  if (bare === 'Bool' || bare === 'Boolean') return { kind: 'boolean' };
  if (bare === 'Date' || bare === 'Date32') return { kind: 'date' };
  if (/^DateTime(64)?(\(.*\))?$/s.test(bare)) return { kind: 'datetime' };
  const array = /^Array\((.*)\)$/s.exec(bare);
  if (array !== null) {
    const element = clickHouseKind(array[1]!).kind;
    return { kind: 'array', elementKind: element === 'integer' || element === 'decimal' || element === 'boolean' ? element : 'text' };
  }
  if (/^(Map|Tuple|Nested|Object|JSON)\b/.test(bare)) return { kind: 'object' };
  return { kind: 'text' };
}

export function declaredColumn(name: string, sourceType: string): DeclaredColumn {
  return { name, sourceType, ...clickHouseKind(sourceType) };
}

/** Integers a double cannot hold (JSON output writes them as bare numbers unless output_format_json_quote_64bit_integers). */
const WIDE_INTEGER = /^U?Int(64|128|256)$/;

/**
 * How a column is read, in a form that keeps every digit on old servers (18.16) and current ones: datetimes
 * converted to UTC by the server and written as text (old servers have no date_time_output_format, and the JSON
 * form of a DateTime is its wall time in its own zone); decimals and 64-bit and wider integers as text, also
 * inside arrays (JSON writes decimals as numbers, and current servers write 64-bit integers unquoted).
 */
export function readExpression(column: DeclaredColumn): string {
  const name = ident(column.name);
  const bare = bareType(column.sourceType);
  if (column.kind === 'datetime') return `toString(toTimeZone(${name}, 'UTC'))`;
  if (WIDE_INTEGER.test(bare) || bare.startsWith('Decimal')) return `toString(${name})`;
  const element = /^Array\((.*)\)$/s.exec(bare)?.[1];
  if (element !== undefined && (WIDE_INTEGER.test(bareType(element)) || bareType(element).startsWith('Decimal'))) return `arrayMap(x -> toString(x), ${name})`;
  return name;
}

/**
 * A value as JSONEachRow gives it, after readExpression, in the form csv.ts writes: datetimes as UTC ISO instants
 * (the zero datetime of old servers, 0000-00-00, is the epoch); in arrays, integers and decimals read as text
 * are numbers where a double holds them exactly (the JSON of the cell), else they stay text.
 */
export function sourceValue(column: DeclaredColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'datetime': {
      if (typeof value !== 'string') return value;
      const parts = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(value);
      if (parts === null) return null;
      const day = parts[1] === '0000-00-00' ? '1970-01-01' : parts[1];
      return `${day}T${parts[2]}.${(parts[3] ?? '').padEnd(3, '0')}Z`;
    }
    case 'date':
      return value === '0000-00-00' ? '1970-01-01' : value;
    case 'array':
      return Array.isArray(value) ? value.map((element) => exactNumber(column.elementKind, element)) : value;
    default:
      return value;
  }
}

/** A preview cell: JSON-safe, integers and decimals as numbers where that keeps every digit. */
export function previewValue(column: DeclaredColumn, raw: unknown): unknown {
  return jsonSafe(exactNumber(column.kind, sourceValue(column, raw)));
}
