/**
 * Data views over HTTP: an anchor query saved by `saveAs` or by create, read again on the current data, renamed,
 * re-queried and deleted; its refusals (a query that does not compile, SHOW, a taken name, a reader's key) and
 * tenancy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TestApp, buildTestApp } from '../helpers/app.js';

const API = '/api/v1';

async function world(app: TestApp) {
  const ws = app.tenant.libraryWorkspaceId;
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'orders', ontologyMode: 'manual' } });
  const sourceId = created.body.data.id;
  const upload = (csv: string) => app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${sourceId}/upload?fileName=orders.csv`, body: csv, headers: { 'content-type': 'text/csv' } });
  assert.equal((await upload('order_id,region,amount\n1,north,10\n2,south,20\n3,north,5\n')).status, 201);
  assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'orders', sources: [{ id: sourceId }] } })).status, 201);
  const query = (body: Record<string, unknown>, key?: string) => app.call({ method: 'POST', url: `${API}/workspaces/${ws}/query`, body, ...(key === undefined ? {} : { key }) });
  return { ws, upload, query, views: `${API}/workspaces/${ws}/data-views` };
}

test('a query saved with saveAs is a data view: read again, it runs on the current data; renamed, re-queried and deleted', async (t) => {
  const app = await buildTestApp(t);
  const { upload, query, views } = await world(app);
  const text = 'SELECT region, sum(amount) AS total FROM orders GROUP BY region ORDER BY region';
  const saved = await query({ query: text, saveAs: { name: 'Revenue by region', description: 'for the weekly review' } });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.data.ok, true);
  const id = saved.body.data.dataViewId;
  assert.match(id, /^dv_/);
  assert.deepEqual(saved.body.data.rows, [{ region: 'north', total: 15 }, { region: 'south', total: 20 }]);
  assert.equal((await query({ query: text })).body.data.dataViewId, null, 'a query not saved names no view');

  const view = (await app.call({ method: 'GET', url: `${views}/${id}` })).body.data;
  assert.deepEqual([view.name, view.description, view.query, view.createdBy], ['Revenue by region', 'for the weekly review', text, app.tenant.userId]);
  const listed = await app.call({ method: 'GET', url: views });
  assert.deepEqual(listed.body.data.map((v: { id: string }) => v.id), [id]);

  assert.equal((await upload('order_id,region,amount\n4,east,7\n5,south,1\n')).status, 201);
  const rows = await app.call({ method: 'GET', url: `${views}/${id}/rows?limit=2` });
  assert.equal(rows.status, 200, JSON.stringify(rows.body));
  assert.equal(rows.body.data.dataViewId, id);
  assert.deepEqual(rows.body.data.rows, [{ region: 'east', total: 7 }, { region: 'north', total: 15 }], 'the view runs on the rows uploaded since');
  assert.equal(rows.body.data.nextStartKey, 2);
  const next = await app.call({ method: 'GET', url: `${views}/${id}/rows?limit=2&startKey=2` });
  assert.deepEqual(next.body.data.rows, [{ region: 'south', total: 21 }]);

  const validated = await query({ query: 'SELECT count(*) AS n FROM orders', mode: 'validate', saveAs: { name: 'Order count' } });
  assert.equal(validated.body.data.kind, 'validated');
  assert.match(validated.body.data.dataViewId, /^dv_/, 'a validated query is saved without running');

  const renamed = await app.call({ method: 'PATCH', url: `${views}/${id}`, body: { name: 'North only', query: 'SELECT sum(amount) AS total FROM orders WHERE region = \'north\'' } });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  assert.equal(renamed.body.data.description, 'for the weekly review', 'members not sent stay');
  assert.deepEqual((await app.call({ method: 'GET', url: `${views}/${id}/rows` })).body.data.rows, [{ total: 15 }]);
  const clash = await app.call({ method: 'PATCH', url: `${views}/${id}`, body: { name: 'order COUNT' } });
  assert.equal(clash.status, 409, 'names are unique in the workspace, case-insensitive');

  assert.equal((await app.call({ method: 'DELETE', url: `${views}/${id}` })).status, 204);
  assert.equal((await app.call({ method: 'GET', url: `${views}/${id}` })).status, 404);
  assert.equal((await app.call({ method: 'GET', url: `${views}/${id}/rows` })).status, 404);
});

test('data views refuse what cannot be saved, and other organisations and readers cannot reach or write them', async (t) => {
  const app = await buildTestApp(t);
  const { query, views } = await world(app);
  const misspelled = await app.call({ method: 'POST', url: views, body: { name: 'Bad', query: 'SELECT sum(amont) FROM orders' } });
  assert.equal(misspelled.status, 422);
  assert.equal(misspelled.body.errors[0].location, 'body/query');
  assert.match(misspelled.body.errors[0].message, /unknown_name.*did you mean: SELECT sum\(amount\) FROM orders/);
  const show = await app.call({ method: 'POST', url: views, body: { name: 'Show', query: 'SHOW DATASETS' } });
  assert.equal(show.status, 422);
  const showSaved = await query({ query: 'SHOW DATASETS', saveAs: { name: 'Show' } });
  assert.equal(showSaved.status, 422);
  assert.equal(showSaved.body.errors[0].location, 'body/saveAs');
  const failing = await query({ query: 'SELECT sum(amont) FROM orders', saveAs: { name: 'Failing' } });
  assert.equal(failing.body.data.ok, false, 'a query that does not compile is answered with its error');
  assert.equal((await app.call({ method: 'GET', url: views })).body.data.length, 0, 'and nothing is saved');

  const created = await app.call({ method: 'POST', url: views, body: { name: 'Count', query: 'SELECT count(*) AS n FROM orders' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal((await query({ query: 'SELECT count(*) AS n FROM orders', saveAs: { name: 'count' } })).status, 409);
  assert.equal((await app.call({ method: 'PATCH', url: `${views}/${created.body.data.id}`, body: { query: 'SELECT nope FROM orders' } })).status, 422);

  const reader = (await app.call({ method: 'POST', url: `${API}/api-keys`, body: { name: 'reader', scopes: ['datasets:read'] } })).body.data.key;
  assert.equal((await query({ query: 'SELECT count(*) AS n FROM orders', saveAs: { name: 'Reader view' } }, reader)).status, 403, 'saving needs datasets:write');
  assert.equal((await query({ query: 'SELECT count(*) AS n FROM orders' }, reader)).status, 200);
  assert.equal((await app.call({ method: 'GET', url: `${views}/${created.body.data.id}/rows`, key: reader })).body.data.rows[0].n, 3);

  const theirs = `${API}/workspaces/${app.other.libraryWorkspaceId}/data-views`;
  assert.ok([403, 404].includes((await app.call({ method: 'GET', url: `${views}/${created.body.data.id}`, key: app.other.key })).status));
  assert.equal((await app.call({ method: 'GET', url: `${theirs}/${created.body.data.id}`, key: app.other.key })).status, 404, 'not in their workspace either');
  assert.equal((await app.call({ method: 'GET', url: theirs, key: app.other.key })).body.data.length, 0);
});
