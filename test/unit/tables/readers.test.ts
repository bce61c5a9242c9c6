/**
 * The CSV reader reads the head of a file at once and streams the rest (readers.ts): across that seam, records and
 * their line numbers are csv-parse's own on the whole file, and a malformed record past the head is named at the line
 * csv-parse names.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { readFile } from 'node:fs/promises';
import { readCsvHead } from '../../../src/tables/csv-head.js';
import { HEAD_BYTES, openTable } from '../../../src/tables/readers.js';

/** About 2.4 MB of records, some quoted with commas, quotes and line breaks, so records span the 1 MiB head's end. */
function csv(rows: number, bad?: number): string {
  const lines = ['id,note,amount'];
  for (let i = 1; i <= rows; i++) lines.push(i === bad ? `${i},"unclosed` : i % 3 === 0 ? `${i},"line ${i}, ""quoted""\nsecond line ${'x'.repeat(i % 50)}",${i * 0.5}` : `${i},plain ${i},${i}`);
  return `${lines.join('\n')}\n`;
}

for (const ends of ['\n', '\r\n']) test(`records read across the end of the head (lines ended by ${JSON.stringify(ends)}) are those of csv-parse on the whole file, line numbers included`, async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'causa-readers-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  // Line feeds: the head read at once (csv-head.ts), then csv-parse; carriage returns too: csv-parse alone.
  const text = csv(60_000).replaceAll('\n', ends);
  assert.ok(Buffer.byteLength(text) > 2 * 1024 * 1024, 'the file is larger than the head');
  const path = join(directory, 'rows.csv');
  await writeFile(path, text);
  // Line feeds alone: the head reader answers for this file's head (so the seam is crossed); with carriage returns it declines.
  assert.equal(readCsvHead(Buffer.from(text).subarray(0, HEAD_BYTES), ',', false) !== null, ends === '\n');
  const reader = await openTable(path, 'csv');
  const read: Array<{ line: number; cells: string[] }> = [];
  for await (const row of reader.rows) read.push({ line: row.line, cells: row.cells as string[] });
  const expected = (parse(text, { info: true, skip_empty_lines: true }) as Array<{ record: string[]; info: { lines: number } }>).slice(1);
  assert.deepEqual(reader.fields, ['id', 'note', 'amount']);
  assert.equal(read.length, 60_000);
  const differences = read.flatMap((row, i) => (row.line === expected[i]!.info.lines && JSON.stringify(row.cells) === JSON.stringify(expected[i]!.record) ? [] : [i]));
  assert.deepEqual(differences.slice(0, 5), []);
});

test('a malformed record past the head is named at the line csv-parse names on the whole file', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'causa-readers-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const text = csv(60_000, 50_000);
  const path = join(directory, 'bad.csv');
  await writeFile(path, text);
  let expected = 0;
  let words = '';
  assert.throws(() => parse(text, { info: true, skip_empty_lines: true }), (error: { lines: number; message: string }) => ((expected = error.lines), (words = error.message.replace(/^Invalid [^:]*: /, '')), true));
  assert.ok(expected > 60_000, `past the head (line ${expected})`);
  assert.match(words, new RegExp(`line ${expected}`), 'csv-parse names the line in its words too');
  const reader = await openTable(path, 'csv');
  const read = async () => {
    for await (const _ of reader.rows) {
      // read to the end
    }
  };
  await assert.rejects(read, (error: Error) => error.message === `Malformed file at line ${expected}: ${words}`);
});

test('a file of exactly the head\'s size is read whole, whether its last record ends with a line feed or not', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'causa-readers-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  for (const ended of [true, false]) {
    let text = csv(20_000);
    text = text.slice(0, text.lastIndexOf('\n', HEAD_BYTES - 40) + 1);
    const last = `9999999,${'y'.repeat(HEAD_BYTES - Buffer.byteLength(text) - (ended ? 11 : 10))},1`;
    text += ended ? `${last}\n` : last;
    assert.equal(Buffer.byteLength(text), HEAD_BYTES);
    const path = join(directory, `exact-${ended}.csv`);
    await writeFile(path, text);
    assert.equal((await readFile(path)).length, HEAD_BYTES);
    const reader = await openTable(path, 'csv');
    const read: Array<{ line: number; cells: string[] }> = [];
    for await (const row of reader.rows) read.push({ line: row.line, cells: row.cells as string[] });
    const expected = (parse(text, { info: true, skip_empty_lines: true }) as Array<{ record: string[]; info: { lines: number } }>).slice(1).map(({ record, info }) => ({ line: info.lines, cells: record }));
    assert.equal(read.length, expected.length);
    assert.deepEqual(read.at(-1), expected.at(-1));
    assert.equal(JSON.stringify(read), JSON.stringify(expected));
  }
});
