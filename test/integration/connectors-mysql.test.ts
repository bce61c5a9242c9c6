/**
 * A MariaDB (MySQL) connector through the API against the real server on loopback (issue 6): browse, preview,
 * read-only enforcement, import of awkward types, credentials absent from every response. The driver's own
 * cases are in connector-driver-mysql.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import { API, assertNoSecret, connectorApp, importAndWait, sourceRows } from '../helpers/connectors.js';
import { requireScaleOut } from '../helpers/scale-out.js';

test('a MariaDB table of awkward types: browsed, previewed read-only, imported typed; no response carries the password', async (t) => {
  const raw = requireScaleOut(t, 'TEST_MYSQL_URL');
  if (raw === undefined) return;
  const url = new URL(raw);
  const admin = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database: url.pathname.slice(1) });
  const table = `causa_awkward_${randomBytes(4).toString('hex')}`;
  t.after(async () => {
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.end();
  });
  await admin.query(`CREATE TABLE \`${table}\` (\`order id\` BIGINT, price DECIMAL(30,10), paid BIT(1), day DATE, at TIMESTAMP NULL, local DATETIME(3), doc JSON, note TEXT CHARACTER SET utf8mb4)`);
  await admin.query(`SET time_zone = '+05:00'`);
  await admin.query(
    `INSERT INTO \`${table}\` VALUES
      (9007199254740993, 12345678901234.5678901234, b'1', '2024-02-29', '2024-03-10 06:30:00', '2024-03-10 01:30:00.250', '{"a": [1, 2]}', 'Zürich, "quoted"\\nsecond 🚀'),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (-5, -0.5, b'0', '1999-12-31', '2024-07-01 12:00:00', '2024-07-01 12:00:00', '[1, "two"]', 'plain')`,
  );

  const app = await connectorApp(t);
  const bodies: unknown[] = [];
  const call: typeof app.call = async (options) => {
    const response = await app.call(options);
    bodies.push(response.body);
    return response;
  };
  const secret = `maria-${randomBytes(6).toString('hex')}`;
  // root has no password here; the wrong one must fail without being echoed, the right one (none) works.
  const credentials = { host: url.hostname, port: Number(url.port || 3306), database: url.pathname.slice(1), user: decodeURIComponent(url.username) };
  const wrong = await call({ method: 'POST', url: `${API}/connectors`, body: { name: 'maria', type: 'MariaDB', credentials: { ...credentials, password: secret } } });
  const id = wrong.body.data.id;
  const refused = await call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(refused.body.data.ok, false);
  assert.match(refused.body.data.message, /Access denied/);
  assert.equal((await call({ method: 'GET', url: `${API}/connectors/${id}` })).body.data.status, 'error');
  assert.equal((await call({ method: 'PATCH', url: `${API}/connectors/${id}`, body: { credentials } })).body.data.status, 'unconfigured');
  const tested = await call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(tested.body.data.ok, true, JSON.stringify(tested.body));
  assert.match(tested.body.data.serverVersion, /MariaDB/);

  const tables = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=tables&search=${table.toUpperCase()}` });
  assert.deepEqual(tables.body.data.map((e: { name: string }) => e.name), [table]);
  const columns = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=columns&table=${table}` });
  assert.deepEqual(columns.body.data.map((e: { name: string; dataType: string }) => [e.name, e.dataType]).slice(0, 2), [['order id', 'bigint(20)'], ['price', 'decimal(30,10)']]);

  const preview = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table }, limit: 1 } });
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.equal(preview.body.data.rows[0]['order id'], '9007199254740993', 'beyond 2^53 as text');
  assert.equal(preview.body.data.truncated, true);
  const database = credentials.database;
  for (const qualified of [`${database}.${table}`, `\`${database}\`.\`${table}\``]) {
    const read = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: qualified }, limit: 1 } });
    assert.equal(read.status, 200, `${qualified}: ${JSON.stringify(read.body)}`);
    assert.equal(read.body.data.rows[0]['order id'], '9007199254740993');
  }
  for (const statement of [`DELETE FROM \`${table}\``, `DROP TABLE \`${table}\``, `UPDATE \`${table}\` SET price = 0`, `SELECT 1 INTO OUTFILE '/tmp/${table}.txt'`]) {
    const write = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { query: statement } } });
    assert.equal(write.status, 400, statement);
  }
  const [[{ n }]] = (await admin.query(`SELECT COUNT(*) AS n FROM \`${table}\``)) as unknown as [[{ n: number }]];
  assert.equal(Number(n), 3, 'the table is intact');

  const job = await importAndWait(app, id, { config: { table } });
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const source = (await call({ method: 'GET', url: `${API}/sources/${job.result.sourceId}` })).body.data;
  const types = Object.fromEntries(source.schemaEntries.map((e: { field: string; type: string }) => [e.field, e.type]));
  assert.deepEqual({ ...types, note: undefined }, { 'order id': 'integer', price: 'decimal', paid: 'boolean', day: 'date', at: 'datetime', local: 'datetime', doc: 'object', note: undefined });
  const rows = await sourceRows(app, job.result.sourceId);
  const [first, empty, last] = rows as unknown as [Record<string, any>, Record<string, any>, Record<string, any>];
  const stored = await app.context.data().query<{ v: string }>(app.tenant.organisationId, (sql) => `SELECT toString(${sql.column('order id')}) AS v FROM ${sql.table(job.result.sourceId)} ORDER BY _causa_row LIMIT 1`);
  assert.equal(stored[0]!.v, '9007199254740993');
  assert.equal(first.paid, true);
  assert.equal(first.day, '2024-02-29');
  assert.match(String(first.at), /^2024-03-10[T ]01:30:00/, 'TIMESTAMP written at +05:00 lands in UTC');
  assert.match(String(first.local), /^2024-03-10[T ]01:30:00\.250/);
  assert.deepEqual(JSON.parse(first.doc), { a: [1, 2] });
  assert.equal(first.note, 'Zürich, "quoted"\nsecond 🚀');
  assert.ok(Object.values(empty).every((value) => value === null));
  assert.equal(last.paid, false);
  assertNoSecret(bodies, secret);
});
