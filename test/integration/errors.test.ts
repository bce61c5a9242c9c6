import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JSON_BODY_LIMIT } from '../../src/app.js';
import { buildTestApp, testConfig } from '../helpers/app.js';

const PROBLEM = /^application\/problem\+json/;

test('an unknown route answers 404 route-not-found as a problem document, without a credential', async (t) => {
  const { call } = await buildTestApp(t);
  const res = await call({ method: 'GET', url: '/api/v1/nowhere', key: null });
  assert.equal(res.status, 404);
  assert.match(String(res.headers['content-type']), PROBLEM);
  assert.equal(res.body.type, 'urn:causa:problem:route-not-found');
  assert.deepEqual(Object.keys(res.body).slice(0, 4), ['type', 'title', 'status', 'detail']);
});

test('a known path with the wrong method answers 405 with Allow', async (t) => {
  const { call, tenant } = await buildTestApp(t);
  const res = await call({ method: 'PUT', url: `/api/v1/workspaces/${tenant.libraryWorkspaceId}` });
  assert.equal(res.status, 405);
  assert.equal(res.body.type, 'urn:causa:problem:method-not-allowed');
  assert.equal(res.headers.allow, 'DELETE, GET, HEAD, PATCH');
});

test('malformed JSON answers 400 malformed-json', async (t) => {
  const { call } = await buildTestApp(t);
  const res = await call({ method: 'POST', url: '/api/v1/workspaces', body: '{"name":', headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 400);
  assert.equal(res.body.type, 'urn:causa:problem:malformed-json');
});

test('a JSON body with a __proto__ member is refused, not merged', async (t) => {
  const { call } = await buildTestApp(t);
  const res = await call({ method: 'POST', url: '/api/v1/workspaces', body: '{"name":"x","__proto__":{"admin":true}}', headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 400);
});

test('a body that fails validation on create answers 422 listing every problem', async (t) => {
  const { call } = await buildTestApp(t);
  const res = await call({ method: 'POST', url: '/api/v1/workspaces', body: { description: 5, colour: 'red' } });
  assert.equal(res.status, 422);
  assert.equal(res.body.type, 'urn:causa:problem:validation-failed');
  const messages = res.body.errors.map((e: { location: string; message: string }) => `${e.location} ${e.message}`).join('\n');
  assert.match(messages, /unknown member 'colour'/);
  assert.match(messages, /'name'/);
  assert.match(messages, /body\/description/);
});

test('identity members in a body are ignored: the workspace lands in the caller organisation', async (t) => {
  const { call, tenant, other } = await buildTestApp(t);
  const res = await call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Mine', organisationId: other.organisationId, userId: other.userId } });
  assert.equal(res.status, 201);
  assert.equal(res.body.data.organisationId, tenant.organisationId);
});

test('an invalid query answers 400 (limit outside 1..1000, not a number, unknown parameter)', async (t) => {
  const { call } = await buildTestApp(t);
  for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'colour=red']) {
    const res = await call({ method: 'GET', url: `/api/v1/users?${query}` });
    assert.equal(res.status, 400, query);
    assert.equal(res.body.type, 'urn:causa:problem:invalid-request', query);
  }
});

test('a body over the limit answers 413 and one of another media type 415', async (t) => {
  const { call } = await buildTestApp(t);
  const big = await call({ method: 'POST', url: '/api/v1/workspaces', body: JSON.stringify({ name: 'x'.repeat(JSON_BODY_LIMIT) }), headers: { 'content-type': 'application/json' } });
  assert.equal(big.status, 413);
  assert.equal(big.body.type, 'urn:causa:problem:payload-too-large');
  const text = await call({ method: 'POST', url: '/api/v1/workspaces', body: 'name=x', headers: { 'content-type': 'text/plain' } });
  assert.equal(text.status, 415);
  assert.equal(text.body.type, 'urn:causa:problem:unsupported-media-type');
});

test('JSON with a charset parameter is accepted', async (t) => {
  const { call } = await buildTestApp(t);
  const res = await call({ method: 'POST', url: '/api/v1/workspaces', body: JSON.stringify({ name: 'Charset' }), headers: { 'content-type': 'application/json; charset=utf-8' } });
  assert.equal(res.status, 201);
});

test('an internal error answers 500 without internals, with the request id', async (t) => {
  const { call } = await buildTestApp(t, {}, testConfig(), (app) => {
    app.get('/api/v1/test-boom', { config: { public: true }, schema: { hide: true } }, async () => {
      throw new Error('secret internals at /srv/db.ts:12');
    });
  });
  const res = await call({ method: 'GET', url: '/api/v1/test-boom', headers: { 'x-request-id': 'trace-42' } });
  assert.equal(res.status, 500);
  assert.equal(res.body.type, 'urn:causa:problem:internal');
  assert.ok(!JSON.stringify(res.body).includes('secret internals'));
  assert.equal(res.body.requestId, 'trace-42');
  assert.equal(res.headers['x-request-id'], 'trace-42');
});

test('every response carries a request id, generated when the client sends none or a bad one', async (t) => {
  const { call } = await buildTestApp(t);
  const ok = await call({ method: 'GET', url: '/api/v1/me' });
  assert.match(String(ok.headers['x-request-id']), /^[0-9a-f]{12}-[0-9a-z]+$/);
  const next = await call({ method: 'GET', url: '/api/v1/me' });
  assert.notEqual(next.headers['x-request-id'], ok.headers['x-request-id']);
  const bad = await call({ method: 'GET', url: '/api/v1/me', headers: { 'x-request-id': 'has spaces\u00e9' } });
  assert.notEqual(bad.headers['x-request-id'], 'has spaces\u00e9');
  const denied = await call({ method: 'GET', url: '/api/v1/me', key: null });
  assert.equal(denied.body.requestId, denied.headers['x-request-id']);
});

test('GET /me answers exactly the fields of the spec', async (t) => {
  const { call, tenant } = await buildTestApp(t);
  const res = await call({ method: 'GET', url: '/api/v1/me' });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body.data).sort(), ['authType', 'organisationId', 'rateLimit', 'scopes', 'userId', 'workspaceId']);
  assert.equal(res.body.data.organisationId, tenant.organisationId);
  assert.equal(res.body.data.userId, tenant.userId);
  assert.equal(res.body.data.workspaceId, null);
  assert.equal(res.body.data.authType, 'apiKey');
  assert.equal(res.body.data.rateLimit, 1200);
  assert.equal(res.body.data.scopes.length, 24);
});
