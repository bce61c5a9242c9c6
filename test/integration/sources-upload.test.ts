import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROW_COLUMN } from '../../src/tables/ingest.js';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestApp, testConfig, type TestApp } from '../helpers/app.js';

const API = '/api/v1';

async function emptySource(app: TestApp): Promise<{ ws: string; id: string }> {
  const ws = app.tenant.libraryWorkspaceId;
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources`, body: { name: 'Uploads' } });
  return { ws, id: created.body.data.id };
}

const upload = (app: TestApp, ws: string, id: string, body: string, type = 'text/csv', fileName = 'orders.csv') =>
  app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload?fileName=${fileName}`, body, headers: { 'content-type': type } });

const storedRows = (app: TestApp, id: string) =>
  app.context.data().query<Record<string, unknown>>(app.tenant.organisationId, (sql) => `SELECT * FROM ${sql.table(id)} ORDER BY ${sql.column(ROW_COLUMN)}`);

const CSV = 'id,amount,when,region\n1,"1,200.50",2024-01-05,north\n2,3.5,2024-01-06,south\n3,,2024-01-07,north\n';

test('a CSV upload becomes the first batch: schema, typed rows, range, version; the same bytes again add nothing', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const first = await upload(app, ws, id, CSV);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.equal(first.body.data.duplicate, false);
  assert.deepEqual({ ...first.body.data.batch, uploadedAt: undefined, hash: undefined }, { uploadedAt: undefined, hash: undefined, fileName: 'orders.csv', rowStart: 0, rowEnd: 2 });
  const source = first.body.data.source;
  assert.equal(source.documentCount, 3);
  assert.equal(source.latestVersionOrdinal, 1);
  assert.deepEqual(source.schemaEntries.map((e: { type: string }) => e.type), ['integer', 'decimal', 'date', 'text']);
  assert.deepEqual((await storedRows(app, id)).map((r) => r.amount), [1200.5, 3.5, null]);

  const again = await upload(app, ws, id, CSV, 'text/csv', 'copy.csv');
  assert.equal(again.status, 200);
  assert.equal(again.body.data.duplicate, true);
  assert.deepEqual(again.body.data.batch, first.body.data.batch);
  assert.equal((await storedRows(app, id)).length, 3);
});

test('a later batch appends after the last row, as a new version; its columns must fit', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  await upload(app, ws, id, CSV);
  const second = await upload(app, ws, id, 'region,id,amount,when\neast,4,10,2024-02-01\n', 'text/csv', 'more.csv');
  assert.equal(second.status, 201, JSON.stringify(second.body));
  assert.deepEqual([second.body.data.batch.rowStart, second.body.data.batch.rowEnd], [3, 3]);
  assert.equal(second.body.data.source.latestVersionOrdinal, 2);
  assert.equal(second.body.data.source.batchRanges.length, 2);
  assert.deepEqual((await storedRows(app, id)).map((r) => r.region), ['north', 'south', 'north', 'east']);

  const misfit = await upload(app, ws, id, 'id,amount,colour\n5,1,red\n');
  assert.equal(misfit.status, 422);
  assert.match(misfit.body.detail, /missing "when", "region" unknown "colour"|missing/);
  const wrongType = await upload(app, ws, id, 'id,amount,when,region\n5,lots,2024-02-02,west\n');
  assert.equal(wrongType.status, 422);
  assert.match(wrongType.body.detail, /Line 2, column "amount": "lots" is not a decimal/);
  assert.equal((await storedRows(app, id)).length, 4, 'nothing of a refused file is stored');
});

test('a malformed file answers 422 naming the line, and stores nothing', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const ragged = await upload(app, ws, id, 'a,b\n1,2\n3,4,5\n');
  assert.equal(ragged.status, 422);
  assert.match(ragged.body.detail, /line 3/);
  const quote = await upload(app, ws, id, 'a,b\n1,"2\n');
  assert.equal(quote.status, 422);
  const read = await app.call({ method: 'GET', url: `${API}/sources/${id}` });
  assert.equal(read.body.data.documentCount, 0);
  assert.deepEqual(read.body.data.batchRanges, []);
  await assert.rejects(storedRows(app, id), 'no table was left behind');
});

