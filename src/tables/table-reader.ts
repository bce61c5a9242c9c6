import { AppError } from '../errors.js';
import type { FileFormat } from '../store/data/port.js';

/** One row of a file or request: its cells by the batch's fields, and where it came from (for errors). */
export interface BatchRow {
  line: number;
  cells: Array<string | null>;
}

/** A file read as a table: its columns and its rows, streamed. */
export interface TableReader {
  fields: string[];
  rows: AsyncIterable<BatchRow>;
  /** The format the data engine can read the same file in, when it can (then it may load the file itself). */
  engineFormat: FileFormat | null;
  /** Stops reading (when the engine loads the file instead). */
  close(): void;
}

export const malformed = (line: number | string, reason: string) => new AppError('validation_failed', `Malformed file at line ${line}: ${reason}`);
