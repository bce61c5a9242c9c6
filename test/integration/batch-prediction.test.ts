/**
 * Batch prediction: the rows given inline (records or columnar JSON) or read by reference from a source or a
 * dataset, the results kept inline or as a table in the data store; every way in answers the same, a failed batch
 * leaves no table behind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { seededRandom, linearChainRows } from '../helpers/simulated.js';
import { type TrainedTwin, chainWithPlanRows, completedRun, scenarioChecks, submit, trainedTwin, waitForRun } from '../helpers/simulations.js';

const API = '/api/v1';

/** Held-out rows with an id, a few missing values and a category the twin never saw. */
function heldOut(n: number) {
  return chainWithPlanRows(n, 97).map((row, i) => ({
    id: `c${i}`,
    ...row,
    x: i % 17 === 3 ? null : row.x!,
    plan: i % 23 === 5 ? 'enterprise' : i % 29 === 7 ? null : row.plan!,
  }));
}

/** plan -> churn <- region: every variable categorical (the twin predicts exactly, by variable elimination). */
function discreteRows(n: number, seed: number) {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const plan = random.uniform() < 0.4 ? 'premium' : 'basic';
    const region = ['north', 'south', 'east'][Math.floor(random.uniform() * 3)]!;
    const churn = random.uniform() < (plan === 'premium' ? 0.1 : 0.3) + (region === 'south' ? 0.2 : 0) ? 'yes' : 'no';
    return { id: `d${i}`, plan: i % 31 === 4 ? null : plan, region: i % 37 === 9 ? 'west' : region, churn };
  });
}

const close = (a: unknown, b: unknown) => (a === null || b === null ? a === b : Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(b))));

/** A twin of the app's library workspace learned from `rows` with `edges` pinned. */
async function twinOf(app: TestApp, name: string, rows: Array<Record<string, unknown>>, edges: string[][]): Promise<TrainedTwin> {
  const ws = app.tenant.libraryWorkspaceId;
  const source = (await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows } })).body.data;
  const created = (await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name, sourceId: source.id } })).body.data;
  const version = `${API}/workspaces/${ws}/digital-twins/${created.id}/versions/${created.versionId}`;
  assert.equal((await app.call({ method: 'PATCH', url: `${version}/graph/fixed`, body: { addEdges: edges.map(([source, target]) => ({ source, target })) } })).status, 200);
  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${created.id}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
  return { app, ws, twinId: created.id, versionId: created.versionId, simulations: `${API}/workspaces/${ws}/simulations`, version };
}

