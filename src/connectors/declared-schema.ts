import type { SchemaDecision } from '../tables/ingest.js';
import { type ColumnType, type InferredColumn, inferColumn } from '../tables/inference/infer-schema.js';
import type { DeclaredColumn } from './drivers/port.js';

/** The forms the drivers write dates and datetimes in (csv.ts), as the ingest's format names. */
const ISO_DATE_FORMAT = 'YYYY-MM-DD';
const ISO_DATETIME_FORMAT = 'YYYY-MM-DDTHH:mm:ss';

/**
 * Column types of an import from a typed source: the source's declared type decides the stored type (so a
 * varchar column whose first rows look numeric never fails on a later row), and inference over the sample adds
 * what a declared type cannot say: categorical or free text, identifiers, display widths, categories.
 */
export function declaredSchema(declared: DeclaredColumn[]): SchemaDecision {
  const byName = new Map(declared.map((column) => [column.name, column]));
  return (fields, sample) =>
    fields.map((field, i) => {
      const inferred = inferColumn(field, sample.map((row) => row[i] ?? null));
      const column = byName.get(field);
      return column === undefined ? inferred : typed(inferred, column);
    });
}

/** The declared columns the driver writes in the engine's canonical text (DeclaredColumn.canonical): parsed straight into their types. */
export function canonicalFields(declared: DeclaredColumn[]): ReadonlySet<string> {
  return new Set(declared.filter((column) => column.canonical === true).map((column) => column.name));
}

function typed(inferred: InferredColumn, column: DeclaredColumn): InferredColumn {
  const type: ColumnType = column.kind === 'text' ? (inferred.type === 'categorical' ? 'categorical' : 'text') : column.kind;
  if (type === inferred.type && type !== 'array' && type !== 'date' && type !== 'datetime') return inferred;
  return {
    ...inferred,
    type,
    subtype: type === 'array' ? (column.elementKind ?? 'text') : inferred.isIndex && type === 'text' ? 'identifier' : null,
    availableTypes: [...new Set<ColumnType>([type, ...inferred.availableTypes])],
    isIndex: inferred.isIndex && (type === 'integer' || type === 'text'),
    categories: type === 'categorical' ? inferred.categories : type === 'boolean' ? ['false', 'true'] : null,
    originalFormat: type === 'date' ? ISO_DATE_FORMAT : type === 'datetime' ? ISO_DATETIME_FORMAT : null,
    displayFormat: type === 'date' ? 'YYYY-MM-DD' : type === 'datetime' ? 'YYYY-MM-DD HH:mm:ss' : null,
    unit: null,
    unitModifier: null,
    dateOrderAssumed: type === 'date' || type === 'datetime' ? false : null,
  };
}
