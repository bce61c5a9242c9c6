import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';

const API = '/api/v1';

test('catalog tables are the tabular sources of the workspace; views are its datasets with row counts', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const inline = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'Prices', rows: [{ sku: 'a', price: 1.5 }, { sku: 'b', price: 2 }, { sku: 'c', price: null }] } });
  const empty = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Later' } });
  await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Files', dataFormat: 'Folder' } });
  const elsewhere = await app.call({ method: 'POST', url: `${API}/workspaces`, body: { name: 'Elsewhere' } });
  await app.call({ method: 'POST', url: `${API}/workspaces/${elsewhere.body.data.id}/sources`, body: { name: 'Not here' } });

  const tables = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/catalog/tables` });
  assert.equal(tables.status, 200);
  assert.deepEqual(tables.body.data.map((table: { name: string }) => table.name), ['Later', 'Prices']);
  const prices = tables.body.data[1];
  assert.equal(prices.id, inline.body.data.id);
  assert.equal(prices.namespace, ws);
  assert.equal(prices.documentCount, 3);
  assert.equal(prices.format, 'json');
  assert.deepEqual(prices.schema.map((e: { field: string; type: string }) => [e.field, e.type]), [['sku', 'text'], ['price', 'decimal']]);
  assert.equal(tables.body.data[0].id, empty.body.data.id);

  const dataset = await app.call({
    method: 'POST',
    url: `${API}/workspaces/${ws}/datasets`,
    body: {
      name: 'Priced',
      description: 'with a price',
      sources: [{ id: inline.body.data.id }],
      operations: [{ sourceId: inline.body.data.id, config: { type: 'filter', filterGroup: { booleanOperator: 'AND', filters: [{ column: 'price', comparisonOperator: 'Is not Empty' }] } } }],
    },
  });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const views = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/catalog/views` });
  assert.deepEqual(views.body.data, [
    {
      id: dataset.body.data.id,
      name: 'Priced',
      description: 'with a price',
      namespace: ws,
      sources: [{ id: inline.body.data.id, name: 'Prices' }],
      operationCount: 1,
      rowCount: 2,
      createdAt: dataset.body.data.createdAt,
      updatedAt: dataset.body.data.updatedAt,
    },
  ]);
});

test('catalog pages default to 200 items and page by cursor', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  for (let i = 0; i < 3; i += 1) await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: `S${i}` } });
  const all = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/catalog/tables` });
  assert.equal(all.body.data.length, 3);
  assert.equal(all.body.pagination.hasMore, false);
  const first = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/catalog/tables?limit=2` });
  assert.equal(first.body.pagination.hasMore, true);
  assert.equal(first.body.pagination.total, 3);
  const second = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/catalog/tables?limit=2&cursor=${encodeURIComponent(first.body.pagination.cursor)}` });
  assert.deepEqual([...first.body.data, ...second.body.data].map((s: { name: string }) => s.name), ['S2', 'S1', 'S0']);
  // The document states the catalog default.
  const doc = app.app.swagger() as { paths: Record<string, { get?: { parameters?: Array<{ name: string; schema?: { default?: number } }> } }> };
  const limit = doc.paths[`${API}/workspaces/{wsId}/catalog/views`]!.get!.parameters!.find((p) => p.name === 'limit');
  assert.equal(limit?.schema?.default, 200);
});
