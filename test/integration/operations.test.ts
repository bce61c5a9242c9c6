import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';

test('healthz and readyz answer without a credential when the stores are reachable', async (t) => {
  const { call } = await buildTestApp(t);
  assert.deepEqual((await call({ method: 'GET', url: '/healthz', key: null })).body, { status: 'ok' });
  const ready = await call({ method: 'GET', url: '/readyz', key: null });
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body.checks, { metadataStore: 'ok', rateLimiter: 'ok', dataStore: 'ok' });
});

test('readyz answers 503 naming the store that is down', async (t) => {
  const { call, context } = await buildTestApp(t);
  await context.meta.close();
  const res = await call({ method: 'GET', url: '/readyz', key: null });
  assert.equal(res.status, 503);
  assert.match(res.body.detail, /metadataStore/);
});

test('metrics expose a latency histogram by route template and status', async (t) => {
  const { call, tenant } = await buildTestApp(t);
  await call({ method: 'GET', url: `/api/v1/workspaces/${tenant.libraryWorkspaceId}` });
  await call({ method: 'GET', url: '/api/v1/me', key: null });
  const res = await call({ method: 'GET', url: '/metrics', key: null });
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  const text = String(res.body);
  assert.match(text, /http_request_duration_seconds_bucket\{.*route="\/api\/v1\/workspaces\/:wsId".*status_code="200"/);
  assert.match(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/me",status_code="401"\} 1/);
  assert.match(text, /process_cpu_seconds_total/);
});
