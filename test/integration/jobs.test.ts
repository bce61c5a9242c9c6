/** Jobs over HTTP: list/get/cancel, cancel mid-discovery, restart recovery, and completion webhooks. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { RESTART_ERROR } from '../../src/jobs/runner.js';
import { openEmbeddedMetaStore } from '../../src/store/meta/embedded.js';
import { type TestApp, buildTestApp, testConfig } from '../helpers/app.js';
import { linearChainRows, seededRandom } from '../helpers/simulated.js';
import { waitForJob } from '../helpers/jobs.js';
import { receiver } from '../helpers/receiver.js';

const API = '/api/v1';

async function twinOn(app: TestApp, rows: Array<Record<string, unknown>>) {
  const ws = app.tenant.libraryWorkspaceId;
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'data', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const twin = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'twin', sourceId: source.body.data.id } });
  assert.equal(twin.status, 201, JSON.stringify(twin.body));
  return { ws, twin: twin.body.data, version: `${API}/workspaces/${ws}/digital-twins/${twin.body.data.id}/versions/${twin.body.data.versionId}` };
}

/** Many correlated variables: a discovery that takes long enough to be cancelled while it runs. */
function wideRows(n: number, p: number, seed = 3): Array<Record<string, number>> {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const row: Record<string, number> = {};
    const latent = random.normal();
    for (let j = 0; j < p; j++) row[`v${j}`] = Math.round((latent * (j % 3) + (j > 0 ? (row[`v${j - 1}`] ?? 0) * 0.5 : 0) + random.normal()) * 1e4) / 1e4;
    return row;
  });
}

