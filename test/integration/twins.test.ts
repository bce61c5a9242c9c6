/** Digital twins and versions over HTTP: records, versions, the fixed graph, and learning through jobs. */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { linearChainRows } from '../helpers/simulated.js';

const API = '/api/v1';

async function fromData(app: TestApp, ws: string, name: string, rows: Array<Record<string, unknown>>): Promise<string> {
  const response = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

async function setup(t: TestContext, rows = linearChainRows(1500)) {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const sourceId = await fromData(app, ws, 'chain', rows);
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: '  Chain  Twin ', sourceId, tags: ['demo'] } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const twin = created.body.data;
  return { app, ws, sourceId, twin, base: `${API}/workspaces/${ws}/digital-twins/${twin.id}` };
}

test('a created twin is active, has version 1.0.0 and models the numeric columns of its source', async (t) => {
  const { app, ws, twin, base } = await setup(t);
  assert.equal(twin.status, 'active');
  assert.equal(twin.type, 'static');
  assert.equal(twin.name, 'Chain  Twin');
  assert.equal(twin.normalizedName, 'chain twin');
  assert.deepEqual(twin.tags, ['demo']);
  assert.deepEqual(twin.canonicalInputSchema.map((c: { field: string }) => c.field).sort(), ['w', 'x', 'y', 'z']);
  assert.deepEqual(twin.autoUpdate, { enabled: false, mode: 'assimilate_only' });
  const version = await app.call({ method: 'GET', url: `${base}/versions/${twin.versionId}` });
  assert.equal(version.status, 200);
  assert.equal(version.body.data.version, '1.0.0');
  assert.equal(version.body.data.status, 'untrained');
  assert.deepEqual(version.body.data.causalGraph, []);
  const listed = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/digital-twins` });
  assert.equal(listed.body.pagination.total, 1);
  assert.equal(listed.body.data[0].versionId, undefined, 'only create responses carry versionId');
});

test('twin create refuses bad bindings and missing columns with 422 naming the member', async (t) => {
  const { app, ws, sourceId } = await setup(t);
  const post = (body: Record<string, unknown>) => app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'bad', ...body } });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ sourceId, datasetId: 'ds_x' }, 'body/sourceId'],
    [{ datasetId: 'ds_00000000000000000000000000' }, 'body/datasetId'],
    [{ sourceId: 'src_00000000000000000000000000' }, 'body/sourceId'],
    [{ sourceId, type: 'temporal' }, 'body/selectedTimeColumnName'],
    [{ sourceId, type: 'temporal', selectedTimeColumnName: 'nope' }, 'body/selectedTimeColumnName'],
    [{ sourceId, type: 'multi-environment-static' }, 'body/environmentColumns'],
  ];
  for (const [body, location] of cases) {
    const response = await post(body);
    assert.equal(response.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
    assert.equal(response.body.errors[0].location, location, JSON.stringify(body));
  }
  assert.equal((await post({ sourceId, type: 'nonsense' })).status, 422);
});

test('PATCH renames and re-tags; DELETE removes the twin and its versions', async (t) => {
  const { app, twin, base } = await setup(t);
  const patched = await app.call({ method: 'PATCH', url: base, body: { name: 'Renamed', tags: [] } });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.data.normalizedName, 'renamed');
  assert.deepEqual(patched.body.data.tags, []);
  assert.equal((await app.call({ method: 'PATCH', url: base, body: { type: 'temporal' } })).status, 422, 'only name and tags');
  assert.equal((await app.call({ method: 'DELETE', url: base })).status, 204);
  assert.equal((await app.call({ method: 'GET', url: base })).status, 404);
  assert.equal((await app.call({ method: 'GET', url: `${base}/versions/${twin.versionId}` })).status, 404);
  const left = await app.context.meta.db.selectFrom('twin_versions').select('id').where('twin_id', '=', twin.id).execute();
  assert.deepEqual(left, [], 'no version rows remain');
});

test('versions are numbered by bump above the newest one and record their lineage', async (t) => {
  const { app, twin, base } = await setup(t);
  const minor = await app.call({ method: 'POST', url: `${base}/versions`, body: { bump: 'minor' } });
  assert.equal(minor.status, 201, JSON.stringify(minor.body));
  assert.equal(minor.body.data.version, '1.1.0');
  assert.equal(minor.body.data.derivedFromVersionId, twin.versionId);
  const patch = await app.call({ method: 'POST', url: `${base}/versions`, body: { baseVersionId: twin.versionId } });
  assert.equal(patch.body.data.version, '1.1.1', 'numbered above the newest, derived from the named base');
  assert.equal(patch.body.data.derivedFromVersionId, twin.versionId);
  const major = await app.call({ method: 'POST', url: `${base}/versions`, body: { bump: 'major' } });
  assert.equal(major.body.data.version, '2.0.0');
  const listed = await app.call({ method: 'GET', url: `${base}/versions?limit=2` });
  assert.deepEqual(listed.body.data.map((v: { version: string }) => v.version), ['2.0.0', '1.1.1']);
  assert.equal(listed.body.pagination.total, 4);
  const next = await app.call({ method: 'GET', url: `${base}/versions?limit=2&cursor=${encodeURIComponent(listed.body.pagination.cursor)}` });
  assert.deepEqual(next.body.data.map((v: { version: string }) => v.version), ['1.1.0', '1.0.0']);
  const twinNow = await app.call({ method: 'GET', url: base });
  assert.equal(twinNow.body.data.latestVersionId, major.body.data.id);
  const unknown = await app.call({ method: 'POST', url: `${base}/versions`, body: { baseVersionId: 'dtv_nope' } });
  assert.equal(unknown.status, 422);
});

test('the fixed graph pins and forbids edges, and refuses conflicts with 422 leaving it unchanged', async (t) => {
  const { app, twin, base } = await setup(t);
  const url = `${base}/versions/${twin.versionId}/graph/fixed`;
  assert.deepEqual((await app.call({ method: 'GET', url })).body.data, { relationships: [], antiRelationships: [] });
  const set = await app.call({ method: 'PATCH', url, body: { addEdges: [{ source: 'x', target: 'z' }], removeEdges: [{ source: 'y', target: 'z' }] } });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual(set.body.data, { relationships: [{ source: 'x', target: 'z' }], antiRelationships: [{ source: 'y', target: 'z' }] });
  const conflicts: Array<[Record<string, unknown>, RegExp]> = [
    [{ addEdges: [{ source: 'y', target: 'z' }] }, /both pinned present and forbidden/],
    [{ addEdges: [{ source: 'z', target: 'x' }] }, /cycle: (x -> z -> x|z -> x -> z)/],
    [{ addEdges: [{ source: 'w', target: 'w' }] }, /to itself/],
    [{ removeEdges: [{ source: 'x', target: 'nope' }] }, /nope is not a variable/],
  ];
  for (const [body, message] of conflicts) {
    const response = await app.call({ method: 'PATCH', url, body });
    assert.equal(response.status, 422, JSON.stringify(body));
    assert.match(response.body.detail, message);
  }
  assert.deepEqual((await app.call({ method: 'GET', url })).body.data, set.body.data, 'refusals changed nothing');
  const cleared = await app.call({ method: 'PATCH', url, body: { clearEdges: [{ source: 'y', target: 'z' }], addEdges: [{ source: 'y', target: 'z' }] } });
  assert.equal(cleared.status, 200);
  assert.deepEqual(cleared.body.data.antiRelationships, []);
  const derived = await app.call({ method: 'POST', url: `${base}/versions`, body: {} });
  assert.deepEqual(derived.body.data.fixedSubGraph, cleared.body.data, 'a new version copies the fixed graph of its base');
});

test('train before discovery answers 409; a multi-environment temporal twin whose time column holds no times fails its job saying so', async (t) => {
  const { app, ws, sourceId, twin, base } = await setup(t);
  const train = await app.call({ method: 'POST', url: `${base}/versions/${twin.versionId}/train`, body: {} });
  assert.equal(train.status, 409);
  const temporal = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'T', sourceId, type: 'multi-environment-temporal', environmentColumns: ['w'], selectedTimeColumnName: 'x' } });
  assert.equal(temporal.status, 201, JSON.stringify(temporal.body));
  const discover = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${temporal.body.data.id}/versions/${temporal.body.data.versionId}/discover`, body: {} });
  assert.equal(discover.status, 202, JSON.stringify(discover.body));
  const job = await waitForJob(app, ws, discover.body.data.jobId);
  assert.equal(job.status, 'failed');
  assert.match(job.error, /time column x must hold dates, datetimes or integers/);
});

