import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.js';
import { coalesce } from '../lib/coalesce.js';
import { newId } from '../lib/ids.js';
import { CsvScan, type FileOnDisk, QUOTE, type ReceivedFile } from './receive.js';

/**
 * A CSV stream written to disk in parts cut at record ends, each part handed over as soon as it is complete: the
 * rows of one part are loaded while the next is still arriving (a connector's extraction overlaps the loading).
 * The first part keeps the header line; the others hold records only. Read one after the other they are the
 * stream itself, which `whole()` joins into one file for the readers that need every row in one file. Several
 * streams of one read (a table read in ranges over several connections) are written side by side into one set
 * of parts: the header part first, then the parts of every stream as they complete.
 */

const LINE_END = 0x0a;

/** One part on disk: the header with the first records (`CSVWithNames`), or records only (`CSV`). */
export interface FilePart extends FileOnDisk {
  format: 'CSVWithNames' | 'CSV';
}

export interface PartedFile {
  /**
   * The next complete part, in stream order (streams side by side: the header part, then parts as they complete);
   * null after the last. A failed stream rejects. One reader only.
   */
  next(): Promise<FilePart | null>;
  /** The streams' identity and size, once they have ended (a failed stream rejects). */
  finished: Promise<{ hash: string; bytes: number }>;
  /** Every part joined in the order handed out into one file (one stream: as it came), once the streams have ended. */
  whole(): Promise<ReceivedFile>;
  /** Removes every part (and the joined file). */
  discard(): Promise<void>;
}

export interface PartOptions {
  /** A part is closed at the first record end after this many bytes. */
  partBytes: number;
  /**
   * The first part is closed as soon as it holds this many records (the header and the sample a schema is decided
   * from), whatever its size: the schema is decided and the table made while the rest still streams.
   */
  firstPartRecords: number;
  /** Largest stream accepted: beyond it the stream fails with 413. */
  maxBytes: number;
}

/** The scan of one part (each part starts at a record end), and its records while the first part's sample fills. */
class PartScan extends CsvScan {
  /** Records ended in the part, counted while fewer than `countRecords` (the first part's sample). */
  records = 0;

  constructor(private readonly countRecords: number) {
    super();
  }

  override add(bytes: Buffer): void {
    // Counted before the quotes of these bytes are: a line end is a record end after an even count before it.
    if (this.records < this.countRecords) this.records += recordEnds(bytes, this.quotes).length;
    super.add(bytes);
  }
}

/**
 * The record ends in `bytes` (each the index after its line end), `openQuotes` quotes preceding it: a line end
 * after an odd count is inside a quoted field, part of its data. At most `limit` are looked for.
 */
export function recordEnds(bytes: Buffer, openQuotes: number, limit = Infinity): number[] {
  const ends: number[] = [];
  let quotes = openQuotes;
  let quote = bytes.indexOf(QUOTE);
  for (let end = bytes.indexOf(LINE_END); end !== -1 && ends.length < limit; end = bytes.indexOf(LINE_END, end + 1)) {
    while (quote !== -1 && quote < end) {
      quotes += 1;
      quote = bytes.indexOf(QUOTE, quote + 1);
    }
    if (quotes % 2 === 0) ends.push(end + 1);
  }
  return ends;
}

/**
 * Writes `bodies` into parts under `directory`; the parts are read with `next()` while the bodies still stream.
 * The first body starts with the header line; the others (ranges of the same read, streamed side by side) hold
 * records of the same columns only. The first part handed out is the first body's first (the header and the
 * sample); the others follow as they are completed, whichever body they come from.
 */
