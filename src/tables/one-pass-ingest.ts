import type { ColumnSpec, DataStore, FileFormat, TableRef } from '../store/data/port.js';
import { quoteColumn } from '../store/data/port.js';
import { conversionOfText, nullishText, storedValue, trimmedText } from './engine-ingest.js';
import type { InferredColumn } from './inference/infer-schema.js';
import { INTERNAL_PREFIX } from './reserved.js';

/**
 * The one-pass engine ingest: the file is parsed with its plain integer columns typed and every other column as
 * text, each text cell converted as conversion() converts it, and the rows numbered, in one INSERT. The staged
 * ingest (engine-ingest.ts) writes every cell as text to a staging table first and reads it back to convert it on
 * every thread; this path skips that copy (and parses integer cells straight into numbers), at the price of
 * converting on the one thread that numbers the rows.
 *
 * It either stores exactly what the staged ingest would, or declines: a typed column takes only integers a 64-bit
 * column holds, and any cell that does not parse, does not fit or does
 * not convert stops the statement. The rows it wrote are taken out and the caller runs the staged ingest, which
 * reads every cell as text and names the line of a bad one.
 */

/** How a column is read in one pass: typed by the engine's parser, or as text converted in SQL. */
interface Reading {
  /** The file's column as parsed. */
  parsed: string;
  /** SQL of its stored value from the parsed cell `c`. */
  value: (c: string) => string;
  /** SQL: whether the cell is present but has no stored value (the statement then stops). */
  refused: (c: string, value: string) => string;
}

/**
 * Numbers the parser reads as the text converter does: integers. Int128 holds every integer a 64-bit source column
 * has (signed or not), so an out-of-range one is seen and refused rather than wrapped. Decimals stay text: the
 * engine's float parser takes forms the converter refuses ("5.", "--12"; test/integration/one-pass-ingest.test.ts).
 */
const TYPED: Partial<Record<InferredColumn['type'], Reading>> = {
  integer: { parsed: 'Nullable(Int128)', value: (c) => `accurateCastOrNull(${c}, 'Int64')`, refused: (c, v) => `(${c} IS NOT NULL AND ${v} IS NULL)` },
};

/** Sample cells a typed column may hold: empty, or digits with an optional sign. */
const PLAIN_INTEGER = /^[+-]?\d+$/;

/**
 * The columns the parser can type: integers without a unit whose sampled cells are all empty or plain. A column with
 * any other cell in the sample (a null token, grouping, 1e3) is read as text: typed, the parse would stop at it and
 * the file would be read twice.
 */
export function typedColumns(columns: InferredColumn[], fields: string[], sample: Array<Array<string | null>>): Set<string> {
  const typed = new Set<string>();
  for (const column of columns) {
    if (TYPED[column.type] === undefined || column.unit !== null) continue;
    const i = fields.indexOf(column.field);
    if (sample.every((cells) => (cells[i] ?? '').trim() === '' || PLAIN_INTEGER.test(cells[i]!.trim()))) typed.add(column.field);
  }
  return typed;
}

/** The message of the throwIf that stops the insert at a cell the one pass does not store. */
const DECLINED = 'causa: one pass declined a cell';
const cellName = (i: number) => `${INTERNAL_PREFIX}c${i}`;
const textName = (i: number) => `${INTERNAL_PREFIX}t${i}`;
const valueName = (i: number) => `${INTERNAL_PREFIX}v${i}`;
const REFUSED = `${INTERNAL_PREFIX}refused`;

/**
 * Appends the file's rows to `table` numbered from `rowStart` in one statement; answers how many, or null when it
 * declined (nothing of the batch is then left in the table).
 */
export async function ingestInOnePass(
  store: DataStore,
  table: TableRef,
  file: { path: string; format: FileFormat },
  fields: string[],
  columns: InferredColumn[],
  typed: Set<string>,
  rowColumn: string,
  rowStart: number,
  beforeCommit: () => void,
): Promise<number | null> {
  const byField = new Map(columns.map((column) => [column.field, column]));
  const readings = fields.map((field, i): Reading => {
    const column = byField.get(field)!;
    const reading = typed.has(field) ? TYPED[column.type] : undefined;
    if (reading !== undefined) return reading;
    // Text: trimmed once (the inner query), converted once (the middle one), as the staged ingest does.
    const text = quoteColumn(textName(i));
    return { parsed: 'Nullable(String)', value: () => conversionOfText(column, text), refused: (_c, v) => `(NOT ${nullishText(text)} AND ${v} IS NULL)` };
  });
  const structure: ColumnSpec[] = fields.map((_, i) => ({ name: cellName(i), type: readings[i]!.parsed }));
  const cell = (i: number) => quoteColumn(cellName(i));
  const value = (i: number) => quoteColumn(valueName(i));
  // One SELECT over the file (a server's input() is read by the INSERT's own SELECT): each text cell trimmed once and
  // each cell converted once, as WITH aliases the outputs and the check read.
  const trimmed = fields.flatMap((_, i) => (readings[i]!.parsed === 'Nullable(String)' ? [`${trimmedText(cell(i))} AS ${quoteColumn(textName(i))}`] : []));
  const converted = fields.map((_, i) => `${readings[i]!.value(cell(i))} AS ${value(i)}`);
  const refused = `${fields.map((_, i) => readings[i]!.refused(cell(i), value(i))).join(' OR ')} AS ${quoteColumn(REFUSED)}`;
  const outputs = columns.map((column) => `${storedValue(column, value(fields.indexOf(column.field)))} AS ${quoteColumn(column.field)}`);
  const select = (source: string) =>
    `WITH ${[...trimmed, ...converted, refused].join(', ')} `
    + `SELECT {rowStart:UInt64} + rowNumberInAllBlocks() AS ${quoteColumn(rowColumn)}, ${outputs.join(', ')} FROM ${source} `
    + `WHERE throwIf(${quoteColumn(REFUSED)}, '${DECLINED}') = 0`;
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