test('run-pipeline learns a linear chain: graph, coefficients, evaluation, roles, changelog and suggestions', async (t) => {
  const { app, ws, twin, base } = await setup(t);
  const accepted = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 8 } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  assert.equal(accepted.body.data.links.self, `${API}/workspaces/${ws}/jobs/${accepted.body.data.jobId}`);
  const job = await waitForJob(app, ws, accepted.body.data.jobId);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.progress.percentage, 100);
  assert.equal(job.type, 'twin_pipeline');
  assert.equal(job.resource.id, twin.versionId);
  assert.ok(job.startedAt !== null && job.completedAt !== null);

  const version = (await app.call({ method: 'GET', url: `${base}/versions/${twin.versionId}` })).body.data;
  assert.equal(version.status, 'trained');
  assert.equal(version.nTrainSamples, 1500);
  assert.match(version.dataSignature, /^sha256:[0-9a-f]{64}$/);
  const skeleton = new Set(version.causalGraph.map((e: { source: string; target: string }) => [e.source, e.target].sort().join('-')));
  assert.deepEqual([...skeleton].sort(), ['x-y', 'y-z'], 'the chain and nothing else');
  for (const edge of version.causalGraph) {
    assert.equal(edge.strengthStatus, 'measured');
    // A chain has no v-structure: its edges cannot be oriented from data, so each resample credits either direction half.
    assert.ok(edge.confidence >= 0.3 && edge.confidence <= 1, `confidence ${edge.confidence}`);
  }
  // Whichever member of the equivalence class was chosen, every node with parents is predicted well from them
  // (the weakest link, x from y or y from x, explains 80% of the variance).
  const withParents = version.nodes.filter((n: { parentImpacts: object }) => Object.keys(n.parentImpacts).length > 0);
  assert.ok(withParents.length >= 2);
  for (const node of withParents) {
    assert.match(node.symbolicEquation, new RegExp(`^${node.name} = .* \\+ N\\(0, `));
    assert.ok(version.evaluation.nodeMetrics[node.name].r2 > 0.7, `${node.name} r2 ${version.evaluation.nodeMetrics[node.name].r2}`);
  }
  assert.equal(version.evaluation.modelType, 'cbn');
  assert.ok(version.evaluation.nEvalPoints > 0);
  assert.ok(version.variableRoles.sources.length >= 1 && version.variableRoles.targets.length >= 1);
  assert.ok(!version.variableRoles.sources.includes('w') && !version.variableRoles.targets.includes('w'), 'an isolated variable has no role');
  assert.ok(version.changelog.causalGraphDiffs.every((d: { type: string }) => d.type === 'added') && version.changelog.causalGraphDiffs.length === 2);
  assert.ok(version.discovery.bootstrapSamples === 8 && version.discovery.testsRun > 0);

  const twinNow = (await app.call({ method: 'GET', url: base })).body.data;
  assert.ok(twinNow.suggestedSimulations.length > 0, 'suggestions derived from the graph');
  assert.ok(twinNow.suggestionsGeneratedAt !== null);
  for (const suggestion of twinNow.suggestedSimulations) assert.ok(['intervention', 'explanation', 'optimisation'].includes(suggestion.scenario.type));
});

