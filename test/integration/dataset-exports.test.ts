import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { EXPORT_CHUNK_ROWS } from '../../src/datasets/query.js';
import { type TestApp, buildTestApp } from '../helpers/app.js';

const API = '/api/v1';

/** Values written the way ClickHouse writes them back, so that the export can be compared byte for byte. */
const CSV = [
  'city,population,share,founded,capital',
  'Oslo,709037,0.125,1940-01-01,true',
  'Bergen,291940,0.05,1970-01-01,false',
  '"Kristiansand, Vest",116986,0.021,1941-07-29,false',
  'Tromsø,78745,,1994-01-01,false',
  '',
].join('\n');

async function uploaded(t: Parameters<typeof buildTestApp>[0]): Promise<{ app: TestApp; ws: string; dataset: string }> {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Cities' } });
  const upload = await app.call({
    method: 'POST',
    url: `${API}/workspaces/${ws}/sources/${source.body.data.id}/upload?fileName=cities.csv`,
    body: CSV,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(upload.status, 201, JSON.stringify(upload.body));
  const dataset = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'Norwegian cities', sources: [{ id: source.body.data.id }] } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  return { app, ws, dataset: dataset.body.data.id };
}

test('upload CSV -> records -> export CSV is the same data', async (t) => {
  const { app, ws, dataset } = await uploaded(t);
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset}/records` });
  assert.deepEqual(records.body.data[2], { city: 'Kristiansand, Vest', population: 116986, share: 0.021, founded: '1941-07-29', capital: false });
  assert.equal(records.body.data[3].share, null);

  const csv = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset}/export/csv` });
  assert.equal(csv.status, 200);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  assert.equal(csv.headers['content-disposition'], 'attachment; filename="Norwegian_cities.csv"');
  // The same cells (ClickHouse quotes text and dates, which a CSV reader does not see).
  assert.deepEqual(parse(csv.body), parse(CSV));
});

test('export json is an array of the records; parquet is a Parquet file of every row', async (t) => {
  const { app, ws, dataset } = await uploaded(t);
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset}/records` });
  const json = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset}/export/json` });
  assert.equal(json.status, 200);
  assert.deepEqual(json.body, records.body.data);

  const parquet = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset}/export/parquet` });
  assert.equal(parquet.status, 200);
  assert.equal(parquet.headers['content-type'], 'application/vnd.apache.parquet');
  const bytes = parquet.raw.rawPayload;
  assert.equal(bytes.subarray(0, 4).toString(), 'PAR1');
  assert.equal(bytes.subarray(-4).toString(), 'PAR1');
  // Read back by the engine: the same rows.
  const dir = await mkdtemp(join(tmpdir(), 'causa-parquet-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'cities.parquet');
  await writeFile(file, bytes);
  const rows = await app.context.data().query<{ city: string; population: number }>(
    app.tenant.organisationId,
    () => `SELECT city, population FROM file({path:String}, 'Parquet') ORDER BY population DESC`,
    { path: file },
  );
  assert.deepEqual(rows.map((r) => r.city), ['Oslo', 'Bergen', 'Kristiansand, Vest', 'Tromsø']);
});

test('an empty dataset exports a header-only CSV and an empty JSON array; an unknown format is a 400', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: 'Nothing yet' } });
  const json = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${created.body.data.id}/export/json` });
  assert.deepEqual(json.body, []);
  const xml = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${created.body.data.id}/export/xml` });
  assert.equal(xml.status, 400);
});

test('export needs exports:read', async (t) => {
  const { app, ws, dataset } = await uploaded(t);
  const key = await app.call({ method: 'POST', url: `${API}/api-keys`, body: { name: 'reader', scopes: ['datasets:read'] } });
  const refused = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset}/export/csv`, key: key.body.data.key });
  assert.equal(refused.status, 403);
});

test('a large export is read in keyset parts on chDB: every row once, in the dataset order, header once', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const rows = 2 * EXPORT_CHUNK_ROWS + 1234;
  const lines = ['n,v'];
  for (let n = 0; n < rows; n += 1) lines.push(`${n},${(n * 7919) % 1000}`);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Many' } });
  const upload = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${source.body.data.id}/upload`, body: `${lines.join('\n')}\n`, headers: { 'content-type': 'text/csv' } });
  assert.equal(upload.status, 201, JSON.stringify(upload.body).slice(0, 300));
  const dataset = await app.call({
    method: 'POST',
    url: `${API}/workspaces/${ws}/datasets`,
    body: { name: 'Sorted', sources: [{ id: source.body.data.id }], operations: [{ sourceId: source.body.data.id, config: { type: 'sort', keys: [{ column: 'v', direction: 'desc' }] } }] },
  });
  const csv = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}/export/csv` });
  const cells: string[][] = parse(csv.body);
  assert.deepEqual(cells[0], ['n', 'v']);
  const exported = cells.slice(1).map(([n, v]) => [Number(n), Number(v)] as const);
  assert.equal(exported.length, rows);
  assert.equal(new Set(exported.map(([n]) => n)).size, rows, 'every row once');
  for (let i = 1; i < exported.length; i += 1) {
    const [[n0, v0], [n1, v1]] = [exported[i - 1]!, exported[i]!];
    assert.ok(v0 > v1 || (v0 === v1 && n0 < n1), `row ${i} out of order`);
  }
  const json = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}/export/json` });
  assert.equal(json.body.length, rows);
  assert.deepEqual(json.body[0], { n: exported[0]![0], v: exported[0]![1] });
  assert.deepEqual(json.body.at(-1), { n: exported.at(-1)![0], v: exported.at(-1)![1] });
  // Parquet: one part at this size (several parts are spliced into one file: test/unit/lib/parquet-splice.test.ts).
  const parquet = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}/export/parquet` });
  assert.equal(parquet.status, 200);
  const bytes = parquet.raw.rawPayload;
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  assert.equal(Number(parquetMetadata(file).num_rows), rows);
  const read = await parquetReadObjects({ file, compressors });
  assert.deepEqual(read.map((r) => [Number(r.n), Number(r.v)]), exported);
});
