/**
 * The forward enrichment of a concept over HTTP: every spelling in its fields resolved to its canonical values,
 * stored as the mappings' value maps, read by the anchor query facility (groups, filters and joins on canonical
 * values), its progress in the query error while it runs, and its refusals.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { seededRandom } from '../helpers/simulated.js';

const API = '/api/v1';

/** Sales rows whose state is written many ways; the canonical value each spelling means (null: none of them). */
const SPELLINGS: Array<[string, string | null]> = [
  ['New York', 'New York'], ['NY', 'New York'], ['new york', 'New York'], ['New-York', 'New York'],
  ['California', 'California'], ['CA', 'California'], ['Calif.', 'California'], ['CALIFORNIA', 'California'],
  ['Texas', 'Texas'], ['TX', 'Texas'], ['TEXAS', 'Texas'],
  ['Nowhere', null],
];

function salesRows(n: number) {
  const random = seededRandom(7);
  return Array.from({ length: n }, (_, i) => {
    const [written] = SPELLINGS[Math.floor(random.uniform() * SPELLINGS.length)]!;
    return { sale_id: `S${i}`, state: written, amount: Math.round(random.uniform() * 10_000) / 100 };
  });
}

test('a forward enrichment resolves every spelling to the concept\'s canonical values, and queries read them as one value', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const rows = salesRows(600);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'sales', ontologyMode: 'manual', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const sourceId = source.body.data.id;
  const targets = await app.call({
    method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`,
    body: { name: 'targets', ontologyMode: 'manual', rows: [{ region: 'new york', target: 100 }, { region: 'CA', target: 200 }, { region: 'Texas', target: 300 }] },
  });
  assert.equal(targets.status, 201, JSON.stringify(targets.body));
  for (const [name, id] of [['sales', sourceId], ['targets', targets.body.data.id]]) {
    assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name, sources: [{ id }] } })).status, 201);
  }
  const concepts = `${API}/workspaces/${ws}/ontology/concepts`;
  const created = await app.call({
    method: 'POST', url: concepts,
    body: {
      name: 'State',
      conceptClassification: 'identifier',
      valueMappings: [{ canonicalValue: 'New York', aliases: ['NY'] }, { canonicalValue: 'California', aliases: ['CA'] }, { canonicalValue: 'Texas', aliases: [] }],
      fieldMappings: [{ sourceId, field: 'state', keyRole: 'foreign' }, { sourceId: targets.body.data.id, field: 'region', keyRole: 'primary' }],
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const concept = created.body.data;
  const ask = async (query: string) => (await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/query`, body: { query, limit: 1000 } })).body.data;

  const before = await ask('SELECT state, count(*) AS n FROM sales GROUP BY state ORDER BY state');
  assert.equal(before.ok, true, JSON.stringify(before));
  assert.equal(before.rows.length, SPELLINGS.length, 'before the enrichment every spelling is its own group');

  // While the enrichment waits, a query through the concept answers its progress; others run.
  await app.context.jobRunner.stop();
  const accepted = await app.call({ method: 'POST', url: `${concepts}/${concept.id}/enrichments`, body: {} });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  const again = await app.call({ method: 'POST', url: `${concepts}/${concept.id}/enrichments`, body: { kind: 'forward' } });
  assert.equal(again.body.data.jobId, accepted.body.data.jobId, 'one enrichment waits per concept');
  const waiting = await ask('SELECT state, count(*) AS n FROM sales GROUP BY state');
  assert.equal(waiting.ok, false);
  assert.equal(waiting.error.code, 'enrichment_running');
  assert.deepEqual(waiting.error.enrichmentProgress.map((p: Record<string, unknown>) => [p.datasetName, p.conceptName, p.status]), [['sales', 'State', 'queued']]);
  assert.equal((await ask('SELECT sum(amount) AS total FROM sales')).ok, true, 'a query not reading the concept runs');
  assert.equal((await app.call({ method: 'GET', url: `${concepts}/${concept.id}` })).body.data.metadata.enrichments.canonicalValues.status, 'queued');
  await app.context.jobRunner.start();
  const job = await waitForJob(app, ws, accepted.body.data.jobId);
  assert.equal(job.status, 'completed', JSON.stringify(job));

  const enriched = (await app.call({ method: 'GET', url: `${concepts}/${concept.id}` })).body.data;
  const entry = enriched.metadata.enrichments.canonicalValues;
  assert.equal(entry.status, 'completed');
  assert.equal(entry.kind, 'forward');
  const written = new Set(rows.map((r) => r.state));
  const expected = new Map(SPELLINGS.filter(([w]) => written.has(w)));
  assert.equal(entry.distinctTotal, expected.size + 3, 'the sales spellings and the three targets');
  assert.equal(entry.unmatchedCount, 1);
  assert.deepEqual(entry.fields.find((f: { field: string }) => f.field === 'state').unmatched, ['Nowhere']);
  assert.equal(enriched.editVersion, concept.editVersion + 1, 'the resolution changes what the fields mean');
  const valueMap = enriched.fieldMappings.find((m: { field: string }) => m.field === 'state').valueMap;
  for (const [spelling, canonical] of expected) {
    if (canonical === null || canonical === spelling) assert.equal(valueMap[spelling], undefined, spelling);
    else assert.equal(valueMap[spelling], canonical, spelling);
  }

  // Groups, filters and joins on canonical values, equal to the sums over the known resolution.
  const totals = new Map<string, { n: number; amount: number }>();
  for (const row of rows) {
    const key = expected.get(row.state) ?? row.state;
    const sum = totals.get(key) ?? { n: 0, amount: 0 };
    totals.set(key, { n: sum.n + 1, amount: sum.amount + row.amount });
  }
  const after = await ask('SELECT state, count(*) AS n, sum(amount) AS total FROM sales GROUP BY state ORDER BY state');
  assert.equal(after.ok, true, JSON.stringify(after));
  assert.deepEqual(after.rows.map((r: Record<string, number>) => [r.state, r.n]), [...totals].sort(([a], [b]) => (a < b ? -1 : 1)).map(([state, { n }]) => [state, n]));
  for (const row of after.rows) assert.ok(Math.abs(row.total - totals.get(row.state)!.amount) < 1e-6, row.state);
  const newYork = await ask('SELECT count(*) AS n FROM sales WHERE state = \'New York\'');
  assert.equal(newYork.rows[0].n, totals.get('New York')!.n, 'a filter on the canonical value finds every spelling');
  const joined = await ask('SELECT state, sum(target) AS target FROM sales GROUP BY state ORDER BY state');
  assert.equal(joined.ok, true, JSON.stringify(joined));
  assert.deepEqual(
    joined.rows.filter((r: { target: number | null }) => r.target !== null && r.target !== 0).map((r: Record<string, unknown>) => [r.state, r.target]),
    [['California', 200 * totals.get('California')!.n], ['New York', 100 * totals.get('New York')!.n], ['Texas', 300 * totals.get('Texas')!.n]],
    'the join through State matches "new york" to "NY" and "CA" to "Calif."',
  );

  // Metadata read and sent back does not overwrite the enrichment's status (it is the service's).
  const put = await app.call({ method: 'PUT', url: `${concepts}/${concept.id}`, body: { _id: concept.id, metadata: { ...enriched.metadata, enrichments: {} }, description: 'US states' } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.data.metadata.enrichments.canonicalValues.status, 'completed', 'the service keeps the enrichment status');

  // An enrichment cancelled before it starts reads as cancelled (the job never ran to say so), and no query waits for it.
  await app.context.jobRunner.stop();
  const queued = await app.call({ method: 'POST', url: `${concepts}/${concept.id}/enrichments`, body: {} });
  assert.equal((await app.call({ method: 'GET', url: `${concepts}/${concept.id}` })).body.data.metadata.enrichments.canonicalValues.status, 'queued');
  assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/jobs/${queued.body.data.jobId}/cancel` })).body.data.status, 'cancelled');
  const cancelled = (await app.call({ method: 'GET', url: `${concepts}/${concept.id}` })).body.data.metadata.enrichments.canonicalValues;
  assert.deepEqual([cancelled.status, cancelled.jobId], ['cancelled', queued.body.data.jobId]);
  const listed = (await app.call({ method: 'GET', url: concepts })).body.data.find((c: { id: string }) => c.id === concept.id);
  assert.equal(listed.metadata.enrichments.canonicalValues.status, 'cancelled');
  assert.equal((await ask('SELECT state, count(*) AS n FROM sales GROUP BY state')).ok, true);
  await app.context.jobRunner.start();
});

test('an enrichment is refused without canonical values or fields, and other organisations cannot start one', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const concepts = `${API}/workspaces/${ws}/ontology/concepts`;
  const bare = (await app.call({ method: 'POST', url: concepts, body: { name: 'Colour' } })).body.data;
  const noValues = await app.call({ method: 'POST', url: `${concepts}/${bare.id}/enrichments`, body: {} });
  assert.equal(noValues.status, 422);
  assert.match(noValues.body.errors[0].message, /no canonical values/);
  const noFields = (await app.call({ method: 'POST', url: concepts, body: { name: 'Size', valueMappings: [{ canonicalValue: 'Large', aliases: ['L'] }] } })).body.data;
  const unmapped = await app.call({ method: 'POST', url: `${concepts}/${noFields.id}/enrichments`, body: {} });
  assert.equal(unmapped.status, 422);
  assert.match(unmapped.body.errors[0].message, /maps no field/);
  assert.equal((await app.call({ method: 'POST', url: `${concepts}/${noFields.id}/enrichments`, body: { kind: 'reverse' } })).status, 422);
  assert.equal((await app.call({ method: 'POST', url: `${concepts}/cpt_missing/enrichments`, body: {} })).status, 404);
  const other = await app.call({ method: 'POST', url: `${concepts}/${noFields.id}/enrichments`, body: {}, key: app.other.key });
  assert.ok([403, 404].includes(other.status), String(other.status));
});
