import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROW_COLUMN } from '../../src/tables/ingest.js';
import { buildTestApp } from '../helpers/app.js';

const API = '/api/v1';

const ROWS = [
  { order_id: 'A-1', placed: '2024-01-05', revenue: '1,200.50', margin: '12%', paid: 'yes', region: 'north', tags: ['x', 'y'], at: '2024-01-05T10:00:00+02:00' },
  { order_id: 'A-2', placed: '2024-02-29', revenue: 99, margin: '7.5%', paid: 'no', region: 'south', tags: [], at: '2024-01-06T00:00:00Z' },
  { order_id: 'A-3', placed: null, revenue: '12', margin: '-3%', paid: 'yes', region: 'north', tags: ['z'], at: null },
  { order_id: 'A-4', placed: '2023-12-31', revenue: '', margin: '0%', paid: 'n', region: 'north', tags: ['x'], at: '2024-01-07T23:59:59.5Z' },
];

test('inline records become a tabular source with an inferred schema, one batch and a first version', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'Orders', description: 'inline', rows: ROWS } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const source = res.body.data;
  assert.equal(source.dataSource, 'inline');
  assert.equal(source.documentCount, 4);
  assert.ok(source.totalSize > 0);
  assert.equal(source.latestVersionOrdinal, 1);
  assert.match(source.currentVersionId, /^ver_/);
  assert.equal(source.batchRanges.length, 1);
  assert.deepEqual([source.batchRanges[0].rowStart, source.batchRanges[0].rowEnd], [0, 3]);
  assert.match(source.batchRanges[0].hash, /^[0-9a-f]{64}$/);
  const types = Object.fromEntries(source.schemaEntries.map((e: { field: string; type: string }) => [e.field, e.type]));
  assert.deepEqual(types, { order_id: 'text', placed: 'date', revenue: 'decimal', margin: 'decimal', paid: 'boolean', region: 'categorical', tags: 'array', at: 'datetime' });
  const byField = Object.fromEntries(source.schemaEntries.map((e: { field: string }) => [e.field, e]));
  assert.equal(byField.order_id.isIndex, true);
  assert.equal(byField.margin.unit, '%');

  // The rows are stored converted, in order, in the organisation's own database.
  const rows = await app.context.data().query<Record<string, unknown>>(
    app.tenant.organisationId,
    (sql) => `SELECT * FROM ${sql.table(source.id)} ORDER BY ${sql.column(ROW_COLUMN)}`,
  );
  assert.deepEqual(rows.map((r) => r.order_id), ['A-1', 'A-2', 'A-3', 'A-4']);
  assert.deepEqual(rows.map((r) => r.revenue), [1200.5, 99, 12, null]);
  assert.deepEqual(rows.map((r) => r.margin), [12, 7.5, -3, 0]);
  assert.deepEqual(rows.map((r) => r.paid), [true, false, true, false]);
  assert.deepEqual(rows.map((r) => r.placed), ['2024-01-05', '2024-02-29', null, '2023-12-31']);
  assert.deepEqual(rows.map((r) => r.tags), [['x', 'y'], [], ['z'], ['x']]);
  assert.deepEqual(rows.map((r) => r.at), ['2024-01-05 08:00:00.000', '2024-01-06 00:00:00.000', null, '2024-01-07 23:59:59.500']);

  // Another organisation cannot reach the rows, and deleting the source drops them.
  await assert.rejects(app.context.data().query(app.other.organisationId, (sql) => `SELECT * FROM ${sql.table(source.id)}`));
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${source.id}` })).status, 204);
  await assert.rejects(app.context.data().query(app.tenant.organisationId, (sql) => `SELECT * FROM ${sql.table(source.id)}`));
});

test('bad inline records answer 422 and store nothing', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  for (const [body, pattern] of [
    [{ name: 'x', rows: [] }, /rows/],
    [{ name: 'x', rows: [1, 2] }, /rows/],
    [{ name: 'x', rows: [{ [ROW_COLUMN]: 1 }] }, new RegExp(ROW_COLUMN)],
    [{ rows: [{ a: 1 }] }, /name/],
  ] as const) {
    const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body });
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.match(JSON.stringify(res.body), pattern);
  }
  assert.equal((await app.call({ method: 'GET', url: `${API}/sources?parentId=all` })).body.pagination.total, 0);
});

test('column statistics are computed by the data engine and match values computed here', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const amounts = [3, 7, null, 7, 10, 1.5, 20, null];
  const regions = ['north', 'south', 'north', 'east', 'north', 'south', 'north', 'east'];
  const lists = [[1, 2], [], [5], [2, 2, 9], [1, 2, 3, 4], [], [7], [1]];
  // Instants a millisecond apart, one null, one repeated: 6 distinct (counted by their milliseconds).
  const stamps = ['2024-01-01T00:00:00.001Z', '2024-01-01T00:00:00.002Z', null, '2024-01-01T00:00:00.002Z', '2024-01-01T00:00:01.000Z', '2024-01-01T00:00:00.000Z', '2023-12-31T23:59:59.999Z', '2024-01-01T00:00:00.003Z'];
  const rows = amounts.map((amount, i) => ({ amount, region: regions[i], list: lists[i], day: `2024-01-${String(i + 10)}`, code: `AB-${1000 + i}`, at: stamps[i] }));
  const source = (await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'Stats', rows } })).body.data;
  const meta = source.columnMetadata;

  const present = amounts.filter((a): a is number => a !== null);
  assert.equal(meta.amount.nullFraction, 2 / 8);
  assert.equal(meta.amount.rangeFrom, Math.min(...present));
  assert.equal(meta.amount.rangeTo, Math.max(...present));
  assert.ok(Math.abs(meta.amount.mean - present.reduce((a, b) => a + b, 0) / present.length) < 1e-9);
  assert.equal(meta.amount.cardinality, new Set(present).size);
  assert.equal(Object.values(meta.amount.distribution as Record<string, number>).reduce((a, b) => a + b, 0), present.length);
  assert.equal(meta.amount.metadataStatus, 'complete');

  const counts: Record<string, number> = {};
  for (const region of regions) counts[region] = (counts[region] ?? 0) + 1;
  assert.deepEqual(meta.region.categoryOccurences, counts);
  assert.equal(meta.region.cardinality, 3);
  assert.equal(meta.at.cardinality, new Set(stamps.filter((stamp) => stamp !== null)).size);
  assert.deepEqual([meta.at.rangeFrom, meta.at.rangeTo].map((v: string) => new Date(`${v.replace(' ', 'T')}Z`).toISOString()), ['2023-12-31T23:59:59.999Z', '2024-01-01T00:00:01.000Z']);
  assert.equal(meta.code.stringPattern, 'AA-9999');
  assert.equal(meta.code.jsonObjectFraction, 0);
  assert.deepEqual([meta.day.rangeFrom, meta.day.rangeTo], ['2024-01-10', '2024-01-17']);

  const sizes = lists.map((l) => l.length).sort((a, b) => a - b);
  const elements = lists.flat();
  assert.equal(meta.list.elementType, 'integer');
  assert.equal(meta.list.minSize, 0);
  assert.equal(meta.list.maxSize, 4);
  assert.equal(meta.list.avgSize, elements.length / lists.length);
  assert.equal(meta.list.emptyCount, 2);
  assert.equal(meta.list.totalElementCount, elements.length);
  assert.deepEqual(meta.list.sizeDistribution, { empty: 2, oneToThree: 5, fourToTen: 1, elevenToFifty: 0, fiftyPlus: 0 });
  assert.equal(meta.list.uniqueElementCount, new Set(elements).size);
  assert.equal(meta.list.elementMin, Math.min(...elements));
  assert.equal(meta.list.elementMax, Math.max(...elements));
  assert.equal(meta.list.elementSum, elements.reduce((a, b) => a + b, 0));
  const mean = elements.reduce((a, b) => a + b, 0) / elements.length;
  assert.ok(Math.abs(meta.list.elementMean - mean) < 1e-9);
  assert.ok(Math.abs(meta.list.elementStddev - Math.sqrt(elements.reduce((a, b) => a + (b - mean) ** 2, 0) / elements.length)) < 1e-9);
  assert.equal(meta.list.elementOccurences['2'], 4);
  assert.equal(meta.list.avgUniquePerRow, lists.map((l) => new Set(l).size).reduce((a, b) => a + b, 0) / lists.length);
  assert.equal(meta.list.medianSize, sizes[Math.floor(0.5 * sizes.length)]);
});

test('the most frequent values of a text column: the 100 first by count, then by value', async (t) => {
  const app = await buildTestApp(t);
  // 150 distinct codes once each (written in no order), one of them three times, one twice.
  const codes = Array.from({ length: 150 }, (_, i) => `c${String((i * 37) % 150).padStart(3, '0')}`);
  const rows = [...codes, 'c140', 'c140', 'c077'].map((code, i) => ({ code, flag: i % 3 === 0 }));
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${app.tenant.libraryWorkspaceId}/sources/from-data`, body: { name: 'Top', rows } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const { code, flag } = res.body.data.columnMetadata;
  const rest = [...codes].sort().filter((c) => c !== 'c140' && c !== 'c077').slice(0, 98);
  assert.deepEqual(Object.entries(code.categoryOccurences), [['c140', 3], ['c077', 2], ...rest.map((c) => [c, 1])]);
  assert.deepEqual(flag.categoryOccurences, { false: 102, true: 51 });
  assert.equal(flag.stringPattern, 'AAAAA');
  assert.equal(flag.jsonObjectFraction, 0);
});

