import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { type FilePart, type PartedFile, recordEnds, splitIntoParts } from '../../../src/tables/parts.js';
import { receiveFile } from '../../../src/tables/receive.js';

/** Records `from` to `to` (excluded) with quoted cells holding delimiters, doubled quotes and line breaks (CRLF too): line ends that end no record. */
function records(from: number, to: number): string {
  let text = '';
  for (let i = from; i < to; i += 1) {
    const note = i % 3 === 0 ? `"line one\nline ""two"", ${i}"` : i % 3 === 1 ? `"a\r\nb"` : `plain ${i}`;
    text += `${i},${note},${(i * 1.5).toFixed(1)}\n`;
  }
  return text;
}

/** A CSV of `count` such records under a header line. */
const csv = (count: number) => `id,note,amount\n${records(0, count)}`;

/** The body in chunks of `size` bytes, so cuts fall inside quoted cells and between \r and \n. */
const chunked = (text: string, size: number) => Readable.from(Array.from({ length: Math.ceil(text.length / size) }, (_, i) => Buffer.from(text.slice(i * size, (i + 1) * size))));

async function allParts(parted: PartedFile): Promise<FilePart[]> {
  const parts: FilePart[] = [];
  for (let part = await parted.next(); part !== null; part = await parted.next()) parts.push(part);
  return parts;
}

async function withDirectory(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'causa-parts-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

test('record ends skip line breaks inside quoted cells', () => {
  const bytes = Buffer.from('a,"x\ny",b\nc,"""",d\n"open\n');
  assert.deepEqual(recordEnds(bytes, 0), [10, 19]);
  // After an open quote the first line end is data; once a quote closes it, the next ones end records.
  assert.deepEqual(recordEnds(Buffer.from('x\n"\nz\n'), 1), [4, 6]);
  assert.deepEqual(recordEnds(bytes, 0, 1), [10]);
});

test('a CSV stream is cut into parts at record ends; in order they are the stream, and the first holds its sample', async (t) => {
  const directory = await withDirectory(t);
  const text = csv(8000);
  // 500 records take about 14 KiB: the first part is cut long before partBytes.
  const parted = await splitIntoParts([chunked(text, 997)], directory, { partBytes: 32768, firstPartRecords: 500, maxBytes: 1e9 });
  const parts = await allParts(parted);
  assert.ok(parts.length > 5, `${parts.length} parts`);
  assert.deepEqual(parts.map((part) => part.format), ['CSVWithNames', ...parts.slice(1).map(() => 'CSV')]);
  const contents = await Promise.all(parts.map((part) => readFile(part.path, 'utf8')));
  assert.equal(contents.join(''), text);
  for (const [i, content] of contents.entries()) {
    // Each part ends a record (quotes balanced, a final line end), and says so.
    assert.equal(parts[i]!.quotes % 2, 0, `part ${i}`);
    assert.equal(parts[i]!.quotes, content.split('"').length - 1);
    assert.ok(content.endsWith('\n'));
    assert.equal(parts[i]!.blankLines, false);
    assert.equal(parts[i]!.doubledQuotes, content.includes('""'), `part ${i}: two quotes in a row`);
  }
  // The first part is cut as soon as it holds its sample (within a chunk or two of 997 bytes), not at partBytes.
  const firstRecords = recordEnds(Buffer.from(contents[0]!), 0).length;
  assert.ok(firstRecords >= 500 && firstRecords < 650, `the first part holds the header and 499 records at least, and not many more: ${firstRecords}`);
  const { hash, bytes } = await parted.finished;
  assert.equal(hash, createHash('sha256').update(text).digest('hex'));
  assert.equal(bytes, Buffer.byteLength(text));
  const whole = await parted.whole();
  assert.equal(await readFile(whole.path, 'utf8'), text);
  assert.equal(whole.quotes, text.split('"').length - 1);
  assert.equal(whole.hash, hash);
  assert.equal(whole.doubledQuotes, true);
  await parted.discard();
  await assert.rejects(readFile(parts[0]!.path));
  await assert.rejects(readFile(whole.path));
});

test('a blank line is seen where a cut falls on it, and a quote left open is counted', async (t) => {
  const directory = await withDirectory(t);
  const text = `${'a,b\n'.repeat(50)}\n${'c,d\n'.repeat(50)}"open\n`;
  const parted = await splitIntoParts([chunked(text, 7)], directory, { partBytes: 200, firstPartRecords: 1, maxBytes: 1e9 });
  const parts = await allParts(parted);
  assert.equal(parts.filter((part) => part.blankLines).length, 1);
  assert.equal(parts.at(-1)!.quotes % 2, 1, 'the last part holds the open quote');
  const whole = await parted.whole();
  assert.equal(whole.blankLines, true);
  assert.equal(whole.quotes % 2, 1);
  await parted.discard();
});

test('a failing stream fails the reader of the parts, and a stream past the limit answers 413', async (t) => {
  const directory = await withDirectory(t);
  const failing = Readable.from((async function* failing() {
    yield Buffer.from('a,b\n1,2\n'.repeat(100));
    throw new Error('the source went away');
  })());
  const parted = await splitIntoParts([failing], directory, { partBytes: 64, firstPartRecords: 1, maxBytes: 1e9 });
  await assert.rejects(allParts(parted), /the source went away/);
  await assert.rejects(parted.finished, /the source went away/);
  await parted.discard();

  const large = await splitIntoParts([chunked('a,b\n'.repeat(1000), 100)], directory, { partBytes: 64, firstPartRecords: 1, maxBytes: 1000 });
  await assert.rejects(allParts(large), (error: Error & { code?: string }) => error.code === 'payload_too_large');
  await large.discard();
});

test('two quotes in a row are seen where a chunk boundary splits them, in a received file and in parts', async (t) => {
  const directory = await withDirectory(t);
  const seen = async (chunks: string[]) => {
    const file = await receiveFile(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), directory);
    const parted = await splitIntoParts([Readable.from(chunks.map((chunk) => Buffer.from(chunk)))], directory, { partBytes: 1e6, firstPartRecords: 1, maxBytes: 1e9 });
    const [part] = await allParts(parted);
    await Promise.all([file.discard(), parted.discard()]);
    return [file.doubledQuotes, part!.doubledQuotes];
  };
  assert.deepEqual(await seen(['a,b\n1,"', '",x\n']), [true, true]);
  assert.deepEqual(await seen(['a,b\n1,""', ',x\n']), [true, true]);
  assert.deepEqual(await seen(['a,b\n1,"x', '",y\n', '"z",2\n']), [false, false]);
});

