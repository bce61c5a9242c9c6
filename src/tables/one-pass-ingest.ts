import type { DataStore, FileFormat, TableRef } from '../store/data/port.js';
import { quoteColumn } from '../store/data/port.js';
import { bind, conversionOfText, millisOf, nullishText, re2, storedValue, textName, trimmedText, valueName } from './engine-ingest.js';
import type { InferredColumn } from './inference/infer-schema.js';
import { YEAR_RANGE } from './inference/dates.js';
import { INTERNAL_PREFIX } from './reserved.js';

/**
 * The one-pass engine ingest: the file's cells read, trimmed and converted by the same SQL as the staged ingest
 * (engine-ingest.ts), and the rows numbered, in one INSERT. The staged ingest writes every cell to a
 * staging table first and reads it back to convert it on every thread; this path skips that copy, at the price of
 * converting on the one thread that numbers the rows. Integer columns take a short path for plain digits.
 *
 * It stores exactly what the staged ingest stores, or declines: a cell that does not convert stops the statement,
 * the rows it wrote are taken out, and the caller runs the staged ingest, which names the line of the bad cell. A
 * malformed file declines the same way.
 *
 * The short path of a plain integer column: in a file without two quotes in a row, the engine's parser reads the
 * column into Int128 directly (it holds every 64-bit integer, signed or not; the cast to Int64 refuses the others
 * as the converter does). Where two quotes follow each other the cell may be a quoted empty one, which that parser
 * reads as 0 where the converter reads missing: the column is then read as text, plain digits cast from it. The
 * float parser is never used on cells a person wrote: it reads "5." and "--12", which the converter refuses
 * (test/integration/one-pass-ingest.test.ts checks every path on awkward cells).
 *
 * Canonical columns: a typed source's driver writes some columns in one exact form of their kind (an integer as its
 * digits, a decimal as a plain number or NaN, a boolean as true or false, a datetime as `YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC; see
 * connectors/declared-schema.ts). The engine's parsers read those straight into their type, which costs about half
 * of reading text and converting it. What the converter would refuse (an infinite number, a datetime outside the
 * stored years) declines as any refused cell does, and so does a cell the parser cannot read (PostgreSQL's BC dates,
 * years past 9999) and a datetime in the first or last stored year.
 */

/**
 * Plain digits, at most 19 with a sign: an Int128 holds them (toInt128OrNull wraps past 38 digits), and the cast to
 * Int64 refuses what a 64-bit column cannot hold, as the converter does. Any other cell takes the full conversion.
 */
const PLAIN_INTEGER = /^[+-]?\d{1,19}$/;

/** A column the engine's parser reads straight into a type: that type, its stored value, and when it is refused. */
interface ParsedColumn {
  type: string;
  value: (cell: string) => string;
  refused: (cell: string, value: string) => string;
}

/**
 * The years a parsed datetime is taken in: the stored years but the first and the last. An engine whose DateTime64 is
 * narrower than the text may clamp a value into one of those two (to its first or last day, the time kept), so a cell
 * read in either is refused here and the whole file takes the text path, which decides.
 */
const PARSED_YEARS = { min: YEAR_RANGE.min + 1, max: YEAR_RANGE.max - 1 };

/** Refused when a cell read is given no value. */
const lost = (c: string, v: string) => `(${c} IS NOT NULL AND ${v} IS NULL)`;

const PARSED: Partial<Record<InferredColumn['type'], ParsedColumn>> = {
  integer: { type: 'Nullable(Int128)', value: (c) => `accurateCastOrNull(${c}, 'Int64')`, refused: lost },
  // NaN is missing, as the converter reads that token; an infinity (a number past Float64's range) is refused.
  decimal: { type: 'Nullable(Float64)', value: (c) => `if(isFinite(${c}), ${c}, NULL)`, refused: (c) => `(${c} IS NOT NULL AND isInfinite(assumeNotNull(${c})))` },
  boolean: { type: 'Nullable(Bool)', value: (c) => c, refused: () => 'false' },
  // Kept to the millisecond, the fraction of its second rounded as the converter rounds it (engine-ingest.ts millisOf).
  datetime: {
    type: "Nullable(DateTime64(6, 'UTC'))",
    value: (c) => `if(toYear(${c}) BETWEEN ${PARSED_YEARS.min} AND ${PARSED_YEARS.max}, ${toMillis(c)}, NULL)`,
    refused: lost,
  },
};

/** A DateTime64(6) `c` to the millisecond: its second, and the microseconds past it (before 1970 too) as a rounded fraction. */
function toMillis(c: string): string {
  return bind(`toUnixTimestamp64Micro(assumeNotNull(${c}))`, (micro) =>
    bind(`(${micro} % 1000000 + 1000000) % 1000000`, (past) => `fromUnixTimestamp64Milli(intDiv(${micro} - ${past}, 1000) + ${millisOf(`toFloat64(${past}) / 1000000`)}, 'UTC')`));
}

/**
 * The columns of a file the engine's parsers read straight into a type; the others are read as text for the
 * converter. Plain integer columns are parsed where the file has no two quotes in a row; canonical columns of a parsed
 * kind always are (their writer never quotes them).
 */
