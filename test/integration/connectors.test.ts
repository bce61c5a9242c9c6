/**
 * Connectors without an external server: validation of types and credentials, who may manage connectors, and
 * storage connectors over files under an allowed root (browse, preview, import, no way out of the root).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildTestApp, testConfig } from '../helpers/app.js';
import { API, connectorApp, createConnector, importAndWait, sourceRows } from '../helpers/connectors.js';

test('a create names a supported type and credentials of its shape; nothing secret is echoed', async (t) => {
  const app = await connectorApp(t);
  const unknown = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'crm', type: 'Salesforce', credentials: null } });
  assert.equal(unknown.status, 422);
  assert.match(unknown.body.detail, /supported types: PostgreSQL, MySQL, MariaDB, ClickHouse, storage/);
  assert.equal(unknown.body.errors[0].location, 'body/type');

  const secret = 'hunter2-very-secret';
  const wrongShape = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'pg', type: 'PostgreSQL', credentials: { host: 'db.example.com', database: 'x', user: 'u', password: secret, pasword: secret } } });
  assert.equal(wrongShape.status, 422);
  assert.ok(wrongShape.body.errors.some((e: { location: string }) => e.location.startsWith('body/credentials')));
  assert.ok(!JSON.stringify(wrongShape.body).includes(secret));
  const notUrl = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'pg', type: 'PostgreSQL', credentials: { connectionString: `mysql://u:${secret}@h/db` } } });
  assert.equal(notUrl.status, 422);
  assert.equal(notUrl.body.errors[0].location, 'body/credentials/connectionString');
  assert.ok(!JSON.stringify(notUrl.body).includes(secret));
  const clickhouse = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'ch', type: 'clickhouse', credentials: { url: `https://u:${secret}@ch.example.com` } } });
  assert.equal(clickhouse.status, 422);
  assert.ok(!JSON.stringify(clickhouse.body).includes(secret));

  const fragment = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'pg', type: 'PostgreSQL', credentials: { host: 'db.internal#.evil.example', database: 'x', user: 'u' } } });
  assert.equal(fragment.status, 422, 'a host is a name or an address, nothing else');
  const escape = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'pg', type: 'PostgreSQL', credentials: { connectionString: 'postgres://u:p%zz@h/db' } } });
  assert.equal(escape.status, 422);
  assert.match(escape.body.errors[0].message, /percent-escape/);

  // Identity members in a body are ignored (identity comes from the credential).
  const bare = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'later', type: 'mysql', organisationId: app.other.organisationId } });
  assert.equal(bare.body.data.organisationId, app.tenant.organisationId);
  assert.equal(bare.status, 201);
  assert.deepEqual([bare.body.data.type, bare.body.data.status, bare.body.data.hasCredentials], ['MySQL', 'unconfigured', false]);
  const unusable = await app.call({ method: 'POST', url: `${API}/connectors/${bare.body.data.id}/test` });
  assert.equal(unusable.status, 409);
  const typeFixed = await app.call({ method: 'PATCH', url: `${API}/connectors/${bare.body.data.id}`, body: { type: 'PostgreSQL' } });
  assert.equal(typeFixed.status, 422, 'the type is not changeable');
});

test('only an organisation admin on an org-wide credential manages connectors; readers use them', async (t) => {
  const app = await connectorApp(t);
  const id = await createConnector(app, 'storage', { root: app.storageRoot });
  const ws = app.tenant.libraryWorkspaceId;
  const member = (await app.call({ method: 'POST', url: `${API}/users`, body: { name: 'Mia', role: 'member' } })).body.data;
  const memberKey = (await app.call({ method: 'POST', url: `${API}/api-keys`, body: { name: 'mia', forUserId: member.id, scopes: ['connectors:read', 'connectors:write'] } })).body.data.key;
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors`, key: memberKey, body: { name: 'x', type: 'storage' } })).status, 403);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/connectors/${id}`, key: memberKey })).status, 403);
  assert.equal((await app.call({ method: 'GET', url: `${API}/connectors/${id}`, key: memberKey })).status, 200);
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/test`, key: memberKey })).body.data.ok, true);
  // A member without write access to the workspace cannot import into it.
  const refused = await app.call({ method: 'POST', url: `${API}/connectors/${id}/import`, key: memberKey, body: { workspaceId: ws, config: { path: 'a.csv' } } });
  assert.equal(refused.status, 403);
  const reader = (await app.call({ method: 'POST', url: `${API}/api-keys`, body: { name: 'reader', scopes: ['connectors:read'] } })).body.data.key;
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors`, key: reader, body: { name: 'x', type: 'storage' } })).status, 403);
});

test('a storage connector browses, previews and imports files under its root, and nothing outside it', async (t) => {
  const app = await connectorApp(t);
  const root = join(app.storageRoot, 'exports');
  mkdirSync(join(root, 'daily'), { recursive: true });
  writeFileSync(join(root, 'daily', 'sales.csv'), 'day,store,units\n2024-01-01,north,5\n2024-01-02,south,7\n2024-01-03,north,\n');
  writeFileSync(join(root, 'daily', 'events.ndjson'), '{"kind":"open","n":1}\n{"kind":"close","n":2}\n');
  writeFileSync(join(root, 'notes.txt'), 'not a table');
  writeFileSync(join(app.storageRoot, 'secret.csv'), 'a\n1\n');
  symlinkSync(join(app.storageRoot, 'secret.csv'), join(root, 'daily', 'link.csv'));
  const outside = mkdtempSync(join(tmpdir(), 'causa-outside-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));

  const refusedRoot = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'etc', type: 'storage', credentials: { root: outside } } });
  assert.equal(refusedRoot.status, 422);
  assert.match(refusedRoot.body.detail, /storage directories/);
  // Each organisation reads only its own directory of an operator root: not the root, not another tenant's.
  const neighbour = join(app.operatorRoot, app.other.organisationId);
  mkdirSync(neighbour);
  for (const root of [app.operatorRoot, neighbour]) {
    assert.equal((await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'x', type: 'storage', credentials: { root } } })).status, 422, root);
  }
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors`, body: { name: 'rel', type: 'storage', credentials: { root: 'exports' } } })).status, 422);

  const id = await createConnector(app, 'storage', { root });
  const top = await app.call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=files` });
  assert.deepEqual(top.body.data.map((e: { name: string; kind: string }) => [e.name, e.kind]), [['daily', 'directory']], 'only directories and readable tables');
  const daily = await app.call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=files&path=daily&search=SAL` });
  assert.equal(daily.body.data.length, 1);
  assert.deepEqual({ ...daily.body.data[0], modifiedAt: undefined }, { name: 'sales.csv', kind: 'file', path: 'daily/sales.csv', size: 72, modifiedAt: undefined });
  assert.equal((await app.call({ method: 'GET', url: `${API}/connectors/${id}` })).body.data.status, 'connected');

  const preview = await app.call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { path: 'daily/sales.csv' }, limit: 2 } });
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.deepEqual(preview.body.data.rows, [{ day: '2024-01-01', store: 'north', units: '5' }, { day: '2024-01-02', store: 'south', units: '7' }]);
  assert.equal(preview.body.data.truncated, true);
  assert.deepEqual(preview.body.data.columns.map((c: { type: string }) => c.type), ['date', 'text', 'integer']);

  for (const path of ['../secret.csv', 'daily/../../secret.csv', 'daily/link.csv', '/etc/passwd']) {
    const escaped = await app.call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { path } } });
    assert.equal(escaped.status, 400, path);
  }
  assert.equal((await app.call({ method: 'GET', url: `${API}/connectors/${id}/browse?level=files&path=..` })).status, 400);
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { path: 'notes.txt' } } })).status, 400);
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: { table: 'x' } } })).status, 422);

  const job = await importAndWait(app, id, { config: { path: 'daily/sales.csv' } });
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.result.sourceName, 'sales');
  const rows = await sourceRows(app, job.result.sourceId);
  assert.deepEqual(rows.map((r) => [r.day, r.store, r.units]), [['2024-01-01', 'north', 5], ['2024-01-02', 'south', 7], ['2024-01-03', 'north', null]]);
  const events = await importAndWait(app, id, { config: { path: 'daily/events.ndjson' }, datasetName: 'Events' });
  assert.equal(events.status, 'completed', JSON.stringify(events));
  assert.equal(events.result.rowCount, 2);
  const broken = join(root, 'daily', 'broken.csv');
  writeFileSync(broken, 'a,b\n1,2\n3\n');
  const failed = await importAndWait(app, id, { config: { path: 'daily/broken.csv' } });
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /line 3/i);

  // The root itself gone: the connector cannot reach its source.
  rmSync(root, { recursive: true, force: true });
  const gone = await app.call({ method: 'POST', url: `${API}/connectors/${id}/test` });
  assert.equal(gone.body.data.ok, false);
  assert.equal((await app.call({ method: 'GET', url: `${API}/connectors/${id}` })).body.data.status, 'error');
});

test('expected refusals are logged as warnings with their code and reason, without a stack', async (t) => {
  const lines: string[] = [];
  const operatorRoot = mkdtempSync(join(tmpdir(), 'causa-storage-'));
  t.after(() => rmSync(operatorRoot, { recursive: true, force: true }));
  const app = await buildTestApp(t, {}, testConfig({ logLevel: 'info', storageRoots: [operatorRoot] }), undefined, lines);
  // Loopback is not allowed by default: preview and import answer 502 (the source cannot be reached).
  const id = await createConnector(app, 'PostgreSQL', { host: '127.0.0.1', database: 'postgres', user: 'postgres' });
  const body = { workspaceId: app.tenant.libraryWorkspaceId, config: { table: 'orders' } };
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/preview-query`, body: { config: body.config } })).status, 502);
  assert.equal((await app.call({ method: 'POST', url: `${API}/connectors/${id}/import`, body })).status, 502);
  // A job that fails for an expected reason (a file that is not a table) is a warning too.
  const root = join(operatorRoot, app.tenant.organisationId);
  mkdirSync(root);
  writeFileSync(join(root, 'ragged.csv'), 'a,b\n1,2\n3\n');
  const file = await createConnector(app, 'storage', { root });
  const failed = await importAndWait(app, file, { config: { path: 'ragged.csv' } });
  assert.equal(failed.status, 'failed', JSON.stringify(failed));

  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const refused = records.filter((r) => r.msg === 'request refused');
  assert.equal(refused.length, 2, JSON.stringify(records));
  for (const record of refused) {
    assert.equal(record.level, 40);
    assert.equal(record.code, 'source_unreachable');
    assert.match(String(record.detail), /non-public address/);
  }
  const jobFailure = records.find((r) => r.msg === 'job failed');
  assert.equal(jobFailure?.level, 40, JSON.stringify(records));
  assert.equal(jobFailure?.reason, failed.error);
  assert.ok(records.every((r) => (r.level as number) < 50), 'no refusal is logged as an error');
  assert.ok(lines.every((line) => !line.includes('"stack"')), 'no refusal carries a stack');
});