test('jobs list newest first, read one by id, and a cancel of a finished job answers its state unchanged', async (t) => {
  const app = await buildTestApp(t);
  const { ws, version } = await twinOn(app, linearChainRows(300));
  const first = (await app.call({ method: 'POST', url: `${version}/discover`, body: { bootstrapSamples: 0 } })).body.data;
  const done = await waitForJob(app, ws, first.jobId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.versionId, done.resource.id);
  const second = (await app.call({ method: 'POST', url: `${version}/discover`, body: { bootstrapSamples: 0 } })).body.data;
  await waitForJob(app, ws, second.jobId);
  const listed = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs?limit=1` });
  assert.equal(listed.status, 200);
  assert.equal(listed.body.pagination.total, 3, 'two discoveries and the ontology extraction of the uploaded source');
  assert.equal(listed.body.data[0].id, second.jobId);
  const cancel = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/jobs/${first.jobId}/cancel` });
  assert.equal(cancel.status, 200);
  assert.deepEqual(cancel.body.data, { jobId: first.jobId, status: 'completed' });
  const masked = (await app.call({ method: 'POST', url: `${version}/discover`, body: { bootstrapSamples: 0, webhookUrl: 'http://localhost:9/services/T0/B0/secret-token?sig=1' } })).body.data;
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${masked.jobId}` })).body.data.webhookUrl, 'http://localhost:9/…', 'a job shows only where its webhook goes');
  await waitForJob(app, ws, masked.jobId);
  const other = await app.call({ method: 'GET', url: `${API}/workspaces/${app.other.libraryWorkspaceId}/jobs/${first.jobId}`, key: app.other.key });
  assert.equal(other.status, 404, 'another organisation never sees the job');
});

test('cancelling a running discovery stops it: the job ends cancelled and the version keeps no result', async (t) => {
  const app = await buildTestApp(t);
  const { ws, version } = await twinOn(app, wideRows(1200, 25));
  const accepted = (await app.call({ method: 'POST', url: `${version}/discover`, body: { bootstrapSamples: 200 } })).body.data;
  const deadline = Date.now() + 20_000;
  let job = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${accepted.jobId}` })).body.data;
  while (job.status !== 'running' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    job = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${accepted.jobId}` })).body.data;
  }
  assert.equal(job.status, 'running');
  const cancel = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/jobs/${accepted.jobId}/cancel` });
  assert.deepEqual(cancel.body.data, { jobId: accepted.jobId, status: 'cancelled' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${accepted.jobId}` })).body.data;
  assert.equal(after.status, 'cancelled');
  assert.equal(after.progress.state, 'cancelled');
  const record = (await app.call({ method: 'GET', url: version })).body.data;
  assert.equal(record.status, 'untrained', 'a cancelled discovery records nothing');
  assert.deepEqual(record.causalGraph, []);
  // The pool is free again: a new small job completes.
  const next = await twinOn(app, linearChainRows(200));
  const small = (await app.call({ method: 'POST', url: `${next.version}/discover`, body: { bootstrapSamples: 0 } })).body.data;
  assert.equal((await waitForJob(app, ws, small.jobId, 20_000)).status, 'completed');
});

test('a job left running by a stopped process is failed on restart with a clear error, and its webhook is sent', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'causa-jobs-restart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const hook = await receiver(t);
  const config = testConfig({ webhookAllowHosts: ['127.0.0.1'] });
  const first = await buildTestApp(t, { meta: await openEmbeddedMetaStore(join(dir, 'meta.sqlite')) }, config);
  const ws = first.tenant.libraryWorkspaceId;
  const now = new Date().toISOString();
  await first.context.meta.db
    .insertInto('jobs')
    .values({
      id: 'job_crashed', organisation_id: first.tenant.organisationId, workspace_id: ws, type: 'twin_discover', status: 'running',
      resource_type: null, resource_id: null, params: '{}', progress: JSON.stringify({ percentage: 40, state: 'discovering', eta: null }),
      result: null, error: null, webhook_url: hook.url, created_by: first.tenant.userId, created_at: now, started_at: now,
      completed_at: null, owner: 'a-process-that-crashed', heartbeat_at: now, subtype: null, phase: null,
    })
    .execute();
  await first.app.close();

  const second = await buildTestApp(t, { meta: await openEmbeddedMetaStore(join(dir, 'meta.sqlite')) }, config);
  const job = await second.context.jobs.get(
    { authType: 'apiKey', keyId: null, userId: first.tenant.userId, organisationId: first.tenant.organisationId, workspaceId: null, scopes: new Set(), rateLimit: null, isOrgAdmin: true },
    ws,
    'job_crashed',
  );
  assert.equal(job.status, 'failed');
  assert.equal(job.error, RESTART_ERROR);
  assert.ok(job.completedAt !== null);
  await hook.waitFor(1);
  assert.equal(hook.hits.length, 1);
  assert.deepEqual({ ...hook.hits[0]!.body, completedAt: undefined }, { event: 'job.failed', jobId: 'job_crashed', status: 'failed', workspaceId: ws, completedAt: undefined, error: RESTART_ERROR });
});

test('completion webhooks are sent once per terminal job, with the failure reason when a job fails', async (t) => {
  const hook = await receiver(t);
  const app = await buildTestApp(t, {}, testConfig({ webhookAllowHosts: ['127.0.0.1'] }));
  const good = await twinOn(app, linearChainRows(300));
  const ok = (await app.call({ method: 'POST', url: `${good.version}/discover`, body: { bootstrapSamples: 0, webhookUrl: hook.url } })).body.data;
  const tiny = await twinOn(app, linearChainRows(5));
  const bad = (await app.call({ method: 'POST', url: `${tiny.version}/discover`, body: { webhookUrl: hook.url } })).body.data;
  const failed = await waitForJob(app, good.ws, bad.jobId);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /5 rows; a twin needs at least 10/);
  await waitForJob(app, good.ws, ok.jobId);
  await hook.waitFor(2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(hook.hits.length, 2, 'exactly one webhook per job');
  const byJob = new Map(hook.hits.map((hit) => [hit.body.jobId, hit]));
  assert.equal(byJob.get(ok.jobId)?.body.event, 'job.completed');
  assert.equal(byJob.get(ok.jobId)?.body.error, undefined);
  assert.equal(byJob.get(bad.jobId)?.body.event, 'job.failed');
  assert.match(byJob.get(bad.jobId)?.body.error, /at least 10/);
  assert.equal(byJob.get(ok.jobId)?.headers['content-type'], 'application/json');
  assert.equal(byJob.get(ok.jobId)?.body.workspaceId, good.ws);
});

test('webhook URLs naming internal addresses are refused at submit, and host names resolving to them at delivery', async (t) => {
  const hook = await receiver(t);
  const app = await buildTestApp(t);
  const { ws, version } = await twinOn(app, linearChainRows(200));
  for (const url of ['http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/x', 'http://100.64.0.1/', 'ftp://example.com/x', 'http://user:pw@example.com/']) {
    const response = await app.call({ method: 'POST', url: `${version}/discover`, body: { webhookUrl: url } });
    assert.equal(response.status, 422, url);
    assert.equal(response.body.errors[0].location, 'body/webhookUrl', url);
  }
  const jobs = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs` })).body.data.map((job: { type: string }) => job.type);
  assert.deepEqual(jobs, ['ontology_extraction'], 'nothing was queued but the extraction of the uploaded source');
  const local = hook.url.replace('127.0.0.1', 'localhost');
  const accepted = (await app.call({ method: 'POST', url: `${version}/discover`, body: { bootstrapSamples: 0, webhookUrl: local } })).body.data;
  assert.equal((await waitForJob(app, ws, accepted.jobId)).status, 'completed');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(hook.hits.length, 0, 'localhost resolves to loopback: never called without the operator allow-list');
});

