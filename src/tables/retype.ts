import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import { type DataStore, type TableRef, quoteColumn } from '../store/data/port.js';
import { conversion, nullish } from './engine-ingest.js';
import { storageType } from './inference/convert.js';
import type { RetypeTarget } from '../../schemas/sources.js';
import type { InferredColumn } from './inference/infer-schema.js';

export type { RetypeTarget };

/** A stored value as text, the form every conversion starts from (NULL stays NULL). */
function textOf(column: InferredColumn, c: string): string {
  const stored = storageType(column);
  if (stored.startsWith('Array')) return `toJSONString(${c})`;
  switch (column.type) {
    case 'boolean':
      return `multiIf(${c} IS NULL, NULL, ${c}, 'true', 'false')`;
    case 'datetime':
      // A datetime at midnight reads as its date, so that it can become a date; otherwise ISO-8601 in UTC.
      return `if(${c} IS NULL, NULL, if(${c} = toStartOfDay(${c}), toString(toDate32(${c})), concat(replaceOne(toString(${c}), ' ', 'T'), 'Z')))`;
    default:
      return `toString(${c})`;
  }
}

/** The schema entry of a column after re-typing: what describes the old type's writing goes. */
function retypedEntry(column: InferredColumn, type: RetypeTarget): InferredColumn {
  const numeric = type === 'integer' || type === 'decimal';
  return {
    ...column,
    type,
    subtype: null,
    availableTypes: [...new Set([...column.availableTypes, column.type, type])],
    isIndex: column.isIndex && (type === 'integer' || type === 'text'),
    categories: null,
    originalFormat: type === 'date' ? 'YYYY-MM-DD' : type === 'datetime' ? 'YYYY-MM-DDTHH:mm:ss' : null,
    displayFormat: type === 'date' ? 'YYYY-MM-DD' : type === 'datetime' ? 'YYYY-MM-DD HH:mm:ss' : null,
    unit: numeric ? column.unit : null,
    unitModifier: numeric ? column.unitModifier : null,
    dateOrderAssumed: type === 'date' || type === 'datetime' ? false : null,
  };
}

/**
 * Re-types one column of a source's table: every stored value is converted (through its text) and checked; the
 * first that does not fit answers 422 naming its row, and the table is untouched. Otherwise a converted copy
 * takes the table's place in one atomic exchange. Answers the new schema and the table now holding the old rows,
 * which the caller drops once the new schema is recorded, or exchanges back if that fails.
 */
export async function retypeColumn(
  store: DataStore,
  table: TableRef,
  columns: InferredColumn[],
  field: string,
  type: RetypeTarget,
  rowColumn: string,
  beforeCommit: () => void,
): Promise<{ schema: InferredColumn[]; previous: TableRef }> {
  const column = columns.find((c) => c.field === field);
  if (column === undefined) throw new AppError('validation_failed', `The source has no column "${field}" (columns: ${columns.map((c) => `"${c.field}"`).join(', ')})`);
  const target = retypedEntry(column, type);
  const c = `t.${quoteColumn(field)}`;
  const converted = conversion(target, textOf(column, c));
  const [bad] = await store.query<{ row: number; value: string }>(
    table.organisationId,
    (sql) => `SELECT t.${quoteColumn(rowColumn)} AS row, ${textOf(column, c)} AS value FROM ${sql.table(table.tableId)} AS t WHERE NOT ${nullish(textOf(column, c))} AND ${converted} IS NULL ORDER BY row LIMIT 1`,
  );
  if (bad !== undefined) {
    const format = type === 'date' ? ' (dates are re-typed from YYYY-MM-DD text)' : type === 'datetime' ? ' (datetimes are re-typed from ISO-8601 text)' : '';
    throw new AppError('validation_failed', `Row ${Number(bad.row) + 1}: ${JSON.stringify(bad.value)} in column "${field}" cannot be ${type === 'integer' ? 'an' : 'a'} ${type}${format}; nothing was changed`);
  }
  const schema = columns.map((entry) => (entry.field === field ? target : entry));
  const copy: TableRef = { organisationId: table.organisationId, tableId: newId('rty') };
  await store.createTable(copy, [{ name: rowColumn, type: 'UInt64' }, ...schema.map((entry) => ({ name: entry.field, type: storageType(entry) }))], [rowColumn]);
  try {
    const list = [`t.${quoteColumn(rowColumn)}`, ...schema.map((entry) => (entry.field === field ? `${converted} AS ${quoteColumn(field)}` : `t.${quoteColumn(entry.field)}`))];
    await store.insertSelect(copy, (sql) => `SELECT ${list.join(', ')} FROM ${sql.table(table.tableId)} AS t`);
    beforeCommit();
    await store.exchangeTables(table, copy);
  } catch (error) {
    await store.dropTable(copy).catch(() => undefined);
    throw error;
  }
  return { schema, previous: copy };
}
