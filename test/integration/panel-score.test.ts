/**
 * Scoring rows on a static panel (POST .../versions/{vId}/score on a multi-environment-static twin): each row judged
 * by the mechanisms of the environment its environment columns name, inline or by reference, the groups merged
 * back in the rows' order; rows naming no environment of the twin use the pooled mechanisms and the run says so.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { panelRows, panelTruth, sitePanel } from '../helpers/panel.js';
import { completedRun, scoredRows } from '../helpers/simulations.js';

const API = '/api/v1';

test('a static panel scores each row by the mechanisms of the environment it names, inline and by reference', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const truth = panelTruth(12, 5, { minRows: 40, maxRows: 300 });
  const { twin } = await sitePanel(app, ws, 'scored sites', panelRows(truth, 6));

  // The two sites whose intercepts of c lie furthest apart answer the same inputs differently.
  const order = truth.keys.map((key, e) => ({ key, c: truth.intercepts[e]!.c! })).sort((a, b) => a.c - b.c);
  const [low, high] = [order[0]!.key, order.at(-1)!.key];
  const site = (key: string) => key.slice('site='.length);
  const inputs = { a: 0.5, b: 0, d: 0, e: 0 };
  const predicted = await completedRun(twin, { type: 'prediction', sample: [{ site: site(low), ...inputs }, { site: site(high), ...inputs }], targetVars: ['c'] });
  const [atLow, atHigh] = predicted.outputs['1.0.0'].results.c.map((r: { prediction: number }) => r.prediction) as [number, number];
  assert.ok(atHigh - atLow > 1, `sites apart: ${atLow} and ${atHigh}`);
  const targets = [{ variable: 'c', value: (atLow + atHigh) / 2, matchMode: 'orLess' }];

  // Interleaved rows of both sites: the low site meets, the high one misses and is told what would meet.
  const rows = Array.from({ length: 6 }, (_, i) => ({ site: site(i % 2 === 0 ? low : high), ...inputs, a: inputs.a + 0.01 * i }));
  const mixed = await scoredRows(twin, { rows, targets });
  assert.deepEqual(mixed.rows.map((r) => r.verdict), ['meets', 'misses', 'meets', 'misses', 'meets', 'misses']);
  assert.ok(Math.abs(mixed.rows[0]!.predictions.c - atLow) < 1e-6 && Math.abs(mixed.rows[1]!.predictions.c - atHigh) < 0.05, JSON.stringify(mixed.rows.slice(0, 2)));
  assert.ok(mixed.rows.filter((r) => r.verdict === 'misses').every((r) => r.reachable === true && r.changes.length > 0), JSON.stringify(mixed.rows));
  assert.deepEqual(mixed.run.outputs['1.0.0'].details.unknownEnvironmentRows, 0);
  assert.match(mixed.run.resultsSummary.keyPoints.join(' '), /scored with the mechanisms of the environment its site names/);
  assert.match(mixed.digest.rowSummaries[1].summary, new RegExp(`^${high}: Misses`));
  // Merged back in order: each row answers as it does when its site's rows are scored alone.
  for (const key of [low, high]) {
    const alone = await scoredRows(twin, { rows: rows.filter((row) => row.site === site(key)), targets });
    const same = mixed.rows.filter((row) => rows[row.index]!.site === site(key)).map(({ index: _index, ...row }) => row);
    assert.deepEqual(same, alone.rows.map(({ index: _index, ...row }) => row), key);
  }

  // By reference: the same rows answer the same; a site the twin never saw takes the pooled mechanisms, as rows
  // naming no site inline do.
  const stored = [...rows.slice(0, 2).map((row, i) => ({ id: `r${i}`, ...row })), { id: 'r2', site: 'nowhere', ...inputs }];
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'to score', rows: stored } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const byReference = await scoredRows(twin, { rowsFrom: { sourceId: source.body.data.id, keepColumns: ['id'] }, targets });
  assert.deepEqual(byReference.rows.slice(0, 2), mixed.rows.slice(0, 2));
  assert.equal(byReference.run.outputs['1.0.0'].details.unknownEnvironmentRows, 1);
  // Nothing kept: read straight from the data by its row key, the environment codes counted as the chunks are read.
  const direct = await scoredRows(twin, { rowsFrom: { sourceId: source.body.data.id }, targets });
  assert.deepEqual(direct.rows, byReference.rows);
  assert.equal(direct.run.outputs['1.0.0'].details.unknownEnvironmentRows, 1);
  assert.match(byReference.run.resultsSummary.keyPoints.join(' '), /1 row named no environment of the twin and was scored with the pooled mechanisms/);
  const pooled = await scoredRows(twin, { rows: [inputs], targets });
  assert.equal(pooled.run.outputs['1.0.0'].details.unknownEnvironmentRows, 1);
  assert.deepEqual({ ...pooled.rows[0], index: 2 }, byReference.rows[2]);
  assert.ok(Math.abs(pooled.rows[0]!.predictions.c - atLow) > 1e-3 && Math.abs(pooled.rows[0]!.predictions.c - atHigh) > 1e-3, 'pooled is neither site');

  // Refused at submit, located in the score body.
  const refused = async (body: Record<string, unknown>, location: string, message: RegExp) => {
    const response = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, ...body } });
    assert.equal(response.status, 422, JSON.stringify(response.body));
    assert.ok(response.body.errors.some((e: { location: string; message: string }) => e.location === location && message.test(e.message)), JSON.stringify(response.body));
  };
  await refused({ rows: [{ site: site(low), ...inputs }, inputs] }, 'body/rows/1', /name their environment/);
  await refused({ rows: [{ site: 'nowhere', ...inputs }] }, 'body/rows/0', /not an environment of this version/);
  await refused({ rows: [{ ...inputs, f: 1 }] }, 'body/rows', /unknown variable 'f'/);
  // As columnar JSON, located at the row of the table.
  await refused({ rowsTable: { columns: ['site', ...Object.keys(inputs)], rows: [[site(low), ...Object.values(inputs)], ['nowhere', ...Object.values(inputs)]] } }, 'body/rowsTable/rows/1', /not an environment of this version/);
  await refused({ rows: [inputs], targets: [{ variable: 'nope', value: 1 }] }, 'body/targets/0/variable', /nope/);
  const noSite = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'no site', rows: [inputs] } });
  await refused({ rowsFrom: { sourceId: noSite.body.data.id } }, 'body/rowsFrom', /environment columns \(site\)/);
});
