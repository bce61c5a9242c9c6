import { createReadStream } from 'node:fs';
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

/** CSV and TSV: the first record names the columns; every record must have as many cells. */
async function readDelimited(path: string, delimiter: string): Promise<TableReader> {
  const input = createReadStream(path);
  const parser = input.pipe(parse({ delimiter, bom: true, info: true, skip_empty_lines: true, relax_quotes: false, max_record_size: MAX_RECORD_CHARS }));
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
    close: () => input.destroy(),
    rows: (async function* rows() {
      for (let next = await read(); next.done !== true; next = await read()) {
        const { record, info } = next.value;
        if (record.length !== fields.length) throw malformed(info.lines, `${record.length} cells where the header has ${fields.length}`);
        yield { line: info.lines, cells: record };
      }
    })(),
  };
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
