import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { AppError } from '../errors.js';
import { SAMPLE_ROWS, toCell } from './ingest.js';
import { type TableReader, malformed } from './table-reader.js';

/**
 * Files whose rows are objects (NDJSON, a JSON array, Parquet): each yields its objects in order with where each
 * came from, and the columns are the keys of the first rows.
 */
export interface ObjectSource {
  objects: AsyncGenerator<{ position: number; value: Record<string, unknown> }>;
  /** How a position reads in a message: "Line 3", "Element 3", "Row 3". */
  label: string;
  close(): void;
}

/** Columns are the keys seen in the first SAMPLE_ROWS objects; a later object with another key is refused. */
export async function readObjects(source: ObjectSource): Promise<TableReader> {
  const head: Array<{ position: number; value: Record<string, unknown> }> = [];
  while (head.length < SAMPLE_ROWS) {
    const next = await source.objects.next();
    if (next.done === true) break;
    head.push(next.value);
  }
  const keys = new Set<string>();
  head.forEach(({ value }) => Object.keys(value).forEach((key) => keys.add(key)));
  const fields = [...keys];
  const toRow = ({ position, value }: { position: number; value: Record<string, unknown> }) => {
    const unknown = Object.keys(value).find((key) => !keys.has(key));
    if (unknown !== undefined) throw new AppError('validation_failed', `${source.label} ${position} has a column "${unknown}" that the first ${SAMPLE_ROWS} rows do not`);
    return { line: position, cells: fields.map((field) => toCell(value[field])) };
  };
  return {
    fields,
    engineFormat: null,
    close: source.close,
    rows: (async function* rows() {
      for (const object of head) yield toRow(object);
      for await (const object of source.objects) yield toRow(object);
    })(),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The largest single record (line, array element) a file may hold: bounds the memory one record can take. */
export const MAX_RECORD_CHARS = 16 * 1024 * 1024;

const tooLarge = (what: string) => new AppError('validation_failed', `${what} is larger than ${MAX_RECORD_CHARS / 1024 / 1024} MiB; records must be smaller`);

/** The lines of a text file, each at most MAX_RECORD_CHARS long (a longer one is refused before it is held). */
async function* textLines(input: NodeJS.ReadableStream): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let number = 0;
  for await (const chunk of input) {
    const parts = (pending + decoder.write(chunk as Buffer)).split('\n');
    pending = parts.pop()!;
    for (const part of parts) {
      number += 1;
      yield part.endsWith('\r') ? part.slice(0, -1) : part;
    }
    if (pending.length > MAX_RECORD_CHARS) throw tooLarge(`Line ${number + 1}`);
  }
  pending += decoder.end();
  if (pending !== '') yield pending.endsWith('\r') ? pending.slice(0, -1) : pending;
}

/** NDJSON: one JSON object per line (blank lines skipped). */
export function ndjsonObjects(path: string): ObjectSource {
  const input = createReadStream(path);
  return {
    label: 'Line',
    close: () => input.destroy(),
    objects: (async function* objects() {
      let number = 0;
      for await (const line of textLines(input)) {
        number += 1;
        if (line.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (error) {
          throw malformed(number, (error as Error).message);
        }
        if (!isObject(value)) throw malformed(number, 'each line must be a JSON object');
        yield { position: number, value };
      }
    })(),
  };
}

/**
 * A JSON array of objects, streamed: top-level elements are cut out of the text (strings and nesting tracked)
 * and parsed one at a time, so the array is never held whole.
 */
export function jsonArrayObjects(path: string): ObjectSource {
  const input = createReadStream(path);
  const bad = (where: string, reason: string) => new AppError('validation_failed', `Malformed JSON array at ${where}: ${reason}`);
  return {
    label: 'Element',
    close: () => input.destroy(),
    objects: (async function* objects() {
      const decoder = new StringDecoder('utf8');
      let state: 'before' | 'between' | 'element' | 'after' = 'before';
      let depth = 0;
      let inString = false;
      let escaped = false;
      let pending = '';
      let index = 0;
      for await (const chunk of input) {
        const text = decoder.write(chunk as Buffer);
        let start = 0;
        for (let i = 0; i < text.length; i += 1) {
          const ch = text[i]!;
          if (state === 'element') {
            if (inString) {
              if (escaped) escaped = false;
              else if (ch === '\\') escaped = true;
              else if (ch === '"') inString = false;
            } else if (ch === '"') inString = true;
            else if (ch === '{' || ch === '[') depth += 1;
            else if (ch === '}' || ch === ']') {
              depth -= 1;
              if (depth === 0) {
                const element = pending + text.slice(start, i + 1);
                pending = '';
                index += 1;
                let value: unknown;
                try {
                  value = JSON.parse(element);
                } catch (error) {
                  throw bad(`element ${index}`, (error as Error).message);
                }
                if (!isObject(value)) throw bad(`element ${index}`, 'each element must be a JSON object');
                yield { position: index, value };
                state = 'between';
              }
            }
          } else if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t' || ch === '\ufeff') {
            continue;
          } else if (state === 'before') {
            if (ch !== '[') throw bad('the start', 'the file must be a JSON array of objects');
            state = 'between';
          } else if (state === 'between') {
            if (ch === ']') state = 'after';
            else if (ch === ',' && index > 0) continue;
            else if (ch === '{') {
              state = 'element';
              depth = 1;
              start = i;
            } else throw bad(`element ${index + 1}`, `unexpected ${JSON.stringify(ch)}; each element must be a JSON object`);
          } else {
            throw bad('the end', 'text after the closing ]');
          }
        }
        if (state === 'element') {
          pending += text.slice(start);
          if (pending.length > MAX_RECORD_CHARS) throw tooLarge(`Element ${index + 1}`);
        }
      }
      if ((state as string) !== 'after') throw bad('the end', state === 'before' ? 'the file is empty' : 'the array is not closed');
    })(),
  };
}

/** Rows read from a Parquet file per slice, so memory holds one slice, not the file's rows. */
const PARQUET_SLICE = 10_000;

/**
 * Parquet, read in slices of rows by hyparquet (pure JS, with zstd/gzip/brotli/lz4 from hyparquet-compressors):
 * typed values become text cells like any other file's.
 */
export function parquetObjects(path: string): ObjectSource {
  return {
    label: 'Row',
    close: () => undefined,
    objects: (async function* objects() {
      let file;
      let metadata;
      try {
        file = await asyncBufferFromFile(path);
        metadata = await parquetMetadataAsync(file);
      } catch (error) {
        throw new AppError('validation_failed', `Malformed Parquet file: ${(error as Error).message}`);
      }
      const rows = Number(metadata.num_rows);
      // DATE columns arrive as JS Dates at midnight: written as dates, so they are not read as datetimes.
      const dates = new Set(metadata.schema.filter((e) => e.converted_type === 'DATE' || e.logical_type?.type === 'DATE').map((e) => e.name));
      for (let rowStart = 0; rowStart < rows; rowStart += PARQUET_SLICE) {
        const slice = await parquetReadObjects({ file, compressors, rowStart, rowEnd: Math.min(rows, rowStart + PARQUET_SLICE) });
        for (const [i, value] of slice.entries()) {
          for (const name of dates) if (value[name] instanceof Date) value[name] = (value[name] as Date).toISOString().slice(0, 10);
          yield { position: rowStart + i + 1, value: value as Record<string, unknown> };
        }
      }
    })(),
  };
}
