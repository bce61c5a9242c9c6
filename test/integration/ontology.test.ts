/**
 * The semantic layer through the public API (issue 18): extraction on generated sources that name one entity
 * differently (ground truth in test/helpers/ontology.ts), concept edits and their versions, datasets' concept
 * references, the catalog's concepts and graph.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { businessData } from '../helpers/ontology.js';

const API = '/api/v1';

interface Concept {
  id: string;
  name: string;
  conceptClassification: string;
  conceptKind: string;
  editVersion: number;
  description: string | null;
  fieldMappings: Array<{ sourceId: string; field: string; status: string; confidence: number; keyRole: string | null; valueMap: Record<string, string> | null; conformance: { verdict: string; nullRate: number } | null }>;
  valueMappings: Array<{ canonicalValue: string; aliases: string[] }>;
  relationshipRules: Array<{ ruleType: string; sourceVariable: string; condition: { variable: string; value: unknown } | null; allowedValues: unknown[]; support: number; strength: string }>;
  temporalPrerequisites: Array<{ conceptId: string | null; field: string; otherField: string; relation: string }>;
  lockedConceptFields: string[];
  lineageDrift: unknown;
  metadata: Record<string, unknown>;
}

/** Uploads each source of `data` and waits until its ontology is extracted; answers source name -> id. */
async function upload(app: TestApp, ws: string, sources: Record<string, Array<Record<string, unknown>>>, ontologyMode?: 'manual'): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [name, rows] of Object.entries(sources)) {
    const response = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows, ...(ontologyMode && { ontologyMode }) } });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    ids[name] = response.body.data.id;
    if (ontologyMode === undefined) {
      assert.equal(response.body.data.ontologyStatus, 'queued');
      await extracted(app, ws, ids[name]!);
    }
  }
  return ids;
}

async function extracted(app: TestApp, ws: string, sourceId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 1500; i++) {
    const source = (await app.call({ method: 'GET', url: `${API}/sources/${sourceId}` })).body.data;
    if (source.ontologyStatus === 'completed') return source;
    assert.notEqual(source.ontologyStatus, 'failed', source.ontologyError);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`the ontology of ${sourceId} was not extracted`);
}