test('TSV and NDJSON uploads, and an unsupported type answers 415', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  assert.equal((await upload(app, ws, id, 'a\tb\n1\tx\n2\ty\n', 'text/tab-separated-values')).status, 201);
  const nd = await emptySource(app);
  const ndjson = await upload(app, nd.ws, nd.id, '{"a":1,"tags":["x"]}\n\n{"a":2,"tags":[]}\n', 'application/x-ndjson');
  assert.equal(ndjson.status, 201, JSON.stringify(ndjson.body));
  assert.deepEqual((await storedRows(app, nd.id)).map((r) => r.tags), [['x'], []]);
  const badLine = await emptySource(app);
  const broken = await upload(app, badLine.ws, badLine.id, '{"a":1}\n{"a":\n', 'application/x-ndjson');
  assert.equal(broken.status, 422);
  assert.match(broken.body.detail, /line 2/);
  assert.equal((await upload(app, ws, id, 'x', 'application/pdf')).status, 415);
});

test('rows an interrupted upload left unrecorded are cleared before the next batch', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  await upload(app, ws, id, CSV);
  // As if a process died after moving a batch in but before recording it.
  await app.context.data().insert({ organisationId: app.tenant.organisationId, tableId: id }, [{ [ROW_COLUMN]: 3, id: 99, amount: 1, when: '2024-03-01', region: 'ghost' }]);
  const next = await upload(app, ws, id, 'id,amount,when,region\n4,2,2024-03-02,west\n');
  assert.equal(next.status, 201, JSON.stringify(next.body));
  const rows = await storedRows(app, id);
  assert.deepEqual(rows.map((r) => r.region), ['north', 'south', 'north', 'west']);
  assert.deepEqual(rows.map((r) => Number(r[ROW_COLUMN])), [0, 1, 2, 3]);
});


/** A CSV the engine loads itself (plain numbers, ISO dates, booleans, text), `rows` data lines long. */
function plainCsv(rows: number, replace: (line: number) => string | null = () => null): string {
  const lines = ['n,price,day,ok,label'];
  for (let i = 0; i < rows; i += 1) lines.push(replace(i + 2) ?? `${i},${(i * 0.25).toFixed(2)},2024-01-${String((i % 28) + 1).padStart(2, '0')},${i % 2 === 0},item ${i % 7}`);
  return `${lines.join('\n')}\n`;
}

test('plain CSV columns are loaded and converted by the engine: same values, order and ordinals as the JS path', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const csv = plainCsv(12_000, (line) => (line === 5 ? '3,NA,,yes, spaced ' : null));
  const res = await upload(app, ws, id, csv);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(res.body.data.source.schemaEntries.map((e: { type: string }) => e.type), ['integer', 'decimal', 'date', 'boolean', 'categorical']);
  const rows = await storedRows(app, id);
  assert.equal(rows.length, 12_000);
  assert.deepEqual(rows.slice(0, 4).map((r) => r[ROW_COLUMN]), [0, 1, 2, 3]);
  assert.deepEqual(rows[3], { [ROW_COLUMN]: 3, n: 3, price: null, day: null, ok: true, label: 'spaced' });
  assert.deepEqual(rows[11_999], { [ROW_COLUMN]: 11_999, n: 11_999, price: 2999.75, day: '2024-01-16', ok: false, label: 'item 1' });
  const second = await upload(app, ws, id, plainCsv(3));
  assert.deepEqual([second.body.data.batch.rowStart, second.body.data.batch.rowEnd], [12_000, 12_002]);
  assert.deepEqual((await storedRows(app, id)).slice(-1)[0]![ROW_COLUMN], 12_002);
});

