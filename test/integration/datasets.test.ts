import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TestApp, buildTestApp } from '../helpers/app.js';

const API = '/api/v1';

const ORDERS = [
  { order_id: 'o1', customer_id: 'c1', amount: 120.5, qty: 3, region: 'north', placed: '2024-01-05', at: '2024-01-05T10:00:00Z', tags: ['a', 'b'], note: 'Rush delivery', paid: true },
  { order_id: 'o2', customer_id: 'c2', amount: 80, qty: 1, region: 'south', placed: '2024-02-10', at: '2024-02-10T08:30:00Z', tags: [], note: 'gift', paid: false },
  { order_id: 'o3', customer_id: 'c1', amount: null, qty: 2, region: 'north', placed: null, at: null, tags: ['b'], note: '', paid: true },
  { order_id: 'o4', customer_id: 'c3', amount: 15.25, qty: 7, region: 'east', placed: '2023-12-31', at: '2023-12-31T23:59:59Z', tags: ['a', 'c', 'd'], note: 'rush', paid: false },
  { order_id: 'o5', customer_id: 'c2', amount: 300, qty: 4, region: 'south', placed: '2024-03-01', at: '2024-03-01T12:00:00Z', tags: ['c'], note: null, paid: true },
];
const CUSTOMERS = [
  { customer_id: 'c1', segment: 'retail', since: 2019 },
  { customer_id: 'c2', segment: 'wholesale', since: 2021 },
  { customer_id: 'c4', segment: 'retail', since: 2023 },
];

async function fromData(app: TestApp, ws: string, name: string, rows: Array<Record<string, unknown>>): Promise<string> {
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data.id;
}

