/**
 * Connectors against the real PostgreSQL on loopback (issue 6): credentials never shown, browse, preview,
 * read-only enforcement, import of awkward types, failures that leave nothing, cancel, direct query.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import pg from 'pg';
import { API, assertNoSecret, connectorApp, createConnector, importAndWait, postgresSchema, sourceRows } from '../helpers/connectors.js';
import type { Config } from '../../src/config.js';
import type { TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';

const SECRET = 'pg-Secret-9f3a7c';

interface Fixture {
  app: TestApp & { storageRoot: string };
  id: string;
  schema: string;
  url: URL;
  admin: pg.Client;
  bodies: unknown[];
  call: TestApp['call'];
}

/** A schema of its own in the test database, with the tables the tests read; dropped afterwards. */
async function fixture(t: TestContext, overrides: Partial<Config> = {}): Promise<Fixture | undefined> {
  const database = await postgresSchema(t, 'causa_conn');
  if (database === undefined) return undefined;
  const { url, admin, schema } = database;
  await admin.query(`CREATE TABLE ${schema}.orders (id int PRIMARY KEY, region text NOT NULL, amount numeric(12,2), placed timestamptz)`);
  await admin.query(`INSERT INTO ${schema}.orders SELECT g, (ARRAY['north','south','east'])[1 + g % 3], g * 1.25, '2024-01-01T00:00:00Z'::timestamptz + g * interval '1 hour' FROM generate_series(1, 120) g`);
  await admin.query(`CREATE VIEW ${schema}.big_orders AS SELECT * FROM ${schema}.orders WHERE amount > 100`);
  const app = await connectorApp(t, overrides);
  const bodies: unknown[] = [];
  const call: TestApp['call'] = async (options) => {
    const response = await app.call(options);
    bodies.push(response.body);
    return response;
  };
  const credentials = { host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), user: decodeURIComponent(url.username), password: SECRET };
  const created = await call({ method: 'POST', url: `${API}/connectors`, body: { name: 'warehouse', type: 'postgres', credentials } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { app, id: created.body.data.id, schema, url, admin, bodies, call };
}

test('a connector is created unconfigured, answers without its credentials, and moves to connected on test', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { call, id } = f;
  const got = await call({ method: 'GET', url: `${API}/connectors/${id}` });
  assert.deepEqual(
    { type: got.body.data.type, status: got.body.data.status, errorMessage: got.body.data.errorMessage, hasCredentials: got.body.data.hasCredentials },
    { type: 'PostgreSQL', status: 'unconfigured', errorMessage: null, hasCredentials: true },
  );
  assert.equal('credentials' in got.body.data, false);
  const tested = await call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(tested.status, 200);
  assert.equal(tested.body.data.ok, true, JSON.stringify(tested.body));
  assert.match(tested.body.data.serverVersion, /PostgreSQL/);
  assert.equal((await call({ method: 'GET', url: `${API}/connectors/${id}` })).body.data.status, 'connected');
  const listed = await call({ method: 'GET', url: `${API}/connectors` });
  assert.deepEqual(listed.body.data.map((c: { id: string }) => c.id), [id]);
  assert.equal(listed.body.pagination.total, 1);

  // New credentials have not been tried: unconfigured again. A renamed connector keeps its status.
  const renamed = await call({ method: 'PATCH', url: `${API}/connectors/${id}`, body: { name: 'dwh' } });
  assert.equal(renamed.body.data.status, 'connected');
  const rekeyed = await call({ method: 'PATCH', url: `${API}/connectors/${id}`, body: { credentials: { connectionString: `postgres://${f.url.username}:${SECRET}@${f.url.host}${f.url.pathname}` } } });
  assert.equal(rekeyed.status, 200, JSON.stringify(rekeyed.body));
  assert.equal(rekeyed.body.data.status, 'unconfigured');
  assert.equal((await call({ method: 'POST', url: `${API}/connectors/${id}/test` })).body.data.ok, true);

  // At rest the credentials are ciphertext bound to the connector.
  const stored = await f.app.context.meta.db.selectFrom('connectors').select('credentials').where('id', '=', id).executeTakeFirstOrThrow();
  assert.ok(stored.credentials !== null && !stored.credentials.includes(SECRET) && stored.credentials.startsWith('v1.'));
  assertNoSecret(f.bodies, SECRET);
});