test('columns named like the conversion\'s working values keep their own values; the service\'s prefix is refused', async (t) => {
  // The conversion once named its values v0, v1, ... and a user column v0 read the value named v1: every column of
  // such a file was stored as its last.
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const names = ['v0', 'v1', 't0', 'c0', '_bad', '_n', 'r', 'row'];
  const lines = Array.from({ length: 20 }, (_, r) => names.map((_, j) => `${r * 10 + j}.5`).join(','));
  const res = await upload(app, ws, id, [names.join(','), ...lines].join('\n'));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const rows = await storedRows(app, id);
  assert.deepEqual(rows[7], { [ROW_COLUMN]: 7, ...Object.fromEntries(names.map((name, j) => [name, 70 + j + 0.5])) });
  const other = await emptySource(app);
  const refused = await upload(app, other.ws, other.id, '_causa_x,y\n1,2\n');
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.match(refused.body.detail, /_causa_x is reserved/);
});

test('past the inference sample, a bad value or a malformed line still answers 422 naming the line, and nothing is stored', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const cases: Array<[string, RegExp]> = [
    [plainCsv(11_000, (line) => (line === 10_500 ? '7,abc,2024-01-01,true,x' : null)), /^Line 10500, column "price": "abc" is not a decimal$/],
    [plainCsv(11_000, (line) => (line === 10_501 ? '7,1.5,2023-02-30,true,x' : null)), /^Line 10501, column "day": "2023-02-30" is not a date/],
    [plainCsv(11_000, (line) => (line === 10_502 ? '7,1.5,1850-02-03,true,x' : null)), /^Line 10502, column "day": "1850-02-03" is not a date/],
    [plainCsv(11_000, (line) => (line === 10_503 ? '7,1.5,2024-01-01,maybe,x' : null)), /^Line 10503, column "ok": "maybe" is not a boolean$/],
    [plainCsv(11_000, (line) => (line === 10_504 ? '7,1.5' : null)), /^Malformed file at line 10504/],
    // A quote left open would swallow the rest of the file in the engine's reader: the JS reader names the line.
    [plainCsv(11_000, (line) => (line === 10_505 ? '7,1.5,2024-01-01,true,"open' : null)), /^Malformed file at line \d+: Quote Not Closed/],
  ];
  for (const [csv, pattern] of cases) {
    const res = await upload(app, ws, id, csv);
    assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 300));
    assert.match(res.body.detail, pattern);
  }
  const source = await app.call({ method: 'GET', url: `${API}/sources/${id}` });
  assert.equal(source.body.data.documentCount, 0);
  assert.deepEqual(source.body.data.schemaEntries, []);
  await assert.rejects(storedRows(app, id), 'the first batch failed: no table');
  const tables = await app.context.data().query<{ name: string }>(app.tenant.organisationId, () => 'SELECT name FROM system.tables WHERE database = {db:String}', { db: app.tenant.organisationId });
  assert.deepEqual(tables, [], 'no staging table is left behind');
});

test('of several bad values far apart in a large file, the first in file order is named (the conversion runs on every thread)', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const bad = new Set([120_000, 180_000, 240_000]);
  const res = await upload(app, ws, id, plainCsv(250_000, (line) => (bad.has(line) ? `7,x${line},2024-01-01,true,x` : null)));
  assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 300));
  assert.equal(res.body.detail, 'Line 120000, column "price": "x120000" is not a decimal');
});

