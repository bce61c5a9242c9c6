import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@clickhouse/client';
import { newId } from '../../src/lib/ids.js';
import { DataStoreError, createClickHouseDataStore } from '../../src/store/data/clickhouse.js';
import { openChdbDataStore } from '../../src/store/data/open.js';
import { type DataStore, InvalidIdentifierError, type TableRef } from '../../src/store/data/port.js';

const AWKWARD = ["it's", 'back\\slash', 'new\nline', 'émoji 🚀', '`tick`', "'); DROP TABLE x; --"];

/** One suite, every data store adapter (hono's common.case.test.ts pattern). */
function describeDataStoreConformance(name: string, open: (() => DataStore) | undefined) {
  describe(`data store: ${name}`, { skip: open === undefined ? 'TEST_CLICKHOUSE_URL (or CLICKHOUSE_URL) not set' : false }, () => {
    let store: DataStore;
    const orgA = newId('org');
    const orgB = newId('org');
    const people: TableRef = { organisationId: orgA, tableId: newId('src') };

    before(async () => {
      store = open!();
      await store.ensureTenant(orgA);
      await store.ensureTenant(orgA); // idempotent
      await store.ensureTenant(orgB);
      await store.createTable(
        people,
        [
          { name: 'id', type: 'UInt64' },
          { name: 'name', type: 'String' },
          { name: 'score', type: 'Nullable(Float64)' },
          { name: 'odd `column`', type: 'Nullable(String)' },
        ],
        ['id'],
      );
      await store.insert(
        people,
        AWKWARD.map((text, i) => ({ id: i, name: text, score: i % 2 === 0 ? i / 3 : null, 'odd `column`': text })),
      );
    });
    after(async () => {
      await store.dropTable(people);
      await store.close();
    });

    it('round-trips awkward values, and binds parameters instead of splicing them', async () => {
      const rows = await store.query<{ id: string; name: string; score: number | null }>(orgA, (sql) => `SELECT id, name, score, ${sql.column('odd `column`')} AS odd FROM ${sql.table(people.tableId)} ORDER BY id`);
      assert.deepEqual(rows.map((r) => r.name), AWKWARD);
      assert.equal(rows[1]!.score, null);
      assert.ok(Math.abs(rows[2]!.score! - 2 / 3) < 1e-12);
      for (const text of AWKWARD) {
        const hit = await store.query<{ n: string }>(orgA, (sql) => `SELECT count() AS n FROM ${sql.table(people.tableId)} WHERE name = {name:String}`, { name: text });
        assert.equal(Number(hit[0]!.n), 1, text);
      }
    });

    it('confines SQL to the calling organisation: another tenant cannot reach the table, whatever ids it sends', async () => {
      const refused = await store.query(orgB, (sql) => `SELECT * FROM ${sql.table(people.tableId)}`).catch((error: Error) => error);
      assert.ok(refused instanceof DataStoreError);
      assert.match(refused.message, /Unknown table|does not exist|UNKNOWN_TABLE/i);
      assert.ok(!refused.message.includes(orgA), 'the error does not name the other tenant');
      for (const forged of [`${people.tableId}\`; SELECT 1`, `${orgA}.${people.tableId}`, '../x', '']) {
        await assert.rejects(store.query(orgB, (sql) => `SELECT * FROM ${sql.table(forged)}`), InvalidIdentifierError);
      }
      await assert.rejects(store.query('org_x` UNION SELECT', (sql) => `SELECT 1 FROM ${sql.table(people.tableId)}`), InvalidIdentifierError);
    });

    it('runs only reads as queries: a write fails before the engine and changes nothing', async () => {
      await assert.rejects(store.query(orgA, (sql) => `INSERT INTO ${sql.table(people.tableId)} (id, name) VALUES (99, 'x')`), DataStoreError);
      await assert.rejects(store.query(orgA, (sql) => ` drop TABLE ${sql.table(people.tableId)}`), DataStoreError);
      const rows = await store.query<{ n: string }>(orgA, (sql) => `SELECT count() AS n FROM ${sql.table(people.tableId)}`);
      assert.equal(Number(rows[0]!.n), AWKWARD.length);
    });

    it('stops a long query at its time budget', { timeout: 30_000 }, async () => {
      const started = Date.now();
      await assert.rejects(
        store.query(orgA, () => 'SELECT sum(cityHash64(number)) FROM numbers(100000000000)', {}, { timeoutMs: 1000 }),
        /TIMEOUT_EXCEEDED|Timeout exceeded|max_execution_time/i,
      );
      assert.ok(Date.now() - started < 15_000, 'the engine stopped the query itself');
      // The limit belonged to that query only (chDB keeps settings in its session unless each query resets them).
      const rows = await store.query<{ m: string }>(orgA, () => "SELECT getSetting('max_execution_time') AS m");
      assert.equal(Number(rows[0]!.m), 0);
    });

    it('streams a large result row by row, complete and in order', async () => {
      let count = 0;
      let last = -1;
      let ordered = true;
      for await (const row of await store.stream(orgA, () => 'SELECT number AS n FROM numbers(200000) ORDER BY n')) {
        const n = Number(row.n);
        ordered &&= n === last + 1;
        last = n;
        count += 1;
      }
      assert.equal(count, 200000);
      assert.ok(ordered);
    });

    it('exports a result as CSV bytes', async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of await store.export(orgA, (sql) => `SELECT id, name FROM ${sql.table(people.tableId)} WHERE id < 2 ORDER BY id`, 'CSVWithNames')) {
        chunks.push(Buffer.from(chunk));
      }
      assert.equal(Buffer.concat(chunks).toString(), '"id","name"\n0,"it\'s"\n1,"back\\slash"\n');
    });

    it('inserts rows encoded as RowBinary, nulls and text kept, and exports them as RowBinary bytes', async () => {
      const table: TableRef = { organisationId: orgA, tableId: newId('brs') };
      await store.createTable(table, [{ name: 'row', type: 'UInt64' }, { name: 'x', type: 'Float64' }, { name: 'label', type: 'Nullable(String)' }], ['row']);
      try {
        await store.insertRowBinary(table, new Uint8Array(0));
        const text = (value: string) => Buffer.concat([Buffer.from([0, Buffer.byteLength(value)]), Buffer.from(value)]);
        const row = (n: number, x: number, label: Buffer) => {
          const head = Buffer.alloc(16);
          head.writeBigUInt64LE(BigInt(n), 0);
          head.writeDoubleLE(x, 8);
          return Buffer.concat([head, label]);
        };
        await store.insertRowBinary(table, Buffer.concat([row(0, 1.5, text("it's")), row(1, Number.NaN, Buffer.from([1])), row(2, -2e-300, text('émoji 🚀\ttab'))]));
        const rows = await store.query<{ row: number; label: string | null }>(orgA, (sql) => `SELECT row, label FROM ${sql.table(table.tableId)} ORDER BY row`);
        assert.deepEqual(rows.map((r) => r.label), ["it's", null, 'émoji 🚀\ttab']);
        const bytes: Buffer[] = [];
        for await (const part of await store.export(orgA, (sql) => `SELECT x FROM ${sql.table(table.tableId)} ORDER BY row`, 'RowBinary')) bytes.push(Buffer.from(part));
        const all = Buffer.concat(bytes);
        assert.equal(all.length, 24);
        assert.deepEqual([all.readDoubleLE(0), Number.isNaN(all.readDoubleLE(8)), all.readDoubleLE(16)], [1.5, true, -2e-300]);
      } finally {
        await store.dropTable(table);
      }
    });

    it('answers concurrent queries correctly', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.query<{ s: string }>(orgA, () => 'SELECT sum(number) AS s FROM numbers({n:UInt64})', { n: 1000 * (i + 1) })),
      );
      results.forEach(([row], i) => {
        const n = 1000 * (i + 1);
        assert.equal(Number(row!.s), (n * (n - 1)) / 2);
      });
    });

    it('loads a file by column position into a Log table in file order; insertSelect numbers and moves the rows', async () => {
      const csv = join(mkdtempSync(join(tmpdir(), 'causa-load-')), 'rows.csv');
      writeFileSync(csv, `header one,header two\n${Array.from({ length: 5000 }, (_, i) => `${4999 - i},"v, ${i}"`).join('\n')}\n`);
      const raw: TableRef = { organisationId: orgA, tableId: newId('raw') };
      const typed: TableRef = { organisationId: orgA, tableId: newId('stg') };
      await store.createTable(raw, [{ name: 'a', type: 'Nullable(String)' }, { name: 'b', type: 'Nullable(String)' }], [], 'Log');
      await store.createTable(typed, [{ name: 'row', type: 'UInt64' }, { name: 'a', type: 'Int64' }, { name: 'b', type: 'String' }], ['row']);
      try {
        await store.loadFile(raw, csv, 'CSVWithNames');
        await store.insertSelect(typed, (sql) => `SELECT rowNumberInAllBlocks(), toInt64(a), b FROM ${sql.table(raw.tableId)}`, {}, { singleThreaded: true });
        const rows = await store.query<{ row: number; a: number; b: string }>(orgA, (sql) => `SELECT row, a, b FROM ${sql.table(typed.tableId)} ORDER BY row`);
        assert.equal(rows.length, 5000);
        assert.deepEqual(rows[0], { row: 0, a: 4999, b: 'v, 0' });
        assert.ok(rows.every((r, i) => r.row === i && r.a === 4999 - i), 'file order kept');
        // insertSelect writes only into the calling organisation's tables, and reads only through its builder.
        await assert.rejects(store.insertSelect({ organisationId: orgB, tableId: typed.tableId }, (sql) => `SELECT * FROM ${sql.table(typed.tableId)}`));
        await assert.rejects(store.insertSelect(typed, () => 'DROP TABLE x'), DataStoreError);
      } finally {
        await store.dropTable(raw);
        await store.dropTable(typed);
      }
    });

    it('loads a large file in file order (the engine does not spread what it read over streams before inserting), numbered by the load when asked', async () => {
      // 3M rows: without the setting, 2 loads in 6 of such a file came out of order on chDB.
      const csv = join(mkdtempSync(join(tmpdir(), 'causa-load-')), 'rows.csv');
      const lines: string[] = [];
      for (let i = 0; i < 3_000_000; i++) lines.push(String(i));
      writeFileSync(csv, `a\n${lines.join('\n')}\n`);
      const raw: TableRef = { organisationId: orgA, tableId: newId('raw') };
      await store.createTable(raw, [{ name: 'a', type: 'Nullable(String)' }], [], 'Log');
      try {
        await store.loadFile(raw, csv, 'CSVWithNames');
        const [counted] = await store.query<{ n: string | number; misplaced: string | number }>(orgA, (sql) => `SELECT count() AS n, countIf(toUInt64(a) != rowNumberInAllBlocks()) AS misplaced FROM ${sql.table(raw.tableId)}`, {}, { singleThreaded: true });
        assert.equal(Number(counted!.n), 3_000_000);
        assert.equal(Number(counted!.misplaced), 0, 'every row where the file has it');
        // Numbered by the load itself: the ordinal is each row's line in the file, read back on every thread.
        const numbered: TableRef = { organisationId: orgA, tableId: newId('raw') };
        await store.createTable(numbered, [{ name: 'ordinal', type: 'UInt64' }, { name: 'a', type: 'Nullable(String)' }], [], 'Log');
        try {
          await store.loadFile(numbered, csv, 'CSVWithNames', { ordinal: 'ordinal' });
          const [ordinals] = await store.query<{ n: string | number; misplaced: string | number }>(orgA, (sql) => `SELECT count() AS n, countIf(toUInt64(a) != ordinal) AS misplaced FROM ${sql.table(numbered.tableId)}`);
          assert.equal(Number(ordinals!.n), 3_000_000);
          assert.equal(Number(ordinals!.misplaced), 0, 'every ordinal is the row\'s place in the file');
        } finally {
          await store.dropTable(numbered);
        }
      } finally {
        await store.dropTable(raw);
      }
    });

    it('inserts what a SELECT over a parsed file builds, rows in file order, numbered from a bound start; a headerless part too', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'causa-insert-file-'));
      const lines: string[] = [];
      for (let i = 0; i < 1_000_000; i++) lines.push(`${i},"t ${i % 7}"`);
      writeFileSync(join(dir, 'head.csv'), `n,t\n${lines.join('\n')}\n`);
      writeFileSync(join(dir, 'part.csv'), '5," x "\n6,\n');
      const target: TableRef = { organisationId: orgA, tableId: newId('src') };
      await store.createTable(target, [{ name: 'row', type: 'UInt64' }, { name: 'n', type: 'Int64' }, { name: 't', type: 'Nullable(String)' }], ['row']);
      try {
        const structure = [{ name: 'a', type: 'Int128' }, { name: 'b', type: 'Nullable(String)' }];
        const select = (source: string) => `SELECT {start:UInt64} + rowNumberInAllBlocks(), toInt64(a), trimBoth(b) FROM ${source}`;
        await store.insertFromFile(target, join(dir, 'head.csv'), 'CSVWithNames', structure, select, { start: 10 });
        await store.insertFromFile(target, join(dir, 'part.csv'), 'CSV', structure, select, { start: 1_000_010 });
        const [counted] = await store.query<Record<string, string>>(orgA, (sql) =>
          `SELECT toString(count()) AS n, toString(countIf(t.n + 10 != t.row)) AS misplaced, toString(countIf(t.t IS NULL)) AS missing FROM ${sql.table(target.tableId)} AS t WHERE t.row < 1000010`);
        assert.deepEqual(counted, { n: '1000000', misplaced: '0', missing: '0' });
        const tail = await store.query<Record<string, string | null>>(orgA, (sql) => `SELECT toString(t.row) AS row, toString(t.n) AS n, t.t AS t FROM ${sql.table(target.tableId)} AS t WHERE t.row >= 1000010 ORDER BY t.row`);
        assert.deepEqual(tail, [{ row: '1000010', n: '5', t: 'x' }, { row: '1000011', n: '6', t: null }]);
      } finally {
        await store.dropTable(target);
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('exchanges two tables of one organisation atomically, never across organisations', async () => {
      const a: TableRef = { organisationId: orgA, tableId: newId('src') };
      const b: TableRef = { organisationId: orgA, tableId: newId('rty') };
      await store.createTable(a, [{ name: 'v', type: 'String' }], []);
      await store.createTable(b, [{ name: 'v', type: 'Int64' }], []);
      try {
        await store.insert(a, [{ v: 'old' }]);
        await store.insert(b, [{ v: 7 }]);
        await store.exchangeTables(a, b);
        assert.deepEqual(await store.query(orgA, (sql) => `SELECT v FROM ${sql.table(a.tableId)}`), [{ v: 7 }]);
        assert.deepEqual(await store.query(orgA, (sql) => `SELECT v FROM ${sql.table(b.tableId)}`), [{ v: 'old' }]);
        await assert.rejects(store.exchangeTables(a, { organisationId: orgB, tableId: b.tableId }), DataStoreError);
      } finally {
        await store.dropTable(a);
        await store.dropTable(b);
      }
    });

    it('answers a short query while a long one runs (one long dataset query does not hold up everyone)', { timeout: 120_000 }, async () => {
      const finished: string[] = [];
      const long = store
        .query(orgA, () => 'SELECT count() AS n FROM numbers(300000000) WHERE sipHash64(number) % 7 = 1', {}, { timeoutMs: 100_000 })
        .then(() => finished.push('long'));
      await new Promise((resolve) => setImmediate(resolve)); // the long query is under way
      await store.query(orgA, () => 'SELECT 1 AS one').then(() => finished.push('short'));
      await long;
      assert.deepEqual(finished, ['short', 'long']);
    });

    it('answers a ping', async () => {
      await store.ping();
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'causa-chdb-'));
after(() => rmSync(dir, { recursive: true, force: true }));
describeDataStoreConformance('chDB (embedded)', () => openChdbDataStore(dir));
const serverUrl = process.env.TEST_CLICKHOUSE_URL || process.env.CLICKHOUSE_URL;
describeDataStoreConformance(
  'ClickHouse server',
  serverUrl ? () => createClickHouseDataStore(createClient({ url: serverUrl }), 'clickhouse') : undefined,
);