test('an unreachable source marks the connector error with the reason; secrets never appear', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { call } = f;
  const id = await createConnector(f.app, 'PostgreSQL', { host: '127.0.0.1', port: f.url.port === '' ? 5432 : Number(f.url.port), database: 'no_such_db_xyz', user: 'postgres', password: SECRET });
  const tested = await call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(tested.body.data.ok, false);
  assert.match(tested.body.data.message, /no_such_db_xyz/);
  const got = await call({ method: 'GET', url: `${API}/connectors/${id}` });
  assert.equal(got.body.data.status, 'error');
  assert.match(got.body.data.errorMessage, /does not exist/);
  const browse = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=schemas` });
  assert.equal(browse.status, 502);
  assert.equal(browse.body.type, 'urn:causa:problem:source-unreachable');
  const closed = await createConnector(f.app, 'PostgreSQL', { host: '127.0.0.1', port: 1, database: 'x', user: 'x', password: SECRET });
  const refused = await call({ method: 'POST', url: `${API}/connectors/${closed}/preview-query`, body: { config: { query: 'select 1' } } });
  assert.equal(refused.status, 502);
  assertNoSecret(f.bodies, SECRET);
});

test('connectors reach loopback only when the operator allows it', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { buildTestApp, testConfig } = await import('../helpers/app.js');
  const closed = await buildTestApp(t, {}, testConfig());
  const id = await createConnector(closed, 'PostgreSQL', { host: '127.0.0.1', database: 'postgres', user: 'postgres' });
  const tested = await closed.call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(tested.body.data.ok, false);
  assert.match(tested.body.data.message, /non-public address/);
  const local = await createConnector(closed, 'PostgreSQL', { connectionString: 'postgres://postgres@localhost/postgres' });
  assert.match((await closed.call({ method: 'POST', url: `${API}/connectors/${local}/test` })).body.data.message, /non-public address/);
  // An import is refused at submit with the preview's problem: no 202, no job that can only fail.
  const ws = closed.tenant.libraryWorkspaceId;
  const preview = await closed.call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: 'pg_class', schema: 'pg_catalog' } } });
  const imported = await closed.call({ method: 'POST', url: `${API}/connectors/${id}/import`, body: { workspaceId: ws, config: { table: 'pg_class', schema: 'pg_catalog' } } });
  assert.equal(imported.status, 502, JSON.stringify(imported.body));
  assert.equal(imported.body.type, preview.body.type);
  assert.match(imported.body.detail, /non-public address/);
  assert.deepEqual((await closed.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs` })).body.data, []);
});

test('browse lists databases, schemas, tables and columns, filtered by search', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { call, id, schema } = f;
  const databases = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=databases` });
  assert.equal(databases.status, 200, JSON.stringify(databases.body));
  assert.ok(databases.body.data.some((d: { name: string }) => d.name === f.url.pathname.slice(1)));
  const schemas = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=schemas&search=${schema.toUpperCase()}` });
  assert.deepEqual(schemas.body.data, [{ name: schema, kind: 'schema' }]);
  const tables = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=tables&schema=${schema}` });
  assert.deepEqual(tables.body.data.map((e: { name: string; kind: string }) => [e.name, e.kind]), [['big_orders', 'view'], ['orders', 'table']]);
  const searched = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=tables&schema=${schema}&search=BIG` });
  assert.deepEqual(searched.body.data.map((e: { name: string }) => e.name), ['big_orders']);
  const columns = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=columns&schema=${schema}&table=orders` });
  assert.deepEqual(columns.body.data, [
    { name: 'id', kind: 'column', dataType: 'integer', nullable: false },
    { name: 'region', kind: 'column', dataType: 'text', nullable: false },
    { name: 'amount', kind: 'column', dataType: 'numeric(12,2)', nullable: true },
    { name: 'placed', kind: 'column', dataType: 'timestamp with time zone', nullable: true },
  ]);
  const unknown = await call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=warehouses` });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.detail, /Unknown level "warehouses"/);
  assert.equal((await call({ method: 'GET', url: `${API}/connectors/${id}/browse` })).status, 400, 'level is required');
  assert.equal((await call({ method: 'GET', url: `${API}/connectors/${id}` })).body.data.status, 'connected');
});