test('CSV columns of JSON arrays and objects are stored by the engine; past the sample, an array of the wrong kind answers 422 naming the line', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const quoted = (json: string) => `"${json.replaceAll('"', '""')}"`;
  const line = (i: number, scores = `[${i}, ${i / 2}]`) => `${i},${quoted(`["t${i % 3}", "x"]`)},${quoted(scores)},${quoted(`{"k": ${i % 5}}`)}`;
  const csv = (rows: number, replace: (i: number) => string | null = () => null) => `${['id,tags,scores,doc', ...Array.from({ length: rows }, (_, i) => replace(i) ?? line(i))].join('\n')}\n`;
  const res = await upload(app, ws, id, csv(12_000, (i) => (i === 3 ? `3,,[],${quoted('{"k": 3}')}` : i === 11_999 ? line(i, '[1.5, null]') : null)));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(res.body.data.source.schemaEntries.map((e: { type: string; subtype: string | null }) => [e.type, e.subtype]), [['integer', null], ['array', 'text'], ['array', 'decimal'], ['object', null]]);
  const rows = await storedRows(app, id);
  assert.equal(rows.length, 12_000);
  assert.deepEqual(rows[3], { [ROW_COLUMN]: 3, id: 3, tags: [], scores: [], doc: '{"k": 3}' });
  assert.deepEqual(rows[11_999], { [ROW_COLUMN]: 11_999, id: 11_999, tags: ['t2', 'x'], scores: [1.5, null], doc: '{"k": 4}' });
  const other = await emptySource(app);
  const refused = await upload(app, ws, other.id, csv(11_000, (i) => (i === 10_500 ? line(i, '[1, "two"]') : null)));
  assert.equal(refused.status, 422, JSON.stringify(refused.body).slice(0, 300));
  assert.equal(refused.body.detail, 'Line 10502, column "scores": "[1, \\"two\\"]" is not an array of numbers (or nulls)');
});

test('a JSON array of objects uploads like NDJSON; a broken array answers 422 naming the element', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const rows = [{ sku: 'a-1', qty: 3, price: '1,200.50', tags: ['x'], seen: '2024-05-01' }, { sku: 'b-2', qty: null, price: '7', tags: [], seen: null }];
  const res = await upload(app, ws, id, JSON.stringify(rows, null, 2), 'application/json', 'items.json');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.data.source.extension, 'json');
  const stored = await storedRows(app, id);
  assert.deepEqual(stored.map((r) => [r.sku, r.qty, r.price, r.tags, r.seen]), [['a-1', 3, 1200.5, ['x'], '2024-05-01'], ['b-2', null, 7, [], null]]);

  const other = await emptySource(app);
  for (const [body, pattern] of [
    ['[{"sku": "c"}, {"sku": "d",}]', /^Malformed JSON array at element 2/],
    ['[{"sku": "c"}, 5]', /^Malformed JSON array at element 2: unexpected "5"/],
    ['{"sku": "c"}', /^Malformed JSON array at the start/],
    ['[{"sku": "c"}', /^Malformed JSON array at the end: the array is not closed/],
    ['[{"sku": "c"}] x', /^Malformed JSON array at the end: text after the closing \]/],
  ] as Array<[string, RegExp]>) {
    const refused = await upload(app, ws, other.id, body, 'application/json');
    assert.equal(refused.status, 422, body);
    assert.match(refused.body.detail, pattern, body);
  }
  // Brackets and quotes inside strings do not end an element.
  const tricky = await upload(app, ws, other.id, '[{"sku": "a \\" ] } ["}, {"qty": 1}]', 'application/json');
  assert.equal(tricky.status, 201, JSON.stringify(tricky.body));
  assert.deepEqual((await storedRows(app, other.id)).map((r) => [r.sku, r.qty]), [['a " ] } [', null], [null, 1]]);
});