function parsedColumns(columns: InferredColumn[], plainIntegers: ReadonlySet<string>, canonical: ReadonlySet<string>, doubledQuotes: boolean | undefined): Map<string, ParsedColumn> {
  const parsed = new Map<string, ParsedColumn>();
  for (const column of columns) {
    if (column.unit !== null) continue;
    const reading = PARSED[column.type];
    if (reading === undefined) continue;
    if (canonical.has(column.field) || (column.type === 'integer' && plainIntegers.has(column.field) && doubledQuotes === false)) parsed.set(column.field, reading);
  }
  return parsed;
}

/**
 * The columns with the integer short path: integers without a unit whose sampled cells are all empty or plain
 * digits (what identifiers, counts and keys hold). Whether a file is worth one pass is decided on them (ingest.ts).
 */
export function plainIntegerColumns(columns: InferredColumn[], fields: string[], sample: Array<Array<string | null>>): Set<string> {
  const plainIntegers = new Set<string>();
  for (const column of columns) {
    if (column.type !== 'integer' || column.unit !== null) continue;
    const i = fields.indexOf(column.field);
    if (sample.every((cells) => (cells[i] ?? '').trim() === '' || PLAIN_INTEGER.test(cells[i]!.trim()))) plainIntegers.add(column.field);
  }
  return plainIntegers;
}

/** The message of the throwIf that stops the insert at a cell the one pass does not store. */
const DECLINED = 'causa: one pass declined a cell';
/** The file's cells, as parsed; trimmed and converted cells are named as the staged ingest names them. */
const cellName = (i: number) => `${INTERNAL_PREFIX}c${i}`;
const REFUSED = `${INTERNAL_PREFIX}refused`;

/**
 * Appends the file's rows to `table` numbered from `rowStart` in one statement; answers how many, or null when it
 * declined (nothing of the batch is then left in the table).
 */
export async function ingestInOnePass(
  store: DataStore,
  table: TableRef,
  file: { path: string; format: FileFormat; doubledQuotes?: boolean },
  fields: string[],
  columns: InferredColumn[],
  plainIntegers: ReadonlySet<string>,
  canonical: ReadonlySet<string>,
  rowColumn: string,
  rowStart: number,
  beforeCommit: () => void,
): Promise<number | null> {
  const byField = new Map(columns.map((column) => [column.field, column]));
  const parsed = parsedColumns(columns, plainIntegers, canonical, file.doubledQuotes);
  const cell = (i: number) => quoteColumn(cellName(i));
  const text = (i: number) => quoteColumn(textName(i));
  const value = (i: number) => quoteColumn(valueName(i));
  const converted = (i: number) => {
    const reading = parsed.get(fields[i]!);
    if (reading !== undefined) return reading.value(cell(i));
    const conversion = conversionOfText(byField.get(fields[i]!)!, text(i));
    return plainIntegers.has(fields[i]!) ? `if(match(${text(i)}, ${re2(PLAIN_INTEGER)}), accurateCastOrNull(toInt128OrNull(${text(i)}), 'Int64'), ${conversion})` : conversion;
  };
  const refused = (i: number) => parsed.get(fields[i]!)?.refused(cell(i), value(i)) ?? `(NOT ${nullishText(text(i))} AND ${value(i)} IS NULL)`;
  // One SELECT over the file (a server's input() is read by the INSERT's own SELECT): each cell trimmed once and
  // converted once, as WITH aliases the outputs and the check read.
  const aliases = [
    ...fields.flatMap((field, i) => (parsed.has(field) ? [] : [`${trimmedText(cell(i))} AS ${text(i)}`])),
    ...fields.map((_, i) => `${converted(i)} AS ${value(i)}`),
    `${fields.map((_, i) => refused(i)).join(' OR ')} AS ${quoteColumn(REFUSED)}`,
  ];
  const outputs = columns.map((column) => `${storedValue(column, value(fields.indexOf(column.field)))} AS ${quoteColumn(column.field)}`);
  const select = (source: string) =>
    `WITH ${aliases.join(', ')} SELECT {rowStart:UInt64} + rowNumberInAllBlocks() AS ${quoteColumn(rowColumn)}, ${outputs.join(', ')} FROM ${source} `
    + `WHERE throwIf(${quoteColumn(REFUSED)}, '${DECLINED}') = 0`;
  const structure = fields.map((field, i) => ({ name: cellName(i), type: parsed.get(field)?.type ?? 'Nullable(String)' }));
  beforeCommit();
  try {
    await store.insertFromFile(table, file.path, file.format, structure, select, { rowStart });
  } catch {
    // Whatever stopped it (a declined cell, a parse error, a malformed file), the staged ingest reads the file again
    // and answers for it; the blocks this statement wrote go first.
    await store.deleteRowsFrom(table, rowColumn, rowStart);
    return null;
  }
  const [{ n } = { n: 0 }] = await store.query<{ n: number | string }>(
    table.organisationId,
    (sql) => `SELECT count() AS n FROM ${sql.table(table.tableId)} WHERE ${quoteColumn(rowColumn)} >= {rowStart:UInt64}`,
    { rowStart },
  );
  return Number(n);
}
