import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import { type ColumnSpec, type DataStore, type FileFormat, type TableRef, quoteColumn } from '../store/data/port.js';
import { DATE_FORMATS, type DateFormat, ISO_DATE, ISO_INSTANT, MONTH_NAMES, YEAR_RANGE } from './inference/dates.js';
import { COMMA_GROUPED, CURRENCY_SYMBOLS, DECIMAL_COMMA, DOT_GROUPED_DECIMAL_COMMA, ISO_CURRENCY_CODES, LEADING_DOT, PLAIN, SPACE_GROUPED } from './inference/numbers.js';
import { refusal } from './inference/convert.js';
import { type InferredColumn, NULL_TOKENS } from './inference/infer-schema.js';

/**
 * Ingest by the data engine: the file is parsed by ClickHouse into a staging table of text columns, checked
 * and converted there in SQL, and committed in one statement, so no row passes through JS. Used when every
 * column is written in a form SQL converts exactly as the JS converter would (numbers with or without currency
 * and percent units, grouped or not, booleans, ISO dates and datetimes, text); anything else (other date
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

/** JavaScript's whitespace (String.prototype.trim, RegExp \\s) as an re2 class, escaped for a SQL string literal: the engine trims what JS trims. */
const JS_SPACE = '[\\\\t\\\\n\\\\x{0B}\\\\f\\\\r \\\\x{A0}\\\\x{1680}\\\\x{2000}-\\\\x{200A}\\\\x{2028}\\\\x{2029}\\\\x{202F}\\\\x{205F}\\\\x{3000}\\\\x{FEFF}]';

/**
 * `body(name)` with `name` bound to the value of `expression`, evaluated once: a conversion uses each part of a
 * cell many times, and written out the nesting would grow past what the SQL parser takes (ClickHouse aliases
 * are expanded in place, a lambda's parameter is not).
 */
let lambdas = 0;
function bind(expression: string, body: (name: string) => string): string {
  const name = `_v${lambdas++}`;
  return `arrayElement(arrayMap(${name} -> ${body(name)}, [${expression}]), 1)`;
}

/**
 * `text` trimmed as JS trims it: ClickHouse's trimBoth takes ASCII whitespace only, so a text that still starts or
 * ends with a non-ASCII byte (rare: a no-break space, a currency sign) is trimmed again by the full class.
 */
function trimmed(text: string): string {
  return bind(text, (t) => bind(`trimBoth(${t})`, (ascii) => `if(ascii(${ascii}) >= 128 OR ascii(reverse(${ascii})) >= 128, replaceRegexpAll(${t}, '^${JS_SPACE}+|${JS_SPACE}+$', ''), ${ascii})`));
}

/**
 * The number part of a cell, the way numbers.ts's splitUnit reads it: accounting parentheses make it negative,
 * then a trailing percent sign, a currency symbol (either side, or after a minus sign) or an ISO 4217 code (either
 * side) is taken off, tried in the same order; anything else is left as it is (and fails to parse if it is not a
 * number). `text` names the trimmed cell.
 */
function withoutUnit(text: string): string {
  const parenthesised = `match(${text}, '^\\\\((.*)\\\\)$')`;
  const parts = `tuple(${parenthesised}, if(${parenthesised}, ${trimmed(`substring(${text}, 2, length(${text}) - 2)`)}, ${text}))`;
  return bind(parts, (p) => {
    const inner = `tupleElement(${p}, 2)`;
    const signed = (body: string) => `concat(if(tupleElement(${p}, 1), '-', ''), ${body})`;
    const literal = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
    const codes = `[${ISO_CURRENCY_CODES.map(literal).join(', ')}]`;
    const symbols = Object.keys(CURRENCY_SYMBOLS).flatMap((symbol) => {
      const s = literal(symbol);
      return [
        `startsWith(${inner}, ${s})`, signed(trimmed(`substring(${inner}, length(${s}) + 1)`)),
        `endsWith(${inner}, ${s})`, signed(trimmed(`substring(${inner}, 1, length(${inner}) - length(${s}))`)),
        `startsWith(${inner}, concat('-', ${s}))`, `concat('-', ${trimmed(`substring(${inner}, length(${s}) + 2)`)})`,
      ];
    });
    // ^([A-Z]{3})\s*(.+)$ first (its three letters or its rest must be the code); only when it does not match at
    // all, ^(.+?)\s*([A-Z]{3})$.
    const code = (pattern: string) => bind(`tuple(regexpExtract(${inner}, '${pattern}', 1), regexpExtract(${inner}, '${pattern}', 2))`, (g) =>
      `multiIf(has(${codes}, tupleElement(${g}, 1)), ${signed(trimmed(`tupleElement(${g}, 2)`))}, has(${codes}, tupleElement(${g}, 2)), ${signed(trimmed(`tupleElement(${g}, 1)`))}, ${signed(inner)})`);
    return `multiIf(endsWith(${inner}, '%'), ${signed(trimmed(`substring(${inner}, 1, length(${inner}) - 1)`))}, ${symbols.join(', ')}, `
      + `match(${inner}, '^[A-Z]{3}${JS_SPACE}*.+$'), ${code(`^([A-Z]{3})${JS_SPACE}*(.+)$`)}, `
      + `match(${inner}, '^.+?${JS_SPACE}*[A-Z]{3}$'), ${code(`^(.+?)${JS_SPACE}*([A-Z]{3})$`)}, ${signed(inner)})`;
  });
}