async function concepts(app: TestApp, ws: string, query = ''): Promise<Concept[]> {
  const all: Concept[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/concepts?limit=100${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}` });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    all.push(...page.body.data);
    cursor = page.body.pagination.cursor;
  } while (cursor !== null);
  return all;
}

const fieldsOf = (concept: Concept, names: Record<string, string>) => {
  const byId = Object.fromEntries(Object.entries(names).map(([name, id]) => [id, name]));
  return concept.fieldMappings.map((m) => `${byId[m.sourceId]}.${m.field}`).sort();
};

async function setup(t: TestContext, seed: number, names?: number) {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const data = businessData(seed, { names });
  const ids = await upload(app, ws, data.sources);
  return { app, ws, data, ids, all: await concepts(app, ws) };
}

/** Precision and recall of the key fields landing on one concept per entity, over all entities. */
function keyScores(data: ReturnType<typeof businessData>, ids: Record<string, string>, all: Concept[]) {
  let found = 0;
  let right = 0;
  let truth = 0;
  const detail: Record<string, string[]> = {};
  for (const [entity, fields] of Object.entries(data.keys)) {
    truth += fields.length;
    const [sourceName, field] = fields[0]!.split('.') as [string, string];
    const concept = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids[sourceName] && m.field === field));
    assert.ok(concept, `${fields[0]} is described by a concept`);
    const mapped = fieldsOf(concept, ids);
    detail[entity] = mapped;
    found += mapped.length;
    right += mapped.filter((f) => fields.includes(f)).length;
  }
  return { precision: right / found, recall: right / truth, detail };
}

for (const names of [0, 1, 2]) {
  test(`extraction puts every source's key of one entity on one anchor concept (naming ${names}), with value mappings, rules and time order`, async (t) => {
    const { app, ws, data, ids, all } = await setup(t, 11 + names, names);
    const scores = keyScores(data, ids, all);
    assert.ok(scores.precision >= 0.9 && scores.recall >= 0.9, `precision ${scores.precision}, recall ${scores.recall}: ${JSON.stringify(scores.detail)}`);
    t.diagnostic(`keys: precision ${scores.precision.toFixed(3)}, recall ${scores.recall.toFixed(3)}`);

    const customer = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.customers && m.keyRole === 'primary'))!;
    assert.equal(customer.conceptClassification, 'identifier');
    assert.equal(customer.conceptKind, 'anchor');

    // The states, written three ways, are one value each.
    const state = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.customers && m.field === 'state'))!;
    for (const [canonical, aliases] of Object.entries(data.spellings)) {
      const mapping = state.valueMappings.find((m) => m.canonicalValue === canonical);
      assert.ok(mapping, `${canonical} is a canonical value: ${JSON.stringify(state.valueMappings)}`);
      for (const alias of aliases) assert.ok(mapping.aliases.includes(alias), `${alias} is an alias of ${canonical}`);
    }
    const stateField = state.fieldMappings.find((m) => m.sourceId === ids.customers)!;
    assert.equal(stateField.valueMap?.NY, 'New York');

    // Currency follows country in the orders: mined as a hard conditional rule with its support.
    const currency = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.orders && m.field === 'currency'))!;
    const usd = currency.relationshipRules.find((r) => r.ruleType === 'conditional_values' && r.condition?.variable === 'country' && r.condition.value === 'United States');
    assert.ok(usd, JSON.stringify(currency.relationshipRules));
    assert.deepEqual(usd.allowedValues, ['USD']);
    assert.equal(usd.strength, 'hard');
    const usRows = data.sources.orders!.filter((row) => row.country === 'United States').length;
    assert.equal(usd.support, usRows);
    assert.ok(!currency.relationshipRules.some((r) => r.condition?.variable === 'amount'), 'no rule on a measure');

    // An order ships after it is placed, on every row.
    const ordered = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.orders && m.field === 'order_date'))!;
    const shipped = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.orders && m.field === 'ship_date'))!;
    assert.ok(ordered.temporalPrerequisites.some((p) => p.relation === 'precedes' && p.conceptId === shipped.id), JSON.stringify(ordered.temporalPrerequisites));
    assert.equal(ordered.metadata.tsGranularity, 'day');
    assert.ok((ordered.metadata.tsCoverage as number) > 0.9, JSON.stringify(ordered.metadata));
    assert.equal(ordered.metadata.tsExpectedSteps, (ordered.metadata.tsObservedSteps as number) + (ordered.metadata.tsMissingSteps as number));
    const graph = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/catalog/graph` })).body.data;
    assert.ok(graph.edges.some((e: { type: string; source: string; target: string }) => e.type === 'temporal_prerequisite' && e.source === ordered.id && e.target === shipped.id));
    assert.ok(graph.edges.some((e: { type: string; target: string }) => e.type === 'anchor' && e.target === customer.id), 'the customer attributes link to the customer anchor');
  });
}

test('a manual source gets no concepts; asking for an extraction describes it; the source says what was left out', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const rows = Array.from({ length: 50 }, (_, i) => ({ id: `P${1000 + i}`, comment: `A long free-text remark number ${i} about the visit, written by hand`, score: i % 7, tags: i % 2 === 0 ? ['urgent', 'billing'] : ['billing'] }));
  const { notes } = await upload(app, ws, { notes: rows }, 'manual');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(await concepts(app, ws, `&sourceId=${notes}`), []);
  const source = (await app.call({ method: 'GET', url: `${API}/sources/${notes}` })).body.data;
  assert.equal(source.ontologyMode, 'manual');
  assert.equal(source.ontologyStatus, null);

  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/extractions`, body: { sourceId: notes } });
  assert.equal(job.status, 202, JSON.stringify(job.body));
  const after = await extracted(app, ws, notes!);
  assert.deepEqual(after.ontologyExcludedFields, [{ field: 'comment', reason: 'free text', source: 'auto' }]);
  const described = await concepts(app, ws, `&sourceId=${notes}`);
  assert.deepEqual(described.map((c) => c.fieldMappings[0]!.field).sort(), ['id', 'score', 'tags']);
  const tags = described.find((c) => c.fieldMappings[0]!.field === 'tags')!;
  assert.equal(tags.conceptClassification, 'list');
  assert.deepEqual(tags.metadata.elementCategories, ['billing', 'urgent']);
  assert.deepEqual(tags.metadata.sizeStatistics, { min: 1, max: 2, avg: 1.5, median: 2, p95: 2 }, 'the source statistics (quantileExact: the upper median)');
  assert.ok(after.schemaEntries.find((e: { field: string }) => e.field === 'id').description, 'schema entries carry the concept description');

  const unknown = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/extractions`, body: { sourceId: 'src_00000000000000000000000000' } });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.errors[0].location, 'body/sourceId');
});

test('edits: editVersion conflicts, locked members survive re-extraction, split, delete refused while a dataset uses the concept', async (t) => {
  const { app, ws, ids, all } = await setup(t, 5, 0);
  const base = `${API}/workspaces/${ws}/ontology/concepts`;
  const segment = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.customers && m.field === 'segment'))!;

  const edited = await app.call({ method: 'PUT', url: `${base}/${segment.id}`, body: { _id: segment.id, editVersion: segment.editVersion, description: 'Who the customer is, commercially', metadata: { higherIsBetter: null } } });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  assert.equal(edited.body.data.editVersion, segment.editVersion + 1);
  assert.ok(edited.body.data.lockedConceptFields.includes('description'));
  assert.ok(edited.body.data.lockedMetadataFields.includes('higherIsBetter'));
  assert.deepEqual(edited.body.downstream, { datasets: [], twins: [] });
  const stale = await app.call({ method: 'PUT', url: `${base}/${segment.id}`, body: { _id: segment.id, editVersion: segment.editVersion, description: 'lost update' } });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.type, 'urn:causa:problem:stale-version');
  const mismatch = await app.call({ method: 'PUT', url: `${base}/${segment.id}`, body: { _id: 'cpt_other', description: 'x' } });
  assert.equal(mismatch.status, 422);
  const unchanged = await app.call({ method: 'PUT', url: `${base}/${segment.id}`, body: { _id: segment.id, description: 'Who the customer is, commercially' } });
  assert.equal(unchanged.body.data.editVersion, segment.editVersion + 1, 'a PUT that changes nothing keeps the version');

  // Re-extraction keeps the locked description.
  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/extractions`, body: { sourceId: ids.customers } });
  assert.equal(job.status, 202);
  await extracted(app, ws, ids.customers!);
  const again = (await app.call({ method: 'GET', url: `${base}/${segment.id}` })).body.data as Concept;
  assert.equal(again.description, 'Who the customer is, commercially');
  assert.equal(again.editVersion, segment.editVersion + 1, 'statistics refreshed; the meaning did not change');

  // A dataset names the concept; the concept changes; the dataset's old version is stale.
  const entry = { id: ids.customers, conceptIds: [segment.id], conceptVersions: { [segment.id]: again.editVersion } };
  const dataset = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'Customers', sources: [entry], anchorConceptId: segment.id } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const wrongSource = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'Wrong', sources: [{ ...entry, id: ids.orders }] } });
  assert.equal(wrongSource.status, 422, 'the concept maps no field of the orders');
  const badAnchor = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'Bad anchor', sources: [{ id: ids.customers }], anchorConceptId: 'cpt_00000000000000000000000000' } });
  assert.equal(badAnchor.status, 422);
  assert.equal(badAnchor.body.errors[0].location, 'body/anchorConceptId');
  const renamed = await app.call({ method: 'PUT', url: `${base}/${segment.id}`, body: { _id: segment.id, name: 'Customer segment' } });
  assert.equal(renamed.status, 200);
  assert.deepEqual(renamed.body.downstream.datasets, [{ id: dataset.body.data.id, name: 'Customers', writtenAgainst: again.editVersion }]);
  const read = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}` });
  assert.deepEqual(read.body.data.sources[0].conceptVersions, { [segment.id]: again.editVersion + 1 }, 'reads return the current version');
  const stalePatch = await app.call({ method: 'PATCH', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}`, body: { sources: [entry] } });
  assert.equal(stalePatch.status, 409);
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}` })).body.data.name, 'Customers', 'nothing changed');
  const fresh = await app.call({ method: 'PATCH', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}`, body: { sources: read.body.data.sources } });
  assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
  const enriched = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}/enriched` });
  assert.equal(enriched.body.data.concepts[0].name, 'Customer segment');
  assert.equal(enriched.body.data.concepts[0].isAnchor, true);
  const refused = await app.call({ method: 'DELETE', url: `${base}/${segment.id}` });
  assert.equal(refused.status, 409);

  // Split: one field of a concept mapped in several sources moves to a new concept.
  const customer = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.customers && m.keyRole === 'primary'))!;
  const moved = customer.fieldMappings.find((m) => m.sourceId === ids.sessions)!;
  const split = await app.call({ method: 'POST', url: `${base}/${customer.id}/split`, body: { fieldMapping: { sourceId: ids.sessions, field: moved.field, status: 'confirmed' }, name: 'Web visitor' } });
  assert.equal(split.status, 200, JSON.stringify(split.body));
  assert.ok(!split.body.data.original.fieldMappings.some((m: { sourceId: string }) => m.sourceId === ids.sessions));
  assert.deepEqual(split.body.data.created.fieldMappings.map((m: { field: string; source: string }) => [m.field, m.source]), [[moved.field, 'split']]);
  assert.equal(split.body.data.original.editVersion, customer.editVersion + 1);
  const sessionConcepts = await concepts(app, ws, `&sourceId=${ids.sessions}`);
  assert.ok(sessionConcepts.some((c) => c.name === 'Web visitor'));

  // A mapping a person takes out is kept as rejected: extraction does not put it back.
  const current = (await app.call({ method: 'GET', url: `${base}/${customer.id}` })).body.data as Concept;
  const withoutTickets = current.fieldMappings.filter((m) => m.sourceId !== ids.tickets && m.status !== 'rejected');
  const rejected = await app.call({ method: 'PUT', url: `${base}/${customer.id}`, body: { _id: customer.id, fieldMappings: withoutTickets } });
  assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
  assert.deepEqual(rejected.body.data.fieldMappings.filter((m: { sourceId: string }) => m.sourceId === ids.tickets).map((m: { status: string }) => m.status), ['rejected']);
  await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/extractions`, body: { sourceId: ids.tickets } });
  await extracted(app, ws, ids.tickets!);
  const still = (await app.call({ method: 'GET', url: `${base}/${customer.id}` })).body.data as Concept;
  assert.deepEqual(still.fieldMappings.filter((m) => m.sourceId === ids.tickets).map((m) => m.status), ['rejected'], 're-extraction leaves the rejection');
  assert.ok(!(await concepts(app, ws, `&sourceId=${ids.tickets}`)).some((c) => c.id === customer.id), 'a rejected mapping does not list the concept under the source');

  // Catalog shape.
  const catalog = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/catalog/concepts?sourceId=${ids.products}` });
  assert.equal(catalog.status, 200);
  assert.ok(catalog.body.data.length >= 3);
  assert.ok(catalog.body.data.every((c: { fieldMappings: Array<{ tableId: string }> }) => c.fieldMappings.some((m) => m.tableId === ids.products)));

  // Another organisation sees none of it.
  const other = await app.call({ method: 'GET', url: `${base}/${segment.id}`, key: app.other.key });
  assert.equal(other.status, 404);
});

test('recommended datasets join sources through a shared anchor concept and name the concepts at their versions', async (t) => {
  const { app, ws, ids, all } = await setup(t, 23, 1);
  const recommended = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/recommended` })).body.data;
  const join = recommended.find((r: { sources: Array<{ id: string }>; operations: unknown[] }) => r.sources[0]!.id === ids.orders && r.sources[1]?.id === ids.customers);
  assert.ok(join, JSON.stringify(recommended.map((r: { name: string }) => r.name)));
  assert.match(join.reason, /anchor concept/);
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'Orders with customers', sources: join.sources, operations: join.operations } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const rows = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${created.body.data.id}/records?limit=5` });
  assert.ok(rows.body.data.every((row: Record<string, unknown>) => row.segment !== undefined), 'customer attributes joined onto the orders');
  assert.ok(join.sources[0].conceptIds.length > 0);
  for (const id of join.sources[0].conceptIds) assert.equal(join.sources[0].conceptVersions[id], all.find((c) => c.id === id)!.editVersion);

  // A deleted source leaves the concepts: its mappings go, the concepts stay.
  const customer = all.find((c) => c.fieldMappings.some((m) => m.sourceId === ids.sessions))!;
  const deleted = await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${ids.sessions}` });
  assert.equal(deleted.status, 204, JSON.stringify(deleted.body));
  const after = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/concepts/${customer.id}` })).body.data as Concept;
  assert.ok(!after.fieldMappings.some((m) => m.sourceId === ids.sessions));
  assert.equal(after.editVersion, customer.editVersion + 1);
  assert.deepEqual(await concepts(app, ws, `&sourceId=${ids.sessions}`), []);
});