/** Every row of a batch run's results table, page by page. */
async function allRows(twin: TrainedTwin, runId: string, limit: number): Promise<Array<Record<string, any>>> {
  const seen: Array<Record<string, any>> = [];
  let cursor: string | null = null;
  do {
    const page: any = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${runId}/rows?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}` });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    seen.push(...page.body.data);
    cursor = page.body.pagination.hasMore ? page.body.pagination.cursor : null;
  } while (cursor !== null);
  return seen;
}

test('a batch by reference answers what the inline rows answer, row by row, for continuous and categorical targets', async (t) => {
  const app = await buildTestApp(t);
  const linear = await twinOf(app, 'linear', linearChainRows(1500), [['x', 'y'], ['y', 'z']]);
  const discrete = await twinOf(app, 'discrete', discreteRows(1500, 5).map(({ id: _id, ...row }) => row), [['plan', 'churn'], ['region', 'churn']]);
  const rows: Array<Record<string, number | string | null>> = linearChainRows(1200, 97).map((row, i) => ({ id: `c${i}`, ...row, x: i % 17 === 3 ? null : row.x! }));
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${linear.ws}/sources/from-data`, body: { name: 'to score', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const sourceId = source.body.data.id;
  const inputs = rows.map(({ x, w, z }) => ({ x, w, z }));

  const inline = await completedRun(linear, { type: 'prediction', sample: inputs, targetVars: ['y'] });
  assert.equal(inline.outputsStorageType, 'inline');
  const results = inline.outputs['1.0.0'].results;

  const batch = await completedRun(linear, { type: 'prediction', rowsFrom: { sourceId, keepColumns: ['id', 'y'] }, targetVars: ['y'] });
  assert.equal(batch.outputsStorageType, 'datastore');
  assert.deepEqual(batch.exportFormats, ['json']);
  const details = batch.outputs['1.0.0'].details;
  assert.equal(details.rows, 1200);
  assert.equal(details.method, 'gaussian_conditioning');
  assert.deepEqual(details.resultsTable.columns, ['row', 'id', 'y', 'y_predicted', 'y_std', 'y_lower', 'y_upper']);
  assert.deepEqual(batch.outputs['1.0.0'].results, {});
  assert.match(batch.resultsSummary.summary, /1200 rows/);
  const status = await app.call({ method: 'GET', url: `${linear.simulations}/${batch.id}/status` });
  assert.equal(status.status, 200);
  assert.equal(status.body.data.status, 'completed');
  assert.equal(status.body.data.outputsStorageType, 'datastore');
  assert.ok(!('scenario' in status.body.data) && !('outputs' in status.body.data), 'a poll reads neither the scenario nor the outputs');

  // Every page, in order; each row as the inline run answered it.
  const seen = await allRows(linear, batch.id, 500);
  assert.equal(seen.length, 1200);
  seen.forEach((row, i) => {
    assert.equal(row.row, i);
    assert.equal(row.id, `c${i}`);
    assert.ok(close(row.y, rows[i]!.y), `row ${i}: kept y`);
    const y = results.y[i];
    assert.ok(close(row.y_predicted, y.prediction) && close(row.y_lower, y.lowerBound) && close(row.y_upper, y.upperBound) && close(row.y_std, y.std), `row ${i}: ${JSON.stringify(row)} vs ${JSON.stringify(y)}`);
  });

  // The same rows as columnar JSON, results to the data store.
  const table = await completedRun(linear, { type: 'prediction', sampleTable: { columns: ['x', 'w', 'z'], rows: inputs.map((r) => [r.x, r.w, r.z]) }, targetVars: ['y'], resultsStorage: 'datastore' });
  const fromTable = await allRows(linear, table.id, 10_000);
  assert.deepEqual(Object.keys(fromTable[0]!), ['row', 'y_predicted', 'y_std', 'y_lower', 'y_upper']);
  assert.ok(fromTable.every((row, i) => close(row.y_predicted, results.y[i].prediction)));

  // A categorical target: the most likely class and its probability, as inline; unknown and missing categories alike.
  const people = discreteRows(900, 41);
  const peopleSource = (await app.call({ method: 'POST', url: `${API}/workspaces/${linear.ws}/sources/from-data`, body: { name: 'people', rows: people } })).body.data;
  const classes = (await completedRun(discrete, { type: 'prediction', sample: people.map(({ plan, region }) => ({ plan, region })), targetVars: ['churn'] })).outputs['1.0.0'].results.churn;
  const byReference = await completedRun(discrete, { type: 'prediction', rowsFrom: { sourceId: peopleSource.id, keepColumns: ['id'] }, targetVars: ['churn'] });
  assert.equal(byReference.outputs['1.0.0'].details.method, 'variable_elimination');
  const scored = await allRows(discrete, byReference.id, 10_000);
  assert.equal(scored.length, 900);
  scored.forEach((row, i) => {
    const expected = classes[i];
    assert.equal(row.churn_predicted, expected.prediction, `row ${i}: class`);
    assert.ok(close(row.churn_probability, expected.probabilities[expected.categories.indexOf(expected.prediction)]), `row ${i}: probability`);
  });

  // Files: csv with a header, ndjson, parquet; every row, in order.
  const csv = await app.call({ method: 'GET', url: `${linear.simulations}/${batch.id}/rows/export/csv` });
  assert.equal(csv.status, 200);
  assert.match(String(csv.headers['content-disposition']), /rows\.csv/);
  const lines = String(csv.body).trim().split('\n');
  assert.equal(lines.length, 1201);
  assert.equal(lines[0], '"row","id","y","y_predicted","y_std","y_lower","y_upper"');
  assert.match(lines[1]!, /^0,"c0",/);
  const ndjson = await app.call({ method: 'GET', url: `${linear.simulations}/${batch.id}/rows/export/ndjson` });
  assert.equal(ndjson.status, 200);
  const objects = String(ndjson.body).trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(objects.length, 1200);
  assert.ok(objects.every((o, i) => o.id === `c${i}` && close(o.y_predicted, results.y[i].prediction)));
  const parquet = await app.call({ method: 'GET', url: `${linear.simulations}/${batch.id}/rows/export/parquet` });
  assert.equal(parquet.status, 200);
  const bytes = parquet.raw.rawPayload;
  const read = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, compressors });
  assert.equal(read.length, 1200);
  assert.ok(close(read[5]!.y_predicted, results.y[5].prediction));

  // Runs without a results table: 404.
  assert.equal((await app.call({ method: 'GET', url: `${linear.simulations}/${inline.id}/rows` })).status, 404);
  assert.equal((await app.call({ method: 'GET', url: `${linear.simulations}/${inline.id}/rows/export/csv` })).status, 404);
});

