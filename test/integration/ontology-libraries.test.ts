/**
 * Shared ontology libraries through the public API: the bundled catalogue, installs into a workspace (created and
 * linked concepts, idempotence, updates to a newer version with locked members kept), extraction onto installed
 * concepts, uninstalls, the refusals, and tenant isolation.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { LibraryConcept, OntologyLibrary } from '../../schemas/ontology-libraries.js';
import { BUNDLED_LIBRARIES } from '../../src/ontology/libraries/index.js';
import { type TestApp, buildTestApp } from '../helpers/app.js';

const API = '/api/v1';
const COMMERCE = BUNDLED_LIBRARIES.find((library) => library.id === 'causa.commerce')!;

interface Concept {
  id: string;
  name: string;
  description: string | null;
  editVersion: number;
  trustTier: string;
  tags: string[];
  metadata: Record<string, unknown>;
  ontologyRef: { ontologyId: string; ontologyVersion: string; canonicalId: string; installScope: string } | null;
  layerIds: string[];
  valueMappings: Array<{ canonicalValue: string; aliases: string[] }>;
  fieldMappings: Array<{ sourceId: string; field: string; status: string; valueMap: Record<string, string> | null; conformance: { verdict: string; allowedValueCoverage: number | null } | null }>;
}

async function concepts(app: TestApp, ws: string): Promise<Concept[]> {
  const page = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/concepts?limit=1000` });
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.data;
}

const install = (app: TestApp, ws: string, body: Record<string, unknown>, key?: string) => app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/installs`, body, ...(key === undefined ? {} : { key }) });
const byCanonical = (all: Concept[], ontologyId: string) => new Map(all.filter((c) => c.ontologyRef?.ontologyId === ontologyId).map((c) => [c.ontologyRef!.canonicalId, c]));

/** Uploads rows as a source and waits until its ontology is extracted. */
async function upload(app: TestApp, ws: string, name: string, rows: Array<Record<string, unknown>>): Promise<string> {
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  for (let i = 0; i < 1500; i++) {
    const source = (await app.call({ method: 'GET', url: `${API}/sources/${created.body.data.id}` })).body.data;
    if (source.ontologyStatus === 'completed') return source.id;
    assert.notEqual(source.ontologyStatus, 'failed', source.ontologyError);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`the ontology of ${name} was not extracted`);
}

/** Orders across five countries and five US states, the way files write them (codes). */
const ORDERS = Array.from({ length: 80 }, (_, i) => ({
  order_id: `O-${10_000 + i}`,
  country_code: ['US', 'DE', 'FR', 'GB', 'JP'][i % 5],
  state: ['CA', 'NY', 'TX', 'WA', 'FL'][(i * 3) % 5],
  amount: Math.round((20 + ((i * 37) % 180) + (i % 7) / 10) * 100) / 100,
}));

test('the bundled libraries are listed and read with their concepts; an unknown library or version answers 404', async (t) => {
  const app = await buildTestApp(t);
  const listed = await app.call({ method: 'GET', url: `${API}/ontologies` });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const commerce = listed.body.data.find((l: { id: string }) => l.id === 'causa.commerce');
  assert.deepEqual(commerce, { id: 'causa.commerce', name: 'Commerce', description: COMMERCE.description, version: '1.0.0', versions: ['1.0.0'], conceptCount: COMMERCE.concepts.length });

  const read = await app.call({ method: 'GET', url: `${API}/ontologies/causa.commerce` });
  assert.equal(read.status, 200, JSON.stringify(read.body));
  const country = read.body.data.concepts.find((c: LibraryConcept) => c.canonicalId === 'country');
  assert.deepEqual(country.valueMappings.find((m: { canonicalValue: string }) => m.canonicalValue === 'Germany').aliases.slice(0, 2), ['DE', 'DEU']);
  assert.equal(country.metadata.locationType, 'country');
  assert.equal((await app.call({ method: 'GET', url: `${API}/ontologies/causa.commerce?version=1.0.0` })).status, 200);

  const unknownVersion = await app.call({ method: 'GET', url: `${API}/ontologies/causa.commerce?version=9.9.9` });
  assert.equal(unknownVersion.status, 404);
  assert.equal(unknownVersion.body.type, 'urn:causa:problem:not-found');
  assert.equal((await app.call({ method: 'GET', url: `${API}/ontologies/acme.nothing` })).status, 404);
  assert.equal((await app.call({ method: 'GET', url: `${API}/ontologies/causa.commerce?version=1.0` })).status, 400, 'a version that is not major.minor.patch');
});

