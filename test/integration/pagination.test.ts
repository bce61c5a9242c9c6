import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';

test('pages walk the whole list once, in order, with total on every page and no cursor at the end', async (t) => {
  const { call } = await buildTestApp(t);
  for (let i = 0; i < 7; i++) await call({ method: 'POST', url: '/api/v1/users', body: { name: `user ${i}` } });
  const seen: string[] = [];
  let cursor: string | null = null;
  const sizes: number[] = [];
  do {
    const res: { body: any } = await call({ method: 'GET', url: `/api/v1/users?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}` });
    assert.equal(res.body.pagination.total, 8);
    sizes.push(res.body.data.length);
    seen.push(...res.body.data.map((u: { id: string }) => u.id));
    cursor = res.body.pagination.cursor;
    assert.equal(res.body.pagination.hasMore, cursor !== null);
  } while (cursor !== null);
  assert.deepEqual(sizes, [3, 3, 2]);
  assert.equal(new Set(seen).size, 8);
  assert.deepEqual(seen, [...seen].sort());
});

test('the default page size is 50', async (t) => {
  const { call } = await buildTestApp(t);
  for (let i = 0; i < 51; i++) await call({ method: 'POST', url: '/api/v1/users', body: { name: `u${i}` } });
  const res = await call({ method: 'GET', url: '/api/v1/users' });
  assert.equal(res.body.data.length, 50);
  assert.equal(res.body.pagination.hasMore, true);
  assert.equal(res.body.pagination.total, 52);
});

test('a tampered or foreign cursor answers 400 invalid-cursor', async (t) => {
  const { call } = await buildTestApp(t);
  for (let i = 0; i < 3; i++) await call({ method: 'POST', url: '/api/v1/users', body: { name: `u${i}` } });
  const first = await call({ method: 'GET', url: '/api/v1/users?limit=1' });
  const cursor: string = first.body.pagination.cursor;
  const [body, signature] = cursor.split('.');
  const forged = `${Buffer.from(JSON.stringify([['usr_0'], JSON.parse(Buffer.from(body!, 'base64url').toString())[1]])).toString('base64url')}.${signature}`;
  for (const bad of [forged, 'not-a-cursor', `${cursor}x`]) {
    const res = await call({ method: 'GET', url: `/api/v1/users?cursor=${encodeURIComponent(bad)}` });
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.type, 'urn:causa:problem:invalid-cursor');
  }
  const otherList = await call({ method: 'GET', url: `/api/v1/api-keys?cursor=${encodeURIComponent(cursor)}` });
  assert.equal(otherList.status, 400, 'a users cursor is not an api-keys cursor');
});

test('a cursor cannot be carried across organisations', async (t) => {
  const { call, other } = await buildTestApp(t);
  for (let i = 0; i < 3; i++) await call({ method: 'POST', url: '/api/v1/users', body: { name: `u${i}` } });
  const cursor = (await call({ method: 'GET', url: '/api/v1/users?limit=1' })).body.pagination.cursor;
  const res = await call({ method: 'GET', url: `/api/v1/users?cursor=${encodeURIComponent(cursor)}`, key: other.key });
  assert.equal(res.status, 400);
});

test('changing a filter under a cursor answers 400', async (t) => {
  const { call, tenant } = await buildTestApp(t);
  for (let i = 0; i < 3; i++) await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: `k${i}`, scopes: ['sources:read'] } });
  const cursor = (await call({ method: 'GET', url: '/api/v1/api-keys?limit=1&scopeType=organisation' })).body.pagination.cursor;
  const res = await call({ method: 'GET', url: `/api/v1/api-keys?scopeType=workspace&workspaceId=${tenant.libraryWorkspaceId}&cursor=${encodeURIComponent(cursor)}` });
  assert.equal(res.status, 400);
});