test('training honours the fixed graph: a pinned edge is fitted and a forbidden one is absent', async (t) => {
  const { app, ws, twin, base } = await setup(t);
  const url = `${base}/versions/${twin.versionId}`;
  await app.call({ method: 'PATCH', url: `${url}/graph/fixed`, body: { addEdges: [{ source: 'w', target: 'z' }], removeEdges: [{ source: 'y', target: 'z' }, { source: 'z', target: 'y' }] } });
  const discovered = await waitForJob(app, ws, (await app.call({ method: 'POST', url: `${url}/discover`, body: { bootstrapSamples: 0 } })).body.data.jobId);
  assert.equal(discovered.status, 'completed', JSON.stringify(discovered));
  const afterDiscovery = (await app.call({ method: 'GET', url })).body.data;
  assert.equal(afterDiscovery.status, 'discovered');
  const keys = (graph: Array<{ source: string; target: string }>) => graph.map((e) => `${e.source}->${e.target}`);
  assert.ok(keys(afterDiscovery.causalGraph).includes('w->z'), 'pinned edge kept by discovery');
  assert.ok(!keys(afterDiscovery.causalGraph).includes('y->z') && !keys(afterDiscovery.causalGraph).includes('z->y'), 'forbidden edges never added');
  assert.equal(afterDiscovery.causalGraph.every((e: { confidence: unknown }) => e.confidence === null), true, 'no resamples, no confidence');
  const trained = await waitForJob(app, ws, (await app.call({ method: 'POST', url: `${url}/train`, body: {} })).body.data.jobId);
  assert.equal(trained.status, 'completed', JSON.stringify(trained));
  const version = (await app.call({ method: 'GET', url })).body.data;
  assert.ok(keys(version.causalGraph).includes('w->z'));
  assert.ok(version.nodes.find((n: { name: string }) => n.name === 'z').parentImpacts.w !== undefined, 'z is fitted on its pinned parent w');
});

test('a second job on a version in flight answers 409; a new discovery clears the model an earlier training fitted', async (t) => {
  const { app, ws, twin, base } = await setup(t);
  const url = `${base}/versions/${twin.versionId}`;
  const first = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal(first.status, 202);
  const second = await app.call({ method: 'POST', url: `${url}/discover`, body: {} });
  assert.equal(second.status, 409, 'the version is being learned already');
  assert.equal((await waitForJob(app, ws, first.body.data.jobId)).status, 'completed');
  const trained = (await app.call({ method: 'GET', url })).body.data;
  assert.equal(trained.status, 'trained');
  const again = await waitForJob(app, ws, (await app.call({ method: 'POST', url: `${url}/discover`, body: { bootstrapSamples: 0 } })).body.data.jobId);
  assert.equal(again.status, 'completed');
  const rediscovered = (await app.call({ method: 'GET', url })).body.data;
  assert.equal(rediscovered.status, 'discovered');
  assert.equal(rediscovered.evaluation, null);
  assert.equal(rediscovered.trainedAt, null);
  const row = await app.context.meta.db.selectFrom('twin_versions').select('model').where('id', '=', twin.versionId).executeTakeFirstOrThrow();
  assert.equal(row.model, null, 'the old fitted model is gone');
});