test('an install creates the library\'s concepts, links the one of the same name, and installing again changes nothing', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const own = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/concepts`, body: { name: 'country', conceptClassification: 'location', tags: ['ours'], valueMappings: [{ canonicalValue: 'Germany', aliases: ['GER', 'Allemagne'] }, { canonicalValue: 'Atlantis', aliases: ['ATL'] }] } });
  assert.equal(own.status, 201, JSON.stringify(own.body));

  const first = await install(app, ws, { ontologyId: 'causa.commerce' });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const result = first.body.data;
  assert.equal(result.previousVersion, null);
  assert.deepEqual(result.linked, [{ conceptId: own.body.data.id, name: 'country', canonicalId: 'country' }]);
  assert.deepEqual(result.created.map((c: { canonicalId: string }) => c.canonicalId).sort(), COMMERCE.concepts.map((c) => c.canonicalId).filter((id) => id !== 'country').sort());
  assert.deepEqual([result.updated, result.unchanged, result.detached], [[], [], []]);
  assert.deepEqual({ ...result.install, installedAt: undefined, updatedAt: undefined }, {
    ontologyId: 'causa.commerce', name: 'Commerce', version: '1.0.0', latestVersion: '1.0.0', layerId: 'ontology:causa.commerce@1.0.0',
    conceptCount: COMMERCE.concepts.length, installedBy: app.tenant.userId, installedAt: undefined, updatedAt: undefined,
  });

  const all = await concepts(app, ws);
  assert.equal(all.length, COMMERCE.concepts.length, 'the same-name concept was linked, not duplicated');
  const installed = byCanonical(all, 'causa.commerce');
  const customer = installed.get('customer')!;
  assert.deepEqual(customer.ontologyRef, { ontologyId: 'causa.commerce', ontologyVersion: '1.0.0', canonicalId: 'customer', installScope: 'workspace' });
  assert.deepEqual(customer.layerIds, ['ontology:causa.commerce@1.0.0']);
  assert.equal(customer.trustTier, 'certified');
  assert.equal(customer.editVersion, 0);
  assert.equal(installed.get('quantity')!.metadata.unit, 'item');

  const country = installed.get('country')!;
  assert.equal(country.id, own.body.data.id);
  assert.equal(country.name, 'country', 'a linked concept keeps its name');
  assert.equal(country.description, COMMERCE.concepts.find((c) => c.canonicalId === 'country')!.description, 'and gains the description it lacked');
  assert.equal(country.editVersion, 1);
  assert.deepEqual([...country.tags].sort(), ['commerce', 'geography', 'iso-3166', 'ours']);
  const germany = country.valueMappings.find((m) => m.canonicalValue === 'Germany')!;
  for (const alias of ['DE', 'DEU', 'Deutschland', 'GER', 'Allemagne']) assert.ok(germany.aliases.includes(alias), alias);
  assert.deepEqual(country.valueMappings.find((m) => m.canonicalValue === 'Atlantis'), { canonicalValue: 'Atlantis', aliases: ['ATL'] }, 'its own value mappings stay');
  assert.equal(country.metadata.locationType, 'country');

  const again = await install(app, ws, { ontologyId: 'causa.commerce', version: '1.0.0' });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.deepEqual([again.body.data.created, again.body.data.linked, again.body.data.updated, again.body.data.detached], [[], [], [], []]);
  assert.equal(again.body.data.unchanged.length, COMMERCE.concepts.length);
  assert.ok(again.body.data.unchanged.every((c: { kept: string[] }) => c.kept.length === 0));
  assert.equal(again.body.data.install.updatedAt, result.install.updatedAt, 'the install record is not rewritten');
  assert.deepEqual(await concepts(app, ws), all, 'no concept changed');

  const listed = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/installs` });
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.body.data, [result.install]);
});

