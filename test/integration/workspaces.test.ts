import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';

test('a workspace is created, read, renamed, listed and deleted by its owner', async (t) => {
  const { call } = await buildTestApp(t);
  const created = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Growth', description: 'experiments' } });
  assert.equal(created.status, 201);
  assert.equal(created.body.data.name, 'Growth');
  assert.equal(created.body.data.isOrgLibrary, false);
  const id = created.body.data.id;

  const read = await call({ method: 'GET', url: `/api/v1/workspaces/${id}` });
  assert.deepEqual(read.body.data, created.body.data);

  const renamed = await call({ method: 'PATCH', url: `/api/v1/workspaces/${id}`, body: { name: 'Growth team' } });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.body.data.name, 'Growth team');
  assert.equal(renamed.body.data.description, 'experiments');

  const list = await call({ method: 'GET', url: '/api/v1/workspaces' });
  assert.deepEqual(list.body.data.map((w: { name: string }) => w.name).sort(), ['Growth team', 'Organisation library']);

  const deleted = await call({ method: 'DELETE', url: `/api/v1/workspaces/${id}` });
  assert.equal(deleted.status, 204);
  assert.equal(deleted.raw.body, '');
  assert.equal((await call({ method: 'GET', url: `/api/v1/workspaces/${id}` })).status, 404);
});