test('columns named like the aliases of the statistics queries get their own statistics', async (t) => {
  const app = await buildTestApp(t);
  const rows = [
    { n: 1, v: 'a', lo: 2.5, rows: 3, x: [1, 2], bin: 'p', p: 'u', i: 7, __stat_rows: 'w', __stat0_lo: 9 },
    { n: 4, v: 'b', lo: 1, rows: 3, x: [3], bin: 'q', p: 'u', i: 8, __stat_rows: 'w', __stat0_lo: 5 },
  ];
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${app.tenant.libraryWorkspaceId}/sources/from-data`, body: { name: 'Aliases', rows } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const metadata = res.body.data.columnMetadata;
  assert.deepEqual([metadata.n.rangeFrom, metadata.n.rangeTo, metadata.n.mean], [1, 4, 2.5]);
  assert.deepEqual(metadata.v.categoryOccurences, { a: 1, b: 1 });
  assert.deepEqual([metadata.lo.rangeFrom, metadata.lo.rangeTo], [1, 2.5]);
  assert.equal(metadata.x.totalElementCount, 3);
  assert.deepEqual(metadata.p.categoryOccurences, { u: 2 });
  assert.deepEqual([metadata.i.rangeFrom, metadata.i.rangeTo, metadata.i.cardinality], [7, 8, 2]);
  assert.deepEqual(metadata.__stat_rows.categoryOccurences, { w: 2 });
  assert.deepEqual([metadata.__stat0_lo.rangeFrom, metadata.__stat0_lo.rangeTo], [5, 9]);
});