/** A test library in two versions: what 1.1.0 changes, drops and adds. */
function shopLibraries(): OntologyLibrary[] {
  const concept = (canonicalId: string, name: string, members: Partial<LibraryConcept> = {}): LibraryConcept => ({
    canonicalId, name, description: `${name}, v1`, conceptClassification: 'dimension', conceptKind: 'standard', schemaFieldName: canonicalId, schemaType: 'text', schemaSubtype: null,
    suggestedRole: 'source', tags: ['shop', 'v1-only'], valueMappings: [], metadata: { valueClass: 'categorical' }, fieldNames: [canonicalId], ...members,
  });
  const v1: OntologyLibrary = {
    id: 'test.shop', version: '1.0.0', name: 'Shop', description: 'A test library',
    concepts: [
      concept('segment', 'Segment', { valueMappings: [{ canonicalValue: 'Retail', aliases: ['R'] }], metadata: { unit: 'segment', valueClass: 'categorical' } }),
      concept('channel', 'Channel'),
      concept('region', 'Sales region'),
      concept('legacy', 'Legacy code'),
    ],
  };
  const v2: OntologyLibrary = {
    ...v1, version: '1.1.0',
    concepts: [
      concept('segment', 'Segment', { description: 'Segment, v2', tags: ['shop'], valueMappings: [{ canonicalValue: 'Retail', aliases: ['R', 'RTL'] }, { canonicalValue: 'Wholesale', aliases: ['W'] }], metadata: { unit: 'customer segment', valueClass: 'categorical' } }),
      concept('channel', 'Sales channel', { description: 'Channel, v2' }),
      v1.concepts[2]!,
      concept('brand', 'Brand'),
    ],
  };
  return [v1, v2];
}

