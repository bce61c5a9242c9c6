import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const API = '/api/v1';

async function source(app: TestApp, wsId: string, body: Record<string, unknown>, key?: string) {
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${wsId}/sources`, body, ...(key && { key }) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

const names = (res: { body: { data: Array<{ name: string }> } }) => res.body.data.map((s) => s.name);

test('a created source is empty metadata, linked to its workspace, with every field of the spec', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const created = await source(app, ws, { name: 'Orders', description: 'raw orders' });
  assert.equal(created.dataFormat, 'Tabular');
  assert.equal(created.dataSource, 'upload');
  assert.equal(created.documentCount, 0);
  assert.deepEqual(created.schemaEntries, []);
  assert.deepEqual(created.batchRanges, []);
  assert.equal(created.latestVersionOrdinal, 0);
  assert.equal(created.workspaceId, ws);
  const read = await app.call({ method: 'GET', url: `${API}/sources/${created.id}` });
  assert.deepEqual(read.body.data, { ...created, linkedWorkspaceIds: [ws] });
});

test('the organisation list shows top-level sources by default, children by parentId, everything with all', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const folder = await source(app, ws, { name: 'Drop folder', dataFormat: 'Folder' });
  await source(app, ws, { name: 'Child A', parentSourceId: folder.id });
  await source(app, ws, { name: 'Child B', parentSourceId: folder.id });
  await source(app, ws, { name: 'Top' });
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources?sortBy=name&sortDir=asc` })), ['Drop folder', 'Top']);
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources?parentId=${folder.id}&sortBy=name&sortDir=asc` })), ['Child A', 'Child B']);
  const all = await app.call({ method: 'GET', url: `${API}/sources?parentId=all&sortBy=name&sortDir=asc` });
  assert.deepEqual(names(all), ['Child A', 'Child B', 'Drop folder', 'Top']);
  assert.equal(all.body.pagination.total, 4);
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources?parentId=all&format=Folder` })), ['Drop folder']);
  // The workspace list filters by parent the same way.
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/sources?parentId=${folder.id}` })).sort(), ['Child A', 'Child B']);
});

test('search is case-insensitive and treats % and _ literally', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  for (const name of ['Revenue 2024', 'revenue_2025', 'Costs 100%', 'Headcount']) await source(app, ws, { name });
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources?search=REVENUE&sortBy=name&sortDir=asc` })), ['Revenue 2024', 'revenue_2025']);
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources?search=${encodeURIComponent('%')}` })), ['Costs 100%']);
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources?search=_` })), ['revenue_2025']);
});

test('sorted pages walk every source once, in order, for each sort key and direction', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  for (const name of ['delta', 'Alpha', 'charlie', 'Bravo', 'echo', 'alpha']) await source(app, ws, { name });
  for (const [sortBy, sortDir] of [['name', 'asc'], ['name', 'desc'], ['createdAt', 'desc'], ['createdAt', 'asc'], ['totalSize', 'asc']]) {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `${API}/sources?limit=4&sortBy=${sortBy}&sortDir=${sortDir}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await app.call({ method: 'GET', url });
      assert.equal(res.body.pagination.total, 6);
      seen.push(...res.body.data.map((s: { id: string }) => s.id));
      cursor = res.body.pagination.cursor;
    } while (cursor !== null);
    assert.equal(new Set(seen).size, 6, `${sortBy} ${sortDir}`);
    const all = await app.call({ method: 'GET', url: `${API}/sources?limit=100&sortBy=${sortBy}&sortDir=${sortDir}` });
    assert.deepEqual(seen, all.body.data.map((s: { id: string }) => s.id), `${sortBy} ${sortDir}`);
  }
  const byName = names(await app.call({ method: 'GET', url: `${API}/sources?sortBy=name&sortDir=asc` }));
  assert.deepEqual(byName.map((n) => n.toLowerCase()), ['alpha', 'alpha', 'bravo', 'charlie', 'delta', 'echo']);
  const cursor = (await app.call({ method: 'GET', url: `${API}/sources?limit=2&sortBy=name` })).body.pagination.cursor;
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources?limit=2&sortBy=createdAt&cursor=${encodeURIComponent(cursor)}` })).status, 400, 'a cursor is bound to its sort');
});

