import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';

const API = '/api/v1';

test('a folder keeps files; extraction makes a derived tabular source of each readable one and reports the rest', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const folder = (await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Drop box', dataFormat: 'Folder' } })).body.data;
  const put = (body: string, type: string, fileName: string) =>
    app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${folder.id}/upload?fileName=${fileName}`, body, headers: { 'content-type': type } });

  const csv = await put('city,people\nOslo,709037\nBergen,291940\n', 'text/csv', 'cities.csv');
  assert.equal(csv.status, 201, JSON.stringify(csv.body));
  assert.equal(csv.body.data.batch, null);
  assert.equal(csv.body.data.file.fileName, 'cities.csv');
  assert.equal(csv.body.data.file.format, 'csv');
  assert.equal(csv.body.data.source.documentCount, 1);
  assert.equal((await put('city,people\nOslo,709037\nBergen,291940\n', 'text/csv', 'again.csv')).body.data.duplicate, true);
  assert.equal((await put('{"sku":"a","qty":2}\n{"sku":"b","qty":5}\n', 'application/x-ndjson', 'stock.ndjson')).status, 201);
  const broken = await put('[{"sku": "a"}, {"sku": ', 'application/json', 'broken.json');
  assert.equal(broken.status, 201, 'a folder keeps files as they are; reading them comes at extraction');

  const files = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/sources/${folder.id}/files` });
  assert.deepEqual(files.body.data.map((f: { fileName: string }) => f.fileName), ['cities.csv', 'stock.ndjson', 'broken.json']);
  const info = await app.call({ method: 'GET', url: `${API}/sources/${folder.id}` });
  assert.equal(info.body.data.documentCount, 3);

  const run = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${folder.id}/extract`, body: {} });
  assert.equal(run.status, 200, JSON.stringify(run.body));
  const { extracted, failed, skipped } = run.body.data;
  assert.deepEqual(extracted.map((s: { name: string }) => s.name), ['cities', 'stock']);
  assert.deepEqual(failed.map((f: { fileName: string }) => f.fileName), ['broken.json']);
  assert.match(failed[0].error, /^Malformed JSON array at the end/);
  assert.deepEqual(skipped, []);
  assert.equal(run.body.data.folder.extractionStatus, 'partial');
  assert.match(run.body.data.folder.extractionError, /broken\.json: Malformed JSON array/);
  const cities = extracted[0];
  assert.equal(cities.parentSourceId, folder.id);
  assert.equal(cities.dataFormat, 'Tabular');
  assert.equal(cities.dataSource, 'extraction');
  assert.equal(cities.derivedVia, 'folder_extraction');
  assert.equal(cities.extractionStatus, 'completed');
  assert.deepEqual(cities.derivedFromDatasetIds, []);
  assert.deepEqual(cities.extractionRecipe, { folderId: folder.id, fileId: files.body.data[0].id, fileName: 'cities.csv', format: 'csv' });
  assert.equal(cities.documentCount, 2);
  assert.deepEqual(cities.schemaEntries.map((e: { type: string }) => e.type), ['text', 'integer']);

  const children = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/sources?parentId=${folder.id}` });
  assert.deepEqual(children.body.data.map((s: { name: string }) => s.name).sort(), ['cities', 'stock']);
  const listed = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/sources/${folder.id}/files` });
  assert.equal(listed.body.data[0].extractedSourceId, cities.id);

  // Again: what was extracted is skipped; the broken file fails again; an unknown file id is refused.
  const again = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${folder.id}/extract`, body: {} });
  assert.deepEqual(again.body.data.skipped.map((s: { extractedSourceId: string }) => s.extractedSourceId), extracted.map((s: { id: string }) => s.id));
  assert.equal(again.body.data.extracted.length, 0);
  assert.equal(again.body.data.folder.extractionStatus, 'failed');
  const unknown = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${folder.id}/extract`, body: { fileIds: ['file_nope'] } });
  assert.equal(unknown.status, 422);

  // A tabular source is not a folder.
  assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${cities.id}/extract`, body: {} })).status, 400);

  // The folder goes after its derived sources; its files go with it.
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${folder.id}` })).status, 409);
  for (const child of extracted) assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${child.id}` })).status, 204);
  const path = `${app.context.config.dataDir}/folders/${app.tenant.organisationId}/${folder.id}`;
  assert.ok(existsSync(path));
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${folder.id}` })).status, 204);
  assert.equal(existsSync(path), false);
});