test('a newer version updates what the library gave, keeps what a person locked, and moves editVersion only where the meaning changed', async (t) => {
  const app = await buildTestApp(t, { libraries: [...BUNDLED_LIBRARIES, ...shopLibraries()] });
  const ws = app.tenant.libraryWorkspaceId;
  assert.deepEqual((await app.call({ method: 'GET', url: `${API}/ontologies/test.shop` })).body.data.versions, ['1.1.0', '1.0.0']);
  assert.equal((await install(app, ws, { ontologyId: 'test.shop', version: '1.0.0' })).status, 201);
  const v1 = byCanonical(await concepts(app, ws), 'test.shop');
  const put = (concept: Concept, body: Record<string, unknown>) => app.call({ method: 'PUT', url: `${API}/workspaces/${ws}/ontology/concepts/${concept.id}`, body: { _id: concept.id, ...body } });
  assert.equal((await put(v1.get('channel')!, { description: 'How we sell' })).status, 200);
  assert.equal((await put(v1.get('segment')!, { metadata: { unit: 'our segment' } })).status, 200);
  const before = byCanonical(await concepts(app, ws), 'test.shop');

  const updated = await install(app, ws, { ontologyId: 'test.shop' });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  const result = updated.body.data;
  assert.equal(result.previousVersion, '1.0.0');
  assert.equal(result.install.version, '1.1.0');
  const entry = (list: Array<{ canonicalId: string }>, id: string) => list.find((c) => c.canonicalId === id) as { changed: string[]; kept: string[] } | undefined;
  assert.deepEqual(entry(result.updated, 'segment'), { conceptId: before.get('segment')!.id, name: 'Segment', canonicalId: 'segment', changed: ['description', 'tags', 'valueMappings'], kept: ['metadata.unit'] });
  assert.deepEqual(entry(result.updated, 'channel'), { conceptId: before.get('channel')!.id, name: 'Sales channel', canonicalId: 'channel', changed: ['name'], kept: ['description'] });
  assert.deepEqual(result.unchanged, [{ conceptId: before.get('region')!.id, name: 'Sales region', canonicalId: 'region', kept: [] }]);
  assert.deepEqual(result.created.map((c: { canonicalId: string }) => c.canonicalId), ['brand']);
  assert.deepEqual(result.detached, [{ conceptId: before.get('legacy')!.id, name: 'Legacy code', canonicalId: 'legacy' }]);

  const all = await concepts(app, ws);
  const after = byCanonical(all, 'test.shop');
  const segment = after.get('segment')!;
  assert.equal(segment.description, 'Segment, v2');
  assert.deepEqual(segment.tags, ['shop'], 'a tag the old version gave and the new one dropped goes');
  assert.deepEqual(segment.valueMappings, [{ canonicalValue: 'Retail', aliases: ['R', 'RTL'] }, { canonicalValue: 'Wholesale', aliases: ['W'] }]);
  assert.equal(segment.metadata.unit, 'our segment', 'a locked metadata member survives');
  assert.equal(segment.editVersion, before.get('segment')!.editVersion + 1);
  assert.deepEqual(segment.ontologyRef, { ontologyId: 'test.shop', ontologyVersion: '1.1.0', canonicalId: 'segment', installScope: 'workspace' });
  assert.deepEqual(segment.layerIds, ['ontology:test.shop@1.1.0']);
  const channel = after.get('channel')!;
  assert.equal(channel.description, 'How we sell', 'a locked description survives');
  assert.equal(channel.name, 'Sales channel');
  const region = after.get('region')!;
  assert.equal(region.editVersion, before.get('region')!.editVersion, 'nothing it means changed');
  assert.equal(region.ontologyRef!.ontologyVersion, '1.1.0');
  const legacy = all.find((c) => c.id === before.get('legacy')!.id)!;
  assert.deepEqual([legacy.ontologyRef, legacy.layerIds, legacy.editVersion], [null, [], before.get('legacy')!.editVersion + 1]);

  const older = await install(app, ws, { ontologyId: 'test.shop', version: '1.0.0' });
  assert.equal(older.status, 409, 'an install does not move back to an older version');
  assert.equal(older.body.type, 'urn:causa:problem:conflict');
  assert.deepEqual(await concepts(app, ws), all, 'the refused install changed nothing');
});

test('refusals: an unknown library or version is located (422); a concept of the library\'s name that belongs elsewhere answers 409', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const unknown = await install(app, ws, { ontologyId: 'acme.nothing' });
  assert.equal(unknown.status, 422);
  assert.deepEqual(unknown.body.errors.map((e: { location: string }) => e.location), ['body/ontologyId']);
  const version = await install(app, ws, { ontologyId: 'causa.commerce', version: '2.0.0' });
  assert.equal(version.status, 422);
  assert.deepEqual(version.body.errors.map((e: { location: string }) => e.location), ['body/version']);
  assert.match(version.body.detail, /its versions: 1\.0\.0/);
  assert.equal((await install(app, ws, { ontologyId: 'causa.commerce', version: 'latest' })).status, 422);

  const claimed = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/concepts`, body: { name: 'Customer', ontologyRef: { ontologyId: 'acme.crm', ontologyVersion: '3.0.0', canonicalId: 'account', installScope: 'workspace' } } });
  assert.equal(claimed.status, 201, JSON.stringify(claimed.body));
  const conflict = await install(app, ws, { ontologyId: 'causa.commerce' });
  assert.equal(conflict.status, 409);
  assert.match(conflict.body.detail, /"Customer".*acme\.crm/);
  assert.deepEqual((await concepts(app, ws)).map((c) => c.id), [claimed.body.data.id], 'nothing was installed');
  assert.deepEqual((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/installs` })).body.data, []);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/ontology/installs/causa.commerce` })).status, 404);
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/installs/causa.commerce` })).status, 404);
});

