import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import { type ColumnSpec, type DataStore, type FileFormat, type TableRef, quoteColumn } from '../store/data/port.js';
import { DATE_FORMATS, ISO_DATE, ISO_INSTANT, YEAR_RANGE } from './inference/dates.js';
import { COMMA_GROUPED, DECIMAL_COMMA, DOT_GROUPED_DECIMAL_COMMA, LEADING_DOT, PLAIN, SPACE_GROUPED } from './inference/numbers.js';
import { refusal } from './inference/convert.js';
import { type InferredColumn, NULL_TOKENS, isNullCell } from './inference/infer-schema.js';

/**
 * Ingest by the data engine: the file is parsed by ClickHouse into a staging table of text columns, checked
 * and converted there in SQL, and committed in one statement, so no row passes through JS. Used when every
 * column is written in a form SQL converts exactly as the JS converter would (numbers without units, grouped
 * or not, booleans, ISO dates and datetimes, text); anything else (currency and percent units, other date
 * formats, JSON) takes the JS path.
 */

const TRUE = ['true', 'yes', 'y', 't', '1'];
const FALSE = ['false', 'no', 'n', 'f', '0'];
const list = (values: Iterable<string>) => [...values].map((v) => `'${v.replaceAll("'", "\\'")}'`).join(', ');