async function setup(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const orders = await fromData(app, ws, 'Orders', ORDERS);
  const customers = await fromData(app, ws, 'Customers', CUSTOMERS);
  const create = (body: Record<string, unknown>) => app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body });
  const records = async (id: string, query = '') => {
    const res = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${id}/records${query}` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  return { app, ws, orders, customers, create, records };
}

test('a dataset over one source: create, get, list, schema, records, metadata, delete', async (t) => {
  const { app, ws, orders, create, records } = await setup(t);
  const res = await create({ name: 'All orders', tags: ['sales'], sources: [{ id: orders }] });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const dataset = res.body.data;
  assert.match(dataset.id, /^ds_/);
  assert.deepEqual(dataset.sources, [{ id: orders, type: 'source', name: 'Orders', conceptIds: [], conceptVersions: {}, version: { kind: 'latest' } }]);
  assert.deepEqual(dataset.tags, ['sales']);

  const got = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.id}` });
  assert.deepEqual(got.body.data, dataset);
  const list = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets` });
  assert.deepEqual(list.body.data.map((d: { id: string }) => d.id), [dataset.id]);
  assert.equal(list.body.pagination.total, 1);

  const schema = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.id}/schema` });
  assert.deepEqual(schema.body.data.map((e: { field: string }) => e.field), Object.keys(ORDERS[0]!));

  const page = await records(dataset.id);
  assert.equal(page.pagination.total, 5);
  assert.deepEqual(page.data.map((r: { order_id: string }) => r.order_id), ['o1', 'o2', 'o3', 'o4', 'o5']);
  assert.equal(page.data[0].at, '2024-01-05T10:00:00.000Z');
  assert.deepEqual(page.data[0].tags, ['a', 'b']);
  assert.equal(page.data[2].amount, null);

  const metadata = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.id}/metadata` });
  assert.equal(metadata.status, 200);
  assert.equal(metadata.body.data.rowCount, 5);
  assert.equal(metadata.body.data.columnMetadata.amount.rangeTo, 300);
  assert.equal(metadata.body.data.columnMetadata.amount.nullFraction, 0.2);

  // The source is in use: it can be neither deleted nor unlinked until the dataset goes.
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${orders}` })).status, 409);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/datasets/${dataset.id}` })).status, 204);
  assert.equal((await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.id}` })).status, 404);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${orders}` })).status, 204);
});

test('records page by keyset in a stable order, also under a sort with nulls', async (t) => {
  const { orders, create, records } = await setup(t);
  const sorted = await create({
    name: 'By amount',
    sources: [{ id: orders }],
    operations: [{ sourceId: orders, config: { type: 'sort', keys: [{ column: 'amount', direction: 'desc' }] } }],
  });
  assert.equal(sorted.status, 201, JSON.stringify(sorted.body));
  const seen: string[] = [];
  let query = '?limit=2';
  for (;;) {
    const page = await records(sorted.body.data.id, query);
    seen.push(...page.data.map((r: { order_id: string }) => r.order_id));
    if (!page.pagination.hasMore) break;
    query = `?limit=2&cursor=${encodeURIComponent(page.pagination.cursor)}`;
  }
  assert.deepEqual(seen, ['o5', 'o1', 'o2', 'o4', 'o3']);
});

test('operations: filter, derive, select/rename, join, aggregate with categoryShare, dedupe', async (t) => {
  const { app, ws, orders, customers, create, records } = await setup(t);
  const res = await create({
    name: 'Revenue by segment',
    sources: [{ id: orders }, { id: customers }],
    operations: [
      { sourceId: orders, config: { type: 'filter', filterGroup: { booleanOperator: 'AND', filters: [{ column: 'qty', comparisonOperator: 'Greater than', value: 1 }] } } },
      { sourceId: orders, config: { type: 'derive', column: 'revenue', expression: 'coalesce(amount, 0) * qty' } },
      { sourceId: customers, config: { type: 'rename', renames: [{ column: 'since', to: 'customer_since' }] } },
      { sourceId: orders, config: { type: 'join', rightSourceId: customers, how: 'left', on: [{ left: 'customer_id', right: 'customer_id' }] } },
      {
        sourceId: orders,
        config: {
          type: 'aggregate',
          groupBy: ['segment'],
          aggregations: [
            { column: 'revenue', function: 'sum', alias: 'revenue' },
            { column: 'order_id', function: 'count', alias: 'orders' },
            { column: 'region', function: 'categoryShare', alias: 'regions' },
            { column: 'order_id', function: 'first', alias: 'first_order' },
          ],
        },
      },
      { sourceId: orders, config: { type: 'sort', keys: [{ column: 'revenue', direction: 'desc' }] } },
    ],
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const page = await records(res.body.data.id);
  // qty > 1: o1 (c1 retail, 361.5), o3 (c1 retail, 0), o4 (c3 unmatched, 106.75), o5 (c2 wholesale, 1200)
  assert.deepEqual(page.data, [
    { segment: 'wholesale', revenue: 1200, orders: 1, regions: { south: 1 }, first_order: 'o5' },
    { segment: 'retail', revenue: 361.5, orders: 2, regions: { north: 1 }, first_order: 'o1' },
    { segment: null, revenue: 106.75, orders: 1, regions: { east: 1 }, first_order: 'o4' },
  ]);
  const enriched = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${res.body.data.id}/enriched` });
  assert.equal(enriched.status, 200, JSON.stringify(enriched.body));
  assert.equal(enriched.body.data.rowCount, 3);
  assert.deepEqual(enriched.body.data.operationDetails.map((d: { type: string }) => d.type), ['filter', 'derive', 'rename', 'join', 'aggregate', 'sort']);
  assert.deepEqual(enriched.body.data.operationDetails[3].outputSchema.map((e: { field: string }) => e.field), [...Object.keys(ORDERS[0]!), 'revenue', 'segment', 'customer_since']);

  const deduped = await create({
    name: 'One order per customer',
    sources: [{ id: orders }],
    operations: [
      { sourceId: orders, config: { type: 'dedupe', columns: ['customer_id'], keep: 'last' } },
      { sourceId: orders, config: { type: 'select', columns: [{ column: 'customer_id' }, { column: 'order_id', alias: 'last_order' }] } },
    ],
  });
  assert.equal(deduped.status, 201, JSON.stringify(deduped.body));
  // The last row of each customer, in the order the rows were ingested.
  assert.deepEqual((await records(deduped.body.data.id)).data, [
    { customer_id: 'c1', last_order: 'o3' },
    { customer_id: 'c3', last_order: 'o4' },
    { customer_id: 'c2', last_order: 'o5' },
  ]);
});