test('a Parquet file uploads with its typed values', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const parquet = await app.context.data().export(
    app.tenant.organisationId,
    () => "SELECT number AS n, toFloat64(number) / 4 AS quarter, concat('item ', toString(number % 3)) AS label, toDate('2024-01-01') + number AS day, toBool(number % 2 = 0) AS even, [number, number + 1] AS pair FROM numbers(25)",
    'Parquet',
  );
  const chunks: Buffer[] = [];
  for await (const chunk of parquet) chunks.push(chunk as Buffer);
  const res = await app.call({
    method: 'POST',
    url: `${API}/workspaces/${ws}/sources/${id}/upload?fileName=numbers.parquet`,
    body: Buffer.concat(chunks),
    headers: { 'content-type': 'application/vnd.apache.parquet' },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const types = Object.fromEntries(res.body.data.source.schemaEntries.map((e: { field: string; type: string }) => [e.field, e.type]));
  assert.deepEqual(types, { n: 'integer', quarter: 'decimal', label: 'categorical', day: 'date', even: 'boolean', pair: 'array' });
  const stored = await storedRows(app, id);
  assert.equal(stored.length, 25);
  assert.deepEqual(stored[5], { [ROW_COLUMN]: 5, n: 5, quarter: 1.25, label: 'item 2', day: '2024-01-06', even: false, pair: [5, 6] });
  const broken = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${(await emptySource(app)).id}/upload`, body: 'PAR1 not really', headers: { 'content-type': 'application/vnd.apache.parquet' } });
  assert.equal(broken.status, 422);
  assert.match(broken.body.detail, /^Malformed Parquet file/);
});

function multipart(parts: Array<{ name: string; fileName?: string; type?: string; content: string }>): { body: string; type: string } {
  const boundary = 'causa-test-boundary';
  const body = parts
    .map((part) => [
      `--${boundary}`,
      `Content-Disposition: form-data; name="${part.name}"${part.fileName === undefined ? '' : `; filename="${part.fileName}"`}`,
      ...(part.type === undefined ? [] : [`Content-Type: ${part.type}`]),
      '',
      part.content,
    ].join('\r\n'))
    .join('\r\n');
  return { body: `${body}\r\n--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

test('multipart/form-data: the part "file" is the file; its type or extension says the format, its name is kept', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const form = multipart([
    { name: 'note', content: 'ignored' },
    { name: 'file', fileName: 'orders.csv', type: 'application/octet-stream', content: CSV.trimEnd() },
  ]);
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload`, body: form.body, headers: { 'content-type': form.type } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.data.batch.fileName, 'orders.csv');
  assert.equal((await storedRows(app, id)).length, 3);

  const ndjson = multipart([{ name: 'file', fileName: 'more', type: 'application/x-ndjson', content: '{"id": 9, "amount": 1, "when": "2024-02-01", "region": "west"}' }]);
  const second = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload?fileName=named.ndjson`, body: ndjson.body, headers: { 'content-type': ndjson.type } });
  assert.equal(second.status, 201, JSON.stringify(second.body));
  assert.equal(second.body.data.batch.fileName, 'named.ndjson', 'the query parameter wins');

  const none = multipart([{ name: 'upload', fileName: 'x.csv', type: 'text/csv', content: 'a\n1' }]);
  const missing = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload`, body: none.body, headers: { 'content-type': none.type } });
  assert.equal(missing.status, 422);
  assert.match(missing.body.detail, /no file part named "file"/);
  const odd = multipart([{ name: 'file', fileName: 'x.xlsx', type: 'application/octet-stream', content: 'a\n1' }]);
  assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload`, body: odd.body, headers: { 'content-type': odd.type } })).status, 415);
  assert.equal((await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload`, body: 'x', headers: { 'content-type': 'multipart/form-data' } })).status, 400);
  assert.equal((await storedRows(app, id)).length, 4);
});

test('a source whose write lease another writer holds answers 409 and is left alone; a lapsed lease is taken over', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  assert.equal((await upload(app, ws, id, CSV)).status, 201);
  const lease = (token: string | null, expires: string | null) =>
    app.context.meta.db.updateTable('sources').set({ lease_token: token, lease_expires_at: expires }).where('id', '=', id).execute();

  // Another process is writing: its lease runs for another minute.
  await lease('lease_other', new Date(Date.now() + 60_000).toISOString());
  const refused = await upload(app, ws, id, 'id,amount,when,region\n4,1,2024-01-08,east\n');
  assert.equal(refused.status, 409);
  assert.equal((await storedRows(app, id)).length, 3);

  // That process crashed after committing rows it never recorded; its lease lapsed.
  await app.context.data().insert({ organisationId: app.tenant.organisationId, tableId: id }, [{ [ROW_COLUMN]: 3, id: 99, amount: 9, when: '2024-01-09', region: 'orphan' }]);
  await lease('lease_other', new Date(Date.now() - 1000).toISOString());
  const taken = await upload(app, ws, id, 'id,amount,when,region\n4,1,2024-01-08,east\n');
  assert.equal(taken.status, 201, JSON.stringify(taken.body));
  assert.deepEqual((await storedRows(app, id)).map((r) => r.region), ['north', 'south', 'north', 'east'], 'the orphan row is gone');
  const row = await app.context.meta.db.selectFrom('sources').select(['lease_token', 'lease_expires_at']).where('id', '=', id).executeTakeFirstOrThrow();
  assert.deepEqual(row, { lease_token: null, lease_expires_at: null }, 'released');
});

test('a writer of a source deleted meanwhile learns it is gone, instead of waiting for a lease no one holds', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${ws}/sources/${id}` })).status, 204);
  // The ontology extraction records its status this way: it used to take 30 tries of 3 s each, read as a busy source.
  const recorded = await app.context.sources.recordOntology(app.tenant.organisationId, id, () => ({ ontologyStatus: 'failed', ontologyError: 'gone' }), 1);
  assert.equal(recorded, null);
});

