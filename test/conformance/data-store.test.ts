import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
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

    it('answers concurrent queries correctly', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.query<{ s: string }>(orgA, () => 'SELECT sum(number) AS s FROM numbers({n:UInt64})', { n: 1000 * (i + 1) })),
      );
      results.forEach(([row], i) => {
        const n = 1000 * (i + 1);
        assert.equal(Number(row!.s), (n * (n - 1)) / 2);
      });
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