test('preview answers the first rows of a table or query and never writes', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { call, id, schema, admin } = f;
  const table = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: 'orders', schema }, limit: 5 } });
  assert.equal(table.status, 200, JSON.stringify(table.body));
  assert.equal(table.body.data.rowCount, 5);
  assert.equal(table.body.data.truncated, true);
  assert.deepEqual(table.body.data.columns.map((c: { type: string }) => c.type), ['integer', 'text', 'numeric(12,2)', 'timestamp with time zone']);
  assert.deepEqual(table.body.data.rows[0], { id: 1, region: 'south', amount: '1.25', placed: '2024-01-01T01:00:00.000Z' });
  const defaulted = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: 'orders', schema } } });
  assert.equal(defaulted.body.data.rowCount, 50);
  // Schema-qualified names as users write them, quoted parts too; a context member naming another schema is refused.
  for (const qualified of [`${schema}.orders`, `"${schema}"."orders"`, ` ${schema} . orders `]) {
    const read = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: qualified }, limit: 2 } });
    assert.equal(read.status, 200, `${qualified}: ${JSON.stringify(read.body)}`);
    assert.deepEqual(read.body.data.rows[0], table.body.data.rows[0]);
  }
  const conflicting = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: `${schema}.orders`, schema: 'public' } } });
  assert.equal(conflicting.status, 422);
  assert.equal(conflicting.body.errors[0].location, 'body/config/table');
  const query = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { query: `select region, count(*)::int as n from ${schema}.orders group by region order by region;` } } });
  assert.deepEqual(query.body.data.rows, [{ region: 'east', n: 40 }, { region: 'north', n: 40 }, { region: 'south', n: 40 }]);
  assert.equal(query.body.data.truncated, false);

  for (const statement of [
    `DELETE FROM ${schema}.orders`,
    `DELETE FROM ${schema}.orders RETURNING *`,
    `select 1) q; DELETE FROM ${schema}.orders; select (1`,
    `select 1; commit; delete from ${schema}.orders`,
    `WITH gone AS (DELETE FROM ${schema}.orders RETURNING id) SELECT * FROM gone`,
    `DROP TABLE ${schema}.orders`,
  ]) {
    const refused = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { query: statement } } });
    assert.equal(refused.status, 400, statement);
    assert.equal(refused.body.type, 'urn:causa:problem:source-query-failed');
  }
  // A function that writes is stopped by the read-only transaction itself.
  await admin.query(`CREATE FUNCTION ${schema}.purge() RETURNS int LANGUAGE sql AS 'DELETE FROM ${schema}.orders RETURNING 1'`);
  const readOnly = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { query: `select ${schema}.purge()` } } });
  assert.equal(readOnly.status, 400);
  assert.match(readOnly.body.detail, /read-only transaction/, 'the source\'s own words');
  assert.equal((await admin.query(`select count(*)::int as n from ${schema}.orders`)).rows[0].n, 120, 'the table is intact');

  const missing = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: 'nope', schema } } });
  assert.equal(missing.status, 400);
  assert.match(missing.body.detail, /relation .* does not exist/);
  const both = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: 'orders', query: 'select 1' } } });
  assert.equal(both.status, 422);
  const path = await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { path: 'a.csv' } } });
  assert.equal(path.status, 422);
  assert.equal((await call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { query: 'select 1' }, limit: 1001 } })).status, 422);
  assertNoSecret(f.bodies, SECRET);
});

