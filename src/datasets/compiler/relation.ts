import { INTERNAL_PREFIX } from '../../tables/reserved.js';
import type { ColumnType, InferredColumn } from '../../tables/inference/infer-schema.js';
import { AppError } from '../../errors.js';
import type { TenantSql } from '../../store/data/port.js';
import { quoteColumn } from '../../store/data/port.js';

/** A column of a relation: its name, type and schema entry (carried over from the source where it passes through). */
export interface Column {
  name: string;
  type: ColumnType;
  subtype: string | null;
  entry: InferredColumn;
}

export interface SortKey {
  column: string;
  direction: 'asc' | 'desc';
}

/**
 * A relation being compiled: a SELECT over the tenant's tables, its visible columns, and its hidden key columns.
 * Keys (UInt64, never null) make every row unique, so records can be paged by keyset in a stable order:
 * the user's sort (if any) and then the keys.
 */
export interface Relation {
  sql: (tenant: TenantSql) => string;
  columns: Column[];
  keys: string[];
  order: SortKey[];
}

/** Internal column names; user-visible names may not start with it (tables/reserved.ts). */
export { INTERNAL_PREFIX };
export const keyName = (index: number) => `${INTERNAL_PREFIX}k${index}`;

/** A column reference qualified by the alias of the relation it comes from (avoids alias shadowing in ClickHouse). */
export const qualified = (alias: string, name: string) => `${alias}.${quoteColumn(name)}`;

/** Where in the request a definition problem is, and what it is: answered as a 422 naming that place. */
export function definitionError(location: string, message: string): AppError {
  return new AppError('validation_failed', `${location.replace(/^body\//, '')}: ${message}`, { errors: [{ location, message }] });
}

/** A schema entry for a column the dataset computes (no source entry to carry over). */
export function computedEntry(field: string, type: ColumnType, subtype: string | null = null): InferredColumn {
  return {
    field,
    type,
    subtype,
    availableTypes: [type],
    isIndex: false,
    categories: null,
    aliases: [],
    description: null,
    displayWidth: null,
    originalFormat: null,
    displayFormat: null,
    unit: null,
    unitModifier: null,
    dateOrderAssumed: null,
  };
}

export function columnOf(field: string, type: ColumnType, subtype: string | null = null): Column {
  return { name: field, type, subtype, entry: computedEntry(field, type, subtype) };
}

export const renamed = (column: Column, name: string): Column => ({ ...column, name, entry: { ...column.entry, field: name } });

/** Whether the column is stored as a ClickHouse Array (arrays of JSON objects are kept as text). */
export const isStoredArray = (column: Column) => column.type === 'array' && ['integer', 'decimal', 'boolean', 'text'].includes(column.subtype ?? '');
export const isNumeric = (column: Column) => column.type === 'integer' || column.type === 'decimal';
export const isTextual = (column: Column) => column.type === 'text' || column.type === 'categorical' || (column.type === 'object' && column.subtype !== 'map') || (column.type === 'array' && !isStoredArray(column));
export const isSortable = (column: Column) => !isStoredArray(column) && !(column.type === 'object' && column.subtype === 'map');

/** Finds a column by name, or answers a 422 naming the available ones. */
export function findColumn(relation: Pick<Relation, 'columns'>, name: string, location: string): Column {
  const column = relation.columns.find((c) => c.name === name);
  if (column === undefined) {
    const available = relation.columns.map((c) => `"${c.name}"`).join(', ');
    throw definitionError(location, `unknown column "${name}" (available: ${available || 'none'})`);
  }
  return column;
}

/** Checks a name a dataset gives to a column. */
export function checkNewName(name: string, location: string): void {
  if (name.startsWith(INTERNAL_PREFIX)) throw definitionError(location, `column names starting with ${INTERNAL_PREFIX} are reserved`);
  if (name.trim() === '') throw definitionError(location, 'a column name cannot be blank');
}