/**
 * The same cells uploaded as a CSV (which the engine converts) and as NDJSON (which only the JS converter reads):
 * both must infer the same schema and store the same rows; answers them.
 */
async function viaEngineAndJs(app: TestApp, ws: string, header: string[], rows: string[][]) {
  const csv = `${header.join(',')}\n${rows.map((r) => r.map((cell) => `"${cell.replaceAll('"', '""')}"`).join(',')).join('\n')}\n`;
  const ndjson = rows.map((r) => JSON.stringify(Object.fromEntries(header.map((h, i) => [h, r[i]])))).join('\n');
  const viaEngine = await emptySource(app);
  const viaJs = await emptySource(app);
  const engine = await upload(app, ws, viaEngine.id, csv);
  const js = await upload(app, ws, viaJs.id, ndjson, 'application/x-ndjson');
  assert.equal(engine.status, 201, JSON.stringify(engine.body));
  assert.equal(js.status, 201, JSON.stringify(js.body));
  assert.deepEqual(engine.body.data.source.schemaEntries, js.body.data.source.schemaEntries);
  const stored = await storedRows(app, viaEngine.id);
  assert.deepEqual(stored, await storedRows(app, viaJs.id));
  return { schemaEntries: engine.body.data.source.schemaEntries as Array<{ type: string; subtype: string | null; originalFormat: string | null }>, stored };
}

test('the engine converts grouped numbers, decimal commas and ISO datetimes exactly as the JS converter does', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const rows = [
    ['1,234.5', '1 234,5', '1.234,5', '3,5', '2024-01-05T10:00:00Z', '-7'],
    ['12', '12', '12', '12', '2024-01-05T10:00:00+02:00', '+3'],
    ['999,999,999.25', '7 000', '7.000', '0,25', '2024-02-29 23:59:59.5', '.5'],
    ['', 'NA', 'null', '', '2024-03-01T00:00', '1e3'],
  ];
  const { schemaEntries, stored } = await viaEngineAndJs(app, ws, ['comma', 'space', 'dot', 'decimal_comma', 'at', 'plain'], rows);
  assert.deepEqual(schemaEntries.map((e) => e.type), ['decimal', 'decimal', 'decimal', 'decimal', 'datetime', 'decimal']);
  assert.deepEqual(stored.map((r) => r.at), ['2024-01-05 10:00:00.000', '2024-01-05 08:00:00.000', '2024-02-29 23:59:59.500', '2024-03-01 00:00:00.000']);

  // Past the sample, a datetime that is not a calendar day is refused by the engine too.
  const later = `at\n${Array.from({ length: 10_500 }, (_, i) => (i === 10_400 ? '2023-02-30T10:00:00Z' : '2024-01-05T10:00:00Z')).join('\n')}\n`;
  const refused = await upload(app, ws, (await emptySource(app)).id, later);
  assert.equal(refused.status, 422);
  assert.match(refused.body.detail, /^Line 10402, column "at": "2023-02-30T10:00:00Z" is not a datetime/);
});

