/**
 * The job runner's look for work (src/jobs/runner.ts): a submit whose lane is full asks the store nothing, a type
 * found with nothing queued is not asked for again until a job of it is submitted here or the poll timer looks at
 * every type, and no job is missed on the way (jobs another process queues are found by the poll).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiKeyRepo } from '../../../src/api-keys/repo.js';
import { JobRepo, type JobRow } from '../../../src/jobs/repo.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { newId, nowIso } from '../../../src/lib/ids.js';
import { OrganisationRepo } from '../../../src/organisations/repo.js';
import { OrganisationService } from '../../../src/organisations/service.js';
import { openEmbeddedMetaStore } from '../../../src/store/meta/embedded.js';
import { WebhookSender } from '../../../src/webhooks/deliver.js';

/** Resolves when `done` holds, checked every few milliseconds (fails after `ms`). */
async function until(done: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const start = Date.now(); !done(); await sleep(5)) if (Date.now() - start > ms) assert.fail(`timed out waiting until ${what}`);
}

/** A runner over a fresh store with two job types: `slow` (a lane of one, each job held until released) and `quick`. */
async function setUp(t: TestContext, pollMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'causa-runner-'));
  const store = await openEmbeddedMetaStore(join(dir, 'meta.sqlite'));
  const runner = { stop: async () => undefined } as Pick<JobRunner, 'stop'>;
  t.after(async () => {
    await runner.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const tenant = await new OrganisationService(new OrganisationRepo(store.db), new ApiKeyRepo(store.db), store.isUniqueViolation).create(`runner ${newId('n')}`);
  const repo = new JobRepo(store.db);
  // Every look for work, as the types it asked for.
  const asked: string[][] = [];
  const queued = repo.queued.bind(repo);
  repo.queued = (limit, types) => {
    asked.push([...types].sort());
    return queued(limit, types);
  };
  const jobs = new JobRunner(repo, new WebhookSender({ allowHosts: [] }), { concurrency: 2, pollMs, exclusive: true });
  runner.stop = () => jobs.stop();
  const gates: Array<() => void> = [];
  const ran: string[] = [];
  jobs.addLane('slow', 1);
  jobs.register('slow', async ({ job }) => {
    ran.push(job.id);
    await new Promise<void>((release) => gates.push(release));
    return {};
  }, { lane: 'slow' });
  jobs.register('quick', async ({ job }) => {
    ran.push(job.id);
    return {};
  });
  let order = 0;
  /** Queues a job as a submit does (`here`: in this process, which wakes the runner; otherwise as another process). */
  const submit = async (type: string, here = true): Promise<string> => {
    const id = `job_${type}_${String(order++).padStart(3, '0')}`;
    await repo.insert({
      id, organisation_id: tenant.organisationId, workspace_id: tenant.libraryWorkspaceId, type, status: 'queued', resource_type: null, resource_id: null,
      params: '{}', progress: '{}', result: null, error: null, webhook_url: null, created_by: tenant.userId, created_at: nowIso(), started_at: null,
      completed_at: null, owner: null, heartbeat_at: null, subtype: null, phase: null,
    } satisfies JobRow);
    if (here) jobs.wake(type);
    return id;
  };
  return { jobs, asked, ran, gates, submit };
}

test('the runner asks the store only for types that may hold work, and runs each lane in queue order', async (t) => {
  const { jobs, asked, ran, gates, submit } = await setUp(t, 3_600_000);
  await jobs.start();
  await until(() => asked.length === 1, 'the first look');
  assert.deepEqual(asked, [['quick', 'slow']], 'the first look asks for every type');
  const first = await submit('slow');
  await until(() => ran.includes(first), 'the first slow job runs');
  assert.deepEqual(asked.slice(1), [['slow']], 'a submit asks for its type alone: the other was found empty');
  const waiting = [await submit('slow'), await submit('slow'), await submit('slow')];
  await sleep(20);
  assert.equal(asked.length, 2, 'a submit to a full lane asks nothing');
  const quick = await submit('quick');
  await until(() => ran.includes(quick), 'a quick job runs while the slow lane is full');
  await sleep(20);
  assert.ok(asked.slice(2).every((types) => types.join() === 'quick'), `only the quick type was asked for: ${JSON.stringify(asked.slice(2))}`);
  const looks = asked.length;
  for (const id of waiting) {
    gates.shift()!();
    await until(() => ran.includes(id), `${id} runs after the one before it`);
  }
  assert.deepEqual(ran.filter((id) => id.startsWith('job_slow')), [first, ...waiting]);
  assert.ok(asked.slice(looks).every((types) => types.join() === 'slow'), `a slot freed in the slow lane asks for its type alone: ${JSON.stringify(asked.slice(looks))}`);
  gates.shift()!();
});

test('a job another process queues is found by the poll, though its type was found empty', async (t) => {
  const { jobs, asked, ran, submit } = await setUp(t, 50);
  await jobs.start();
  await until(() => asked.length >= 1, 'the first look');
  const elsewhere = await submit('quick', false);
  await until(() => ran.includes(elsewhere), 'the poll finds the job');
});

test('jobs queued while the runner is stopped run when it starts again, without waiting for the poll', async (t) => {
  const { jobs, asked, ran, gates, submit } = await setUp(t, 3_600_000);
  await jobs.start();
  await until(() => asked.length === 1, 'the first look');
  await jobs.stop();
  // One submitted here (the runner is told), one queued by another process (it is not): both types were found empty.
  const waiting = [await submit('quick'), await submit('slow', false)];
  await jobs.start();
  await until(() => waiting.every((id) => ran.includes(id)), 'both jobs run after the restart');
  gates.shift()!();
});
