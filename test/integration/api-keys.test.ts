import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashApiKey } from '../../src/api-keys/api-key-value.js';
import { buildTestApp } from '../helpers/app.js';

test('a created key is shown once, stored only as a hash, and works at once', async (t) => {
  const { call, context, tenant } = await buildTestApp(t);
  const created = await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'pipeline', scopes: ['sources:read', 'jobs:read'] } });
  assert.equal(created.status, 201);
  const value: string = created.body.data.key;
  assert.match(value, /^pk_[A-Za-z0-9_-]{43}$/);
  assert.equal(created.body.data.prefix, value.slice(0, 11));
  assert.equal(created.body.data.status, 'active');
  assert.equal(created.body.data.userId, tenant.userId);

  const row = await context.meta.db.selectFrom('api_keys').selectAll().where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
  assert.equal(row.key_hash, hashApiKey(value));
  assert.ok(!Object.values(row).some((column) => String(column).includes(value)), 'the value is not stored');

  const fetched = await call({ method: 'GET', url: `/api/v1/api-keys/${created.body.data.id}` });
  assert.equal(fetched.body.data.key, undefined);
  const listed = await call({ method: 'GET', url: '/api/v1/api-keys' });
  assert.ok(!JSON.stringify(listed.body).includes(value));

  const me = await call({ method: 'GET', url: '/api/v1/me', key: value });
  assert.deepEqual(me.body.data.scopes, ['sources:read', 'jobs:read']);
});

test('area:* scopes expand; unknown scopes, past expiry and bad allowlists answer 422 naming the field', async (t) => {
  const { call } = await buildTestApp(t);
  const expanded = await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'twins', scopes: ['digital-twins:*'] } });
  assert.deepEqual(expanded.body.data.scopes, ['digital-twins:read', 'digital-twins:write', 'digital-twins:delete', 'digital-twins:execute']);
  const cases: Array<[object, RegExp]> = [
    [{ scopes: ['sources:fly'] }, /sources:fly/],
    [{ scopes: ['sources:read'], expiresAt: '2001-01-01T00:00:00Z' }, /expiresAt/],
    [{ scopes: ['sources:read'], ipAllowlist: '10.0.0.0/8, 999.1.1.1' }, /999\.1\.1\.1/],
    [{ scopes: ['sources:read'], rateLimit: 0 }, /rateLimit/],
    [{ scopes: [] }, /scopes/],
    [{ scopes: ['sources:read'], workspaceId: 'ws_missing' }, /workspaceId|ws_missing/],
    [{ scopes: ['sources:read'], forUserId: 'usr_missing' }, /usr_missing/],
  ];
  for (const [body, pattern] of cases) {
    const res = await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'bad', ...body } });
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.match(JSON.stringify(res.body), pattern);
  }
});

test('a new key cannot carry a scope its creator lacks', async (t) => {
  const { call } = await buildTestApp(t);
  const narrow = await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'narrow', scopes: ['sources:read'] } });
  const res = await call({ method: 'POST', url: '/api/v1/api-keys', key: narrow.body.data.key, body: { name: 'wider', scopes: ['sources:read', 'sources:delete'] } });
  assert.equal(res.status, 403);
  assert.match(res.body.detail, /sources:delete/);
});

test('a workspace-pinned key sees only its workspace and issues only keys pinned to it', async (t) => {
  const { call } = await buildTestApp(t);
  const a = (await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'A' } })).body.data.id;
  await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'B' } });
  const pinned = await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'pinned', workspaceId: a, scopes: ['sources:read', 'sources:write'] } });
  const key = pinned.body.data.key;
  assert.equal((await call({ method: 'GET', url: '/api/v1/me', key })).body.data.workspaceId, a);
  const list = await call({ method: 'GET', url: '/api/v1/workspaces', key });
  assert.deepEqual(list.body.data.map((w: { id: string }) => w.id), [a]);
  assert.equal((await call({ method: 'POST', url: '/api/v1/workspaces', key, body: { name: 'C' } })).status, 403);
  assert.equal((await call({ method: 'POST', url: '/api/v1/api-keys', key, body: { name: 'org-wide', scopes: ['sources:read'] } })).status, 403);
  const child = await call({ method: 'POST', url: '/api/v1/api-keys', key, body: { name: 'child', workspaceId: a, scopes: ['sources:read'] } });
  assert.equal(child.status, 201);
  const visible = await call({ method: 'GET', url: '/api/v1/api-keys', key });
  assert.ok(visible.body.data.every((k: { workspaceId: string }) => k.workspaceId === a));
});

