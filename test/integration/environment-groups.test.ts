/** Environments and environment groups of multi-environment twins over HTTP: listing, group CRUD, resolve. */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { seededRandom } from '../helpers/simulated.js';

const API = '/api/v1';

/**
 * Four stores in three regions, of different sizes, each with its own mean of x (0, 2, 4, 6) and slope of y on x:
 * x -> y -> z, plus a categorical channel.
 */
const STORES = [
  { region: 'north', store: 1, rows: 400, mean: 0, slope: 2 },
  { region: 'north', store: 2, rows: 300, mean: 2, slope: 1 },
  { region: 'south', store: 1, rows: 200, mean: 4, slope: 2 },
  { region: 'east', store: 3, rows: 100, mean: 6, slope: 0.5 },
];
const KEYS = ['region=east;store=3', 'region=north;store=1', 'region=north;store=2', 'region=south;store=1'];

function panelRows(): Array<Record<string, unknown>> {
  const random = seededRandom(11);
  const round = (value: number) => Math.round(value * 1e6) / 1e6;
  return STORES.flatMap(({ region, store, rows, mean, slope }) =>
    Array.from({ length: rows }, () => {
      const x = mean + random.normal();
      const y = slope * x + random.normal();
      return { region, store, channel: random.uniform() < 0.5 ? 'web' : 'shop', x: round(x), y: round(y), z: round(-1.5 * y + random.normal()) };
    }));
}

async function fromData(app: TestApp, ws: string, name: string, rows: Array<Record<string, unknown>>): Promise<string> {
  const response = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

async function createTwin(app: TestApp, ws: string, body: Record<string, unknown>): Promise<{ id: string; versionId: string; base: string }> {
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { id: created.body.data.id, versionId: created.body.data.versionId, base: `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}` };
}

async function setup(t: TestContext) {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const sourceId = await fromData(app, ws, 'stores', panelRows());
  const panel = await createTwin(app, ws, { name: 'Stores', type: 'multi-environment-static', sourceId, environmentColumns: ['region', 'store'] });
  const groups = `${panel.base}/environment-groups`;
  const create = (body: Record<string, unknown>) => app.call({ method: 'POST', url: groups, body });
  return { app, ws, sourceId, panel, groups, create };
}

/** Learns the panel twin's newest version through its pipeline. */
async function learn(app: TestApp, ws: string, base: string): Promise<void> {
  const accepted = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  const job = await waitForJob(app, ws, accepted.body.data.jobId, 300_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));
}

const NORTH = { mode: 'columnValues', columnValues: { region: ['north'] } };