test('import streams a table of awkward types into a typed source', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { app, id, schema, admin } = f;
  await admin.query(`CREATE TABLE ${schema}.awkward (
    "order id" bigint, price numeric(30,10), ratio double precision, paid boolean, day date, at timestamptz, local timestamp,
    doc jsonb, raw json, tags text[], counts int[], note text, payload bytea)`);
  await admin.query(`SET TIME ZONE 'America/New_York'`);
  await admin.query(
    `INSERT INTO ${schema}.awkward VALUES
      (9007199254740993, 12345678901234.5678901234, 0.1, true, '2024-02-29', '2024-03-10 01:30:00-05', '2024-03-10 01:30:00', '{"a": {"b": [1, 2]}}', '{"x": "y"}', ARRAY['red', 'gr"een'], ARRAY[1, 2, 3], 'Zürich, "quoted"' || E'\\n' || 'second line 🚀', '\\x00ff'),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (-5, -0.5, 'NaN', false, '1999-12-31', '2024-07-01 12:00:00+02', '2024-07-01 12:00:00', '[1, "two"]', 'null', ARRAY[]::text[], ARRAY[NULL, 4]::int[], '', NULL)`,
  );
  const job = await importAndWait(app, id, { config: { table: 'awkward', schema }, datasetName: 'Awkward', ontologyMode: 'manual' });
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.type, 'connector_import');
  assert.equal(job.result.rowCount, 3);
  const source = (await app.call({ method: 'GET', url: `${API}/sources/${job.result.sourceId}` })).body.data;
  assert.equal(source.name, 'Awkward');
  assert.equal(source.dataSource, 'connector');
  assert.equal(source.ontologyMode, 'manual');
  assert.equal(source.extractionRecipe.connectorId, id);
  assert.deepEqual(source.linkedWorkspaceIds, [app.tenant.libraryWorkspaceId]);
  const types = Object.fromEntries(source.schemaEntries.map((e: { field: string; type: string; subtype: string | null }) => [e.field, e.type === 'array' ? `array<${e.subtype}>` : e.type]));
  assert.deepEqual(types, {
    'order id': 'integer', price: 'decimal', ratio: 'decimal', paid: 'boolean', day: 'date', at: 'datetime', local: 'datetime',
    doc: 'object', raw: 'object', tags: 'array<text>', counts: 'array<integer>', note: types.note === 'categorical' ? 'categorical' : 'text', payload: 'text',
  });
  const rows = await sourceRows(app, job.result.sourceId);
  assert.equal(rows.length, 3);
  const [first, empty, last] = rows as unknown as [Record<string, any>, Record<string, any>, Record<string, any>];
  // JSON answers carry numbers as doubles; the stored value itself is exact.
  const stored = await app.context.data().query<{ v: string }>(app.tenant.organisationId, (sql) => `SELECT toString(${sql.column('order id')}) AS v FROM ${sql.table(job.result.sourceId)} ORDER BY _causa_row LIMIT 1`);
  assert.equal(stored[0]!.v, '9007199254740993', '64-bit integers stay exact');
  assert.ok(Math.abs(Number(first.price) - 12345678901234.568) < 0.01);
  assert.equal(first.paid, true);
  assert.equal(first.day, '2024-02-29');
  assert.match(String(first.at), /^2024-03-10[T ]06:30:00/, 'zoned timestamps land in UTC');
  assert.match(String(first.local), /^2024-03-10[T ]01:30:00/, 'timestamps without zone keep their wall time');
  assert.deepEqual(JSON.parse(first.doc), { a: { b: [1, 2] } });
  assert.deepEqual(JSON.parse(first.raw), { x: 'y' });
  assert.deepEqual(first.tags, ['red', 'gr"een']);
  assert.deepEqual(first.counts, [1, 2, 3]);
  assert.equal(first.note, 'Zürich, "quoted"\nsecond line 🚀');
  assert.equal(first.payload, Buffer.from([0, 255]).toString('base64'));
  for (const column of ['order id', 'price', 'ratio', 'paid', 'day', 'at', 'local', 'doc', 'raw', 'note', 'payload']) assert.equal(empty[column], null, column);
  assert.equal(last.ratio, null, 'NaN reads as missing');
  assert.match(String(last.at), /^2024-07-01[T ]10:00:00/);
  assert.deepEqual(last.counts, [null, 4]);
  assert.equal(source.columnMetadata.price.nullFraction > 0, true, 'statistics are computed');
});