/** A JS regular expression of the inference code as a ClickHouse (re2) string literal: one definition for both. */
function re2(pattern: RegExp): string {
  const source = pattern.source.replace(/\(\?<[a-zA-Z]+>/g, '(').replace(/\\u([0-9a-fA-F]{4})/g, '\\x{$1}');
  return `'${source.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** Number text in canonical form, the way numbers.ts normalises it (grouping and decimal commas), or NULL. */
function numberText(text: string): string {
  return (
    `multiIf(match(${text}, ${re2(PLAIN)}) OR match(${text}, ${re2(LEADING_DOT)}), ${text}, ` +
    `match(${text}, ${re2(COMMA_GROUPED)}), replaceAll(${text}, ',', ''), ` +
    `match(${text}, ${re2(SPACE_GROUPED)}), replaceOne(replaceRegexpAll(${text}, ${re2(/[ \u00a0\u202f]/)}, ''), ',', '.'), ` +
    `match(${text}, ${re2(DOT_GROUPED_DECIMAL_COMMA)}), replaceOne(replaceAll(${text}, '.', ''), ',', '.'), ` +
    `match(${text}, ${re2(DECIMAL_COMMA)}), replaceOne(${text}, ',', '.'), NULL)`
  );
}

/** The message of the throwIf that stops an insert at a cell that does not convert. */
const UNCONVERTIBLE = 'causa: a cell does not convert';

const ISO_DATETIME_FORMAT = DATE_FORMATS.find((format) => format.name === 'YYYY-MM-DDTHH:mm:ss')!;

/** Whether the engine can convert every column; `sample` holds text cells aligned with `fields`. */
export function engineConvertible(columns: InferredColumn[], fields: string[], sample: Array<Array<string | null>>): boolean {
  return columns.every((column) => {
    switch (column.type) {
      case 'integer':
      case 'decimal':
        return column.unit === null;
      case 'datetime':
        return column.originalFormat === ISO_DATETIME_FORMAT.name;
      case 'boolean':
      case 'categorical':
      case 'text':
        return true;
      case 'date': {
        const index = fields.indexOf(column.field);
        return column.originalFormat === 'YYYY-MM-DD' && sample.every((row) => isNullCell(row[index]) || ISO_DATE.test(row[index]!.trim()));
      }
      default:
        return false;
    }
  });
}

/**
 * SQL that converts the text cell `c` to the column's stored value (NULL for an empty or null-token cell).
 * Datetimes are read from ISO-8601 text only (re-typing; uploads of datetimes take the JS path).
 */
export function conversion(column: InferredColumn, c: string): string {
  const text = `trimBoth(${c})`;
  const value = (() => {
    switch (column.type) {
      case 'integer':
        return `toInt64OrNull(${numberText(text)})`;
      case 'decimal':
        return `toFloat64OrNull(${numberText(text)})`;
      case 'boolean':
        return `CAST(multiIf(lower(${text}) IN (${list(TRUE)}), true, lower(${text}) IN (${list(FALSE)}), false, NULL) AS Nullable(Bool))`;
      case 'date': {
        // Only real dates in the stored range: toDate32 would move 2023-02-30 to March and clamp 1040 to 1900.
        const date = `toDate32OrNull(${text})`;
        return `if(match(${text}, ${re2(ISO_DATE)}) AND toString(${date}) = ${text} AND toYear(${date}) BETWEEN ${YEAR_RANGE.min} AND ${YEAR_RANGE.max}, ${date}, NULL)`;
      }
      case 'datetime': {
        // ISO-8601 only, a real calendar day (2023-02-30 is not), zone offsets applied, no zone = UTC.
        const stamp = `parseDateTime64BestEffortOrNull(${text}, 3, 'UTC')`;
        const day = `substring(${text}, 1, 10)`;
        return `if(match(${text}, ${re2(ISO_INSTANT)}) AND toString(toDate32OrNull(${day})) = ${day} AND toYear(${stamp}) BETWEEN ${YEAR_RANGE.min} AND ${YEAR_RANGE.max}, ${stamp}, NULL)`;
      }
      default:
        return text;
    }
  })();
  return `if(${nullish(c)}, NULL, ${value})`;
}

export const nullish = (c: string) => `(${c} IS NULL OR lower(trimBoth(${c})) IN (${list(NULL_TOKENS)}))`;

/**
 * Loads a file in the engine and appends its rows to `table` (created first when `create`), numbered from
 * `rowStart`. A malformed file or a cell that does not convert answers 422 naming the line; nothing is kept.
 */
export async function ingestInEngine(
  store: DataStore,
  table: TableRef,
  file: { path: string; format: FileFormat },
  fields: string[],
  columns: InferredColumn[],
  definitions: ColumnSpec[],
  rowColumn: string,
  rowStart: number,
  beforeCommit: () => void,
): Promise<number> {
  const org = table.organisationId;
  const raw: TableRef = { organisationId: org, tableId: newId('raw') };
  const cell = (i: number) => `r.${quoteColumn(`c${i}`)}`;
  const byField = new Map(columns.map((column) => [column.field, column]));
  await store.createTable(raw, fields.map((_, i) => ({ name: `c${i}`, type: 'Nullable(String)' })), [], 'Log');
  try {
    await store.loadFile(raw, file.path, file.format).catch((error: unknown) => {
      throw malformedFile(error);
    });
    const [{ n } = { n: 0 }] = await store.query<{ n: number | string }>(org, (sql) => `SELECT count() AS n FROM ${sql.table(raw.tableId)}`);
    if (Number(n) === 0) throw new AppError('validation_failed', 'The batch has no rows');
    // One pass converts and checks: a cell present but not convertible stops the insert (throwIf), and only then
    // is the first such cell looked for, in file order, to name its line. Rows the stopped statement wrote
    // (ordinals from rowStart on) are taken out again.
    const checks = fields.map((field, i) => `NOT ${nullish(cell(i))} AND ${conversion(byField.get(field)!, cell(i))} IS NULL`);
    const outputs = definitions.slice(1).map((definition) => {
      const index = fields.indexOf(definition.name);
      return `${conversion(byField.get(definition.name)!, cell(index))} AS ${quoteColumn(definition.name)}`;
    });
    beforeCommit();
    try {
      await store.insertSelect(
        table,
        (sql) =>
          `SELECT {rowStart:UInt64} + rowNumberInAllBlocks() AS ${quoteColumn(rowColumn)}, ${outputs.join(', ')} FROM ${sql.table(raw.tableId)} AS r ` +
          `WHERE throwIf(${checks.map((check) => `(${check})`).join(' OR ')}, '${UNCONVERTIBLE}') = 0`,
        { rowStart },
        { singleThreaded: true },
      );
    } catch (error) {
      await store.deleteRowsFrom(table, rowColumn, rowStart).catch(() => undefined);
      if (!String((error as Error)?.message).includes(UNCONVERTIBLE)) throw error;
      const [bad] = await store.query<{ row: number; column: number; value: string }>(
        org,
        (sql) =>
          `SELECT row, column, value FROM (SELECT rowNumberInAllBlocks() AS row, multiIf(${checks.flatMap((check, i) => [check, String(i)]).join(', ')}, -1) AS column, ` +
          `[${fields.map((_, i) => `ifNull(${cell(i)}, '')`).join(', ')}] AS cells, cells[column + 1] AS value FROM ${sql.table(raw.tableId)} AS r) WHERE column >= 0 LIMIT 1`,
        {},
        { singleThreaded: true },
      );
      throw new AppError('validation_failed', refusal(Number(bad!.row) + 2, byField.get(fields[bad!.column]!)!, bad!.value));
    }
    return Number(n);
  } finally {
    await store.dropTable(raw).catch(() => undefined);
  }
}

/** The engine's parse error as a 422 naming the line ("at row N" counts data rows; the header is line 1). */
function malformedFile(error: unknown): AppError {
  const message = String((error as Error)?.message ?? error);
  const row = /\(at row (\d+)\)/.exec(message);
  const reason = message.split('\n')[0]!.replace(/\s*\(at row \d+\)\s*:?\s*$/, '').replace(/^Cannot parse input: /, '');
  return new AppError('validation_failed', `Malformed file${row === null ? '' : ` at line ${Number(row[1]) + 1}`}: ${reason}`);
}
