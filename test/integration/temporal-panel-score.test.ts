/**
 * Scoring rows on a temporal panel: each row names its environment and its day; an environment's rows are scored
 * at their steps after that environment's own past (the rows before them, then the data the version keeps), with
 * that environment's mechanisms; checked against the known generating model.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { type TrainedTwin, waitForRun } from '../helpers/simulations.js';
import { temporalPanelRows, temporalPanelTruth } from '../helpers/temporal-panel.js';

const API = '/api/v1';

test('a temporal panel scores each row at its step with its environment\'s mechanisms and past', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const truth = temporalPanelTruth(6, 23, { minSteps: 250, maxSteps: 300 });
  const { rows } = temporalPanelRows(truth, 24);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'site series', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'Sites over time', type: 'multi-environment-temporal', sourceId: source.body.data.id, environmentColumns: ['site'], selectedTimeColumnName: 'day' } });
  const base = `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}`;
  const accepted = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 0, alpha: 0.01, maxLag: 1 } });
  assert.equal((await waitForJob(app, ws, accepted.body.data.jobId, 120_000)).status, 'completed');
  const versionId = created.body.data.versionId as string;
  const twin: TrainedTwin = { app, ws, twinId: created.body.data.id, versionId, simulations: `${API}/workspaces/${ws}/simulations`, version: `${base}/versions/${versionId}` };

  // Two sites with y -> z and without it, their days 200..219 interleaved.
  const withLink = truth.yz.findIndex((c) => c !== 0);
  const without = truth.yz.findIndex((c) => c === 0);
  const siteRows = (e: number) => rows.filter((r) => r.site === truth.keys[e]!.slice('site='.length)).slice(199, 220);
  const [a, b] = [siteRows(withLink), siteRows(without)];
  const given = a.slice(1).flatMap((row, k) => [row, b[k + 1]!]);
  // z = 0.5 level + yz y + 0.5 z(t-1): the mean each site's mechanism gives.
  const expected = (e: number, days: typeof a, k: number) => 0.5 * truth.zLevel[e]! + truth.yz[e]! * (days[k]!.y as number) + 0.5 * (days[k - 1]!.z as number);
  const means = given.map((_, i) => (i % 2 === 0 ? expected(withLink, a, i / 2 + 1) : expected(without, b, (i - 1) / 2 + 1)));
  const threshold = [...means].sort((x, y) => x - y)[Math.floor(means.length / 2)]!;
  const targets = [{ variable: 'z', value: threshold, matchMode: 'orLess' }];
  const submitted = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { rows: given, targets } });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  const run = await waitForRun(twin, submitted.body.data.runId);
  assert.equal(run.status, 'completed', run.error);
  const scored = (await app.call({ method: 'GET', url: `${twin.simulations}/${run.id}/score?limit=100` })).body.data;
  assert.equal(scored.rows.length, given.length);
  scored.rows.forEach((row: Record<string, any>, i: number) => {
    assert.ok(Math.abs(row.predictions.z - means[i]!) < 0.5, `row ${i} (${given[i]!.site} ${given[i]!.day}): predicted ${row.predictions.z}, model ${means[i]}`);
    assert.equal(row.verdict, row.predictions.z <= threshold ? 'meets' : 'misses');
    if (i % 2 === 0 && row.verdict === 'misses') assert.deepEqual(row.changes.map((c: { variable: string }) => c.variable), ['y'], JSON.stringify(row));
  });
  assert.match(scored.digest.rowSummaries[1].summary, new RegExp(`^${truth.keys[without]}: `));

  // By reference: each site's rows in time order, as the same rows sent inline in that order answer; a site the twin
  // never saw cannot be followed in time, so its row is unscorable, and the run says so.
  const stored: Array<Record<string, number | string>> = [...given.map((row, i) => ({ id: `r${i}`, ...row })), { id: 'elsewhere', ...given[0]!, site: 'nowhere' }];
  const source2 = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'to score', rows: [...stored].reverse() } });
  assert.equal(source2.status, 201, JSON.stringify(source2.body));
  const byReference = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, rowsFrom: { sourceId: source2.body.data.id, keepColumns: ['id'] } } });
  assert.equal(byReference.status, 202, JSON.stringify(byReference.body));
  const referenced = await waitForRun(twin, byReference.body.data.runId);
  assert.equal(referenced.status, 'completed', referenced.error);
  assert.equal(referenced.outputs['1.0.0'].details.unknownEnvironmentRows, 1);
  assert.match(referenced.resultsSummary.keyPoints.join(' '), /1 row named no environment of the twin and could not be scored/);
  const table = (await app.call({ method: 'GET', url: `${twin.simulations}/${referenced.id}/rows?limit=100` })).body.data as Array<Record<string, any>>;
  const order = [...stored].sort((x, y) => (x.site === y.site ? String(x.day).localeCompare(String(y.day)) : String(x.site).localeCompare(String(y.site))));
  assert.deepEqual(table.map((r) => r.id), order.map((r) => r.id));
  const referencedRows = (await app.call({ method: 'GET', url: `${twin.simulations}/${referenced.id}/score?limit=100` })).body.data.rows as Array<Record<string, any>>;
  order.forEach((row, k) => {
    if (row.id === 'elsewhere') assert.deepEqual([referencedRows[k]!.verdict, referencedRows[k]!.predictions.z, referencedRows[k]!.drivers], ['unscorable', null, []]);
    else assert.deepEqual({ ...referencedRows[k], index: 0 }, { ...scored.rows[Number(String(row.id).slice(1))], index: 0 }, String(row.id));
  });

  // Refused at submit: rows naming no environment, and one environment's rows out of time order.
  const refused = async (body: Record<string, unknown>, location: string, message: RegExp) => {
    const response = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, ...body } });
    assert.equal(response.status, 422, JSON.stringify(response.body));
    assert.ok(response.body.errors.some((e: { location: string; message: string }) => e.location === location && message.test(e.message)), JSON.stringify(response.body));
  };
  await refused({ rows: given.map(({ site: _site, ...row }) => row) }, 'body/rows/0', /names its environment/);
  await refused({ rows: [given[2], given[1], given[0]] }, 'body/rows/2', /time order/);
});