test('an import stored in parts while it streams stores every row as written, in order', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { app, id, admin } = f;
  // 30,000 rows (about 1.4 MB of CSV: a first part of 10,001 records and about 20 parts of 64 KiB): quoted text with
  // commas, quotes and line breaks, so cuts fall between records that span lines, and missing values of every kind.
  const query = `select g as id, case when g % 7 = 0 then null else 'line ' || g || E',\n"next"' end as note, ` +
    `case when g % 5 = 0 then null else g * 0.25 end as amount, g % 2 = 0 as even, timestamptz '2024-01-01' + g * interval '1 minute' as at ` +
    `from generate_series(1, 30000) g order by g`;
  const job = await importAndWait(app, id, { config: { query } });
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  assert.equal(job.result.rowCount, 30000);
  const org = app.tenant.organisationId;
  const [stored] = await app.context.data().query<Record<string, string>>(org, (sql) =>
    `SELECT toString(count()) AS n, toString(countIf(id = _causa_row + 1)) AS ordered, toString(countIf(note IS NULL)) AS notes, toString(countIf(amount IS NULL)) AS amounts, ` +
    `toString(sum(amount)) AS total, toString(countIf(even)) AS evens, toString(max(at)) AS last FROM ${sql.table(job.result.sourceId)}`);
  const [expected] = (await admin.query(`select count(*)::text as n, count(*) filter (where id % 7 = 0)::text as notes, count(*) filter (where id % 5 = 0)::text as amounts, ` +
    `sum(case when id % 5 = 0 then null else id * 0.25 end)::text as total, count(*) filter (where id % 2 = 0)::text as evens from generate_series(1, 30000) as s(id)`)).rows;
  assert.deepEqual(stored, { n: '30000', ordered: '30000', notes: expected.notes, amounts: expected.amounts, total: String(Number(expected.total)), evens: expected.evens, last: '2024-01-21 20:00:00.000' });
  const notes = await app.context.data().query<{ id: string; note: string | null }>(org, (sql) => `SELECT toString(t.id) AS id, t.note AS note FROM ${sql.table(job.result.sourceId)} AS t WHERE t.id IN (1, 7, 10001, 10002, 29999) ORDER BY t.id`);
  assert.deepEqual(notes, [
    { id: '1', note: 'line 1,\n"next"' }, { id: '7', note: null }, { id: '10001', note: 'line 10001,\n"next"' }, { id: '10002', note: 'line 10002,\n"next"' }, { id: '29999', note: 'line 29999,\n"next"' },
  ]);
});