test('definitions that do not compile answer 422 naming the place, and store nothing', async (t) => {
  const { app, ws, orders, customers, create } = await setup(t);
  const other = await app.call({ method: 'POST', url: `${API}/workspaces/${app.other.libraryWorkspaceId}/sources/from-data`, key: app.other.key, body: { name: 'Theirs', rows: [{ a: 1 }] } });
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ sources: [{ id: 'src_00000000000000000000000000' }] }, /sources\/0\/id: .* is not a source of this workspace/],
    [{ sources: [{ id: other.body.data.id }] }, /sources\/0\/id/],
    [{ sources: [{ id: orders }, { id: orders }] }, /listed twice/],
    [{ sources: [{ id: orders, conceptIds: ['c1'], conceptVersions: {} }] }, /conceptVersions: needs exactly one entry per conceptId/],
    [{ sources: [{ id: orders }, { id: customers }] }, /never joined/],
    [{ sources: [{ id: orders, version: { kind: 'pinned', versionOrdinal: 2 } }] }, /has 1 versions/],
    [{ sources: [{ id: orders }], operations: [{ sourceId: customers, config: { type: 'sort', keys: [{ column: 'qty' }] } }] }, /operations\/0\/sourceId/],
    [{ sources: [{ id: orders }], operations: [{ sourceId: orders, config: { type: 'select', columns: [{ column: 'nope' }] } }] }, /operations\/0\/config\/columns\/0\/column: unknown column "nope"/],
    [{ sources: [{ id: orders }], operations: [{ sourceId: orders, config: { type: 'select', columns: [{ column: 'qty' }, { column: 'amount', alias: 'qty' }] } }] }, /two columns named "qty"/],
    [{ sources: [{ id: orders }], operations: [{ sourceId: orders, config: { type: 'rename', renames: [{ column: 'qty', to: '_causa_x' }] } }] }, /reserved/],
    [{ sources: [{ id: orders }], operations: [{ sourceId: orders, config: { type: 'derive', column: 'x', expression: "note * 2" } }] }, /expression: "\*" needs numbers/],
    [{ sources: [{ id: orders }], operations: [{ sourceId: orders, config: { type: 'aggregate', groupBy: [], aggregations: [{ column: 'note', function: 'sum' }] } }] }, /sum needs a number column/],
    [{ sources: [{ id: orders }], operations: [{ sourceId: orders, config: { type: 'sort', keys: [{ column: 'tags' }] } }] }, /cannot sort by array/],
    [
      { sources: [{ id: orders }, { id: customers }], operations: [{ sourceId: orders, config: { type: 'join', rightSourceId: customers, on: [{ left: 'qty', right: 'customer_id' }] } }] },
      /cannot join integer column "qty" with text column "customer_id"/,
    ],
    [
      { sources: [{ id: orders }, { id: customers }], operations: [{ sourceId: orders, config: { type: 'join', rightSourceId: orders, on: [{ left: 'qty', right: 'qty' }] } }] },
      /rightSourceId/,
    ],
  ];
  for (const [definition, pattern] of cases) {
    const res = await create({ name: 'Broken', ...definition });
    assert.equal(res.status, 422, `${JSON.stringify(definition)} -> ${JSON.stringify(res.body)}`);
    assert.match(res.body.detail, pattern, JSON.stringify(definition));
  }
  const list = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets` });
  assert.equal(list.body.pagination.total, 0);
});

test('patch recompiles and round-trips conceptVersions; validate previews without storing; old cursors are refused', async (t) => {
  const { app, ws, orders, create, records } = await setup(t);
  const concept = async (name: string, field: string) =>
    (await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/ontology/concepts`, body: { name, fieldMappings: [{ sourceId: orders, field }] } })).body.data.id as string;
  const [a, b] = [await concept('Order by hand', 'order_id'), await concept('Sales region by hand', 'region')];
  // Concepts edited before the dataset is written: it names their current versions.
  await app.call({ method: 'PUT', url: `${API}/workspaces/${ws}/ontology/concepts/${a}`, body: { _id: a, description: 'one order' } });
  const created = await create({ name: 'Orders', sources: [{ id: orders, conceptIds: [a, b], conceptVersions: { [a]: 1, [b]: 0 } }] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id;
  assert.deepEqual(created.body.data.sources[0].conceptVersions, { [a]: 1, [b]: 0 });
  const first = await records(id, '?limit=2');

  const filter = { sourceId: orders, config: { type: 'filter', filterGroup: { booleanOperator: 'AND', filters: [{ column: 'region', comparisonOperator: 'Equal to', value: 'north' }] } } };
  const validated = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets/${id}/validate`, body: { operations: [filter] } });
  assert.equal(validated.status, 200, JSON.stringify(validated.body));
  assert.equal(validated.body.data.preview.rowCount, 2);
  assert.deepEqual(validated.body.data.preview.rows.map((r: { order_id: string }) => r.order_id), ['o1', 'o3']);
  assert.equal(validated.body.data.operationSchemas.length, 1);
  assert.deepEqual(validated.body.data.finalSchema.map((e: { field: string }) => e.field), Object.keys(ORDERS[0]!));
  assert.deepEqual(Object.keys(validated.body.data.sourceSchemas), [orders]);
  const bad = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets/${id}/validate`, body: { operations: [{ ...filter, sourceId: 'src_nope' }] } });
  assert.equal(bad.status, 422);
  assert.equal((await records(id)).pagination.total, 5, 'validate stored nothing');

  const patched = await app.call({ method: 'PATCH', url: `${API}/workspaces/${ws}/datasets/${id}`, body: { name: 'Northern orders', operations: [filter] } });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.data.name, 'Northern orders');
  assert.match(patched.body.data.operations[0].id, /^op_/);
  assert.deepEqual(patched.body.data.sources[0].conceptVersions, { [a]: 1, [b]: 0 }, 'kept when sources are not sent');
  assert.equal((await records(id)).pagination.total, 2);
  const stale = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${id}/records?cursor=${encodeURIComponent(first.pagination.cursor)}` });
  assert.equal(stale.status, 400);
  const refused = await app.call({ method: 'PATCH', url: `${API}/workspaces/${ws}/datasets/${id}`, body: { operations: [{ ...filter, sourceId: 'src_nope' }] } });
  assert.equal(refused.status, 422);
  assert.equal((await records(id)).pagination.total, 2, 'a refused patch changes nothing');
});

test('a source pinned to a version reads the rows of that version only', async (t) => {
  const { app, ws, create, records } = await setup(t);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Batches' } });
  const id = source.body.data.id;
  for (const csv of ['n,v\n1,a\n2,b\n', 'n,v\n3,c\n']) {
    const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload`, body: csv, headers: { 'content-type': 'text/csv' } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  const pinned = await create({ name: 'First batch', sources: [{ id, version: { kind: 'pinned', versionOrdinal: 1 } }] });
  const latest = await create({ name: 'All', sources: [{ id }] });
  assert.deepEqual((await records(pinned.body.data.id)).data.map((r: { n: number }) => r.n), [1, 2]);
  assert.deepEqual((await records(latest.body.data.id)).data.map((r: { n: number }) => r.n), [1, 2, 3]);
});

