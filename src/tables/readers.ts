import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { AppError } from '../errors.js';
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
 * Bytes of a CSV file parsed at once, before the rest streams: enough for the sample a schema is decided from (10,000
 * records of 100 bytes). Parsed in one synchronous step, the sample is not read a record per turn of the event loop,
 * where every other stream of the process (an import's source, uploads) would get a turn between two records.
 */
const HEAD_BYTES = 1 << 20;

/** CSV and TSV: the first record names the columns; every record must have as many cells. */
async function readDelimited(path: string, delimiter: string): Promise<TableReader> {
  const parser = parse({ delimiter, bom: true, info: true, skip_empty_lines: true, relax_quotes: false, max_record_size: MAX_RECORD_CHARS });
  // The parser reads the head in one write (its records wait in its buffer), then the rest of the file as it streams.
  const head = await readHead(path, HEAD_BYTES);
  parser.write(head);
  const input = head.length < HEAD_BYTES ? null : createReadStream(path, { start: head.length });
  if (input === null) parser.end();
  else input.pipe(parser);
  const records = parser[Symbol.asyncIterator]() as AsyncIterator<{ record: string[]; info: { lines: number } }>;
  const read = async () => {
    try {
      return await records.next();
    } catch (error) {
      throw malformed((error as { lines?: number }).lines ?? '?', (error as Error).message.replace(/^Invalid [^:]*: /, ''));
    }
  };
  const header = await read();
  if (header.done === true) throw new AppError('validation_failed', 'The file is empty');
  const fields = header.value.record.map((field) => field.trim());
  if (new Set(fields).size !== fields.length || fields.some((f) => f === '')) throw malformed(1, 'column names must be present and distinct');
  return {
    fields,
    engineFormat: delimiter === ',' ? 'CSVWithNames' : null,
    close: () => (input === null ? parser.destroy() : input.destroy()),
    rows: (async function* rows() {
      for (let next = await read(); next.done !== true; next = await read()) {
        const { record, info } = next.value;
        if (record.length !== fields.length) throw malformed(info.lines, `${record.length} cells where the header has ${fields.length}`);
        yield { line: info.lines, cells: record };
      }
    })(),
  };
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
