import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { createRedisBus } from '../../src/store/bus/redis.js';
import { createRedisRateLimiter } from '../../src/store/limiter/redis.js';
import { openPostgresMetaStore } from '../../src/store/meta/postgres.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { requireScaleOut } from '../helpers/scale-out.js';
import { linearChainRows } from '../helpers/simulated.js';

/** Two API processes of the scale-out profile: one PostgreSQL, one Redis (limiter and invalidation bus). */
async function twoProcesses(t: Parameters<typeof buildTestApp>[0]): Promise<[TestApp, TestApp] | undefined> {
  const databaseUrl = requireScaleOut(t, 'TEST_DATABASE_URL');
  const redisUrl = requireScaleOut(t, 'TEST_REDIS_URL');
  if (databaseUrl === undefined || redisUrl === undefined) return undefined;
  const prefix = `causa:test:${newId('run')}:`;
  const open = async () =>
    buildTestApp(t, {
      meta: await openPostgresMetaStore(databaseUrl, 4),
      limiter: await createRedisRateLimiter(redisUrl, `${prefix}rl:`),
      bus: await createRedisBus(redisUrl, `${prefix}bus:`),
    });
  const a = await open();
  const b = await open();
  // b acts for a's tenant: the same organisation reached through another process.
  return [a, { ...b, tenant: a.tenant, call: (options) => b.call({ key: a.tenant.key, ...options }) }];
}

const eventually = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('the other process did not see the change within 1 s (cache TTL is 5 s)');
};

test('on PostgreSQL, a key revoked in one process is refused by another at once', async (t) => {
  const processes = await twoProcesses(t);
  if (processes === undefined) return;
  const [a, b] = processes;
  const { id, key } = (await a.call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'shared', scopes: ['sources:read'] } })).body.data;
  assert.equal((await b.call({ method: 'GET', url: '/api/v1/me', key })).status, 200, 'b has the key cached now');
  assert.equal((await a.call({ method: 'POST', url: `/api/v1/api-keys/${id}/revoke` })).status, 200);
  await eventually(async () => (await b.call({ method: 'GET', url: '/api/v1/me', key })).status === 401);
});

test('on PostgreSQL, workspace changes and deletions reach the other process at once', async (t) => {
  const processes = await twoProcesses(t);
  if (processes === undefined) return;
  const [a, b] = processes;
  const ws = (await a.call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Shared' } })).body.data.id;
  assert.equal((await b.call({ method: 'GET', url: `/api/v1/workspaces/${ws}` })).body.data.name, 'Shared');
  await a.call({ method: 'PATCH', url: `/api/v1/workspaces/${ws}`, body: { name: 'Renamed' } });
  await eventually(async () => (await b.call({ method: 'GET', url: `/api/v1/workspaces/${ws}` })).body.data?.name === 'Renamed');

  const member = (await a.call({ method: 'POST', url: '/api/v1/users', body: { name: 'Mo' } })).body.data;
  const key = (await a.call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'mo', forUserId: member.id, scopes: ['sources:read'] } })).body.data.key;
  assert.equal((await b.call({ method: 'GET', url: `/api/v1/workspaces/${ws}`, key })).status, 403, 'no membership yet (and b caches that)');
  await a.call({ method: 'PUT', url: `/api/v1/workspaces/${ws}/members/${member.id}`, body: { level: 'read' } });
  await eventually(async () => (await b.call({ method: 'GET', url: `/api/v1/workspaces/${ws}`, key })).status === 200);

  assert.equal((await a.call({ method: 'DELETE', url: `/api/v1/workspaces/${ws}` })).status, 204);
  await eventually(async () => (await b.call({ method: 'GET', url: `/api/v1/workspaces/${ws}` })).status === 404);
});

test('on PostgreSQL, the same Idempotency-Key sent to two processes creates one workspace', async (t) => {
  const processes = await twoProcesses(t);
  if (processes === undefined) return;
  const [a, b] = processes;
  const headers = { 'idempotency-key': newId('idem') };
  const first = await a.call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Once across processes' }, headers });
  const second = await b.call({ method: 'POST', url: '/api/v1/workspaces', body: { name: 'Once across processes' }, headers });
  assert.equal(first.status, 201);
  assert.deepEqual(second.body, first.body);
  assert.equal(second.headers['idempotent-replayed'], 'true');
});

