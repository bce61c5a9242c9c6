import mysql from 'mysql2';
import type { FieldPacket } from 'mysql2';
import { exactNumber, jsonSafe } from './csv.js';
import type { DeclaredColumn } from './port.js';

/** How MySQL and MariaDB result columns map to declared kinds, and their values to preview and CSV values. */

// Column flags of the protocol (include/mysql_com.h).
const UNSIGNED_FLAG = 32;
const ENUM_FLAG = 256;
const SET_FLAG = 2048;
const BINARY_CHARSET = 63;
/** Result metadata is in the connection character set, utf8mb4: lengths are bytes, 4 to a character. */
const BYTES_PER_CHAR = 4;

/** The source's type of a result column, from its field packet (a query cannot be looked up in information_schema). */
export function describeField(field: FieldPacket): DeclaredColumn {
  const T = mysql.Types;
  const type = field.columnType ?? field.type ?? -1;
  const flags = typeof field.flags === 'number' ? field.flags : 0;
  const unsigned = (flags & UNSIGNED_FLAG) !== 0 ? ' unsigned' : '';
  const length = field.columnLength ?? 0;
  const binary = field.characterSet === BINARY_CHARSET;
  const fsp = field.decimals > 0 && field.decimals <= 6 ? `(${field.decimals})` : '';
  const chars = length % BYTES_PER_CHAR === 0 ? `(${length / BYTES_PER_CHAR})` : '';
  const column = (sourceType: string, kind: DeclaredColumn['kind']): DeclaredColumn => ({ name: field.name, sourceType, kind });
  if (field.extendedFormat === 'json') return column('json', 'object'); // MariaDB's JSON is LONGTEXT with this mark
  switch (type) {
    case T.TINY:
      // tinyint(1) is how MySQL writes BOOL, but it holds any small integer: it stays an integer.
      return column(`tinyint${length === 1 ? '(1)' : ''}${unsigned}`, 'integer');
    case T.SHORT:
      return column(`smallint${unsigned}`, 'integer');
    case T.INT24:
      return column(`mediumint${unsigned}`, 'integer');
    case T.LONG:
      return column(`int${unsigned}`, 'integer');
    case T.LONGLONG:
      // The service stores integers as Int64: an unsigned bigint may exceed it, so it is stored as a decimal.
      return column(`bigint${unsigned}`, unsigned === '' ? 'integer' : 'decimal');
    case T.YEAR:
      return column('year', 'integer');
    case T.DECIMAL:
    case T.NEWDECIMAL: {
      // The display length counts the point and, when signed, the sign.
      const precision = length - (field.decimals > 0 ? 1 : 0) - (unsigned === '' ? 1 : 0);
      return column(`decimal(${precision},${field.decimals})${unsigned}`, 'decimal');
    }
    case T.FLOAT:
      return column(`float${unsigned}`, 'decimal');
    case T.DOUBLE:
      return column(`double${unsigned}`, 'decimal');
    case T.DATE:
    case T.NEWDATE:
      return column('date', 'date');
    case T.DATETIME:
      return column(`datetime${fsp}`, 'datetime');
    case T.TIMESTAMP:
      return column(`timestamp${fsp}`, 'datetime');
    case T.TIME:
      return column(`time${fsp}`, 'text');
    case T.BIT:
      return length === 1 ? column('bit(1)', 'boolean') : column(`bit(${length})`, 'integer');
    case T.JSON:
      return column('json', 'object');
    case T.ENUM:
      return column('enum', 'text');
    case T.SET:
      return column('set', 'text');
    case T.STRING:
      if ((flags & ENUM_FLAG) !== 0) return column('enum', 'text');
      if ((flags & SET_FLAG) !== 0) return column('set', 'text');
      return column(binary ? `binary(${length})` : `char${chars}`, 'text');
    case T.VAR_STRING:
    case T.VARCHAR:
      return column(binary ? `varbinary(${length})` : `varchar${chars}`, 'text');
    case T.TINY_BLOB:
    case T.MEDIUM_BLOB:
    case T.LONG_BLOB:
    case T.BLOB: {
      const bytes = binary ? length : length / BYTES_PER_CHAR;
      const size = bytes <= 255 ? 'tiny' : bytes <= 65_535 ? '' : bytes <= 16_777_215 ? 'medium' : 'long';
      return column(`${size}${binary ? 'blob' : 'text'}`, 'text');
    }
    case T.GEOMETRY:
      return column(field.extendedTypeName ?? 'geometry', 'text');
    case T.NULL:
      return column('null', 'text');
    default:
      return column(field.extendedTypeName ?? String(T[type as keyof typeof T] ?? type).toLowerCase(), 'text');
  }
}

/**
 * A value as mysql2 gives it (dates as text, exact numbers as text, bits and binary strings as Buffers) in the
 * form csv.ts writes: datetimes as UTC ISO instants (the session is UTC, so TIMESTAMP text is UTC; a DATETIME has
 * no zone and is read as UTC), zero dates as null, bit(1) as a boolean, wider bits as their integer.
 */
export function sourceValue(column: DeclaredColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value) && column.sourceType.startsWith('bit(')) {
    const number = value.length === 0 ? 0n : BigInt(`0x${value.toString('hex')}`);
    return column.kind === 'boolean' ? number !== 0n : number.toString();
  }
  if (typeof value !== 'string') return value;
  switch (column.kind) {
    case 'datetime': {
      const parts = /^(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(value);
      return parts === null ? null : `${parts[1]}T${parts[2]}.${(parts[3] ?? '').padEnd(3, '0')}Z`;
    }
    case 'date':
      return /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/.test(value) ? value : null;
    default:
      return value;
  }
}

/** A preview cell: exact integers and decimals as numbers when a double holds them exactly, else as text. */
export function previewValue(column: DeclaredColumn, raw: unknown): unknown {
  const value = sourceValue(column, raw);
  if (typeof value === 'string') {
    if (column.kind === 'integer' || column.kind === 'decimal') return exactNumber(column.kind, value);
    if (column.kind === 'object') {
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    }
  }
  return jsonSafe(value);
}