test('a table read in ranges over several sessions is stored whole: every row once, numbered without a gap', async (t) => {
  // Ranges of 64 pages (512 KiB) at least, three sessions: the 40,000-row table below (about 5 MB) is read in three.
  const f = await fixture(t, { importReadConnections: 3, importRangeBytes: 64 * 8192 });
  if (f === undefined) return;
  const { app, id, admin, schema } = f;
  await admin.query(`CREATE TABLE ${schema}.wide (id bigint PRIMARY KEY, note text, amount numeric(12,2), even boolean)`);
  await admin.query(`INSERT INTO ${schema}.wide SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'line ' || g || E',\n"next" ' || repeat('x', 80) END, ` +
    `CASE WHEN g % 5 = 0 THEN NULL ELSE g * 0.25 END, g % 2 = 0 FROM generate_series(1, 40000) g`);
  const job = await importAndWait(app, id, { config: { table: 'wide', schema } });
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  assert.equal(job.result.rowCount, 40000);
  const org = app.tenant.organisationId;
  const [stored] = await app.context.data().query<Record<string, string>>(org, (sql) =>
    `SELECT toString(uniqExact(id)) AS ids, toString(min(id)) AS first, toString(max(id)) AS last, toString(uniqExact(_causa_row)) AS numbers, toString(max(_causa_row)) AS top, ` +
    `toString(countIf(note IS NULL)) AS notes, toString(sum(amount)) AS total, toString(countIf(even)) AS evens, toString(countIf(id != _causa_row + 1)) AS moved FROM ${sql.table(job.result.sourceId)}`);
  const [expected] = (await admin.query(`SELECT count(*) FILTER (WHERE note IS NULL)::text AS notes, sum(amount)::text AS total FROM ${schema}.wide`)).rows;
  assert.deepEqual({ ...stored, moved: undefined }, { ids: '40000', first: '1', last: '40000', numbers: '40000', top: '39999', notes: expected.notes, total: String(Number(expected.total)), evens: '20000', moved: undefined });
  // The ranges' parts were stored as they completed, side by side: not in the table's order.
  assert.ok(Number(stored!.moved) > 0, 'the rows of the later ranges were stored while the first was still read');
  const notes = await app.context.data().query<{ id: string; note: string | null }>(org, (sql) => `SELECT toString(t.id) AS id, t.note AS note FROM ${sql.table(job.result.sourceId)} AS t WHERE t.id IN (1, 7, 39999) ORDER BY t.id`);
  assert.deepEqual(notes, [{ id: '1', note: `line 1,\n"next" ${'x'.repeat(80)}` }, { id: '7', note: null }, { id: '39999', note: `line 39999,\n"next" ${'x'.repeat(80)}` }]);
  const source = await app.call({ method: 'GET', url: `${API}/sources/${job.result.sourceId}` });
  assert.deepEqual(source.body.data.schemaEntries.map((entry: { field: string; type: string }) => [entry.field, entry.type]), [['id', 'integer'], ['note', 'text'], ['amount', 'decimal'], ['even', 'boolean']]);
});

test('an import of one column keeps the rows where it is null', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  // COPY writes such a row as an empty line, which the readers skip: it was lost.
  for (const query of ['select x from (values (1), (null), (3)) v(x)', "select x from (values ('a'), (null), (''), ('d')) v(x)"]) {
    const job = await importAndWait(f.app, f.id, { config: { query } });
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const rows = await sourceRows(f.app, job.result.sourceId);
    assert.deepEqual(rows.map((row) => row.x), query.includes("'a'") ? ['a', null, null, 'd'] : [1, null, 3]);
  }
});

test('a failing import leaves no source; a cancelled one neither', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { app, id, schema } = f;
  const ws = app.tenant.libraryWorkspaceId;
  const before = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/sources` })).body.pagination.total;
  // Division by zero on row 50,000: the source fails part-way through the stream.
  const failed = await importAndWait(app, id, { config: { query: `select g, 1 / (g - 50000) as x from generate_series(1, 100000) g` } });
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /division by zero/);
  const missing = await importAndWait(app, id, { config: { table: 'nope', schema } });
  assert.equal(missing.status, 'failed');
  assert.match(missing.error, /does not exist/);

  const slow = await app.call({ method: 'POST', url: `${API}/connectors/${id}/import`, body: { workspaceId: ws, config: { query: 'select pg_sleep(20) as s, 1 as x' } } });
  assert.equal(slow.status, 202);
  for (let i = 0; i < 100; i += 1) {
    const job = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${slow.body.data.jobId}` });
    if (job.body.data.status === 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cancelled = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/jobs/${slow.body.data.jobId}/cancel` });
  assert.equal(cancelled.body.data.status, 'cancelled');
  assert.equal((await waitForJob(app, ws, slow.body.data.jobId)).status, 'cancelled');
  const after = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/sources` })).body.pagination.total;
  assert.equal(after, before);
  assertNoSecret(f.bodies, SECRET);
});