test('an environment group is created, listed, read, updated and deleted on a multi-environment twin', async (t) => {
  const { app, panel, groups, create } = await setup(t);
  const created = await create({ name: 'North', definition: NORTH });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const group = created.body.data;
  assert.match(group.id, /^eg_/);
  assert.equal(group.agreementThreshold, 0.5, 'the default threshold');
  assert.deepEqual(group.definition, { ...NORTH, agreementThreshold: 0.5 }, 'the stored definition repeats the group threshold');
  assert.equal(group.createdBy, app.tenant.userId);
  assert.equal(group.splitColumn, null);
  assert.equal(group.splitValue, null);
  assert.equal(group.createdAt, group.updatedAt);

  const twin = await app.call({ method: 'GET', url: panel.base });
  assert.deepEqual(twin.body.data.environmentGroups, [group], 'the twin carries its groups');
  assert.deepEqual((await app.call({ method: 'GET', url: `${groups}/${group.id}` })).body.data, group);

  const renamed = await app.call({ method: 'PATCH', url: `${groups}/${group.id}`, body: { name: 'Northern stores', agreementThreshold: 0.8, definition: { ...NORTH, agreementThreshold: 0.2 } } });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  assert.equal(renamed.body.data.name, 'Northern stores');
  assert.equal(renamed.body.data.agreementThreshold, 0.8, 'the top-level threshold wins over the definition\'s');
  assert.equal(renamed.body.data.definition.agreementThreshold, 0.8);
  assert.equal(renamed.body.data.createdAt, group.createdAt);
  assert.ok(renamed.body.data.updatedAt >= group.updatedAt);

  const fromDefinition = await app.call({ method: 'PATCH', url: `${groups}/${group.id}`, body: { definition: { mode: 'environments', environments: [{ region: 'south', store: 1 }], agreementThreshold: 0.3 } } });
  assert.equal(fromDefinition.body.data.agreementThreshold, 0.3, 'without a top-level value the definition\'s applies');
  const split = await app.call({ method: 'PATCH', url: `${groups}/${group.id}`, body: { splitColumn: 'region', splitValue: 'south' } });
  assert.equal(split.status, 200, JSON.stringify(split.body));
  assert.equal(split.body.data.agreementThreshold, 0.3, 'a patch without a threshold keeps the group\'s');
  assert.deepEqual([split.body.data.splitColumn, split.body.data.splitValue], ['region', 'south']);
  assert.deepEqual(split.body.data.definition.environments, [{ region: 'south', store: 1 }]);

  const second = await create({ name: 'Big stores', definition: { mode: 'statFilters', statFilters: [{ stat: 'rows', op: 'gte', value: 300 }] }, agreementThreshold: 0.7 });
  assert.equal(second.status, 201, JSON.stringify(second.body));
  assert.equal(second.body.data.agreementThreshold, 0.7);
  const page = await app.call({ method: 'GET', url: `${groups}?limit=1` });
  assert.deepEqual(page.body.data.map((g: { id: string }) => g.id), [group.id], 'oldest first');
  assert.equal(page.body.pagination.total, 2);
  const next = await app.call({ method: 'GET', url: `${groups}?limit=1&cursor=${encodeURIComponent(page.body.pagination.cursor)}` });
  assert.deepEqual(next.body.data.map((g: { id: string }) => g.id), [second.body.data.id]);
  assert.equal(next.body.pagination.hasMore, false);

  assert.equal((await app.call({ method: 'DELETE', url: `${groups}/${group.id}` })).status, 204);
  assert.equal((await app.call({ method: 'GET', url: `${groups}/${group.id}` })).status, 404);
  assert.deepEqual((await app.call({ method: 'GET', url: groups })).body.data.map((g: { id: string }) => g.id), [second.body.data.id]);
});

test('definitions that do not fit the twin answer 422 located at the member, and store nothing', async (t) => {
  const { app, groups, create } = await setup(t);
  const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
    [{ definition: { mode: 'columnValues' } }, 'body/definition/columnValues', /required when mode is columnValues/],
    [{ definition: { mode: 'environments' } }, 'body/definition/environments'],
    [{ definition: { mode: 'statFilters' } }, 'body/definition/statFilters'],
    [{ definition: { ...NORTH, statFilters: [{ stat: 'rows', op: 'gt', value: 1 }] } }, 'body/definition/statFilters', /only with mode statFilters/],
    [{ definition: { mode: 'columnValues', columnValues: { aisle: ['3'] } } }, 'body/definition/columnValues/aisle', /aisle is not an environment column/],
    [{ definition: { mode: 'environments', environments: [{ region: 'north' }, { x: 1 }] } }, 'body/definition/environments/1/x'],
    [{ definition: { mode: 'statFilters', statFilters: [{ variable: 'nope', stat: 'mean', op: 'gt', value: 1 }] } }, 'body/definition/statFilters/0/variable', /not a modelled variable/],
    [{ definition: { mode: 'statFilters', statFilters: [{ variable: 'channel', stat: 'mean', op: 'gt', value: 1 }] } }, 'body/definition/statFilters/0/variable', /only stat missing/],
    [{ definition: { mode: 'statFilters', statFilters: [{ variable: 'x', stat: 'rows', op: 'gt', value: 1 }] } }, 'body/definition/statFilters/0/variable'],
    [{ definition: { mode: 'statFilters', statFilters: [{ stat: 'mean', op: 'gt', value: 1 }] } }, 'body/definition/statFilters/0/variable'],
    [{ definition: { mode: 'statFilters', statFilters: [{ stat: 'rows', op: 'between', value: 1 }] } }, 'body/definition/statFilters/0/op'],
    [{ definition: { mode: 'columnValues', columnValues: {} } }, 'body/definition/columnValues'],
    [{ definition: { mode: 'columnValues', columnValues: { region: [] } } }, 'body/definition/columnValues/region'],
    [{ definition: NORTH, agreementThreshold: 1.5 }, 'body/agreementThreshold'],
    [{ definition: NORTH, splitColumn: 'x' }, 'body/splitColumn', /not an environment column/],
    [{ definition: NORTH, splitValue: 'north' }, 'body/splitValue', /needs splitColumn/],
  ];
  for (const [body, location, message] of cases) {
    const response = await create({ name: 'Bad', ...body });
    assert.equal(response.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
    assert.equal(response.body.errors[0].location, location, JSON.stringify(response.body));
    if (message !== undefined) assert.match(response.body.errors[0].message, message);
  }
  assert.equal((await app.call({ method: 'GET', url: groups })).body.pagination.total, 0, 'nothing was stored');
  const group = (await create({ name: 'North', definition: NORTH })).body.data;
  const patched = await app.call({ method: 'PATCH', url: `${groups}/${group.id}`, body: { definition: { mode: 'columnValues', columnValues: { aisle: ['3'] } } } });
  assert.equal(patched.status, 422);
  assert.equal(patched.body.errors[0].location, 'body/definition/columnValues/aisle');
  assert.deepEqual((await app.call({ method: 'GET', url: `${groups}/${group.id}` })).body.data, group, 'a refused update changes nothing');
});

