import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { createRedisRateLimiter } from '../../src/store/limiter/redis.js';
import { openEmbeddedMetaStore } from '../../src/store/meta/embedded.js';
import { buildTestApp } from '../helpers/app.js';
import { requireScaleOut } from '../helpers/scale-out.js';

/** Fixed windows start on the minute: start counting with seconds to spare, so no window boundary falls inside a case. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

test('a key over its per-minute limit answers 429 with Retry-After and RateLimit headers', async (t) => {
  const { call } = await buildTestApp(t);
  const key = (await call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'slow', scopes: ['sources:read'], rateLimit: 3 } })).body.data.key;
  await awayFromWindowEdge();
  for (let i = 0; i < 3; i++) {
    const ok = await call({ method: 'GET', url: '/api/v1/me', key });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['ratelimit-limit'], '3');
    assert.equal(ok.headers['ratelimit-remaining'], String(2 - i));
  }
  const limited = await call({ method: 'GET', url: '/api/v1/me', key });
  assert.equal(limited.status, 429);
  assert.equal(limited.body.type, 'urn:causa:problem:rate-limited');
  const retryAfter = Number(limited.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
  assert.equal(limited.headers['ratelimit-remaining'], '0');
  assert.equal(limited.headers['ratelimit-policy'], '3;w=60');
  // Another key keeps its own budget.
  assert.equal((await call({ method: 'GET', url: '/api/v1/me' })).status, 200);
  // GET /me reports the figure the limiter enforces.
  const me = await call({ method: 'GET', url: '/api/v1/me' });
  assert.equal(me.body.data.rateLimit, 1200);
});

test('with Redis, processes share one budget per key', async (t) => {
  const redisUrl = requireScaleOut(t, 'TEST_REDIS_URL');
  if (redisUrl === undefined) return;
  const dir = mkdtempSync(join(tmpdir(), 'causa-rl-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'meta.sqlite');
  const prefix = `causa:test:${newId('run')}:`;
  const first = await buildTestApp(t, { meta: await openEmbeddedMetaStore(file), limiter: await createRedisRateLimiter(redisUrl, prefix) });
  const second = await buildTestApp(t, { meta: await openEmbeddedMetaStore(file), limiter: await createRedisRateLimiter(redisUrl, prefix) });
  const key = (await first.call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'shared', scopes: ['sources:read'], rateLimit: 4 } })).body.data.key;
  await awayFromWindowEdge();
  const statuses = [];
  for (const app of [first, second, first, second, first, second]) statuses.push((await app.call({ method: 'GET', url: '/api/v1/me', key })).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
  const ready = await second.call({ method: 'GET', url: '/readyz', key: null });
  assert.equal(ready.body.checks.rateLimiter, 'ok');
});