test('import and direct-query follow convention 6 for the target workspace', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { app, id, schema } = f;
  const ws = app.tenant.libraryWorkspaceId;
  const missing = await app.call({ method: 'POST', url: `${API}/connectors/${id}/import`, body: { config: { table: 'orders', schema } } });
  assert.equal(missing.status, 422);
  assert.equal(missing.body.errors[0].location, 'body/workspaceId');
  const other = (await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'Other' } })).body.data.id;
  const pinned = (await app.call({ method: 'POST', url: `${API}/api-keys`, body: { name: 'pinned', workspaceId: ws, scopes: ['connectors:read', 'connectors:write', 'jobs:read'] } })).body.data.key;
  const outside = await app.call({ method: 'POST', url: `${API}/connectors/${id}/import`, key: pinned, body: { workspaceId: other, config: { table: 'orders', schema } } });
  assert.equal(outside.status, 403);
  assert.equal(outside.body.type, 'urn:causa:problem:workspace-out-of-scope');
  const implicit = await app.call({ method: 'POST', url: `${API}/connectors/${id}/import`, key: pinned, body: { config: { table: 'orders', schema } } });
  assert.equal(implicit.status, 202, JSON.stringify(implicit.body));
  const job = await waitForJob(app, ws, implicit.body.data.jobId);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.result.sourceName, 'orders');
  assert.equal(job.result.rowCount, 120);

  const direct = await app.call({ method: 'POST', url: `${API}/connectors/${id}/direct-query`, key: pinned, body: { config: { query: `select id from ${schema}.orders order by id` }, limit: 3 } });
  assert.equal(direct.status, 200, JSON.stringify(direct.body));
  assert.deepEqual(direct.body.data.rows, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  assert.equal(direct.body.data.truncated, true);
  assert.equal(direct.body.data.workspaceId, ws);
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/direct-query`, body: { config: { query: 'select 1 as one' } } })).status, 422);
  const orgWide = await app.call({ method: 'POST', url: `${API}/connectors/${id}/direct-query`, body: { workspaceId: other, config: { query: 'select 1 as one' } } });
  assert.deepEqual(orgWide.body.data.rows, [{ one: 1 }]);
  const slow = await app.call({ method: 'POST', url: `${API}/connectors/${id}/direct-query`, body: { workspaceId: ws, config: { query: 'select pg_sleep(5)' }, timeoutMs: 200 } });
  assert.equal(slow.status, 400, 'the statement stops at its timeout');

  // Pinned keys use connectors but do not manage them; deleting leaves the imported source and its job.
  assert.equal((await app.call({ method: 'PATCH', url: `${API}/connectors/${id}`, key: pinned, body: { name: 'x' } })).status, 403);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/connectors/${id}`, key: pinned })).status, 403);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/connectors/${id}` })).status, 204);
  assert.equal((await app.call({ method: 'GET', url: `${API}/connectors/${id}` })).status, 404);
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources/${job.result.sourceId}` })).status, 200);
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${job.id}` })).body.data.status, 'completed');
});

test('another organisation sees none of the connectors', async (t) => {
  const f = await fixture(t);
  if (f === undefined) return;
  const { app, id } = f;
  const other = app.other.key;
  assert.equal((await app.call({ method: 'GET', url: `${API}/connectors/${id}`, key: other })).status, 404);
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/test`, key: other })).status, 404);
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, key: other, body: { config: { query: 'select 1' } } })).status, 404);
  assert.equal((await app.call({ method: 'GET', url: `${API}/connectors`, key: other })).body.data.length, 0);
});