test('after an install, extraction lands country_code and state on the installed Country and US state concepts', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  assert.equal((await install(app, ws, { ontologyId: 'causa.commerce' })).status, 201);
  const sourceId = await upload(app, ws, 'orders', ORDERS);
  const all = await concepts(app, ws);
  const installed = byCanonical(all, 'causa.commerce');
  const fieldOf = (canonicalId: string) => installed.get(canonicalId)!.fieldMappings.filter((m) => m.sourceId === sourceId).map((m) => [m.field, m.status]);
  assert.deepEqual(fieldOf('country'), [['country_code', 'confirmed']], JSON.stringify(all.map((c) => [c.name, c.fieldMappings.map((m) => m.field)])));
  assert.deepEqual(fieldOf('us_state'), [['state', 'confirmed']]);
  assert.deepEqual(fieldOf('order'), [['order_id', 'confirmed']]);
  assert.deepEqual(fieldOf('amount'), [['amount', 'confirmed']]);
  assert.equal(all.length, COMMERCE.concepts.length, 'no new concept: every field landed on an installed one');
});

// Extraction reads an installed concept's curated value mappings (src/ontology/extract/curated.ts).
test('extraction keeps an installed concept\'s value mappings, resolves values through them and reads them as value evidence', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  assert.equal((await install(app, ws, { ontologyId: 'causa.commerce' })).status, 201);
  const orders = await upload(app, ws, 'orders', ORDERS);
  let installed = byCanonical(await concepts(app, ws), 'causa.commerce');
  const library = (id: string) => COMMERCE.concepts.find((c) => c.canonicalId === id)!.valueMappings;
  assert.deepEqual(installed.get('country')!.valueMappings, library('country'), 'the curated mappings are kept whole');
  const country = installed.get('country')!.fieldMappings.find((m) => m.sourceId === orders)!;
  assert.deepEqual(country.valueMap, { DE: 'Germany', FR: 'France', GB: 'United Kingdom', JP: 'Japan', US: 'United States' });
  assert.deepEqual([country.conformance?.verdict, country.conformance?.allowedValueCoverage], ['pass', 1]);
  const state = installed.get('us_state')!.fieldMappings.find((m) => m.sourceId === orders)!;
  assert.deepEqual(state.valueMap, { CA: 'California', FL: 'Florida', NY: 'New York', TX: 'Texas', WA: 'Washington' });

  // A field named nothing like a country whose values are countries, one written in lower case.
  const markets = await upload(app, ws, 'markets', Array.from({ length: 40 }, (_, i) => ({ market: ['Germany', 'france', 'Japan', 'United States', 'Brazil'][i % 5], visits: 100 + ((i * 17) % 50) })));
  installed = byCanonical(await concepts(app, ws), 'causa.commerce');
  const market = installed.get('country')!.fieldMappings.find((m) => m.sourceId === markets);
  assert.equal(market?.field, 'market', 'the values alone land the field on Country');
  assert.equal(market.valueMap?.france, 'France');
  assert.ok(installed.get('country')!.valueMappings.find((m) => m.canonicalValue === 'France')!.aliases.includes('france'), 'the data\'s spelling joins the curated value');
});

