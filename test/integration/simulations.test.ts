/** Simulation runs over HTTP: submit, states, results, exports, list filters, cancel, webhooks and validation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testConfig } from '../helpers/app.js';
import { receiver } from '../helpers/receiver.js';
import { completedRun, submit, trainedTwin, waitForRun } from '../helpers/simulations.js';

const API = '/api/v1';
const shiftX = { type: 'intervention', interventions: [{ variable: 'x', valueSpec: { type: 'relative_change', mode: 'absolute', value: 1 } }], metrics: [{ name: 'mean z', sqlQuery: 'SELECT avg(z) AS value FROM df', unit: 'units' }] };

test('an intervention run moves through its states to outputs that recover the known effect', async (t) => {
  const twin = await trainedTwin(t);
  const accepted = await submit(twin, shiftX, { userQuery: 'what if x rises by one?' });
  assert.equal(accepted.status, 'pending');
  assert.match(accepted.runId, /^job_/);
  assert.equal(accepted.links.self, `${twin.simulations}/${accepted.runId}`);
  assert.equal(accepted.links.results, `${twin.simulations}/${accepted.runId}/results`);
  assert.equal(accepted.links.cancel, `${twin.simulations}/${accepted.runId}/cancel`);
  const run = await waitForRun(twin, accepted.runId);
  assert.equal(run.status, 'completed', run.error);
  assert.equal(run.scenarioType, 'intervention');
  assert.equal(run.digitalTwinId, twin.twinId);
  assert.deepEqual(run.digitalTwinVersionIds, [twin.versionId]);
  assert.equal(run.userQuery, 'what if x rises by one?');
  assert.deepEqual(run.exportFormats, ['json']);
  assert.equal(run.progress.percentage, 100);
  assert.equal(run.outputsStorageType, 'inline');
  assert.ok(run.resultsSummary.summary.length > 10 && run.resultsSummary.keyPoints.length > 0, JSON.stringify(run.resultsSummary));
  assert.ok(Number.isInteger(run.seed));
  assert.ok(run.timeStarted !== null && run.timeCompleted !== null);
  const outputs = (await twin.app.call({ method: 'GET', url: accepted.links.results })).body.data;
  assert.deepEqual(Object.keys(outputs), ['1.0.0'], 'outputs are keyed by the version label');
  const { details, results } = outputs['1.0.0'];
  const z = details.variables.find((v: { variable: string }) => v.variable === 'z');
  assert.ok(Math.abs(z.effect.difference - -3) < 0.3, `effect of do(x + 1) on z: ${z.effect.difference} (truth -3)`);
  assert.ok(z.effect.lowerBound <= z.effect.difference && z.effect.difference <= z.effect.upperBound);
  assert.ok(Array.isArray(results.z) && typeof results.z[0].prediction === 'number');
  const metric = details.metrics[0];
  assert.equal(metric.name, 'mean z');
  assert.ok(Math.abs(metric.intervened - metric.baseline - -3) < 0.3, `metric difference ${metric.intervened - metric.baseline}`);
  assert.deepEqual(run.outputs, outputs, 'a completed run carries its outputs');
  const bundle = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${accepted.runId}/export/json` });
  assert.equal(bundle.status, 200);
  assert.deepEqual(bundle.body.scenario, run.scenario);
  assert.deepEqual(bundle.body.outputs, outputs);
  assert.equal(bundle.body.run.id, accepted.runId);
  const csv = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${accepted.runId}/export/csv` });
  assert.equal(csv.status, 400, 'a single-environment twin never offers csv');
  const noSweep = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${accepted.runId}/sweep` });
  assert.equal(noSweep.status, 404);
  const noScore = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${accepted.runId}/score` });
  assert.equal(noScore.status, 404);
});

test('runs waiting to execute: results 404, sweep and score 409, export 400, no export formats; cancel ends them', async (t) => {
  const twin = await trainedTwin(t);
  await twin.app.context.jobRunner.stop();
  const accepted = await submit(twin, { ...shiftX, interventions: [{ variable: 'x', valueSpec: { type: 'range', from: -1, to: 1, steps: 5 } }] });
  const url = `${twin.simulations}/${accepted.runId}`;
  const pending = (await twin.app.call({ method: 'GET', url })).body.data;
  assert.equal(pending.status, 'pending');
  assert.deepEqual(pending.exportFormats, []);
  assert.equal(pending.outputs, null);
  assert.equal((await twin.app.call({ method: 'GET', url: `${url}/results` })).status, 404);
  assert.equal((await twin.app.call({ method: 'GET', url: `${url}/sweep` })).status, 409);
  assert.equal((await twin.app.call({ method: 'GET', url: `${url}/score` })).status, 404, 'not a scoring run at all');
  assert.equal((await twin.app.call({ method: 'GET', url: `${url}/export/json` })).status, 400);
  const cancelled = await twin.app.call({ method: 'POST', url: `${url}/cancel` });
  assert.deepEqual(cancelled.body.data, { runId: accepted.runId, status: 'cancelled' });
  const again = await twin.app.call({ method: 'POST', url: `${url}/cancel` });
  assert.deepEqual(again.body.data, { runId: accepted.runId, status: 'cancelled' }, 'cancelling a terminal run answers its state');
  assert.equal((await twin.app.call({ method: 'GET', url: `${url}/sweep` })).status, 404, 'a cancelled run has no sweep');
  assert.equal((await twin.app.call({ method: 'GET', url: `${API}/workspaces/${twin.ws}/jobs/${accepted.runId}` })).status, 404, 'runs are not jobs');
  const orphan = await submit(twin, shiftX);
  assert.equal((await twin.app.call({ method: 'DELETE', url: `${API}/workspaces/${twin.ws}/digital-twins/${twin.twinId}` })).status, 204);
  assert.equal((await twin.app.call({ method: 'GET', url: `${twin.simulations}/${orphan.runId}` })).body.data.status, 'cancelled', 'deleting a twin cancels its runs');
});

test('a range intervention sweeps its grid: one point per step with a mean and interval per curve', async (t) => {
  const twin = await trainedTwin(t);
  const run = await completedRun(twin, { ...shiftX, interventions: [{ variable: 'x', valueSpec: { type: 'range', from: -2, to: 2, steps: 5 } }] });
  const url = `${twin.simulations}/${run.id}/sweep`;
  const listing = await twin.app.call({ method: 'GET', url });
  assert.equal(listing.status, 200, JSON.stringify(listing.body));
  assert.equal(listing.body.data.variable, 'x');
  assert.ok(listing.body.data.metrics.some((m: { name: string }) => m.name === 'mean z'));
  const curve = (await twin.app.call({ method: 'GET', url: `${url}?metric=${encodeURIComponent('mean z')}` })).body.data;
  assert.deepEqual(curve.points.map((p: { value: number }) => p.value), [-2, -1, 0, 1, 2]);
  for (const point of curve.points) {
    assert.ok(Math.abs(point.mean - (-1.5 * (2 * point.value + 0.6))) < 0.35, `z at x=${point.value}: ${point.mean}`);
    assert.ok(point.lowerBound <= point.mean && point.mean <= point.upperBound && point.std >= 0);
  }
  assert.equal((await twin.app.call({ method: 'GET', url: `${url}?metric=nope` })).status, 400);
  assert.equal((await twin.app.call({ method: 'GET', url: `${url}?environment=eu` })).status, 400);
  const filtered = (await twin.app.call({ method: 'GET', url: `${url}?filter=MEAN` })).body.data;
  assert.deepEqual(filtered.metrics.map((m: { name: string }) => m.name), ['mean z']);
});

test('a metric that averages a text column is accepted, then the run fails with the reason', async (t) => {
  const twin = await trainedTwin(t);
  const accepted = await submit(twin, { ...shiftX, metrics: [{ name: 'bad', sqlQuery: 'SELECT avg(plan) AS value FROM data' }] });
  const run = await waitForRun(twin, accepted.runId);
  assert.equal(run.status, 'failed');
  assert.match(run.error, /avg|String|metric/i);
  assert.equal((await twin.app.call({ method: 'GET', url: `${twin.simulations}/${run.id}/results` })).status, 404);
  const counted = await completedRun(twin, { ...shiftX, metrics: [{ name: 'premium share', sqlQuery: "SELECT countIf(plan = 'premium') / count() AS value FROM dataset" }] });
  const share = counted.outputs['1.0.0'].details.metrics[0];
  assert.ok(Math.abs(share.baseline - 0.4) < 0.05, `premium share ${share.baseline}`);
});

test('scenario validation answers 422 naming the member, and 409 for an untrained version', async (t) => {
  const twin = await trainedTwin(t);
  const post = (scenario: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario, ...extra } });
  const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
    [{ scenarioType: 'intervention', interventions: [] }, 'body/scenario/scenarioType'],
    [{ ...shiftX, scenarioType: 'intervention' }, 'body/scenario/scenarioType', /both/],
    [{ type: 'what_if' }, 'body/scenario/type', /unknown scenario family/],
    [{ type: 'forecast', targetVars: ['z'] }, 'body/scenario/type', /does not match/],
    [{ type: 'panel_intervention', interventions: [] }, 'body/scenario/type', /does not match/],
    [{ type: 'intervention', interventions: [{ variable: 'x', value: 3 }] }, 'body/scenario/interventions/0', /valueSpec/],
    [{ type: 'intervention', interventions: [{ variable: 'x', valueSpec: { type: 'range', from: 0, to: 1, steps: 3 } }, { variable: 'y', valueSpec: { type: 'range', from: 0, to: 1, steps: 3 } }] }, 'body/scenario/interventions', /at most one range/],
    [{ type: 'intervention', interventions: [{ variable: 'plan', valueSpec: { type: 'range', from: 0, to: 1, steps: 3 } }] }, 'body/scenario/interventions/0/valueSpec/type', /numeric/],
    [{ type: 'intervention', interventions: [{ variable: 'plan', valueSpec: { type: 'set_value', value: 'gold' } }] }, 'body/scenario/interventions/0/valueSpec/value', /not a category/],
    [{ type: 'intervention', interventions: [{ variable: 'price', valueSpec: { type: 'set_value', value: 1 } }] }, 'body/scenario/interventions/0/variable', /unknown variable 'price'/],
    [{ type: 'anomaly_detection', samples: [{ x: 1 }], targetFpr: 0.5 }, 'body/scenario/targetFpr'],
    [{ type: 'root_cause_analysis', targetVariable: 'z', samples: [{ x: 1 }], targetFpr: 0.00001 }, 'body/scenario/targetFpr'],
    [{ type: 'prediction', sample: [{ x: 1, churn: 2 }], targetVars: ['z'] }, 'body/scenario/sample', /unknown variable 'churn'/],
    [{ type: 'explanation', explanationMode: 'directional', effectVariable: 'z' }, 'body/scenario/causeVariable'],
    [{ ...shiftX, metrics: [{ name: 'leak', sqlQuery: 'SELECT count() AS value FROM system.tables' }] }, 'body/scenario/metrics/0/sqlQuery', /only df/],
    [{ ...shiftX, metrics: [{ name: 'leak', sqlQuery: "SELECT count() AS value FROM file('/etc/passwd')" }] }, 'body/scenario/metrics/0/sqlQuery', /table functions/],
    [{ ...shiftX, metrics: [{ name: 'two', sqlQuery: 'SELECT 1 AS value; SELECT 2 AS value' }] }, 'body/scenario/metrics/0/sqlQuery', /one SELECT/],
    [{ ...shiftX, metrics: [{ name: 'typo', sqlQuery: 'SELEC avg(z) AS value FROM df' }] }, 'body/scenario/metrics/0/sqlQuery'],
  ];
  for (const [scenario, location, message] of cases) {
    const response = await post(scenario);
    assert.equal(response.status, 422, `${JSON.stringify(scenario)}: ${JSON.stringify(response.body)}`);
    assert.equal(response.body.type, 'urn:causa:problem:validation-failed');
    assert.ok(response.body.errors.some((e: { location: string }) => e.location === location), `${JSON.stringify(scenario)} -> ${JSON.stringify(response.body.errors)}`);
    if (message) assert.match(JSON.stringify(response.body.errors), message);
  }
  const groups = await post(shiftX, { environmentGroupIds: ['eg_1'] });
  assert.equal(groups.status, 202, 'single-environment twins ignore environmentGroupIds');
  const fresh = await twin.app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/digital-twins/${twin.twinId}/versions`, body: { bump: 'minor' } });
  const untrained = await twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: fresh.body.data.id, scenario: shiftX } });
  assert.equal(untrained.status, 409);
  const missing = await twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: 'ver_missing', scenario: shiftX } });
  assert.equal(missing.status, 404);
  const nothing = await twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId } });
  assert.equal(nothing.status, 422);
});

test('the list is newest first, filters by status, scenarioType and twin, counts the filtered set and leaves outputs out', async (t) => {
  const twin = await trainedTwin(t);
  const first = await completedRun(twin, shiftX);
  const second = await completedRun(twin, { type: 'prediction', sample: [{ x: 0, plan: 'basic' }], targetVars: ['z'] });
  const list = (query: string) => twin.app.call({ method: 'GET', url: `${twin.simulations}${query}` });
  const all = (await list('')).body;
  assert.deepEqual(all.data.map((r: { id: string }) => r.id), [second.id, first.id]);
  assert.equal(all.pagination.total, 2);
  assert.equal(all.data[0].outputs, undefined, 'no result payloads in lists');
  assert.ok(all.data[0].resultsSummary.summary.length > 0);
  const interventions = (await list('?scenarioType=intervention')).body;
  assert.deepEqual(interventions.data.map((r: { id: string }) => r.id), [first.id]);
  assert.equal(interventions.pagination.total, 1);
  assert.equal((await list('?status=completed&digitalTwinId=' + twin.twinId)).body.pagination.total, 2);
  assert.equal((await list('?status=running')).body.pagination.total, 0);
  assert.equal((await list('?digitalTwinId=dt_other')).body.pagination.total, 0);
  const paged = (await list('?limit=1')).body;
  assert.equal(paged.data.length, 1);
  const next = (await list(`?limit=1&cursor=${encodeURIComponent(paged.pagination.cursor)}`)).body;
  assert.deepEqual(next.data.map((r: { id: string }) => r.id), [first.id]);
  assert.equal((await list('?status=bogus')).status, 400);
  const other = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${first.id}`, key: twin.app.other.key });
  assert.equal(other.status, 404, 'another organisation cannot see this workspace');
});

test('terminal runs send one simulation webhook with the runId', async (t) => {
  const hook = await receiver(t);
  const twin = await trainedTwin(t, testConfig({ webhookAllowHosts: ['127.0.0.1'] }));
  const good = await submit(twin, shiftX, { webhookUrl: hook.url });
  const bad = await submit(twin, { ...shiftX, metrics: [{ name: 'bad', sqlQuery: 'SELECT avg(plan) AS value FROM df' }] }, { webhookUrl: hook.url });
  await waitForRun(twin, good.runId);
  await waitForRun(twin, bad.runId);
  await hook.waitFor(2);
  assert.equal(hook.hits.length, 2);
  const byRun = new Map(hook.hits.map((hit) => [hit.body.runId, hit.body]));
  assert.deepEqual(Object.keys(byRun.get(good.runId)).sort(), ['completedAt', 'event', 'runId', 'status', 'workspaceId']);
  assert.equal(byRun.get(good.runId).event, 'simulation.completed');
  assert.equal(byRun.get(bad.runId).event, 'simulation.failed');
  assert.ok(byRun.get(bad.runId).error.length > 0);
  const shown = (await twin.app.call({ method: 'GET', url: `${twin.simulations}/${good.runId}` })).body.data;
  assert.match(shown.webhookUrl, /^http:\/\/127\.0\.0\.1:\d+\/…$/, 'a run shows only its webhook origin');
});
