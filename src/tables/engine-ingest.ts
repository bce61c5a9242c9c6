import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import { type ColumnSpec, type DataStore, type FileFormat, type TableRef, type TenantSql, quoteColumn } from '../store/data/port.js';
import { DATE_FORMATS, type DateFormat, ISO_DATE, ISO_INSTANT, MONTH_NAMES, YEAR_RANGE } from './inference/dates.js';
import { COMMA_GROUPED, CURRENCY_SYMBOLS, DECIMAL_COMMA, DOT_GROUPED_DECIMAL_COMMA, ISO_CURRENCY_CODES, LEADING_DOT, PLAIN, SPACE_GROUPED } from './inference/numbers.js';
import { arrayElements, refusal } from './inference/convert.js';
import { INTERNAL_PREFIX } from './reserved.js';
import { type InferredColumn, NULL_TOKENS } from './inference/infer-schema.js';

/**
 * Ingest by the data engine: the file is parsed by ClickHouse into a staging table of text columns, checked
 * and converted there in SQL, and committed in one statement, so no row passes through JS. Used when every
 * column is written in a form SQL converts exactly as the JS converter would (numbers with or without currency
 * and percent units, grouped or not, booleans, dates and datetimes in every format the inference detects, text,
 * JSON objects and arrays); other files (NDJSON, JSON arrays, Parquet, TSV) take the JS path.
 */

const TRUE = ['true', 'yes', 'y', 't', '1'];
const FALSE = ['false', 'no', 'n', 'f', '0'];
const list = (values: Iterable<string>) => [...values].map((v) => `'${v.replaceAll("'", "\\'")}'`).join(', ');