export async function splitIntoParts(bodies: readonly Readable[], directory: string, options: PartOptions): Promise<PartedFile> {
  await mkdir(directory, { recursive: true });
  const stem = join(directory, newId('upload'));
  /** Completed parts in the order they are handed out; `ready` those not handed out yet. */
  const made: FilePart[] = [];
  const ready: FilePart[] = [];
  const waiting: Array<{ resolve: (part: FilePart | null) => void; reject: (error: unknown) => void }> = [];
  const writing = new Set<WriteStream>();
  let headed = false;
  let ended = false;
  let failure: unknown;
  let bytes = 0;
  let opened = 0;

  const settle = () => {
    // Nothing is handed out before the header part, unless the bodies have ended without one.
    while (waiting.length > 0 && (failure !== undefined || (ready.length > 0 && headed) || ended)) {
      const waiter = waiting.shift()!;
      if (failure !== undefined) waiter.reject(failure);
      else if (ready.length > 0) waiter.resolve(ready.shift()!);
      else waiter.resolve(null);
    }
  };

  /** Writes one body into parts; answers its sha256. */
  const split = (body: Readable, index: number): Promise<string> => {
    const hash = createHash('sha256');
    /** Whether the part being written is the header part: the first body's first. */
    let heading = index === 0;
    let out: WriteStream | undefined;
    let scan = new PartScan(0);
    let partBytes = 0;
    const open = () => {
      // Write errors reach the writer through write()'s callback (a stream stopped by a failure refuses writes).
      out = createWriteStream(`${stem}.${opened++}`).on('error', () => undefined);
      writing.add(out);
      scan = new PartScan(heading ? options.firstPartRecords : 0);
      partBytes = 0;
    };
    const write = (chunk: Buffer) =>
      new Promise<void>((resolve, reject) => {
        if (out!.destroyed) return reject(new Error('the parts were discarded'));
        scan.add(chunk);
        partBytes += chunk.length;
        out!.write(chunk, (error) => (error ? reject(error) : resolve()));
      });
    const close = async () => {
      const stream = out!;
      out = undefined;
      await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
      writing.delete(stream);
      const part: FilePart = { path: stream.path as string, quotes: scan.quotes, blankLines: scan.blankLines, doubledQuotes: scan.doubledQuotes, format: heading ? 'CSVWithNames' : 'CSV' };
      if (heading) {
        made.unshift(part);
        ready.unshift(part);
        headed = true;
        heading = false;
      } else {
        made.push(part);
        ready.push(part);
      }
      settle();
    };
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > options.maxBytes) return done(new AppError('payload_too_large', `An import may carry at most ${options.maxBytes} bytes`));
        hash.update(chunk);
        void (async () => {
          let rest = chunk;
          while (rest.length > 0) {
            if (out === undefined) open();
            // Due: the header part once it holds its sample, the others once big enough. Cut at the first record end
            // of this chunk.
            const due = heading ? scan.records >= options.firstPartRecords : partBytes + rest.length >= options.partBytes;
            const end = due ? (recordEnds(rest, scan.quotes, 1)[0] ?? -1) : -1;
            if (end === -1) {
              await write(rest);
              return;
            }
            await write(rest.subarray(0, end));
            await close();
            rest = rest.subarray(end);
          }
        })().then(() => done(), done);
      },
      final(done) {
        (out === undefined ? Promise.resolve() : close()).then(() => done(), done);
      },
    });
    // Written in pieces of up to 1 MiB (an eighth of a part at most, so small parts still cut where they should).
    return pipeline(body, coalesce(Math.min(1 << 20, Math.ceil(options.partBytes / 8))), sink).then(() => hash.digest('hex'));
  };

  const finished = Promise.all(bodies.map(split)).then(
    (hashes) => {
      ended = true;
      settle();
      // One body: the hash of its bytes. Several: the hash of theirs in order (the ranges of one read, always cut alike).
      return { hash: hashes.length === 1 ? hashes[0]! : createHash('sha256').update(hashes.join('\n')).digest('hex'), bytes };
    },
    (error: unknown) => {
      // The first failure stops every body and is the one reported.
      failure = error;
      for (const body of bodies) body.destroy();
      for (const out of writing) out.destroy();
      settle();
      throw error;
    },
  );
  finished.catch(() => undefined); // read through next() or finished by the caller
  const discard = async () => {
    await Promise.all([...made.map((part) => part.path), ...[...writing].map((out) => out.path as string), `${stem}.whole`].map((path) => rm(path, { force: true })));
  };

  return {
    next: () =>
      new Promise<FilePart | null>((resolve, reject) => {
        waiting.push({ resolve, reject });
        settle();
      }),
    finished,
    async whole() {
      const { hash: digest, bytes: size } = await finished;
      const path = `${stem}.whole`;
      const joined = createWriteStream(path);
      for (const part of made) await pipeline(createReadStream(part.path), joined, { end: false });
      await new Promise<void>((resolve, reject) => joined.end((error?: Error | null) => (error ? reject(error) : resolve())));
      // Parts are cut at record ends, and each part's scan starts as after a line end: the parts' counts are the file's.
      const quotes = made.reduce((sum, part) => sum + part.quotes, 0);
      return { path, hash: digest, bytes: size, quotes, blankLines: made.some((part) => part.blankLines), doubledQuotes: made.some((part) => part.doubledQuotes), discard: () => rm(path, { force: true }) };
    },
    discard,
  };
}
