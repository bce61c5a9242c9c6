/**
 * A ClickHouse connector through the API against the real server on loopback (issue 6; scripts/clickhouse-server.sh
 * starts Debian's 18.16): test, browse, preview read-only, import typed; the password never answered. The driver's
 * own cases are in connector-driver-clickhouse.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { API, assertNoSecret, connectorApp, importAndWait, sourceRows } from '../helpers/connectors.js';
import { requireScaleOut } from '../helpers/scale-out.js';

test('a ClickHouse table: tested, browsed, previewed read-only and imported typed', async (t) => {
  const server = requireScaleOut(t, 'TEST_CLICKHOUSE_SOURCE_URL');
  if (server === undefined) return;
  const sql = async (statement: string) => {
    const response = await fetch(`${server}/`, { method: 'POST', body: statement });
    const text = await response.text();
    assert.ok(response.ok, `${statement}: ${text}`);
    return text;
  };
  const db = `causa_conn_${randomBytes(4).toString('hex')}`;
  await sql(`CREATE DATABASE ${db}`);
  t.after(() => sql(`DROP DATABASE IF EXISTS ${db}`));
  await sql(`CREATE TABLE ${db}.readings (id UInt64, amount Decimal(18, 4), at DateTime('Europe/Berlin'), tags Array(String), note Nullable(String)) ENGINE = MergeTree ORDER BY id`);
  await sql(`INSERT INTO ${db}.readings VALUES (18446744073709551615, 12.3456, '2024-03-10 07:30:00', ['a', 'b,"c"'], 'Zürich 🚀'), (2, -0.5, '2024-07-01 12:00:00', [], NULL)`);

  const app = await connectorApp(t);
  const secret = `ch-${randomBytes(6).toString('hex')}`;
  const bodies: unknown[] = [];
  const call: typeof app.call = async (options) => {
    const response = await app.call(options);
    bodies.push(response.body);
    return response;
  };
  const created = await call({ method: 'POST', url: `${API}/connectors`, body: { name: 'events', type: 'ClickHouse', credentials: { url: server, user: 'default', password: secret, database: db } } });
  const id = created.body.data.id;
  const refused = await call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(refused.body.data.ok, false, 'default has no password here: a wrong one is refused');
  assert.equal((await call({ method: 'PATCH', url: `${API}/connectors/${id}`, body: { credentials: { url: server, database: db } } })).status, 200);
  const tested = await call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(tested.body.data.ok, true, JSON.stringify(tested.body));

  const tables = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=tables&database=${db}` });
  assert.deepEqual(tables.body.data.map((e: { name: string }) => e.name), ['readings']);
  const preview = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { query: `SELECT id, amount FROM ${db}.readings ORDER BY id` } } });
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.deepEqual(preview.body.data.rows, [{ id: 2, amount: -0.5 }, { id: '18446744073709551615', amount: 12.3456 }]);
  for (const statement of [`INSERT INTO ${db}.readings VALUES (3, 1, now(), [], NULL)`, `DROP TABLE ${db}.readings`]) {
    assert.equal((await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { query: statement } } })).status, 400, statement);
  }
  assert.equal((await sql(`SELECT count() FROM ${db}.readings`)).trim(), '2', 'the table is intact');

  const job = await importAndWait(app, id, { config: { table: 'readings', database: db } });
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const source = (await call({ method: 'GET', url: `${API}/sources/${job.result.sourceId}` })).body.data;
  const types = Object.fromEntries(source.schemaEntries.map((e: { field: string; type: string }) => [e.field, e.type]));
  assert.deepEqual({ ...types, note: undefined }, { id: 'decimal', amount: 'decimal', at: 'datetime', tags: 'array', note: undefined }, 'UInt64 exceeds the stored Int64: a decimal');
  const rows = (await sourceRows(app, job.result.sourceId)) as unknown as Array<Record<string, any>>;
  const byAmount = new Map(rows.map((row) => [row.amount, row]));
  assert.match(String(byAmount.get(12.3456)!.at), /^2024-03-10[T ]06:30:00/, 'Berlin wall time lands in UTC');
  assert.deepEqual(byAmount.get(12.3456)!.tags, ['a', 'b,"c"']);
  assert.equal(byAmount.get(12.3456)!.note, 'Zürich 🚀');
  assert.equal(byAmount.get(-0.5)!.note, null);
  assert.equal(byAmount.get(12.3456)!.id, 18446744073709551615);
  assertNoSecret(bodies, secret);
});