/** A JS regular expression of the inference code as a ClickHouse (re2) string literal: one definition for both. */
export function re2(pattern: RegExp): string {
  const source = pattern.source.replace(/\(\?<[a-zA-Z]+>/g, '(').replace(/\\u([0-9a-fA-F]{4})/g, '\\x{$1}');
  return `'${source.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** JavaScript's whitespace (String.prototype.trim, RegExp \\s) as an re2 class, escaped for a SQL string literal: the engine trims what JS trims. */
const JS_SPACE = '[\\\\t\\\\n\\\\x{0B}\\\\f\\\\r \\\\x{A0}\\\\x{1680}\\\\x{2000}-\\\\x{200A}\\\\x{2028}\\\\x{2029}\\\\x{202F}\\\\x{205F}\\\\x{3000}\\\\x{FEFF}]';

/**
 * `body(name)` with `name` bound to the value of `expression`, evaluated once. The unit path reads its parts many
 * times: written out, the nesting would grow past what the SQL parser takes (ClickHouse aliases are expanded in
 * place, a lambda's parameter is not). A lambda's body is evaluated for every row it gets (no short-circuit
 * inside), so lambdas sit only behind the `if` that sends a row down the unit path.
 */
let lambdas = 0;
export function bind(expression: string, body: (name: string) => string): string {
  const name = `_v${lambdas++}`;
  return `arrayElement(arrayMap(${name} -> ${body(name)}, [${expression}]), 1)`;
}

/**
 * `text` trimmed as JS trims it: ClickHouse's trimBoth takes ASCII whitespace only, so a text that still starts or
 * ends with a non-ASCII byte (rare: a no-break space, a currency sign) is trimmed again by the full class. The
 * repeated parts are one computation: the engine evaluates identical expressions once.
 */
function trimmed(text: string): string {
  const ascii = `trimBoth(${text})`;
  return `if(ascii(${ascii}) >= 128 OR ascii(reverse(${ascii})) >= 128, replaceRegexpAll(${text}, '^${JS_SPACE}+|${JS_SPACE}+$', ''), ${ascii})`;
}

/**
 * Number text without a unit: digits, signs, separators, an exponent and spaces only. numbers.ts's splitUnit
 * leaves such text as it is (every unit it takes off needs another character: a parenthesis, %, a currency sign,
 * or an ISO code, each of which has a letter other than E).
 */
const UNITLESS = `'^[0-9eE+\\\\-., \\\\x{A0}\\\\x{202F}]*$'`;

/**
 * The parts a unit is read from (numbers.ts's splitUnit): whether the cell is in accounting parentheses (a
 * negative number), and what is inside them, trimmed (else the cell itself). `text` is the trimmed cell.
 */
function unitParts(text: string): { parenthesised: string; inner: string } {
  const parenthesised = `match(${text}, '^\\\\((.*)\\\\)$')`;
  return { parenthesised, inner: `if(${parenthesised}, ${trimmed(`substring(${text}, 2, length(${text}) - 2)`)}, ${text})` };
}

/**
 * The number part of a cell from its unitParts, as splitUnit reads it: a trailing percent sign, a currency symbol
 * (either side, or after a minus sign) or an ISO 4217 code (either side) taken off, tried in the same order, and
 * the sign of the parentheses put in front; anything else is left as it is (and fails to parse if it is not a
 * number). `inner` and `parenthesised` are read many times: give them as names (a column, a lambda's parameter).
 */
function unitStripped(inner: string, parenthesised: string): string {
  // Each way yields the sign to put in front and the number's text untrimmed; the text is trimmed once, after the
  // choice (inside a lambda every way is evaluated for every row).
  const signed = (body: string) => `(if(${parenthesised}, '-', ''), ${body})`;
  const literal = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  const codes = `[${ISO_CURRENCY_CODES.map(literal).join(', ')}]`;
  const symbols = Object.keys(CURRENCY_SYMBOLS).flatMap((symbol) => {
    const s = literal(symbol);
    return [
      `startsWith(${inner}, ${s})`, signed(`substring(${inner}, length(${s}) + 1)`),
      `endsWith(${inner}, ${s})`, signed(`substring(${inner}, 1, length(${inner}) - length(${s}))`),
      `startsWith(${inner}, concat('-', ${s}))`, `('-', substring(${inner}, length(${s}) + 2))`,
    ];
  });
  // ^([A-Z]{3})\s*(.+)$ first (its three letters or its rest must be the code); only when it does not match at
  // all, ^(.+?)\s*([A-Z]{3})$. Its two groups are taken by one regular expression.
  const code = (pattern: string) =>
    bind(`extractGroups(${inner}, '${pattern}')`, (groups) => `multiIf(has(${codes}, ${groups}[1]), ${signed(`${groups}[2]`)}, has(${codes}, ${groups}[2]), ${signed(`${groups}[1]`)}, ${signed(inner)})`);
  const chosen = `multiIf(endsWith(${inner}, '%'), ${signed(`substring(${inner}, 1, length(${inner}) - 1)`)}, ${symbols.join(', ')}, `
    + `match(${inner}, '^[A-Z]{3}${JS_SPACE}*.+$'), ${code(`^([A-Z]{3})${JS_SPACE}*(.+)$`)}, `
    + `match(${inner}, '^.+?${JS_SPACE}*[A-Z]{3}$'), ${code(`^(.+?)${JS_SPACE}*([A-Z]{3})$`)}, ${signed(inner)})`;
  return bind(chosen, (way) => `concat(tupleElement(${way}, 1), ${trimmed(`tupleElement(${way}, 2)`)})`);
}

/** The number part of a trimmed cell, its parts bound once (a lambda, reached only by cells with a unit). */
function withoutUnit(text: string): string {
  const { parenthesised, inner } = unitParts(text);
  return bind(`tuple(${parenthesised}, ${inner})`, (p) => unitStripped(`tupleElement(${p}, 2)`, `tupleElement(${p}, 1)`));
}

/** A number written plainly, grouped or with a decimal comma, in canonical form (numbers.ts's normalise), or NULL. */
function normalised(number: string): string {
  return `multiIf(match(${number}, ${re2(PLAIN)}) OR match(${number}, ${re2(LEADING_DOT)}), ${number}, ` +
    `match(${number}, ${re2(COMMA_GROUPED)}), replaceAll(${number}, ',', ''), ` +
    `match(${number}, ${re2(SPACE_GROUPED)}), replaceOne(replaceRegexpAll(${number}, ${re2(/[ \u00a0\u202f]/)}, ''), ',', '.'), ` +
    `match(${number}, ${re2(DOT_GROUPED_DECIMAL_COMMA)}), replaceOne(replaceAll(${number}, '.', ''), ',', '.'), ` +
    `match(${number}, ${re2(DECIMAL_COMMA)}), replaceOne(${number}, ',', '.'), NULL)`;
}

/**
 * Number text in canonical form (units, grouping and decimal commas as numbers.ts reads them), or NULL: a cell
 * without a unit directly, one with a unit through withoutUnit (the `if` sends only those rows down that path).
 * The unit path is a few KB of SQL per column: it is written only for columns whose inferred unit says the
 * file writes units (a wide file of plain numbers keeps a small statement).
 */
function numberText(text: string, units: boolean): string {
  if (!units) return normalised(text);
  return `multiIf(match(${text}, ${UNITLESS}), ${normalised(text)}, `
    + `match(${text}, ${PERCENT_AFTER}), ${bind(`substring(${text}, 1, length(${text}) - 1)`, normalised)}, `
    + `match(${text}, ${SYMBOL_BEFORE}), ${bind(`concat(if(startsWith(${text}, '-'), '-', ''), replaceRegexpOne(${text}, ${SYMBOL_PREFIX}, ''))`, normalised)}, `
    + `${bind(withoutUnit(text), normalised)})`;
}

/**
 * What most cells with a unit are: digits (with separators) and a percent sign after them, or a currency symbol
 * before them (after a minus sign or not), nothing else. The unit path takes these off as its first ways do (a
 * trailing percent sign first; a symbol at the start, or after a minus sign), so they skip its other ways, which
 * inside its lambda are evaluated for every row that reaches it (with the rest of that change, a 1M-row amount
 * column went from 0.47-0.57 to 0.23-0.31 s).
 */
const SYMBOLS = Object.keys(CURRENCY_SYMBOLS).map((symbol) => symbol.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('|');
const PERCENT_AFTER = re2(/^[+-]?[0-9][0-9.,]*%$/);
const SYMBOL_BEFORE = re2(new RegExp(`^-?(${SYMBOLS})[0-9][0-9.,]*$`));
const SYMBOL_PREFIX = re2(new RegExp(`^-?(${SYMBOLS})`));

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
        return DATE_FORMATS.some((format) => format.kind === 'datetime' && format.name === column.originalFormat);
      case 'boolean':
      case 'categorical':
      case 'text':
      case 'object':
      case 'array':
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
 * Datetimes are read in the column's detected format (ISO-8601 when re-typing a text column).
 */
export function conversion(column: InferredColumn, c: string): string {
  return conversionOfText(column, trimmed(c));
}

/** conversion() of a cell already trimmed (trimmedText): what a staged ingest computes once per cell. */
export function conversionOfText(column: InferredColumn, text: string): string {
  const value = (text: string) => {
    switch (column.type) {
      case 'integer':
        // As convertCell: the number's value when it is a safe integer (1e3 and 12.0 are), else the cell's own
        // digits when they are a plain Int64 (exact beyond 2^53), else nothing.
        return bind(`toFloat64OrNull(${numberText(text, column.unit !== null)})`, (f) =>
          `multiIf(${f} IS NULL OR NOT isFinite(${f}), NULL, ${f} = floor(${f}) AND abs(${f}) <= ${Number.MAX_SAFE_INTEGER}, accurateCastOrNull(${f}, 'Int64'), `
          + `match(replaceRegexpOne(${text}, '^\\\\+', ''), '^-?[0-9]{1,19}$'), toInt64OrNull(replaceRegexpOne(${text}, '^\\\\+', '')), NULL)`);
      case 'decimal':
        return bind(`toFloat64OrNull(${numberText(text, column.unit !== null)})`, (f) => `if(isFinite(${f}), ${f}, NULL)`);
      case 'boolean':
        return `CAST(multiIf(lower(${text}) IN (${list(TRUE)}), true, lower(${text}) IN (${list(FALSE)}), false, NULL) AS Nullable(Bool))`;
      case 'date': {
        // ISO dates (the common case) by the engine's own parser: real days in the stored range (toDate32 alone
        // would move 2023-02-30 to March and clamp 1040 to 1900); a column of another format by its pattern.
        const date = `toDate32OrNull(${text})`;
        const iso = `if(match(${text}, ${re2(ISO_DATE)}) AND toString(${date}) = ${text} AND toYear(${date}) BETWEEN ${YEAR_RANGE.min} AND ${YEAR_RANGE.max}, ${date}, NULL)`;
        const format = DATE_FORMATS.find((f) => f.name === column.originalFormat && f.kind === 'date');
        if (format === undefined) return iso;
        return format.name === 'YYYY-MM-DD' ? `if(match(${text}, ${re2(ISO_DATE)}), ${iso}, ${dateIn(format, text)})` : dateIn(format, text);
      }
      case 'datetime': {
        const format = DATE_FORMATS.find((f) => f.name === column.originalFormat && f.kind === 'datetime');
        if (format !== undefined && format !== ISO_DATETIME_FORMAT) return datetimeIn(format, text);
        // ISO-8601, a real calendar day (2023-02-30 is not), zone offsets applied, no zone = UTC. A fraction finer than
        // the millisecond is rounded as the converter rounds it: such a text is parsed without its fraction, which is
        // added rounded (the engine's parser would cut it); any other is the parser's to read.
        const stamp = `parseDateTime64BestEffortOrNull(${text}, 3, 'UTC')`;
        const fraction = re2(/\.(\d+)/);
        const whole = `parseDateTime64BestEffortOrNull(replaceRegexpOne(${text}, ${fraction}, ''), 3, 'UTC')`;
        const rounded = `if(match(${text}, ${re2(/\.\d{4}/)}), addMilliseconds(${whole}, ${roundedMillis(`regexpExtract(${text}, ${fraction}, 1)`)}), ${stamp})`;
        const day = `substring(${text}, 1, 10)`;
        return `if(match(${text}, ${re2(ISO_INSTANT)}) AND toString(toDate32OrNull(${day})) = ${day} AND toYear(${stamp}) BETWEEN ${YEAR_RANGE.min} AND ${YEAR_RANGE.max}, ${rounded}, NULL)`;
      }
      case 'array': {
        // A JSON array whose elements are of the column's kind or null (each element's text against the kind's
        // pattern, as convertCell checks the parsed elements), kept as its text here: storedValue() reads it into the
        // array column.
        const elements = arrayElements(column);
        if (elements === undefined) return text;
        const json = `ifNull(${text}, '')`;
        // Valid JSON whose top is an array (JSONType answers Null for text that is not JSON), every element read into
        // the stored type (a string with half a surrogate pair is not). The elements' texts are bound once: the
        // AND's short-circuit evaluation would take them apart twice (1M cells: 0.5 -> 0.35 s).
        return bind(`JSONExtractArrayRaw(${json})`, (raw) => `if(JSONType(${json}) = 'Array' AND arrayAll(e -> e = 'null' OR match(e, ${re2(elements.pattern)}), ${raw}) `
          + `AND length(JSONExtract(${json}, '${elements.storage}')) = length(${raw}), ${text}, NULL)`);
      }
      default:
        return text;
    }
  };
  return `if(${nullishText(text)}, NULL, ${value(text)})`;
}

/**
 * A datetime written in `format` (dates.ts: MM/DD/YYYY HH:mm, ...), read as convertCell reads it: the format's
 * parts by position, a real day in the stored years, hours to 23, minutes to 59, seconds to 60 (a leap second
 * carries into the next minute, as Date.UTC does), the fraction to the nearest millisecond (ties up, as Math.round),
 * and a zone offset applied (none: UTC).
 */
function datetimeIn(format: DateFormat, text: string): string {
  return withFormatParts(format, text, ({ part, iso, pattern }) => {
    const number = (name: string) => `toInt64OrZero(${part(name)})`;
    return bind(`toDate32OrNull(${iso})`, (day) => {
      const valid = `match(${text}, ${pattern}) AND toString(${day}) = ${iso} AND toYear(${day}) BETWEEN ${YEAR_RANGE.min} AND ${YEAR_RANGE.max} `
        + `AND ${number('hour')} <= 23 AND ${number('minute')} <= 59 AND ${number('second')} <= 60`;
      const millis = roundedMillis(part('fraction'));
      const zone = bind(`replaceOne(${part('zone')}, ':', '')`, (z) => `if(${z} IN ('', 'Z'), 0, if(startsWith(${z}, '-'), -1, 1) * (toInt64OrZero(substring(${z}, 2, 2)) * 60 + toInt64OrZero(substring(${z}, 4, 2))))`);
      const epoch = `toInt64(dateDiff('day', toDate32('1970-01-01'), ${day})) * 86400000 + ${number('hour')} * 3600000 + ${number('minute')} * 60000 + ${number('second')} * 1000 + ${millis} - ${zone} * 60000`;
      return `if(${valid}, fromUnixTimestamp64Milli(${epoch}, 'UTC'), NULL)`;
    });
  });
}

/**
 * The milliseconds of `fraction` (a Float64 expression: a fraction of a second), rounded as the converter rounds them:
 * times 1000, to the nearest integer, ties up (Math.round).
 */
export function millisOf(fraction: string): string {
  return bind(`${fraction} * 1000`, (f) => `toInt64(if(${f} - floor(${f}) >= 0.5, ceil(${f}), floor(${f})))`);
}

/** millisOf a fraction of a second written with `digits` (none: 0), read as the converter reads it (the double of "0.<digits>"). */
const roundedMillis = (digits: string) => millisOf(`toFloat64(concat('0.', ${digits}, '0'))`);

/**
 * `body` given a format's pattern as an re2 literal, the named parts of `text` (by position in it) and its day as ISO
 * text (a month name read by its first three letters). The parts are taken by one regular expression and, with the
 * day, bound once: written out, the `AND`s and `if`s that read them evaluate their arguments row by row for the rows
 * they reach (short-circuit evaluation), which computes an expression repeated in them once per place, not once
 * (a DD.MM.YYYY column of 1M rows took 1.6 s, 0.2 s bound).
 */
function withFormatParts(format: DateFormat, text: string, body: (parts: { pattern: string; part: (name: string) => string; iso: string }) => string): string {
  const names = [...format.pattern.source.matchAll(/\(\?<([a-zA-Z]+)>/g)].map((m) => m[1]!);
  const pattern = `${format.pattern.flags.includes('i') ? "'(?i)" : "'"}${re2(format.pattern).slice(1)}`;
  return bind(`extractGroups(${text}, ${pattern})`, (groups) => {
    const part = (name: string) => `${groups}[${names.indexOf(name) + 1}]`;
    const months = MONTH_NAMES.map((m) => `'${m}'`).join(', ');
    const month = names.includes('monthName') ? `toString(indexOf([${months}], lower(substring(${part('monthName')}, 1, 3))))` : part('month');
    return bind(`concat(${part('year')}, '-', leftPad(${month}, 2, '0'), '-', leftPad(${part('day')}, 2, '0'))`, (iso) => body({ pattern, part, iso }));
  });
}

/**
 * A date written in `format` (dates.ts: DD/MM/YYYY, MMM D, YYYY, ...), read as readDate reads it: the format's own
 * pattern (its named parts taken by position), a month name by its first three letters, and only a real day in
 * the stored years.
 */
function dateIn(format: DateFormat, text: string): string {
  return withFormatParts(format, text, ({ iso, pattern }) =>
    bind(`toDate32OrNull(${iso})`, (day) => `if(match(${text}, ${pattern}) AND toString(${day}) = ${iso} AND toYear(${day}) BETWEEN ${YEAR_RANGE.min} AND ${YEAR_RANGE.max}, ${day}, NULL)`));
}

/** The stored value of a converted cell `v` (conversionOfText's result): an array column's JSON text read into its array (an empty cell: []), anything else as it is. */
export function storedValue(column: InferredColumn, v: string): string {
  const elements = arrayElements(column);
  return elements === undefined ? v : `JSONExtract(ifNull(${v}, '[]'), '${elements.storage}')`;
}

/** Whether the text cell `c` is empty or a null token, as JS's isNullCell reads it. */
export const nullish = (c: string) => nullishText(trimmed(c));

/** nullish() of a cell already trimmed (trimmedText). */
export const nullishText = (text: string) => `(${text} IS NULL OR lower(${text}) IN (${list(NULL_TOKENS)}))`;

/** A text cell trimmed as JS trims it: computed once per cell by a staged ingest, then converted. */
export const trimmedText = (c: string) => trimmed(c);

/**
 * Names the conversion gives its own values (each cell trimmed, each converted, whether a row has a bad cell, the
 * staged file's row ordinal): in the internal prefix, which no user column may carry (ingest.ts), since the outer
 * query names its outputs after the user's columns and ClickHouse resolves a bare name to a same-named alias of the
 * query first: a user column named `v1` once read the alias `v1` of the next column, every column ending as the last.
 */
const ORDINAL = `${INTERNAL_PREFIX}n`;
export const textName = (i: number) => `${INTERNAL_PREFIX}t${i}`;
export const valueName = (i: number) => `${INTERNAL_PREFIX}v${i}`;
const BAD = `${INTERNAL_PREFIX}bad`;

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
  // The load numbers the rows in file order (`_n`), so the conversion below runs on every thread: the staging table
  // is a MergeTree, which the engine reads in parallel (a Log table is read by one stream).
  await store.createTable(raw, [{ name: ORDINAL, type: 'UInt64' }, ...fields.map((_, i) => ({ name: `c${i}`, type: 'Nullable(String)' }))], []);
  try {
    await store.loadFile(raw, file.path, file.format, { ordinal: ORDINAL }).catch((error: unknown) => {
      throw malformedFile(error);
    });
    const [{ n } = { n: 0 }] = await store.query<{ n: number | string }>(org, (sql) => `SELECT count() AS n FROM ${sql.table(raw.tableId)}`);
    if (Number(n) === 0) throw new AppError('validation_failed', 'The batch has no rows');
    // One pass converts and checks: a cell present but not convertible stops the insert (throwIf), and only then
    // is the first such cell looked for, in file order, to name its line. Rows the stopped statement wrote
    // (ordinals from rowStart on) are taken out again.
    // Each cell is trimmed once (the innermost subquery) and converted once (the middle one, which also says
    // whether the row has a cell that does not convert); the outer query places the rows and stops at a bad one.
    const text = (i: number) => `r.${quoteColumn(textName(i))}`;
    const value = (i: number) => quoteColumn(valueName(i));
    const ordinal = quoteColumn(ORDINAL);
    const staged = (sql: TenantSql) => `(SELECT *, ${fields.map((_, i) => `${trimmedText(quoteColumn(`c${i}`))} AS ${quoteColumn(textName(i))}`).join(', ')} FROM ${sql.table(raw.tableId)})`;
    const convert = (i: number) => conversionOfText(byField.get(fields[i]!)!, text(i));
    const checks = fields.map((_, i) => `NOT ${nullishText(text(i))} AND ${convert(i)} IS NULL`);
    const converted = (sql: TenantSql) =>
      `(SELECT r.${ordinal} AS ${ordinal}, ${fields.map((_, i) => `${convert(i)} AS ${value(i)}`).join(', ')}, `
      + `${fields.map((_, i) => `(NOT ${nullishText(text(i))} AND ${value(i)} IS NULL)`).join(' OR ')} AS ${BAD} FROM ${staged(sql)} AS r)`;
    const outputs = definitions.slice(1).map((definition) => `${storedValue(byField.get(definition.name)!, value(fields.indexOf(definition.name)))} AS ${quoteColumn(definition.name)}`);
    beforeCommit();
    try {
      await store.insertSelect(
        table,
        (sql) => `SELECT {rowStart:UInt64} + ${ordinal} AS ${quoteColumn(rowColumn)}, ${outputs.join(', ')} FROM ${converted(sql)} WHERE throwIf(${BAD}, '${UNCONVERTIBLE}') = 0`,
        { rowStart },
      );
    } catch (error) {
      await store.deleteRowsFrom(table, rowColumn, rowStart).catch(() => undefined);
      if (!String((error as Error)?.message).includes(UNCONVERTIBLE)) throw error;
      // The first bad cell in file order names its line.
      const [bad] = await store.query<{ row: number; column: number; value: string }>(
        org,
        (sql) =>
          `SELECT row, column, value FROM (SELECT r.${ordinal} AS row, multiIf(${checks.flatMap((check, i) => [check, String(i)]).join(', ')}, -1) AS column, ` +
          `[${fields.map((_, i) => `ifNull(${cell(i)}, '')`).join(', ')}] AS cells, cells[column + 1] AS value FROM ${staged(sql)} AS r) WHERE column >= 0 ORDER BY row LIMIT 1`,
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