test('on PostgreSQL, source lists search, sort and page like on SQLite', async (t) => {
  const processes = await twoProcesses(t);
  if (processes === undefined) return;
  const [a, b] = processes;
  const ws = (await a.call({ method: 'POST', url: '/api/v1/workspaces', body: { name: `Sources ${newId('n')}` } })).body.data.id;
  for (const name of ['beta_1', 'Alpha 100%', 'gamma', 'alpha 2']) {
    assert.equal((await a.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/sources`, body: { name } })).status, 201);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `/api/v1/workspaces/${ws}/sources?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await b.call({ method: 'GET', url });
    seen.push(...res.body.data.map((s: { name: string }) => s.name));
    cursor = res.body.pagination.cursor;
  } while (cursor !== null);
  assert.deepEqual(seen, ['alpha 2', 'gamma', 'Alpha 100%', 'beta_1'], 'newest first across pages');
  const byName = await b.call({ method: 'GET', url: `/api/v1/sources?search=ALPHA&sortBy=name&sortDir=asc&limit=1` });
  assert.equal(byName.body.pagination.total, 2);
  const next = await b.call({ method: 'GET', url: `/api/v1/sources?search=ALPHA&sortBy=name&sortDir=asc&limit=1&cursor=${encodeURIComponent(byName.body.pagination.cursor)}` });
  assert.deepEqual([byName.body.data[0].name, next.body.data[0].name], ['Alpha 100%', 'alpha 2']);
  const literal = await b.call({ method: 'GET', url: `/api/v1/sources?search=${encodeURIComponent('_')}` });
  assert.deepEqual(literal.body.data.map((s: { name: string }) => s.name), ['beta_1']);
});

test('on PostgreSQL, two processes uploading to one source at once never interleave their batches', async (t) => {
  const processes = await twoProcesses(t);
  if (processes === undefined) return;
  const [a, b] = processes;
  const ws = a.tenant.libraryWorkspaceId;
  const id = (await a.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/sources`, body: { name: 'Contended' } })).body.data.id;
  const csv = (from: number, rows: number) => `n,label\n${Array.from({ length: rows }, (_, i) => `${from + i},p${from}`).join('\n')}\n`;
  const send = (app: TestApp, body: string) =>
    app.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/sources/${id}/upload`, body, headers: { 'content-type': 'text/csv' } });
  for (let round = 0; round < 3; round += 1) {
    const results = await Promise.all([send(a, csv(round * 100_000, 20_000)), send(b, csv(round * 100_000 + 50_000, 20_000))]);
    for (const result of results) assert.ok([201, 409].includes(result.status), JSON.stringify(result.body).slice(0, 200));
  }
  const source = (await a.call({ method: 'GET', url: `/api/v1/sources/${id}` })).body.data;
  const rows = await a.context.data().query<{ n: number; row: number }>(a.tenant.organisationId, (sql) => `SELECT n, _causa_row AS row FROM ${sql.table(id)} ORDER BY row`);
  assert.equal(rows.length, source.documentCount);
  assert.deepEqual(rows.map((r) => r.row), rows.map((_, i) => i), 'ordinals 0..n-1, no gaps or repeats');
  // Every recorded batch holds exactly its own file's rows, contiguous.
  for (const batch of source.batchRanges) {
    const first = rows[batch.rowStart]!.n;
    for (let i = batch.rowStart; i <= batch.rowEnd; i += 1) assert.equal(rows[i]!.n, first + (i - batch.rowStart));
  }
});

test('on PostgreSQL, two processes share the job queue: each job runs once, and a cancel in one stops work in the other', async (t) => {
  const processes = await twoProcesses(t);
  if (processes === undefined) return;
  const [a, b] = processes;
  const ws = a.tenant.libraryWorkspaceId;
  const rows = linearChainRows(400);
  const source = (await a.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/sources/from-data`, body: { name: 'chain', rows } })).body.data.id;
  const twin = (await a.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/digital-twins`, body: { name: 'shared twin', sourceId: source } })).body.data;
  const version = `/api/v1/workspaces/${ws}/digital-twins/${twin.id}/versions/${twin.versionId}`;
  const submitted = [];
  // One job per version at a time: each submission waits for the previous one, alternating processes.
  for (let i = 0; i < 4; i++) {
    submitted.push((await (i % 2 === 0 ? a : b).call({ method: 'POST', url: `${version}/discover`, body: { bootstrapSamples: 2 } })).body.data.jobId);
    assert.equal((await waitForJob(a, ws, submitted.at(-1)!)).status, 'completed');
  }
  const owners = await a.context.meta.db.selectFrom('jobs').select(['id', 'owner']).where('id', 'in', submitted).execute();
  assert.ok(owners.every((row) => row.owner === a.context.jobRunner.owner || row.owner === b.context.jobRunner.owner), 'every job was claimed by one of the two');

  // A long discovery (many correlated columns, many resamples) claimed by whichever process, cancelled through the other.
  const wide = Array.from({ length: 1200 }, (_, i) => Object.fromEntries(Array.from({ length: 25 }, (_, j) => [`v${j}`, Math.sin(i * (j + 1)) + ((i * 7919 + j * 104729) % 1000) / 1000])));
  const wideSource = (await a.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/sources/from-data`, body: { name: 'wide', rows: wide } })).body.data.id;
  const wideTwin = (await a.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/digital-twins`, body: { name: 'wide twin', sourceId: wideSource } })).body.data;
  const wideVersion = `/api/v1/workspaces/${ws}/digital-twins/${wideTwin.id}/versions/${wideTwin.versionId}`;
  const long = (await a.call({ method: 'POST', url: `${wideVersion}/discover`, body: { bootstrapSamples: 200 } })).body.data.jobId;
  let owner: string | null = null;
  for (let i = 0; i < 500 && owner === null; i++) {
    owner = (await a.context.meta.db.selectFrom('jobs').select('owner').where('id', '=', long).executeTakeFirstOrThrow()).owner;
    if (owner === null) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const other = owner === a.context.jobRunner.owner ? b : a;
  const runner = owner === a.context.jobRunner.owner ? a : b;
  assert.deepEqual((await other.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/jobs/${long}/cancel` })).body.data, { jobId: long, status: 'cancelled' });
  // The owner notices at its next heartbeat (2 s) and stops: its runner holds no job any more.
  const deadline = Date.now() + 10_000;
  while (runner.context.jobRunner.active > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(runner.context.jobRunner.active, 0, 'the owning process stopped the cancelled work');
  assert.equal((await waitForJob(a, ws, long)).status, 'cancelled');
});