/** Number text in canonical form, the way numbers.ts normalises it (units, grouping and decimal commas), or NULL. */
function numberText(text: string): string {
  return bind(withoutUnit(text), (number) =>
    `multiIf(match(${number}, ${re2(PLAIN)}) OR match(${number}, ${re2(LEADING_DOT)}), ${number}, ` +
    `match(${number}, ${re2(COMMA_GROUPED)}), replaceAll(${number}, ',', ''), ` +
    `match(${number}, ${re2(SPACE_GROUPED)}), replaceOne(replaceRegexpAll(${number}, ${re2(/[ \u00a0\u202f]/)}, ''), ',', '.'), ` +
    `match(${number}, ${re2(DOT_GROUPED_DECIMAL_COMMA)}), replaceOne(replaceAll(${number}, '.', ''), ',', '.'), ` +
    `match(${number}, ${re2(DECIMAL_COMMA)}), replaceOne(${number}, ',', '.'), NULL)`);
}

/** The message of the throwIf that stops an insert at a cell that does not convert. */
const UNCONVERTIBLE = 'causa: a cell does not convert';

const ISO_DATETIME_FORMAT = DATE_FORMATS.find((format) => format.name === 'YYYY-MM-DDTHH:mm:ss')!;

/** Whether the engine converts every column exactly as the JS converter would. */
export function engineConvertible(columns: InferredColumn[]): boolean {
  return columns.every((column) => {
    switch (column.type) {
      case 'integer':
      case 'decimal':
        return true;
      case 'datetime':
        return column.originalFormat === ISO_DATETIME_FORMAT.name;
      case 'boolean':
      case 'categorical':
      case 'text':
        return true;
      case 'date':
        return DATE_FORMATS.some((format) => format.kind === 'date' && format.name === column.originalFormat);
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
  const value = (text: string) => {
    switch (column.type) {
      case 'integer':
        // As convertCell: the number's value when it is a safe integer (1e3 and 12.0 are), else the cell's own
        // digits when they are a plain Int64 (exact beyond 2^53), else nothing.
        return bind(`toFloat64OrNull(${numberText(text)})`, (f) => bind(`replaceRegexpOne(${text}, '^\\\\+', '')`, (digits) =>
          `multiIf(${f} IS NULL OR NOT isFinite(${f}), NULL, ${f} = floor(${f}) AND abs(${f}) <= ${Number.MAX_SAFE_INTEGER}, accurateCastOrNull(${f}, 'Int64'), `
          + `match(${digits}, '^-?[0-9]{1,19}$'), toInt64OrNull(${digits}), NULL)`));
      case 'decimal':
        return bind(`toFloat64OrNull(${numberText(text)})`, (f) => `if(isFinite(${f}), ${f}, NULL)`);
      case 'boolean':
        return `CAST(multiIf(lower(${text}) IN (${list(TRUE)}), true, lower(${text}) IN (${list(FALSE)}), false, NULL) AS Nullable(Bool))`;
      case 'date': {
        const format = DATE_FORMATS.find((f) => f.name === column.originalFormat && f.kind === 'date');
        if (format !== undefined) return dateIn(format, text);
        // Re-typing to a date with no format of its own reads ISO dates only: real days in the stored range
        // (toDate32 alone would move 2023-02-30 to March and clamp 1040 to 1900).
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
  };
  // Text stays as it is, trimmed; other types bind the trimmed cell once (it is read many times).
  const converted = column.type === 'integer' || column.type === 'decimal' || column.type === 'boolean' || column.type === 'date' || column.type === 'datetime'
    ? bind(trimmed(c), value)
    : trimmed(c);
  return `if(${nullish(c)}, NULL, ${converted})`;
}

/**
 * A date written in `format` (dates.ts: DD/MM/YYYY, MMM D, YYYY, ...), read as readDate reads it: the format's own
 * pattern (its named parts taken by position), a month name by its first three letters, and only a real day in
 * the stored years.
 */
function dateIn(format: DateFormat, text: string): string {
  const names = [...format.pattern.source.matchAll(/\(\?<([a-zA-Z]+)>/g)].map((m) => m[1]!);
  const pattern = `${format.pattern.flags.includes('i') ? "'(?i)" : "'"}${re2(format.pattern).slice(1)}`;
  const part = (name: string) => `regexpExtract(${text}, ${pattern}, ${names.indexOf(name) + 1})`;
  const months = MONTH_NAMES.map((m) => `'${m}'`).join(', ');
  const month = names.includes('monthName') ? `toString(indexOf([${months}], lower(substring(${part('monthName')}, 1, 3))))` : part('month');
  return bind(`tuple(${part('year')}, ${month}, ${part('day')})`, (ymd) => bind(
    `concat(tupleElement(${ymd}, 1), '-', leftPad(tupleElement(${ymd}, 2), 2, '0'), '-', leftPad(tupleElement(${ymd}, 3), 2, '0'))`,
    (iso) => `if(match(${text}, ${pattern}) AND toString(toDate32OrNull(${iso})) = ${iso} AND toYear(toDate32OrNull(${iso})) BETWEEN ${YEAR_RANGE.min} AND ${YEAR_RANGE.max}, toDate32OrNull(${iso}), NULL)`,
  ));
}

/** Whether the text cell `c` is empty or a null token, as JS's isNullCell reads it. */
export const nullish = (c: string) => `(${c} IS NULL OR lower(${trimmed(c)}) IN (${list(NULL_TOKENS)}))`;

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
