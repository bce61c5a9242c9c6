import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';

const API = '/api/v1';
const IDENTITY = ['organisationId', 'workspaceId', 'userId', 'ownerId'];
const METHODS = ['post', 'put', 'patch'];

test('identity members in a body are ignored by every operation that takes a JSON body, unless it documents one as its own', async (t) => {
  const app = await buildTestApp(t);
  const doc = (await app.call({ method: 'GET', url: `${API}/openapi.json`, key: null })).body;
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const method of METHODS) {
      const operation = item[method];
      const schema = operation?.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
      const own = new Set(Object.keys(resolved?.properties ?? {}));
      const url = path.replace(/^\/api\/v1/, API).replace(/\{wsId\}/g, app.tenant.libraryWorkspaceId).replace(/\{[^}]+\}/g, 'id_absent');
      const body = Object.fromEntries(IDENTITY.map((name) => [name, own.has(name) ? app.tenant.libraryWorkspaceId : 'from_the_body']));
      const response = await app.call({ method: method.toUpperCase() as 'POST', url, body });
      checked++;
      if (response.status !== 422) continue;
      const errors: { location: string; message: string }[] = response.body.errors ?? [];
      const blamed = errors.filter((e) => IDENTITY.some((name) => !own.has(name) && (e.location === `body/${name}` || e.message.includes(`'${name}'`))));
      assert.deepEqual(blamed, [], `${method.toUpperCase()} ${path} refused an identity member: ${JSON.stringify(response.body)}`);
    }
  }
  assert.ok(checked >= 25, `only ${checked} operations with a JSON body were found`);
});

test('a stored record never takes its organisation or workspace from the body', async (t) => {
  const app = await buildTestApp(t);
  const created = await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'mine', organisationId: app.other.organisationId, userId: app.other.userId } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.data.organisationId, app.tenant.organisationId);
  const patched = await app.call({ method: 'PATCH', url: `${API}/workspaces/${created.body.data.id}`, body: { name: 'renamed', organisationId: app.other.organisationId, workspaceId: 'elsewhere' } });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.data.organisationId, app.tenant.organisationId);
  assert.equal(patched.body.data.id, created.body.data.id);
});

test('text that cannot be stored exactly is refused with a 422 naming the member, and nothing is written', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['nulX\u0000a', '\u0000', 'lone \ud800 surrogate', 'lone \udc00 low']) {
    const response = await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name } });
    assert.equal(response.status, 422, JSON.stringify(name));
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    assert.equal(response.body.errors[0].location, 'body/name');
  }
  const nested = await app.call({ method: 'POST', url: `${API}/workspaces/${app.tenant.libraryWorkspaceId}/sources/from-data`, body: { name: 'rows', rows: [{ a: 1 }, { a: 'x\u0000y' }] } });
  assert.equal(nested.status, 422);
  assert.equal(nested.body.errors[0].location, 'body/rows/1/a');
  const key = await app.call({ method: 'POST', url: `${API}/workspaces/${app.tenant.libraryWorkspaceId}/sources/from-data`, body: { name: 'rows', rows: [{ 'a\u0000b': 1 }] } });
  assert.equal(key.status, 422);
  assert.equal(key.body.errors[0].location, 'body/rows/0/a\u0000b');
  const listed = await app.call({ method: 'GET', url: `${API}/workspaces` });
  assert.ok(listed.body.data.every((w: { name: string }) => !w.name.startsWith('nulX') && w.name !== ''));
  // Paired surrogates (an emoji) and other control characters are text like any other.
  const emoji = await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'growth \ud83d\ude80 team\tA' } });
  assert.equal(emoji.status, 201);
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${emoji.body.data.id}` })).body.data.name, 'growth \ud83d\ude80 team\tA');
});

test('integer query parameters accept integers only', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  for (const url of [`${API}/sources`, `${API}/workspaces/${ws}/datasets`, `${API}/workspaces/${ws}/digital-twins`, `${API}/workspaces/${ws}/simulations`, `${API}/workspaces/${ws}/jobs`]) {
    for (const limit of ['1.5', 'true', '1e2', '', ' 3']) {
      const response = await app.call({ method: 'GET', url: `${url}?limit=${encodeURIComponent(limit)}` });
      assert.equal(response.status, 400, `${url}?limit=${limit}: ${JSON.stringify(response.body)}`);
      assert.match(response.body.detail, /querystring\/limit/);
    }
    assert.equal((await app.call({ method: 'GET', url: `${url}?limit=3` })).status, 200, url);
  }
});
