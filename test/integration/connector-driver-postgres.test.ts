/**
 * The PostgreSQL driver's extraction of a large table in ranges of its pages, read side by side under one snapshot,
 * against the real server on loopback (TEST_DATABASE_URL): every row once, none written after the read began, a
 * failing range failing its stream, and one stream where ranges do not apply.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import type { SqlCredentials } from '../../schemas/connectors.js';
import { hostGate } from '../../src/connectors/drivers/network.js';
import type { ConnectorDriver, Extract } from '../../src/connectors/drivers/port.js';
import { openPostgresDriver } from '../../src/connectors/drivers/postgres.js';
import { postgresSchema, text } from '../helpers/connectors.js';

const never = new AbortController().signal;
/** Rows of the ranged table: about 2.6 MB, some 330 pages. */
const ROWS = 20_000;

interface Fixture {
  admin: pg.Client;
  schema: string;
  driver(ranges: { connections: number; minBytes: number }): ConnectorDriver;
}

async function fixture(t: TestContext): Promise<Fixture | undefined> {
  const drivers: ConnectorDriver[] = [];
  // The drivers' sessions are closed first: one left in its transaction would hold the schema's lock.
  const created = await postgresSchema(t, 'causa_ranges', () => Promise.all(drivers.map((driver) => driver.close())));
  if (created === undefined) return undefined;
  const { url, admin, schema } = created;
  await admin.query(`CREATE TABLE ${schema}.wide (id int PRIMARY KEY, note text, amount numeric(12,2))`);
  // Quoted text with commas, quotes and line breaks, so records span lines in every range.
  await admin.query(`INSERT INTO ${schema}.wide SELECT g, 'row ' || g || E', "quoted"\\n' || repeat('x', 100), g * 0.5 FROM generate_series(1, ${ROWS}) g`);
  await admin.query(`CREATE VIEW ${schema}.wide_view AS SELECT * FROM ${schema}.wide`);
  const credentials: SqlCredentials = { host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) || undefined };
  return {
    admin,
    schema,
    driver(ranges) {
      const opened = openPostgresDriver(credentials, { gate: hostGate([url.hostname]), storageRoots: [], ranges });
      drivers.push(opened);
      return opened;
    },
  };
}

/** Every stream of an extract read side by side, as text. */
const texts = (extract: Extract) => Promise.all([extract.stream, ...(extract.ranges ?? [])].map(text));

const ids = (csv: string, header: boolean) => (parse(csv, { from_line: header ? 2 : 1 }) as string[][]).map((record) => Number(record[0]));

test('a large table is read in ranges side by side, each row once, under the snapshot of the read', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const extract = await f.driver({ connections: 3, minBytes: 8192 * 20 }).extract({ kind: 'table', schema: f.schema, table: 'wide' }, never);
  assert.equal(extract.ranges?.length, 2, 'three sessions read the table');
  // Written after the read began (and a row taken out): none of it is seen by any range.
  await f.admin.query(`INSERT INTO ${f.schema}.wide SELECT g, 'late', 0 FROM generate_series(${ROWS + 1}, ${ROWS + 5000}) g`);
  await f.admin.query(`DELETE FROM ${f.schema}.wide WHERE id = 1`);
  const [first, ...rest] = await texts(extract);
  assert.ok(first!.startsWith('id,note,amount\n'), 'the first stream starts with the header');
  for (const range of rest) assert.ok(/^\d+,/.test(range), 'the other streams hold records only');
  const seen = [...ids(first!, true), ...rest.flatMap((range) => ids(range, false))];
  assert.ok(rest.every((range) => ids(range, false).length > ROWS / 6), 'every range reads a share of the rows');
  assert.deepEqual(seen.sort((a, b) => a - b), Array.from({ length: ROWS }, (_, i) => i + 1));
  const records = parse(first!, { columns: true }) as Array<Record<string, string>>;
  assert.equal(records.find((record) => record.id === '2')?.note, `row 2, "quoted"\n${'x'.repeat(100)}`);
});

test('a range whose session ends fails its stream', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  // Ranges of about 20 MB: far more than the sockets between the server and the client hold (the server's send
  // buffer grows to 4 MB here), so a COPY that nothing reads stays active, blocked on its socket.
  await f.admin.query(`CREATE TABLE ${f.schema}.big AS SELECT g AS id, repeat('x', 200) AS note FROM generate_series(1, 200000) g`);
  const extract = await f.driver({ connections: 2, minBytes: 8192 }).extract({ kind: 'table', schema: f.schema, table: 'big' }, never);
  assert.equal(extract.ranges?.length, 1);
  // The second range's COPY is sent as the client gets to it: it is looked for until it shows (this table's, among
  // any test's reads).
  const copying = `SELECT pid FROM pg_stat_activity WHERE application_name = 'causa-connector' AND state = 'active' AND query LIKE 'COPY%${f.schema}%ctid >=%'`;
  let found: Array<{ pid: number }> = [];
  for (let attempt = 0; attempt < 200 && found.length === 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25));
    found = (await f.admin.query(copying)).rows;
  }
  assert.equal(found.length, 1, 'the second range is being read');
  const { rows } = await f.admin.query('SELECT pg_terminate_backend($1) AS ended', [found[0]!.pid]);
  assert.deepEqual(rows, [{ ended: true }]);
  const [first, second] = await Promise.allSettled([text(extract.stream), text(extract.ranges![0]!)]);
  assert.equal(first.status, 'fulfilled', 'the first range is read whole');
  assert.equal(second.status, 'rejected');
  assert.match(String(second.reason), /terminat/);
});

test('a query, a view and a table too small for two ranges are read over one session', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const driver = f.driver({ connections: 4, minBytes: 8192 * 1000 });
  const targets = [
    { kind: 'table', schema: f.schema, table: 'wide' },
    { kind: 'table', schema: f.schema, table: 'wide_view' },
    { kind: 'query', query: `SELECT * FROM ${f.schema}.wide` },
  ] as const;
  for (const target of targets) {
    const extract = await driver.extract(target, never);
    assert.deepEqual(extract.ranges ?? [], [], JSON.stringify(target));
    const [all] = await texts(extract);
    assert.equal(ids(all!, true).length, ROWS);
  }
  // One connection allowed: one session, whatever the size.
  const single = await f.driver({ connections: 1, minBytes: 8192 }).extract({ kind: 'table', schema: f.schema, table: 'wide' }, never);
  assert.deepEqual(single.ranges ?? [], []);
  await texts(single);
});