test('linking shares a source with another workspace; unlinking removes it there only', async (t) => {
  const app = await buildTestApp(t);
  const home = app.tenant.libraryWorkspaceId;
  const other = (await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'Analytics' } })).body.data.id;
  const orders = await source(app, home, { name: 'Orders' });
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/workspaces/${other}/sources` })), []);
  const linked = await app.call({ method: 'POST', url: `${API}/sources/${orders.id}/links`, body: { workspaceId: other } });
  assert.deepEqual(linked.body.data.linkedWorkspaceIds, [home, other].sort());
  const again = await app.call({ method: 'POST', url: `${API}/sources/${orders.id}/links`, body: { workspaceId: other } });
  assert.deepEqual(again.body.data.linkedWorkspaceIds, linked.body.data.linkedWorkspaceIds, 'idempotent');
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/workspaces/${other}/sources` })), ['Orders']);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/sources/${orders.id}/links/${other}` })).status, 204);
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/workspaces/${other}/sources` })), []);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/sources/${orders.id}/links/${other}` })).status, 404);
  const foreign = app.other.libraryWorkspaceId;
  assert.equal((await app.call({ method: 'POST', url: `${API}/sources/${orders.id}/links`, body: { workspaceId: foreign } })).status, 404);
});

test('the workspace list leaves out virtual sources', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const hidden = await source(app, ws, { name: 'Virtual view' });
  await source(app, ws, { name: 'Real' });
  await app.context.meta.db.updateTable('sources').set({ virtual: 1 }).where('id', '=', hidden.id).execute();
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/sources` })), ['Real']);
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources` })).body.pagination.total, 2, 'the organisation list includes it');
});

test('deleting a source needs it linked to the workspace, no derived sources, and full permission', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const parent = await source(app, ws, { name: 'Parent', dataFormat: 'Folder' });
  const child = await source(app, ws, { name: 'Child', parentSourceId: parent.id });
  const elsewhere = (await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'Elsewhere' } })).body.data.id;
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${elsewhere}/sources/${parent.id}` })).status, 404);
  const blocked = await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${parent.id}` });
  assert.equal(blocked.status, 409);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${child.id}` })).status, 204);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${parent.id}` })).status, 204);
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources/${parent.id}` })).status, 404);
});

test('members see the sources of workspaces they can read, and nothing else', async (t) => {
  const app = await buildTestApp(t);
  const mine = (await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'Mine' } })).body.data.id;
  const theirs = (await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'Theirs' } })).body.data.id;
  const visible = await source(app, mine, { name: 'Visible' });
  const hidden = await source(app, theirs, { name: 'Hidden' });
  const member = (await app.call({ method: 'POST', url: `${API}/users`, body: { name: 'Mia' } })).body.data;
  await app.call({ method: 'PUT', url: `${API}/workspaces/${mine}/members/${member.id}`, body: { level: 'read' } });
  const key = (await app.call({ method: 'POST', url: `${API}/api-keys`, body: { name: 'mia', forUserId: member.id, scopes: ['sources:read', 'sources:write'] } })).body.data.key;
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources`, key })), ['Visible']);
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources/${visible.id}`, key })).status, 200);
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources/${hidden.id}`, key })).status, 403);
  assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${mine}/sources`, key, body: { name: 'x' } })).status, 403, 'read is not write');
  const foreign = await source(app, app.other.libraryWorkspaceId, { name: 'Foreign' }, app.other.key);
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources/${foreign.id}` })).status, 404);
  assert.deepEqual(names(await app.call({ method: 'GET', url: `${API}/sources` })).sort(), ['Hidden', 'Visible']);
});

test('bad creates answer 422 naming the field', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  for (const [body, pattern] of [
    [{ name: '' }, /name/],
    [{ name: 'x', dataFormat: 'Spreadsheet' }, /dataFormat/],
    [{ name: 'x', parentSourceId: 'src_missing' }, /parentSourceId/],
    [{ name: 'x', colour: 'red' }, /colour/],
  ] as const) {
    const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body });
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.match(JSON.stringify(res.body), pattern);
  }
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources?sortBy=colour` })).status, 400);
});