test('an unknown group answers 404 and a duplicate name 409', async (t) => {
  const { app, sourceId, groups, create } = await setup(t);
  const missing = `${groups}/eg_00000000000000000000000000`;
  for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
    const response = await app.call({ method, url: missing, body });
    assert.equal(response.status, 404, `${method}: ${JSON.stringify(response.body)}`);
  }
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${app.tenant.libraryWorkspaceId}/digital-twins/dt_00000000000000000000000000/environment-groups` })).status, 404);
  const north = await create({ name: 'North', definition: NORTH });
  assert.equal(north.status, 201);
  const duplicate = await create({ name: '  north ', definition: { mode: 'columnValues', columnValues: { region: ['south'] } } });
  assert.equal(duplicate.status, 409, 'names are unique within the twin, case-insensitive');
  assert.match(duplicate.body.detail, /already has an environment group named/);
  const south = await create({ name: 'South', definition: { mode: 'columnValues', columnValues: { region: ['south'] } } });
  assert.equal((await app.call({ method: 'PATCH', url: `${groups}/${south.body.data.id}`, body: { name: 'NORTH' } })).status, 409);
  assert.equal((await app.call({ method: 'PATCH', url: `${groups}/${south.body.data.id}`, body: { name: 'South' } })).status, 200, 'keeping its own name is no conflict');
  const other = await createTwin(app, app.tenant.libraryWorkspaceId, { name: 'Other', type: 'multi-environment-static', sourceId, environmentColumns: ['region'] });
  assert.equal((await app.call({ method: 'POST', url: `${other.base}/environment-groups`, body: { name: 'North', definition: NORTH } })).status, 201, 'another twin may use the name');
  assert.equal((await app.call({ method: 'GET', url: `${other.base}/environment-groups/${north.body.data.id}` })).status, 404, 'a group of another twin is not found');
});

test('single-environment twins refuse groups with 422 and list no environments', async (t) => {
  const { app, ws, sourceId } = await setup(t);
  const twin = await createTwin(app, ws, { name: 'Static', sourceId });
  const created = await app.call({ method: 'POST', url: `${twin.base}/environment-groups`, body: { name: 'North', definition: NORTH } });
  assert.equal(created.status, 422, JSON.stringify(created.body));
  assert.match(created.body.detail, /Only multi-environment twins .* is static/);
  const resolved = await app.call({ method: 'POST', url: `${twin.base}/environment-groups/resolve`, body: { definition: NORTH } });
  assert.equal(resolved.status, 422);
  const listed = await app.call({ method: 'GET', url: `${twin.base}/environment-groups` });
  assert.deepEqual([listed.status, listed.body.data], [200, []]);
  const environments = await app.call({ method: 'GET', url: `${twin.base}/environments` });
  assert.equal(environments.status, 200);
  assert.deepEqual([environments.body.data, environments.body.versionId, environments.body.profiled], [[], null, false]);
});

test('concurrent group creates on one twin are all kept; concurrent creates of one name keep exactly one', async (t) => {
  const { app, groups, create } = await setup(t);
  const names = Array.from({ length: 8 }, (_, i) => `Group ${i}`);
  const responses = await Promise.all(names.map((name) => create({ name, definition: NORTH })));
  assert.deepEqual(responses.map((r) => r.status), names.map(() => 201));
  const listed = await app.call({ method: 'GET', url: groups });
  assert.deepEqual(listed.body.data.map((g: { name: string }) => g.name).sort(), names.sort());
  const same = await Promise.all(Array.from({ length: 4 }, () => create({ name: 'Same', definition: NORTH })));
  assert.deepEqual(same.map((r) => r.status).sort(), [201, 409, 409, 409]);
  assert.equal((await app.call({ method: 'GET', url: groups })).body.pagination.total, 9);
});

test('before learning, the environments listing is empty and resolve answers 200 with nothing profiled', async (t) => {
  const { app, panel, groups, create } = await setup(t);
  const listed = await app.call({ method: 'GET', url: `${panel.base}/environments` });
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.body, { data: [], pagination: { cursor: null, hasMore: false, total: 0 }, versionId: null, version: null, environmentColumns: ['region', 'store'], profiled: false, rowsWithoutEnvironment: null });
  const version = await app.call({ method: 'GET', url: `${panel.base}/versions/${panel.versionId}/environments` });
  assert.deepEqual([version.body.versionId, version.body.version, version.body.profiled, version.body.data], [panel.versionId, '1.0.0', false, []]);
  const resolved = await app.call({ method: 'POST', url: `${groups}/resolve`, body: { definition: NORTH } });
  assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
  assert.deepEqual(resolved.body.data, {
    versionId: null, version: null, profiled: false, groupId: null, envKeys: [], environments: [], matchedCount: 0, evidenceCount: 0, totalEnvCount: 0, unknown: [], agreementThreshold: 0.5,
  });
  const group = (await create({ name: 'North', definition: NORTH })).body.data;
  const refusals: Array<[Record<string, unknown>, string]> = [
    [{ definition: NORTH, groupId: group.id }, 'body/groupId'],
    [{}, 'body/definition'],
    [{ groupId: 'eg_00000000000000000000000000' }, 'body/groupId'],
    [{ definition: NORTH, versionId: 'dtv_00000000000000000000000000' }, 'body/versionId'],
    [{ definition: { mode: 'columnValues', columnValues: { aisle: ['1'] } } }, 'body/definition/columnValues/aisle'],
  ];
  for (const [body, location] of refusals) {
    const response = await app.call({ method: 'POST', url: `${groups}/resolve`, body });
    assert.equal(response.status, 422, JSON.stringify(body));
    assert.equal(response.body.errors[0].location, location, JSON.stringify(response.body));
  }
  assert.equal((await app.call({ method: 'GET', url: `${panel.base}/versions/dtv_00000000000000000000000000/environments` })).status, 404);
});

test('after the pipeline, the environments of the newest learned version are listed with rows and statistics', async (t) => {
  const { app, ws, panel } = await setup(t);
  await learn(app, ws, panel.base);
  const listed = await app.call({ method: 'GET', url: `${panel.base}/environments` });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.equal(listed.body.versionId, panel.versionId);
  assert.equal(listed.body.version, '1.0.0');
  assert.equal(listed.body.profiled, true);
  assert.equal(listed.body.rowsWithoutEnvironment, 0);
  assert.deepEqual(listed.body.data.map((e: { key: string }) => e.key), KEYS, 'sorted by key');
  const byKey = new Map(listed.body.data.map((e: { key: string }) => [e.key, e]));
  for (const store of STORES) {
    const environment = byKey.get(`region=${store.region};store=${store.store}`) as Record<string, any>;
    assert.deepEqual(environment.values, { region: store.region, store: String(store.store) });
    assert.equal(environment.nRows, store.rows);
    assert.equal(environment.hasEvidence, true);
    assert.equal(environment.timeSpan, null, 'a static panel has no time span');
    assert.ok(Math.abs(environment.stats.x.mean - store.mean) < 4 / Math.sqrt(store.rows), `x mean of ${environment.key}: ${environment.stats.x.mean} vs ${store.mean}`);
    assert.equal(environment.stats.x.missing, 0);
    assert.equal(environment.stats.channel.mean, null, 'a categorical variable has no mean');
  }

  const north = await app.call({ method: 'GET', url: `${panel.base}/environments?q=NORTH` });
  assert.deepEqual(north.body.data.map((e: { key: string }) => e.key), ['region=north;store=1', 'region=north;store=2']);
  assert.equal(north.body.pagination.total, 2);

  // A newer version that has not read its data: the twin-level listing stays on the learned one, and a cursor
  // keeps paging the version its first page read.
  const first = await app.call({ method: 'GET', url: `${panel.base}/environments?limit=3` });
  assert.deepEqual([first.body.data.length, first.body.pagination.hasMore, first.body.pagination.total], [3, true, 4]);
  const newer = await app.call({ method: 'POST', url: `${panel.base}/versions`, body: { bump: 'minor' } });
  assert.equal(newer.status, 201);
  const rest = await app.call({ method: 'GET', url: `${panel.base}/environments?limit=3&cursor=${encodeURIComponent(first.body.pagination.cursor)}` });
  assert.deepEqual(rest.body.data.map((e: { key: string }) => e.key), [KEYS[3]]);
  assert.equal(rest.body.versionId, panel.versionId);
  assert.equal((await app.call({ method: 'GET', url: `${panel.base}/environments?limit=3&q=north&cursor=${encodeURIComponent(first.body.pagination.cursor)}` })).status, 400, 'a cursor is bound to its filters');
  assert.equal((await app.call({ method: 'GET', url: `${panel.base}/environments` })).body.versionId, panel.versionId, 'the newest version with environments');
  const unread = await app.call({ method: 'GET', url: `${panel.base}/versions/${newer.body.data.id}/environments` });
  assert.deepEqual([unread.body.profiled, unread.body.data, unread.body.version], [false, [], '1.1.0']);
  const byVersion = await app.call({ method: 'GET', url: `${panel.base}/versions/${panel.versionId}/environments` });
  assert.deepEqual(byVersion.body.data, listed.body.data);
});

test('resolve answers which learned environments a definition or a saved group selects, without the 422', async (t) => {
  const { app, ws, panel, groups, create } = await setup(t);
  await learn(app, ws, panel.base);
  const resolve = async (body: Record<string, unknown>) => {
    const response = await app.call({ method: 'POST', url: `${groups}/resolve`, body });
    assert.equal(response.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
    return response.body.data;
  };
  const north = await resolve({ definition: NORTH });
  assert.deepEqual(north.envKeys, ['region=north;store=1', 'region=north;store=2']);
  assert.deepEqual([north.versionId, north.profiled, north.matchedCount, north.evidenceCount, north.totalEnvCount], [panel.versionId, true, 2, 2, 4]);
  assert.deepEqual(north.environments.map((e: { nRows: number }) => e.nRows), [400, 300]);
  assert.deepEqual(north.environments[0].values, { region: 'north', store: '1' });

  assert.deepEqual((await resolve({ definition: { mode: 'columnValues', columnValues: { store: [1] } } })).envKeys, ['region=north;store=1', 'region=south;store=1'], 'numbers match as text');
  const listed = await resolve({ definition: { mode: 'environments', environments: [{ region: 'east' }, { region: 'north', store: '2' }, { region: 'west' }, { region: 'south', store: 9 }] } });
  assert.deepEqual(listed.envKeys, ['region=east;store=3', 'region=north;store=2']);
  assert.deepEqual(listed.unknown, ['region=west', 'region=south;store=9']);
  const wide = await resolve({ definition: { mode: 'statFilters', statFilters: [{ variable: 'x', stat: 'mean', op: 'gt', value: 3 }] } });
  assert.deepEqual(wide.envKeys, ['region=east;store=3', 'region=south;store=1']);
  const big = await resolve({ definition: { mode: 'statFilters', statFilters: [{ stat: 'rows', op: 'gte', value: 300 }, { variable: 'x', stat: 'mean', op: 'lt', value: 1 }] } });
  assert.deepEqual(big.envKeys, ['region=north;store=1']);

  const none = await resolve({ definition: { mode: 'columnValues', columnValues: { region: ['west'] } }, agreementThreshold: 0.9 });
  assert.deepEqual([none.matchedCount, none.evidenceCount, none.envKeys, none.totalEnvCount, none.agreementThreshold], [0, 0, [], 4, 0.9]);

  const saved = (await create({ name: 'Small', definition: { mode: 'statFilters', statFilters: [{ stat: 'rows', op: 'lt', value: 250 }] }, agreementThreshold: 0.6 })).body.data;
  const byId = await resolve({ groupId: saved.id });
  assert.deepEqual([byId.groupId, byId.envKeys, byId.agreementThreshold], [saved.id, ['region=east;store=3', 'region=south;store=1'], 0.6]);
  assert.equal((await resolve({ groupId: saved.id, agreementThreshold: 0.1 })).agreementThreshold, 0.1, 'the body overrides the group\'s threshold');
  const pinned = await resolve({ groupId: saved.id, versionId: panel.versionId });
  assert.equal(pinned.versionId, panel.versionId);
});