test('recommended definitions: each source alone, and sources sharing an identifier column joined on it', async (t) => {
  const { app, ws, orders, customers } = await setup(t);
  const res = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/recommended` });
  assert.equal(res.status, 200);
  const names = res.body.data.map((r: { name: string }) => r.name);
  assert.ok(names.includes('Orders') && names.includes('Customers'), names.join());
  const join = res.body.data.find((r: { operations: unknown[] }) => r.operations.length === 1);
  assert.deepEqual(join.sources.map((s: { id: string }) => s.id).sort(), [orders, customers].sort());
  assert.equal(join.operations[0].config.on[0].left, 'customer_id');
  // A recommendation is a valid definition.
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: join.name, sources: join.sources.map((s: { id: string }) => ({ id: s.id })), operations: join.operations } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
});

test('values that leave the real numbers (x / 0, ln 0) are null, so sorting and paging by them keep every row', async (t) => {
  const { app, ws, create, records } = await setup(t);
  const rows = Array.from({ length: 10 }, (_, i) => ({ x: i - 3, y: i % 3 }));
  const source = (await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'Ratios', rows } })).body.data.id;
  const dataset = await create({
    name: 'Ratios',
    sources: [{ id: source }],
    operations: [
      { sourceId: source, config: { type: 'derive', column: 'r', expression: 'x / y' } },
      { sourceId: source, config: { type: 'derive', column: 'l', expression: 'ln(y)' } },
      { sourceId: source, config: { type: 'sort', keys: [{ column: 'r', direction: 'desc' }] } },
    ],
  });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const seen: Array<{ x: number; r: number | null; l: number | null }> = [];
  let query = '?limit=2';
  for (;;) {
    const page = await records(dataset.body.data.id, query);
    seen.push(...page.data);
    if (!page.pagination.hasMore) break;
    query = `?limit=2&cursor=${encodeURIComponent(page.pagination.cursor)}`;
  }
  assert.equal(seen.length, 10);
  const expected = rows.map((row) => (row.y === 0 ? null : row.x / row.y));
  assert.deepEqual(seen.map((row) => row.r), [...expected.filter((v) => v !== null).sort((a, b) => b! - a!), null, null, null, null]);
  assert.ok(seen.every((row) => row.l === null || Number.isFinite(row.l)));
});

test('rows past the last recorded batch (an upload still running or one that crashed) are never shown', async (t) => {
  const { app, ws, orders, create, records } = await setup(t);
  await app.context.data().insert({ organisationId: app.tenant.organisationId, tableId: orders }, [{ _causa_row: 5, order_id: 'ghost' }]);
  const dataset = await create({ name: 'Recorded only', sources: [{ id: orders }] });
  const page = await records(dataset.body.data.id);
  assert.equal(page.pagination.total, 5);
  assert.ok(!page.data.some((row: { order_id: string }) => row.order_id === 'ghost'));
});
