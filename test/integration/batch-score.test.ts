/**
 * Scoring as a batch: rows inline or read by reference from a source, scored in chunks on the pool and written as
 * the run's results table; both ways in answer the same row by row, pages and exports read the table, and bad
 * requests are refused at submit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chainWithPlanRows, trainedTwin, waitForRun } from '../helpers/simulations.js';

const API = '/api/v1';

/** More rows than one chunk (10,000), with missing values, a category the twin never saw and rows it cannot score. */
function rowsToScore(n: number) {
  return chainWithPlanRows(n, 53).map((row, i) => ({
    id: `r${i}`,
    x: i % 97 === 13 ? null : row.x!,
    plan: i % 89 === 7 ? 'enterprise' : i % 83 === 5 ? null : row.plan!,
    w: row.w!,
  }));
}

test('scoring by reference answers what the inline rows answer, row by row, across chunks; pages and exports read the results table', async (t) => {
  const twin = await trainedTwin(t);
  const { app } = twin;
  const rows = rowsToScore(10_500);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/sources/from-data`, body: { name: 'to score', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const targets = [{ variable: 'z', value: -1, matchMode: 'orLess' }];
  const scored = async (body: Record<string, unknown>) => {
    const accepted = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, ...body } });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const run = await waitForRun(twin, accepted.body.data.runId);
    assert.equal(run.status, 'completed', run.error);
    return run;
  };
  const inline = await scored({ rows: rows.map(({ id: _id, ...row }) => row) });
  const columns = ['x', 'plan', 'w'] as const;
  const columnar = await scored({ rowsTable: { columns, rows: rows.map((row) => columns.map((name) => row[name])) } });
  const byReference = await scored({ rowsFrom: { sourceId: source.body.data.id, keepColumns: ['id'] } });
  assert.equal(byReference.outputsStorageType, 'datastore');
  const details = byReference.outputs['1.0.0'].details;
  assert.equal(details.rows, 10_500);
  assert.equal(details.chunks, 2);
  assert.deepEqual(details.resultsTable.columns, ['row', 'id', 'verdict', 'z_predicted', 'drivers', 'changes', 'reachable']);
  assert.match(byReference.resultsSummary.summary, /Scored 10500 rows/);

  const pages = async (runId: string, limit: number) => {
    const seen: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    let digest: Record<string, any> | null = null;
    let total = 0;
    do {
      const page: any = await app.call({ method: 'GET', url: `${twin.simulations}/${runId}/score?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}` });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      total = page.body.data.pagination.total;
      digest = page.body.data.digest;
      seen.push(...page.body.data.rows);
      cursor = page.body.data.pagination.hasMore ? page.body.data.pagination.cursor : null;
    } while (cursor !== null);
    assert.equal(seen.length, total);
    return { rows: seen, digest: digest! };
  };
  const a = await pages(inline.id, 1000);
  const b = await pages(byReference.id, 1000);
  assert.equal(a.rows.length, 10_500);
  assert.deepEqual(a.rows.map((r) => r.index), Array.from({ length: 10_500 }, (_, i) => i));
  assert.deepEqual(b.rows, a.rows);
  assert.deepEqual(b.digest, a.digest);
  // The same rows as columnar JSON: the same answers.
  const c = await pages(columnar.id, 1000);
  assert.deepEqual(c.rows, a.rows);
  assert.deepEqual(c.digest, a.digest);
  // With nothing kept, the rows are read straight from the data by its row key, chunk after chunk (no staged copy):
  // the same answers; filtered, the keys the reads step over have gaps, and the rows answered are those kept inline.
  const direct = await scored({ rowsFrom: { sourceId: source.body.data.id } });
  assert.equal(direct.outputs['1.0.0'].details.chunks, 2);
  assert.deepEqual((await pages(direct.id, 1000)).rows, a.rows);
  const cut = rows.map((row) => Number(row.w)).sort((p, q) => p - q)[150]!;
  const kept = rows.filter((row) => Number(row.w) > cut);
  assert.ok(kept.length > 10_000 && kept.length < 10_500);
  const filtered = await scored({ rowsFrom: { sourceId: source.body.data.id, filter: { column: 'w', comparisonOperator: 'Greater than', value: cut } } });
  const filteredInline = await scored({ rows: kept.map(({ id: _id, ...row }) => row) });
  assert.equal(filtered.outputs['1.0.0'].details.rows, kept.length);
  assert.deepEqual((await pages(filtered.id, 1000)).rows, (await pages(filteredInline.id, 1000)).rows);
  const { verdicts } = a.digest;
  assert.equal(verdicts.meets + verdicts.misses + verdicts.unscorable, 10_500);
  assert.ok(verdicts.meets > 1000 && verdicts.misses > 1000, JSON.stringify(verdicts));
  // A row without x cannot be scored (x is a root that z needs); the digest says so in its first rows' sentences.
  assert.equal(a.rows[13]!.verdict, 'unscorable');
  assert.match(a.digest.rowSummaries.find((s: { index: number }) => s.index === 13).summary, /no value for x/);
  assert.equal(a.digest.rowSummaries.length, 100);
  const miss = a.rows.find((r) => r.verdict === 'misses' && r.reachable === true)!;
  assert.ok(miss.changes.length > 0 && miss.changes.every((c: { variable: string }) => ['x', 'plan', 'y'].includes(c.variable)), JSON.stringify(miss));
  assert.ok(a.rows.filter((r) => r.verdict === 'meets').every((r) => r.reachable === null && r.changes.length === 0 && typeof r.predictions.z === 'number' && r.predictions.z <= -1));

  // The table itself: pages of /rows (kept id beside each answer) and files.
  const first = await app.call({ method: 'GET', url: `${twin.simulations}/${byReference.id}/rows?limit=3` });
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.data.map((r: { id: string }) => r.id), ['r0', 'r1', 'r2']);
  assert.equal(first.body.data[0].verdict, a.rows[0]!.verdict);
  assert.deepEqual(JSON.parse(first.body.data[0].drivers), a.rows[0]!.drivers);
  const csv = await app.call({ method: 'GET', url: `${twin.simulations}/${byReference.id}/rows/export/csv` });
  assert.equal(csv.status, 200);
  const lines = String(csv.body).trim().split('\n');
  assert.equal(lines.length, 10_501);
  assert.equal(lines[0], '"row","id","verdict","z_predicted","drivers","changes","reachable"');

  // Deleting the twin takes the results tables with it.
  assert.equal((await app.call({ method: 'DELETE', url: `${API}/workspaces/${twin.ws}/digital-twins/${twin.twinId}` })).status, 204);
});

test('a scoring request takes its rows one way (rows, rowsTable or rowsFrom), checked at submit where they were written', async (t) => {
  const twin = await trainedTwin(t);
  const { app } = twin;
  const targets = [{ variable: 'z', value: -1, matchMode: 'orLess' }];
  const refused = async (body: Record<string, unknown>, location: string, message: RegExp) => {
    const response = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, ...body } });
    assert.equal(response.status, 422, JSON.stringify(response.body));
    assert.ok(response.body.errors.some((e: { location: string; message: string }) => e.location === location && message.test(e.message)), JSON.stringify(response.body));
  };
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/sources/from-data`, body: { name: 'ids only', rows: [{ id: 'a', v: 1 }] } });
  await refused({}, 'body', /give the rows to score: rows \(records\), rowsTable \(columnar JSON\) or rowsFrom/);
  await refused({ rows: [{ x: 1 }], rowsFrom: { sourceId: source.body.data.id } }, 'body/rowsFrom', /one way: rows and rowsFrom were given/);
  await refused({ rows: [{ x: 1 }], rowsTable: { columns: ['x'], rows: [[1]] } }, 'body/rowsTable', /one way: rows and rowsTable/);
  await refused({ rowsTable: { columns: ['x', 'plan'], rows: [[1, 'basic'], [2]] } }, 'body/rowsTable/rows/1', /one value per column \(2\); this one has 1/);
  await refused({ rowsTable: { columns: ['x', 'nope'], rows: [[1, 2]] } }, 'body/rowsTable', /unknown variable 'nope'/);
  await refused({ rowsFrom: { sourceId: source.body.data.id } }, 'body/rowsFrom', /none of the twin's input variables/);
  await refused({ rowsFrom: { sourceId: source.body.data.id, keepColumns: ['nope'] } }, 'body/rowsFrom/keepColumns/0', /not a column/);
  await refused({ rowsFrom: { sourceId: 'src_doesnotexist' } }, 'body/rowsFrom/sourceId', /not a tabular source of this workspace/);

  // A dataset, filtered and limited: the rows it selects, in its own order, scored as the same rows inline are.
  const rows = rowsToScore(300);
  const scoring = (await app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/sources/from-data`, body: { name: 'to score', rows } })).body.data;
  const dataset = await app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/datasets`, body: { name: 'scoring set', sources: [{ id: scoring.id }] } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const premium = { column: 'plan', comparisonOperator: 'Equal to', value: 'premium' };
  await refused({ rowsFrom: { datasetId: dataset.body.data.id, filter: { column: 'nope', comparisonOperator: 'Equal to', value: 1 } } }, 'body/rowsFrom/filter/column', /nope/);
  const run = async (body: Record<string, unknown>) => {
    const accepted = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, ...body } });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const done = await waitForRun(twin, accepted.body.data.runId);
    assert.equal(done.status, 'completed', done.error);
    return (await app.call({ method: 'GET', url: `${twin.simulations}/${done.id}/score?limit=1000` })).body.data.rows;
  };
  const chosen = rows.filter((row) => row.plan === 'premium').slice(0, 40);
  const byDataset = await run({ rowsFrom: { datasetId: dataset.body.data.id, filter: premium, limit: 40 } });
  const inline = await run({ rows: chosen.map(({ id: _id, ...row }) => row) });
  assert.equal(byDataset.length, 40);
  assert.deepEqual(byDataset, inline);

  // Kept columns named like the results table's own (k0, k1): each keeps its own values.
  const named = await app.call({ method: 'POST', url: `${API}/workspaces/${twin.ws}/sources/from-data`, body: { name: 'named', rows: rows.slice(0, 20).map(({ id, ...row }) => ({ ...row, k1: id, k0: `other ${id}` })) } });
  const keptNamed = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, rowsFrom: { sourceId: named.body.data.id, keepColumns: ['k1', 'k0'] } } });
  assert.equal(keptNamed.status, 202, JSON.stringify(keptNamed.body));
  const namedRun = await waitForRun(twin, keptNamed.body.data.runId);
  const namedRows = (await app.call({ method: 'GET', url: `${twin.simulations}/${namedRun.id}/rows?limit=100` })).body.data as Array<Record<string, any>>;
  assert.deepEqual(namedRows.map((row) => [row.k1, row.k0]), rows.slice(0, 20).map((row) => [row.id, `other ${row.id}`]));

  // A sorted dataset is read in its own order (staged once, not by row key), its kept columns beside each row.
  const sorted = await app.call({
    method: 'POST', url: `${API}/workspaces/${twin.ws}/datasets`,
    body: { name: 'by w', sources: [{ id: scoring.id }], operations: [{ sourceId: scoring.id, config: { type: 'sort', keys: [{ column: 'w', direction: 'desc' }] } }] },
  });
  assert.equal(sorted.status, 201, JSON.stringify(sorted.body));
  const accepted = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, rowsFrom: { datasetId: sorted.body.data.id, limit: 30, keepColumns: ['id'] } } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  const done = await waitForRun(twin, accepted.body.data.runId);
  assert.equal(done.status, 'completed', done.error);
  const table = (await app.call({ method: 'GET', url: `${twin.simulations}/${done.id}/rows?limit=100` })).body.data as Array<Record<string, any>>;
  const top = [...rows].sort((p, q) => Number(q.w) - Number(p.w)).slice(0, 30);
  assert.deepEqual(table.map((row) => row.id), top.map((row) => row.id));
  const topInline = await run({ rows: top.map(({ id: _id, ...row }) => row) });
  assert.deepEqual(table.map((row) => row.verdict), topInline.map((row: { verdict: string }) => row.verdict));
});