test('keys list newest first, filtered by org-wide or workspace scope', async (t) => {
  const { call, tenant } = await buildTestApp(t);
  const ws = tenant.libraryWorkspaceId;
  await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'one', scopes: ['sources:read'] } });
  await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'two', workspaceId: ws, scopes: ['sources:read'] } });
  const all = await call({ method: 'GET', url: '/api/v1/api-keys' });
  assert.deepEqual(all.body.data.map((k: { name: string }) => k.name), ['two', 'one', 'admin']);
  assert.equal(all.body.pagination.total, 3);
  const orgWide = await call({ method: 'GET', url: '/api/v1/api-keys?scopeType=organisation' });
  assert.deepEqual(orgWide.body.data.map((k: { name: string }) => k.name), ['one', 'admin']);
  const pinned = await call({ method: 'GET', url: `/api/v1/api-keys?scopeType=workspace&workspaceId=${ws}` });
  assert.deepEqual(pinned.body.data.map((k: { name: string }) => k.name), ['two']);
  assert.equal(pinned.body.pagination.total, 1);
});

test('a revoked key answers 401 at once; revoking again keeps the first timestamp', async (t) => {
  const { call } = await buildTestApp(t);
  const created = await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'temp', scopes: ['sources:read'] } });
  const { id, key } = created.body.data;
  assert.equal((await call({ method: 'GET', url: '/api/v1/me', key })).status, 200);
  const revoked = await call({ method: 'POST', url: `/api/v1/api-keys/${id}/revoke` });
  assert.equal(revoked.body.data.status, 'revoked');
  const denied = await call({ method: 'GET', url: '/api/v1/me', key });
  assert.equal(denied.status, 401);
  assert.match(denied.body.detail, /revoked/);
  const again = await call({ method: 'POST', url: `/api/v1/api-keys/${id}/revoke` });
  assert.equal(again.body.data.revokedAt, revoked.body.data.revokedAt);
});

test('deleting a workspace revokes the keys pinned to it', async (t) => {
  const { call } = await buildTestApp(t);
  const ws = (await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Doomed' } })).body.data.id;
  const key = (await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'p', workspaceId: ws, scopes: ['sources:read'] } })).body.data.key;
  assert.equal((await call({ method: 'GET', url: '/api/v1/me', key })).status, 200);
  assert.equal((await call({ method: 'DELETE', url: `/api/v1/workspaces/${ws}` })).status, 204);
  assert.equal((await call({ method: 'GET', url: '/api/v1/me', key })).status, 401);
});

test('an expired key answers 401 naming the expiry', async (t) => {
  const { call } = await buildTestApp(t);
  // Expiry is checked against the clock on every request, cached credential or not.
  const soon = new Date(Date.now() + 1500).toISOString();
  const key = (await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'short', scopes: ['sources:read'], expiresAt: soon } })).body.data.key;
  assert.equal((await call({ method: 'GET', url: '/api/v1/me', key })).status, 200);
  await new Promise((resolve) => setTimeout(resolve, Date.parse(soon) - Date.now() + 50));
  const res = await call({ method: 'GET', url: '/api/v1/me', key });
  assert.equal(res.status, 401);
  assert.match(res.body.detail, /expired/);
});

test('the IP allowlist admits listed addresses and refuses others with 403', async (t) => {
  const { call } = await buildTestApp(t);
  const key = (await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'office', scopes: ['sources:read'], ipAllowlist: '203.0.113.0/24, 2001:db8::/32' } })).body.data.key;
  assert.equal((await call({ method: 'GET', url: '/api/v1/me', key, remoteAddress: '203.0.113.77' })).status, 200);
  assert.equal((await call({ method: 'GET', url: '/api/v1/me', key, remoteAddress: '2001:db8::9' })).status, 200);
  const denied = await call({ method: 'GET', url: '/api/v1/me', key, remoteAddress: '198.51.100.1' });
  assert.equal(denied.status, 403);
  assert.equal(denied.body.type, 'urn:causa:problem:ip-not-allowed');
});

test('only organisation admins manage keys and users', async (t) => {
  const { call } = await buildTestApp(t);
  const member = (await call({ method: 'POST', url: '/api/v1/users', body: { name: 'Mia', email: 'mia@example.com' } })).body.data;
  assert.equal(member.role, 'member');
  const key = (await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'mia', forUserId: member.id, scopes: ['sources:read'] } })).body.data.key;
  assert.equal((await call({ method: 'GET', url: '/api/v1/api-keys', key })).status, 403);
  assert.equal((await call({ method: 'POST', url: '/api/v1/api-keys', key, body: { name: 'x', scopes: ['sources:read'] } })).status, 403);
  assert.equal((await call({ method: 'POST', url: '/api/v1/users', key, body: { name: 'Eve' } })).status, 403);
  assert.equal((await call({ method: 'GET', url: `/api/v1/users/${member.id}`, key })).status, 403);
  assert.equal((await call({ method: 'GET', url: '/api/v1/users', key })).status, 403);
  const duplicate = await call({ method: 'POST', url: '/api/v1/users', body: { name: 'Mia again', email: 'mia@example.com' } });
  assert.equal(duplicate.status, 409);
});
