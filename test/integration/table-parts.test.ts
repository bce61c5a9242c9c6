/**
 * A CSV loaded in parts as it arrives (TableLoader.appendParts) against the same bytes loaded as one file
 * (appendFile): the same rows, columns and statistics, the same refusal of a bad cell, whether every part is taken in
 * one pass or a later part declines and the whole file is loaded after all.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import type { DataStore, TableRef } from '../../src/store/data/port.js';
import { SAMPLE_ROWS } from '../../src/tables/ingest.js';
import { TableLoader } from '../../src/tables/loader.js';
import { splitIntoParts } from '../../src/tables/parts.js';
import { receiveFile } from '../../src/tables/receive.js';
import { sharedDataStore } from '../helpers/app.js';

const ROWS = 25_000;

/** Integers (some missing), decimals and quoted text with line breaks; `cell` replaces row `at`'s integer. */
function csv(replace?: { at: number; cell: string }): string {
  let text = 'id,count,amount,note\n';
  for (let i = 0; i < ROWS; i += 1) {
    const count = replace?.at === i ? replace.cell : i % 9 === 0 ? '' : String(i % 50);
    text += `${i},${count},${(i / 4).toFixed(2)},${i % 4 === 0 ? `"row ${i},\nsecond ""line"""` : `row ${i}`}\n`;
  }
  return text;
}

/** The store, counting the one-pass statements it runs. */
function counting(store: DataStore): DataStore & { onePass: number } {
  const counted = Object.create(store) as DataStore & { onePass: number };
  counted.onePass = 0;
  counted.insertFromFile = (...args) => {
    counted.onePass += 1;
    return store.insertFromFile(...args);
  };
  return counted;
}

async function loadBoth(t: TestContext, text: string) {
  const store = counting(sharedDataStore());
  const loader = new TableLoader(() => store);
  const directory = await mkdtemp(join(tmpdir(), 'causa-table-parts-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const org = newId('org');
  const parts: TableRef = { organisationId: org, tableId: newId('src') };
  const whole: TableRef = { organisationId: org, tableId: newId('src') };
  t.after(async () => {
    await store.dropTable(parts);
    await store.dropTable(whole);
  });
  const bytes = Buffer.from(text);
  const chunks = Array.from({ length: Math.ceil(bytes.length / 4093) }, (_, i) => bytes.subarray(i * 4093, (i + 1) * 4093));
  const parted = await splitIntoParts([Readable.from(chunks)], directory, { partBytes: 32 * 1024, firstPartRecords: SAMPLE_ROWS + 1, maxBytes: 1e9 });
  const inParts = await loader.appendParts(parts, null, parted, 0).catch((error: Error) => error);
  const onePass = store.onePass;
  const file = await receiveFile(Readable.from([bytes]), directory);
  const asWhole = await loader.appendFile(whole, null, file, 'csv', 0).catch((error: Error) => error);
  const rows = async (table: TableRef) => (inParts instanceof Error ? [] : store.query(org, (sql) => `SELECT * FROM ${sql.table(table.tableId)} ORDER BY _causa_row`));
  return { inParts, asWhole, onePass, store, parts, rows: { parts: await rows(parts), whole: await rows(whole) } };
}

test('parts loaded in one pass as they arrive store what the whole file stores', async (t) => {
  const { inParts, asWhole, onePass, rows } = await loadBoth(t, csv());
  assert.ok(!(inParts instanceof Error) && !(asWhole instanceof Error));
  assert.ok(onePass > 10, `every part in one pass (${onePass} statements)`);
  assert.equal(inParts.rowCount, ROWS);
  assert.deepEqual(inParts.columns, asWhole.columns);
  assert.deepEqual(inParts.columnMetadata, asWhole.columnMetadata);
  assert.equal(rows.parts.length, ROWS);
  assert.deepEqual(rows.parts, rows.whole);
});

test('a later part the one pass declines has the whole file loaded instead, with the same rows', async (t) => {
  // "NA" is missing to the converter, but no integer: the part holding it declines, after earlier parts were taken.
  const { inParts, asWhole, onePass, rows } = await loadBoth(t, csv({ at: 20_000, cell: 'NA' }));
  assert.ok(!(inParts instanceof Error) && !(asWhole instanceof Error));
  assert.ok(onePass > 3, `earlier parts went in one pass (${onePass})`);
  assert.deepEqual(inParts.columns, asWhole.columns);
  assert.deepEqual(rows.parts, rows.whole);
  assert.equal((rows.parts[20_000] as { count: unknown }).count, null);
});

test('a bad cell in a later part is refused as the whole file refuses it, and nothing is left', async (t) => {
  const { inParts, asWhole, store, parts } = await loadBoth(t, csv({ at: 20_000, cell: 'abc' }));
  assert.ok(inParts instanceof Error && asWhole instanceof Error);
  assert.equal(inParts.message, asWhole.message);
  assert.match(inParts.message, /^Line \d+, column "count": "abc"/);
  const [left] = await store.query<{ n: string }>(parts.organisationId, () => `SELECT toString(count()) AS n FROM system.tables WHERE database = {db:String} AND name = {name:String}`, { db: parts.organisationId, name: parts.tableId });
  assert.equal(left!.n, '0', 'the table of the refused first batch is gone');
});
