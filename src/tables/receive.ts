import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';

export const QUOTE = 0x22;
const EMPTY_LINE = Buffer.from('\n\n');
const EMPTY_CRLF_LINE = Buffer.from('\n\r\n');
const DOUBLED_QUOTE = Buffer.from('""');

/** Largest file one upload may carry. */
export const MAX_UPLOAD_BYTES = 10 * 1024 ** 3;

/** A file received on disk, with what the readers found scanning it. */
export interface FileOnDisk {
  path: string;
  /**
   * Double quotes in the file. In well-formed CSV they pair up (""-escapes too), so an odd count is a quote left
   * open: such a file is read by the JS reader, which names the line, never by the engine, which would read on.
   */
  quotes: number;
  /** Whether the file has an empty line: the JS reader skips them, the engine's CSV reader does not. */
  blankLines: boolean;
  /**
   * Whether two quotes follow each other anywhere (an escaped quote, or a quoted empty cell, which the engine's
   * integer parser reads as 0): unknown (a file stored before it was recorded) counts as yes.
   */
  doubledQuotes?: boolean;
}

/**
 * What the readers need to know of CSV bytes as they pass (FileOnDisk's quotes, blankLines and doubledQuotes), fed
 * chunk by chunk. The bytes start as after a line end (a file, or a part cut at a record end).
 */
export class CsvScan {
  quotes = 0;
  blankLines = false;
  doubledQuotes = false;
  private lastByte = 0;
  // The last bytes seen, so a blank line or two quotes split across chunks are seen.
  private tail: Buffer = Buffer.from('\n');

  add(bytes: Buffer): void {
    for (let at = bytes.indexOf(QUOTE); at !== -1; at = bytes.indexOf(QUOTE, at + 1)) this.quotes += 1;
    this.doubledQuotes ||= (this.lastByte === QUOTE && bytes[0] === QUOTE) || bytes.includes(DOUBLED_QUOTE);
    this.lastByte = bytes.at(-1) ?? this.lastByte;
    if (!this.blankLines) {
      const seam = Buffer.concat([this.tail, bytes.subarray(0, 2)]);
      this.blankLines = [seam, bytes].some((b) => b.includes(EMPTY_LINE) || b.includes(EMPTY_CRLF_LINE));
      this.tail = bytes.length >= 2 ? bytes.subarray(-2) : Buffer.concat([this.tail, bytes]).subarray(-2);
    }
  }
}

export interface ReceivedFile extends FileOnDisk {
  /** sha256 of the bytes, hex: the batch's identity (the same bytes never land twice). */
  hash: string;
  bytes: number;
  discard(): Promise<void>;
}

/**
 * Streams a request body to a temporary file while hashing and counting it: memory stays bounded whatever the
 * file size, and the file can be read twice (sample, then all rows).
 */
export async function receiveFile(body: Readable, directory: string, maxBytes = MAX_UPLOAD_BYTES): Promise<ReceivedFile> {
  await mkdir(directory, { recursive: true });
  const path = join(directory, newId('upload'));
  const hash = createHash('sha256');
  let bytes = 0;
  const scan = new CsvScan();
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) return done(new AppError('payload_too_large', `An upload may carry at most ${maxBytes} bytes`));
      hash.update(chunk);
      scan.add(chunk);
      done(null, chunk);
    },
  });
  const discard = () => rm(path, { force: true });
  try {
    await pipeline(body, meter, createWriteStream(path));
  } catch (error) {
    await discard();
    throw error;
  }
  return { path, hash: hash.digest('hex'), bytes, quotes: scan.quotes, blankLines: scan.blankLines, doubledQuotes: scan.doubledQuotes, discard };
}