test('rows by reference: a dataset with a filter and a limit, checked at submit; a failed batch and a deleted twin leave no table', async (t) => {
  const twin = await trainedTwin(t);
  const rows = heldOut(400);
  const source = (await twin.app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/sources/from-data`, body: { name: 'to score', rows } })).body.data;
  const dataset = await twin.app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/datasets`, body: { name: 'scoring set', sources: [{ id: source.id }] } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const datasetId = dataset.body.data.id;
  const premium = { column: 'plan', comparisonOperator: 'Equal to', value: 'premium' };

  const filtered = await completedRun(twin, { type: 'prediction', rowsFrom: { datasetId, filter: premium, limit: 50, keepColumns: ['id', 'plan'] }, targetVars: ['z'] });
  assert.equal(filtered.outputs['1.0.0'].details.rows, 50);
  const page = (await twin.app.call({ method: 'GET', url: `${twin.simulations}/${filtered.id}/rows?limit=100` })).body;
  assert.equal(page.data.length, 50);
  assert.ok(page.data.every((row: any) => row.plan === 'premium'));
  const expected = rows.filter((row) => row.plan === 'premium').slice(0, 50).map((row) => row.id);
  assert.deepEqual(page.data.map((row: any) => row.id), expected, 'the data\'s own order');

  const { refusal } = scenarioChecks(twin);
  await refusal({ type: 'prediction', rowsFrom: { datasetId, sourceId: source.id }, targetVars: ['z'] }, 'body/scenario/rowsFrom', /exactly one/);
  await refusal({ type: 'prediction', rowsFrom: { datasetId: 'dst_doesnotexist1' }, targetVars: ['z'] }, 'body/scenario/rowsFrom/datasetId', /not in this workspace/);
  await refusal({ type: 'prediction', rowsFrom: { datasetId, keepColumns: ['id', 'nope'] }, targetVars: ['z'] }, 'body/scenario/rowsFrom/keepColumns/1', /not a column/);
  await refusal({ type: 'prediction', rowsFrom: { datasetId, filter: { column: 'nope', comparisonOperator: 'Equal to', value: 1 } }, targetVars: ['z'] }, 'body/scenario/rowsFrom/filter/column', /nope/);
  await refusal({ type: 'prediction', rowsFrom: { datasetId }, resultsStorage: 'inline', targetVars: ['z'] }, 'body/scenario/resultsStorage', /data store/);
  await refusal({ type: 'prediction', rowsFrom: { datasetId }, sample: [{ x: 1 }], targetVars: ['z'] }, 'body/scenario/rowsFrom', /one way/);
  await refusal({ type: 'prediction', targetVars: ['z'] }, 'body/scenario', /sample, sampleTable or rowsFrom/);
  await refusal({ type: 'prediction', sampleTable: { columns: ['x', 'w'], rows: [[1, 2], [3]] }, targetVars: ['z'] }, 'body/scenario/sampleTable/rows/1', /one value per column/);
  await refusal({ type: 'prediction', sampleTable: { columns: ['x', 'nope'], rows: [[1, 2]] }, targetVars: ['z'] }, 'body/scenario/sampleTable/columns/1', /nope/);

  // The source goes while the run waits: the run fails, and none of its tables stay.
  await twin.app.context.jobRunner.stop();
  const doomed = await submit(twin, { type: 'prediction', rowsFrom: { sourceId: source.id, keepColumns: ['id'] }, targetVars: ['z'] });
  assert.equal((await twin.app.call({ method: 'DELETE', url: `${API}/workspaces/${twin.ws}/datasets/${datasetId}` })).status, 204);
  assert.equal((await twin.app.call({ method: 'DELETE', url: `${API}/workspaces/${twin.ws}/sources/${source.id}` })).status, 204);
  await twin.app.context.jobRunner.start();
  const failed = await waitForRun(twin, doomed.runId);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /source/);
  const suffix = doomed.runId.slice(doomed.runId.indexOf('_') + 1);
  const tables = async () => (await twin.app.context.data().query<{ name: string }>(twin.app.tenant.organisationId, () => 'SELECT name FROM system.tables WHERE database = {db:String}', { db: twin.app.tenant.organisationId })).map((r) => r.name);
  assert.deepEqual((await tables()).filter((name) => name.endsWith(suffix)), []);

  // Deleting the twin drops its runs' results tables; the runs stay, their rows answer 404.
  const kept = filtered.id.slice(filtered.id.indexOf('_') + 1);
  assert.ok((await tables()).some((name) => name === `brs_${kept}`));
  assert.equal((await twin.app.call({ method: 'DELETE', url: `${API}/workspaces/${twin.ws}/digital-twins/${twin.twinId}` })).status, 204);
  assert.ok(!(await tables()).some((name) => name === `brs_${kept}`));
  const gone = await twin.app.call({ method: 'GET', url: `${twin.simulations}/${filtered.id}/rows` });
  assert.equal(gone.status, 404);
});
