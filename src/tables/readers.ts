import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { AppError } from '../errors.js';
import { readCsvHead } from './csv-head.js';
import { MAX_RECORD_CHARS, jsonArrayObjects, ndjsonObjects, parquetObjects, readObjects } from './object-readers.js';
import { type TableReader, malformed } from './table-reader.js';

export type { TableReader };

/** File formats an upload may carry, by media type. */
export const UPLOAD_FORMATS = {
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/x-ndjson': 'ndjson',
  'application/json': 'json',
  'application/vnd.apache.parquet': 'parquet',
} as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[keyof typeof UPLOAD_FORMATS];

/**
 * Bytes of a CSV file read at once before the rest streams: enough for the sample a schema is decided from (10,000
 * records of 100 bytes). Read in one step, the sample is not read a record per turn of the event loop, where every
 * other stream of the process (an import's source, uploads) would get a turn between two records.
 */
export const HEAD_BYTES = 1 << 20;

type Records = AsyncIterator<{ record: string[]; info: { lines: number } }>;

/** CSV and TSV: the first record names the columns; every record must have as many cells. */
async function readDelimited(path: string, delimiter: string): Promise<TableReader> {
  const head = await readHead(path, HEAD_BYTES);
  const complete = head.length < HEAD_BYTES;
  // The common shape of file: its head read at once (csv-head.ts), the rest by csv-parse from where the head ends.
  const fast = readCsvHead(head, delimiter, complete);
  if (fast !== null) {
    const fields = headerFields(fast.records[0]!.cells);
    let rest: ReturnType<typeof streamFrom> | null = null;
    return {
      fields,
      engineFormat: engineFormatOf(delimiter),
      close: () => rest?.close(),
      rows: (async function* rows() {
        for (const { cells, line } of fast.records.slice(1)) yield { line, cells };
        if (complete) return;
        // The head ends at a line start; the rest is read with the line ends the head has (line feeds alone).
        rest = streamFrom(path, fast.bytes, parse({ ...PARSE_OPTIONS, delimiter, bom: false, record_delimiter: '\n' }));
        yield* checkedRows(fields, records(rest.parser), fast.lines);
      })(),
    };
  }
  // Any other file: csv-parse reads the head in one write (its records wait in its buffer), then the rest as it streams.
  const parser = parse({ ...PARSE_OPTIONS, delimiter, bom: true });
  parser.write(head);
  const input = complete ? (parser.end(), null) : streamFrom(path, head.length, parser);
  const close = () => (input === null ? parser.destroy() : input.close());
  const iterator = records(parser);
  try {
    const header = await read(iterator, 0);
    if (header.done === true) throw new AppError('validation_failed', 'The file is empty');
    const fields = headerFields(header.value.record);
    return { fields, engineFormat: engineFormatOf(delimiter), close, rows: checkedRows(fields, iterator, 0) };
  } catch (error) {
    close();
    throw error;
  }
}

/** The file from byte `start` on into `parser` (a read error fails the parser); `close` stops both. */
function streamFrom(path: string, start: number, parser: ReturnType<typeof parse>) {
  const input = createReadStream(path, { start });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  return {
    parser,
    close: () => {
      input.destroy();
      parser.destroy();
    },
  };
}

const PARSE_OPTIONS = { info: true, skip_empty_lines: true, relax_quotes: false, max_record_size: MAX_RECORD_CHARS } as const;

const engineFormatOf = (delimiter: string) => (delimiter === ',' ? 'CSVWithNames' : null);

const records = (parser: ReturnType<typeof parse>) => parser[Symbol.asyncIterator]() as Records;

/**
 * The next record; a parse error names its line, `lineOffset` lines after where this parser began (csv-parse's own
 * message names it too: moved the same way).
 */
async function read(iterator: Records, lineOffset: number) {
  try {
    return await iterator.next();
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    const message = (error as Error).message.replace(/^Invalid [^:]*: /, '').replace(/\b(at|on) line (\d+)/g, (_, word: string, n: string) => `${word} line ${Number(n) + lineOffset}`);
    throw malformed(line === undefined ? '?' : line + lineOffset, message);
  }
}

function headerFields(record: string[]): string[] {
  const fields = record.map((field) => field.trim());
  if (new Set(fields).size !== fields.length || fields.some((f) => f === '')) throw malformed(1, 'column names must be present and distinct');
  return fields;
}

/** The records of a parser as rows, each as long as the header, lines counted on from `lineOffset`. */
async function* checkedRows(fields: string[], iterator: Records, lineOffset: number) {
  for (let next = await read(iterator, lineOffset); next.done !== true; next = await read(iterator, lineOffset)) {
    const { record, info } = next.value;
    const line = info.lines + lineOffset;
    if (record.length !== fields.length) throw malformed(line, `${record.length} cells where the header has ${fields.length}`);
    yield { line, cells: record };
  }
}

/** The first `bytes` bytes of a file (all of it when shorter). */
async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(bytes);
    let length = 0;
    for (let read = -1; read !== 0 && length < bytes; length += read) ({ bytesRead: read } = await handle.read(buffer, length, bytes - length, length));
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

export function openTable(path: string, format: UploadFormat): Promise<TableReader> {
  switch (format) {
    case 'csv':
      return readDelimited(path, ',');
    case 'tsv':
      return readDelimited(path, '\t');
    case 'ndjson':
      return readObjects(ndjsonObjects(path));
    case 'json':
      return readObjects(jsonArrayObjects(path));
    case 'parquet':
      return readObjects(parquetObjects(path));
  }
}