/** Submits a long discovery (many correlated columns, many resamples) and waits until it runs. */
async function longRunningDiscovery(app: TestApp, bootstrapSamples = 200) {
  const target = await twinOn(app, wideRows(1200, 25));
  const jobId = (await app.call({ method: 'POST', url: `${target.version}/discover`, body: { bootstrapSamples } })).body.data.jobId as string;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const job = (await app.call({ method: 'GET', url: `${API}/workspaces/${target.ws}/jobs/${jobId}` })).body.data;
    if (job.status === 'running' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { ...target, jobId };
}

test('a fixed graph edited while its version learns fails the job with the reason and records nothing', async (t) => {
  const app = await buildTestApp(t);
  const { ws, version, jobId } = await longRunningDiscovery(app, 60);
  const pinned = await app.call({ method: 'PATCH', url: `${version}/graph/fixed`, body: { removeEdges: [{ source: 'v0', target: 'v1' }] } });
  assert.equal(pinned.status, 200);
  const job = await waitForJob(app, ws, jobId, 120_000);
  assert.equal(job.status, 'failed');
  assert.match(job.error, /fixed graph of this version changed while it was learning/);
  const record = (await app.call({ method: 'GET', url: version })).body.data;
  assert.equal(record.status, 'untrained');
  assert.deepEqual(record.fixedSubGraph.antiRelationships, [{ source: 'v0', target: 'v1' }], 'the edit stands');
});

test('deleting a twin while it learns cancels its job and leaves nothing of the twin', async (t) => {
  const app = await buildTestApp(t);
  const { ws, twin, jobId } = await longRunningDiscovery(app);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/digital-twins/${twin.id}` })).status, 204);
  const job = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${jobId}` })).body.data;
  assert.equal(job.status, 'cancelled', 'the job record stays, cancelled');
  const deadline = Date.now() + 10_000;
  while (app.context.jobRunner.active > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(app.context.jobRunner.active, 0, 'its work stopped');
  assert.equal((await app.context.meta.db.selectFrom('twin_versions').select('id').where('twin_id', '=', twin.id).execute()).length, 0);
});

test('submitOnce answers the job already waiting for the same work on the same resource, and submits again once it is no longer waiting', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  // A type no handler runs: its jobs stay queued, so the test decides when one stops waiting.
  const submission = {
    organisationId: app.tenant.organisationId,
    workspaceId: ws,
    type: 'test_idle' as never,
    resource: { type: 'source', id: 'src_00000000000000000000000042' },
    params: {},
    webhookUrl: null,
    createdBy: app.tenant.userId,
  };
  const first = await app.context.jobs.submitOnce(submission);
  const again = await app.context.jobs.submitOnce(submission);
  assert.equal(again.jobId, first.jobId, 'the waiting job answers');
  const elsewhere = await app.context.jobs.submitOnce({ ...submission, resource: { type: 'source', id: 'src_00000000000000000000000043' } });
  assert.notEqual(elsewhere.jobId, first.jobId, 'another resource gets its own job');
  await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/jobs/${first.jobId}/cancel` });
  const after = await app.context.jobs.submitOnce(submission);
  assert.notEqual(after.jobId, first.jobId, 'a cancelled job no longer waits');
});
