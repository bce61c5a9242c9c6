import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, testConfig } from '../helpers/app.js';

test('the same Idempotency-Key and body replays the first response and creates nothing new', async (t) => {
  const { call } = await buildTestApp(t);
  const headers = { 'idempotency-key': 'batch-7-row-1' };
  const first = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Once' }, headers });
  const second = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Once' }, headers });
  assert.equal(first.status, 201);
  assert.equal(second.status, 201);
  assert.deepEqual(second.body, first.body);
  assert.equal(second.headers['idempotent-replayed'], 'true');
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const names = (await call({ method: 'GET', url: '/api/v1/workspaces' })).body.data.map((w: { name: string }) => w.name);
  assert.equal(names.filter((n: string) => n === 'Once').length, 1);
});

test('the same key with a different body answers 409 and changes nothing', async (t) => {
  const { call } = await buildTestApp(t);
  const headers = { 'idempotency-key': 'k-1' };
  await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'First' }, headers });
  const res = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Second' }, headers });
  assert.equal(res.status, 409);
  assert.equal(res.body.type, 'urn:causa:problem:idempotency-key-reused');
  const names = (await call({ method: 'GET', url: '/api/v1/workspaces' })).body.data.map((w: { name: string }) => w.name);
  assert.ok(!names.includes('Second'));
});

test('member order does not make a different body', async (t) => {
  const { call } = await buildTestApp(t);
  const headers = { 'idempotency-key': 'k-order' };
  const first = await call({ method: 'POST', url: '/api/v1/workspaces', body: '{"name":"Ord","description":"d"}', headers: { ...headers, 'content-type': 'application/json' } });
  const second = await call({ method: 'POST', url: '/api/v1/workspaces', body: '{"description":"d","name":"Ord"}', headers: { ...headers, 'content-type': 'application/json' } });
  assert.deepEqual(second.body, first.body);
});

test('a replayed error stays the same error (a 409 duplicate is remembered)', async (t) => {
  const { call } = await buildTestApp(t);
  await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Taken' } });
  const headers = { 'idempotency-key': 'dup' };
  const first = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Taken' }, headers });
  const second = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Taken' }, headers });
  assert.equal(first.status, 409);
  assert.equal(second.status, 409);
  assert.equal(second.headers['idempotent-replayed'], 'true');
  assert.match(String(second.headers['content-type']), /problem\+json/);
});

test('a body refused by validation does not consume the key', async (t) => {
  const { call } = await buildTestApp(t);
  const headers = { 'idempotency-key': 'fix-and-retry' };
  assert.equal((await call({ method: 'POST', url: '/api/v1/workspaces', body: { nom: 'typo' }, headers })).status, 422);
  assert.equal((await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Fixed' }, headers })).status, 201);
});

test('keys are per organisation: another tenant may use the same key', async (t) => {
  const { call, other } = await buildTestApp(t);
  const headers = { 'idempotency-key': 'shared-name' };
  const mine = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'X' }, headers });
  const theirs = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'X' }, headers, key: other.key });
  assert.equal(theirs.status, 201);
  assert.notEqual(theirs.body.data.id, mine.body.data.id);
  assert.equal(theirs.headers['idempotent-replayed'], undefined);
});

test('after 24 hours a key is forgotten and the request runs again', async (t) => {
  const { call, context } = await buildTestApp(t);
  const headers = { 'idempotency-key': 'old' };
  await call({ method: 'POST', url: '/api/v1/users', body: { name: 'Ann' }, headers });
  await context.meta.db.updateTable('idempotency_keys').set({ created_at: new Date(Date.now() - 25 * 3600_000).toISOString() }).execute();
  const again = await call({ method: 'POST', url: '/api/v1/users', body: { name: 'Ann' }, headers });
  assert.equal(again.status, 201);
  assert.equal(again.headers['idempotent-replayed'], undefined);
  assert.equal((await call({ method: 'GET', url: '/api/v1/users' })).body.pagination.total, 3);
});

test('an invalid Idempotency-Key header answers 400', async (t) => {
  const { call } = await buildTestApp(t);
  const res = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Y' }, headers: { 'idempotency-key': 'x'.repeat(256) } });
  assert.equal(res.status, 400);
});

test('a 5xx answer is not remembered: the retry runs again', async (t) => {
  let calls = 0;
  const { call } = await buildTestApp(t, {}, testConfig(), (app) => {
    app.post('/api/v1/test-flaky', { config: { scope: null }, schema: { hide: true } }, async () => {
      calls += 1;
      if (calls === 1) throw new Error('transient');
      return { data: { calls } };
    });
  });
  const headers = { 'idempotency-key': 'flaky' };
  assert.equal((await call({ method: 'POST', url: '/api/v1/test-flaky', body: {}, headers })).status, 500);
  const retry = await call({ method: 'POST', url: '/api/v1/test-flaky', body: {}, headers });
  assert.equal(retry.status, 200);
  assert.equal(retry.body.data.calls, 2);
});

test('a retry while the first request still runs answers 409 in-progress', async (t) => {
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
  const { call } = await buildTestApp(t, {}, testConfig(), (app) => {
    app.post('/api/v1/test-slow', { config: { scope: null }, schema: { hide: true } }, async () => {
      entered(); // the key is claimed before the handler runs
      await new Promise<void>((resolve) => (release = resolve));
      return { data: 'done' };
    });
  });
  const headers = { 'idempotency-key': 'slow' };
  const first = call({ method: 'POST', url: '/api/v1/test-slow', body: {}, headers });
  await handlerEntered;
  const second = await call({ method: 'POST', url: '/api/v1/test-slow', body: {}, headers });
  assert.equal(second.status, 409);
  assert.equal(second.body.type, 'urn:causa:problem:idempotency-in-progress');
  release();
  assert.equal((await first).status, 200);
});