test('uninstalling deletes the concepts the install created that nothing uses, and keeps the others without their ontologyRef', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const own = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/concepts`, body: { name: 'Email' } });
  assert.equal((await install(app, ws, { ontologyId: 'causa.commerce' })).status, 201);
  const sourceId = await upload(app, ws, 'orders', ORDERS);
  const installed = byCanonical(await concepts(app, ws), 'causa.commerce');
  const product = installed.get('product')!;
  const dataset = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'Orders', sources: [{ id: sourceId }], anchorConceptId: product.id } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));

  const detail = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/installs/causa.commerce` });
  assert.equal(detail.status, 200, JSON.stringify(detail.body));
  const fate = Object.fromEntries(detail.body.data.concepts.map((c: { canonicalId: string; onUninstall: string }) => [c.canonicalId, c.onUninstall]));
  assert.deepEqual(fate, { customer: 'delete', product: 'keep', order: 'keep', store: 'delete', email: 'keep', order_date: 'delete', date: 'delete', country: 'keep', us_state: 'keep', currency: 'delete', revenue: 'delete', amount: 'keep', price: 'delete', quantity: 'delete' });
  const productEntry = detail.body.data.concepts.find((c: { canonicalId: string }) => c.canonicalId === 'product');
  assert.deepEqual([productEntry.origin, productEntry.usedByDatasets, productEntry.mappedFields], ['created', [dataset.body.data.id], 0]);
  assert.equal(detail.body.data.concepts.find((c: { canonicalId: string }) => c.canonicalId === 'email').origin, 'linked');

  const removed = await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/ontology/installs/causa.commerce` });
  assert.equal(removed.status, 204, JSON.stringify(removed.body));
  const left = await concepts(app, ws);
  const keptIds = Object.entries(fate).filter(([, f]) => f === 'keep').map(([id]) => installed.get(id)!.id).sort();
  assert.deepEqual(left.map((c) => c.id).sort(), keptIds);
  const versions = new Map([...installed.values()].map((c) => [c.id, c.editVersion]));
  for (const concept of left) {
    assert.deepEqual([concept.ontologyRef, concept.layerIds, concept.editVersion], [null, [], versions.get(concept.id)! + 1], concept.name);
  }
  assert.ok(left.some((c) => c.id === own.body.data.id), 'a linked concept is never deleted');
  assert.deepEqual((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/installs` })).body.data, []);
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}` })).status, 200, 'the dataset still reads');
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/ontology/installs/causa.commerce` })).status, 404);
});

test('installs are the workspace\'s: another organisation neither sees nor changes them; membership levels gate install and uninstall', async (t: TestContext) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  assert.equal((await install(app, ws, { ontologyId: 'causa.commerce' })).status, 201);
  const other = { key: app.other.key };
  for (const [method, url, body] of [
    ['GET', `${API}/workspaces/${ws}/ontology/installs`],
    ['GET', `${API}/workspaces/${ws}/ontology/installs/causa.commerce`],
    ['POST', `${API}/workspaces/${ws}/ontology/installs`, { ontologyId: 'causa.commerce' }],
    ['DELETE', `${API}/workspaces/${ws}/ontology/installs/causa.commerce`],
  ] as const) {
    const response = await app.call({ method, url, ...(body === undefined ? {} : { body }), ...other });
    assert.equal(response.status, 404, `${method} ${url}: ${JSON.stringify(response.body)}`);
  }
  assert.deepEqual((await app.call({ method: 'GET', url: `${API}/workspaces/${app.other.libraryWorkspaceId}/ontology/installs`, ...other })).body.data, []);
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/ontology/installs` })).body.data.length, 1, 'untouched');

  // A member with read lists installs; write installs; only full uninstalls.
  const member = await app.call({ method: 'POST', url: `${API}/users`, body: { name: 'Max Member', role: 'member' } });
  const key = (await app.call({ method: 'POST', url: `${API}/api-keys`, body: { name: 'member', forUserId: member.body.data.id, scopes: ['ontology:read', 'ontology:write', 'ontology:delete'] } })).body.data.key;
  const workspace = (await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'Shared' } })).body.data.id;
  const grant = (level: string) => app.call({ method: 'PUT', url: `${API}/workspaces/${workspace}/members/${member.body.data.id}`, body: { level } });
  await grant('read');
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${workspace}/ontology/installs`, key })).status, 200);
  assert.equal((await install(app, workspace, { ontologyId: 'causa.commerce' }, key)).status, 403);
  await grant('write');
  assert.equal((await install(app, workspace, { ontologyId: 'causa.commerce' }, key)).status, 201);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${workspace}/ontology/installs/causa.commerce`, key })).status, 403);
  await grant('full');
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${workspace}/ontology/installs/causa.commerce`, key })).status, 204);
});