test('day-first datetimes with zones and JSON arrays are converted by the engine exactly as the JS converter does', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const rows = [
    ['31/01/2024 10:00', '[1, 2.5]', '["a", "b"]', '{"k": 1}'],
    ['05/02/2024 23:59:60', '[]', '[]', '{}'],
    ['29/02/2024 10:00:05.0005+05:30', '[-3]', '["\\u00e9"]', '{"k": [1]}'],
    ['', 'NA', '', 'null'],
  ];
  const { schemaEntries, stored } = await viaEngineAndJs(app, ws, ['at', 'scores', 'tags', 'doc'], rows);
  assert.deepEqual(schemaEntries.map((e) => [e.type, e.subtype, e.originalFormat]),
    [['datetime', null, 'DD/MM/YYYY HH:mm'], ['array', 'decimal', null], ['array', 'text', null], ['object', null, null]]);
  assert.deepEqual(stored.map((r) => [r.at, r.scores, r.tags]), [
    ['2024-01-31 10:00:00.000', [1, 2.5], ['a', 'b']], ['2024-02-06 00:00:00.000', [], []], ['2024-02-29 04:30:05.001', [-3], ['é']], [null, [], []],
  ]);
});

test('a CSV with empty lines is read by the JS reader (which skips them), the same as without them', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const res = await upload(app, ws, id, 'a,b\n1,2\n\n3,4\n\n');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual((await storedRows(app, id)).map((r) => [r.a, r.b]), [[1, 2], [3, 4]]);
  const single = await emptySource(app);
  assert.equal((await upload(app, ws, single.id, 'a\n1\n\n2\n')).status, 201);
  assert.deepEqual((await storedRows(app, single.id)).map((r) => r.a), [1, 2], 'no empty rows from the empty line');
});

test('a record larger than 16 MiB is refused with 422, never held', async (t) => {
  const app = await buildTestApp(t);
  const { ws, id } = await emptySource(app);
  const huge = JSON.stringify({ a: 'x'.repeat(17 * 1024 * 1024) });
  const ndjson = await upload(app, ws, id, `{"a":"small"}\n${huge}\n`, 'application/x-ndjson');
  assert.equal(ndjson.status, 422);
  assert.match(ndjson.body.detail, /^Line 2 is larger than 16 MiB/);
  const array = await upload(app, ws, id, `[{"a":"small"},${huge}]`, 'application/json');
  assert.equal(array.status, 422);
  assert.match(array.body.detail, /^Element 2 is larger than 16 MiB/);
});

test('a multipart body that breaks after its file part leaves no temporary file behind', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'causa-multipart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const app = await buildTestApp(t, {}, testConfig({ dataDir }));
  const { ws, id } = await emptySource(app);
  const boundary = 'b0undary';
  const body = [`--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="a.csv"', 'Content-Type: text/csv', '', 'a,b\n1,2', `--${boundary}`, 'Content-Disposition: form-data; name="other"', '', 'never ends'].join('\r\n');
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/${id}/upload`, body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  await new Promise((resolve) => setImmediate(resolve));
  const uploads = join(dataDir, 'uploads');
  const left = existsSync(uploads) ? readdirSync(uploads) : [];
  for (let i = 0; i < 50 && left.length > 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left.splice(0, left.length, ...readdirSync(uploads));
  }
  assert.deepEqual(left, []);
});
