import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROW_COLUMN } from '../../src/tables/ingest.js';
import { type TestApp, buildTestApp } from '../helpers/app.js';

const API = '/api/v1';

const ROWS = [
  { code: '007', qty: 3, price: 1.5, day: '2024-01-05', at: '2024-01-05T00:00:00Z', paid: true, ref: '2024-02-01' },
  { code: '042', qty: 4, price: 2, day: '2024-02-29', at: '2024-01-06T00:00:00Z', paid: false, ref: '2024-02-02' },
  { code: '100', qty: null, price: null, day: null, at: null, paid: null, ref: 'soon' },
];

async function setup(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'Retyped', rows: ROWS } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id: string = created.body.data.id;
  const retype = (field: string, type: string) => app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/retype`, body: { field, type } });
  return { app, ws, id, source: created.body.data, retype };
}

const stored = (app: TestApp, id: string, column: string) =>
  app.context.data().query<Record<string, unknown>>(app.tenant.organisationId, (sql) => `SELECT ${sql.column(column)} AS v FROM ${sql.table(id)} ORDER BY ${sql.column(ROW_COLUMN)}`).then((rows) => rows.map((r) => r.v));
const typeOf = (source: { schemaEntries: Array<{ field: string; type: string }> }, field: string) => source.schemaEntries.find((e) => e.field === field)?.type;

test('re-typing converts every row, refreshes the statistics and the version id, and adds no batch', async (t) => {
  const { app, id, source, retype } = await setup(t);
  assert.equal(typeOf(source, 'code'), 'text');
  const asInteger = await retype('code', 'integer');
  assert.equal(asInteger.status, 200, JSON.stringify(asInteger.body));
  assert.equal(typeOf(asInteger.body.data, 'code'), 'integer');
  assert.deepEqual(await stored(app, id, 'code'), [7, 42, 100]);
  assert.equal(asInteger.body.data.columnMetadata.code.rangeTo, 100);
  assert.notEqual(asInteger.body.data.currentVersionId, source.currentVersionId);
  assert.equal(asInteger.body.data.latestVersionOrdinal, 1);
  assert.deepEqual(asInteger.body.data.batchRanges, source.batchRanges);

  for (const [field, type, values] of [
    ['qty', 'decimal', [3, 4, null]],
    ['qty', 'text', ['3', '4', null]],
    ['price', 'text', ['1.5', '2', null]],
    ['paid', 'text', ['true', 'false', null]],
    ['paid', 'boolean', [true, false, null]],
    ['day', 'text', ['2024-01-05', '2024-02-29', null]],
    ['day', 'date', ['2024-01-05', '2024-02-29', null]],
    ['at', 'date', ['2024-01-05', '2024-01-06', null]],
    ['day', 'datetime', ['2024-01-05 00:00:00.000', '2024-02-29 00:00:00.000', null]],
    ['code', 'categorical', ['7', '42', '100']],
  ] as Array<[string, string, unknown[]]>) {
    const res = await retype(field, type);
    assert.equal(res.status, 200, `${field} -> ${type}: ${JSON.stringify(res.body)}`);
    assert.equal(typeOf(res.body.data, field), type);
    assert.deepEqual(await stored(app, id, field), values, `${field} -> ${type}`);
  }
  // Asking for the type a column has changes nothing.
  const same = await retype('code', 'categorical');
  assert.equal(same.status, 200);
});

test('a value that does not fit answers 422 naming its row, and nothing changes', async (t) => {
  const { app, id, source, retype } = await setup(t);
  const cases: Array<[string, string, RegExp]> = [
    ['ref', 'date', /^Row 3: "soon" in column "ref" cannot be a date/],
    ['price', 'integer', /^Row 1: "1.5" in column "price" cannot be an integer/],
    ['code', 'boolean', /^Row 1: "007" in column "code" cannot be a boolean/],
    ['nope', 'text', /no column "nope"/],
  ];
  for (const [field, type, pattern] of cases) {
    const res = await retype(field, type);
    assert.equal(res.status, 422, `${field} -> ${type}`);
    assert.match(res.body.detail, pattern);
  }
  const after = await app.call({ method: 'GET', url: `${API}/sources/${id}` });
  assert.deepEqual(after.body.data.schemaEntries, source.schemaEntries);
  assert.equal(after.body.data.currentVersionId, source.currentVersionId);
  assert.deepEqual(await stored(app, id, 'ref'), ['2024-02-01', '2024-02-02', 'soon']);
  const at = await app.call({ method: 'POST', url: `${API}/workspaces/${app.tenant.libraryWorkspaceId}/sources/${id}/retype`, body: { field: 'at', type: 'date' } });
  assert.equal(at.status, 200, 'midnight datetimes become dates');
  const bad = await app.call({ method: 'POST', url: `${API}/workspaces/${app.tenant.libraryWorkspaceId}/sources/${id}/retype`, body: { field: 'at', type: 'array' } });
  assert.equal(bad.status, 422, 'arrays come only from inference');
});

test('later uploads are read with the new type; datasets the change no longer fits answer 409 until updated', async (t) => {
  const { app, ws, id, retype } = await setup(t);
  const dataset = await app.call({
    method: 'POST',
    url: `${API}/workspaces/${ws}/datasets`,
    body: { name: 'Totals', sources: [{ id }], operations: [{ sourceId: id, config: { type: 'aggregate', groupBy: [], aggregations: [{ column: 'qty', function: 'sum', alias: 'total' }] } }] },
  });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  assert.equal((await retype('qty', 'text')).status, 200);
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}/records` });
  assert.equal(records.status, 409);
  assert.match(records.body.detail, /no longer fits its sources/);

  const csv = 'code,qty,price,day,at,paid,ref\n5,a dozen,1,2024-03-01,2024-03-01T10:00:00Z,yes,x\n';
  const upload = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload`, body: csv, headers: { 'content-type': 'text/csv' } });
  assert.equal(upload.status, 201, JSON.stringify(upload.body));
  assert.deepEqual(await stored(app, id, 'qty'), ['3', '4', null, 'a dozen']);
});

test('re-typing an empty source, a folder, or while another writer holds the source is refused', async (t) => {
  const { app, ws, id, retype } = await setup(t);
  const empty = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Empty' } });
  const refused = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${empty.body.data.id}/retype`, body: { field: 'x', type: 'text' } });
  assert.equal(refused.status, 422);
  const folder = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Files', dataFormat: 'Folder' } });
  assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${folder.body.data.id}/retype`, body: { field: 'x', type: 'text' } })).status, 400);
  await app.context.meta.db.updateTable('sources').set({ lease_token: 'lease_other', lease_expires_at: new Date(Date.now() + 60_000).toISOString() }).where('id', '=', id).execute();
  assert.equal((await retype('qty', 'text')).status, 409);
});