/** A body that waits `ms` before its first byte, then streams `text` in chunks of `size`. */
const delayed = (text: string, size: number, ms: number) =>
  Readable.from((async function* late() {
    await new Promise((resolve) => setTimeout(resolve, ms));
    for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
  })());

test('streams of one read written side by side: the header part first, every record once, the byte limit over all', async (t) => {
  const directory = await withDirectory(t);
  const head = csv(3000);
  // The ranges after the first start at once; the first (with the header) arrives late.
  const ranges = [records(3000, 6000), records(6000, 9000)];
  const parted = await splitIntoParts([delayed(head, 997, 50), chunked(ranges[0]!, 1009), chunked(ranges[1]!, 499)], directory, { partBytes: 16384, firstPartRecords: 200, maxBytes: 1e9 });
  const parts = await allParts(parted);
  assert.deepEqual(parts.map((part) => part.format), ['CSVWithNames', ...parts.slice(1).map(() => 'CSV')]);
  const contents = await Promise.all(parts.map((part) => readFile(part.path, 'utf8')));
  assert.ok(contents[0]!.startsWith('id,note,amount\n'));
  for (const [i, content] of contents.entries()) {
    assert.equal(parts[i]!.quotes % 2, 0, `part ${i} ends a record`);
    assert.ok(content.endsWith('\n'));
  }
  // Every record of every stream once, whichever order the parts completed in.
  const ids = (text: string) => [...text.matchAll(/^(\d+),/gm)].map((match) => Number(match[1]));
  assert.deepEqual(contents.flatMap(ids).sort((a, b) => a - b), Array.from({ length: 9000 }, (_, i) => i));
  const { bytes } = await parted.finished;
  assert.equal(bytes, Buffer.byteLength(head) + Buffer.byteLength(ranges[0]!) + Buffer.byteLength(ranges[1]!));
  const whole = await parted.whole();
  assert.equal(await readFile(whole.path, 'utf8'), contents.join(''));
  await parted.discard();

  // The limit counts the bytes of all streams: each alone is within it.
  const limited = await splitIntoParts([chunked('a,b\n'.repeat(200), 100), chunked('1,2\n'.repeat(200), 100)], directory, { partBytes: 64, firstPartRecords: 1, maxBytes: 1200 });
  await assert.rejects(allParts(limited), (error: Error & { code?: string }) => error.code === 'payload_too_large');
  await limited.discard();
});

test('a failing range fails the reader and stops the other streams', async (t) => {
  const directory = await withDirectory(t);
  const endless = Readable.from((async function* endless() {
    yield Buffer.from('a,b\n');
    for (;;) {
      yield Buffer.from('1,2\n'.repeat(100));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })());
  const failing = Readable.from((async function* failing() {
    yield Buffer.from('3,4\n'.repeat(100));
    await new Promise((resolve) => setTimeout(resolve, 30));
    throw new Error('the range went away');
  })());
  const parted = await splitIntoParts([endless, failing], directory, { partBytes: 256, firstPartRecords: 1, maxBytes: 1e9 });
  await assert.rejects(allParts(parted), /the range went away/);
  await assert.rejects(parted.finished, /the range went away/);
  assert.equal(endless.destroyed, true);
  await parted.discard();
});
