import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { Config } from '../../src/config.js';
import { type TestApp, buildTestApp, testConfig } from './app.js';
import { waitForJob } from './jobs.js';
import { seededRandom } from './simulated.js';

const API = '/api/v1';

/**
 * x -> y <- plan, y -> z, w independent: y = 2x + 1.5[plan = premium] + e, z = -1.5y + e (unit noise), P(premium) =
 * 0.4. Known effects: do(x + 1) moves y by 2 and z by -3; do(plan = premium) moves z by -2.25.
 */
export function chainWithPlanRows(n: number, seed = 11): Array<Record<string, number | string>> {
  const random = seededRandom(seed);
  const round = (value: number) => Math.round(value * 1e6) / 1e6;
  return Array.from({ length: n }, () => {
    const x = random.normal();
    const premium = random.uniform() < 0.4;
    const y = 2 * x + (premium ? 1.5 : 0) + random.normal();
    const z = -1.5 * y + random.normal();
    return { x: round(x), plan: premium ? 'premium' : 'basic', y: round(y), z: round(z), w: round(random.normal()) };
  });
}

export interface TrainedTwin {
  app: TestApp;
  ws: string;
  twinId: string;
  versionId: string;
  /** /api/v1/workspaces/{ws}/simulations */
  simulations: string;
  version: string;
}

/** An app with a static twin trained on chainWithPlanRows, its graph pinned to the true one. */
export async function trainedTwin(t: TestContext, config: Config = testConfig(), rows = chainWithPlanRows(2000)): Promise<TrainedTwin> {
  const app = await buildTestApp(t, {}, config);
  const ws = app.tenant.libraryWorkspaceId;
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'chain', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'chain twin', sourceId: source.body.data.id } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const twinId = created.body.data.id;
  const versionId = created.body.data.versionId;
  const version = `${API}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}`;
  const edges = [['x', 'y'], ['plan', 'y'], ['y', 'z']].map(([source, target]) => ({ source, target }));
  assert.equal((await app.call({ method: 'PATCH', url: `${version}/graph/fixed`, body: { addEdges: edges } })).status, 200);
  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal(job.status, 202, JSON.stringify(job.body));
  const done = await waitForJob(app, ws, job.body.data.jobId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return { app, ws, twinId, versionId, simulations: `${API}/workspaces/${ws}/simulations`, version };
}

/** Submitting a scenario as it is, and asserting a 422 with a message at a location of its errors. */
export function scenarioChecks(twin: Pick<TrainedTwin, 'app' | 'simulations' | 'twinId' | 'versionId'>) {
  const post = (scenario: Record<string, unknown>) => twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario } });
  const refusal = async (scenario: Record<string, unknown>, location: string, message: RegExp) => {
    const response = await post(scenario);
    assert.equal(response.status, 422, JSON.stringify(response.body));
    const error = response.body.errors.find((e: { location: string }) => e.location === location);
    assert.ok(error !== undefined && message.test(error.message), JSON.stringify(response.body.errors));
  };
  return { post, refusal };
}

/** Submits a scenario and answers the 202 body. */
export async function submit(twin: TrainedTwin, scenario: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario, ...extra } });
  assert.equal(response.status, 202, JSON.stringify(response.body));
  return response.body.data;
}

/** Polls a run until it is terminal; answers the run record. */
export async function waitForRun(twin: TrainedTwin, runId: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${runId}` });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    if (['completed', 'failed', 'cancelled'].includes(response.body.data.status)) return response.body.data;
    if (Date.now() > deadline) assert.fail(`run ${runId} still ${response.body.data.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Submits, waits, and asserts the run completed; answers the run record (with outputs). */
export async function completedRun(twin: TrainedTwin, scenario: Record<string, unknown>): Promise<Record<string, any>> {
  const run = await waitForRun(twin, (await submit(twin, scenario)).runId);
  assert.equal(run.status, 'completed', JSON.stringify({ error: run.error, scenario }));
  return run;
}

/** Scores rows (POST .../score with `body`), waits for the run and reads its first page of up to 1000 rows with the digest. */
export async function scoredRows(twin: TrainedTwin, body: Record<string, unknown>): Promise<{ run: Record<string, any>; rows: Array<Record<string, any>>; digest: Record<string, any> }> {
  const accepted = await twin.app.call({ method: 'POST', url: `${twin.version}/score`, body });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  const run = await waitForRun(twin, accepted.body.data.runId);
  assert.equal(run.status, 'completed', run.error);
  const page = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${run.id}/score?limit=1000` });
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return { run, rows: page.body.data.rows, digest: page.body.data.digest };
}
