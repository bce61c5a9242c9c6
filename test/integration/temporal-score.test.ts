/**
 * Scoring rows on a temporal twin: each row is a step, its targets predicted from the same step's inputs and the
 * steps before it (the lagged design the model was fitted on: the rows before it, and before the first row the data
 * the version keeps), judged, and, when it misses, given the fewest changes to its own step's values (the past and
 * the seasons stay as they were); checked against the known daily model.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COEFFICIENTS, DAY, dailyRecords, dailyTruth, dailyTwin } from '../helpers/temporal.js';
import { scoredRows, waitForRun } from '../helpers/simulations.js';

const DAYS = 400;

test('a temporal twin scores each row at its own step, after the steps before it', async (t) => {
  const twin = await dailyTwin(t, DAYS);
  const { app } = twin;
  const truth = dailyTruth(DAYS);
  const records = dailyRecords(truth, 300, 340);
  const before = dailyRecords(truth, 299, 300)[0]!;
  // sales(t) = 5 + 0.3 sales(t-1) + 0.4 visits(t): the model's one-step prediction from the row and the day before.
  const yesterday = (k: number) => (k === 0 ? before : records[k - 1]!);
  const expected = (k: number) => COEFFICIENTS.sales.c + COEFFICIENTS.sales.ar * yesterday(k).sales + COEFFICIENTS.sales.visits * records[k]!.visits;
  const middle = records.map((_, k) => expected(k)).sort((a, b) => a - b)[20]!;
  const targets = [{ variable: 'sales', value: middle, matchMode: 'orLess' }];
  const { rows, digest } = await scoredRows(twin, { rows: records, targets });
  assert.equal(rows.length, records.length);
  // Every row is scored: the first rows' past is the data the version keeps (the days before day 300).
  for (const [k, row] of rows.entries()) {
    assert.ok(Math.abs(row.predictions.sales - expected(k)) < 0.6, `day ${k}: predicted ${row.predictions.sales}, model ${expected(k)}`);
    assert.equal(row.verdict, row.predictions.sales <= middle ? 'meets' : 'misses');
    // Only the day's own values can change, and of them only visits moves sales the same day.
    if (row.verdict === 'misses') {
      assert.equal(row.reachable, true, JSON.stringify(row));
      assert.deepEqual(row.changes.map((c: { variable: string }) => c.variable), ['visits'], JSON.stringify(row));
      assert.ok(row.changes[0].to < row.changes[0].from, JSON.stringify(row));
    }
  }
  const verdicts = digest.verdicts as { meets: number; misses: number };
  assert.ok(verdicts.meets >= 10 && verdicts.misses >= 10, JSON.stringify(verdicts));
  assert.ok(rows.every((r) => r.drivers.some((d: { variable: string }) => d.variable === 'visits' || d.variable === 'sales⟨t-1⟩')), 'drivers name the day and its past');

  // Days after the data with no kept past: a row needs as many steps before it as the longest lag into sales (at
  // least sales' own yesterday); the first rows cannot be scored, and their summaries name the past they lack.
  const version = (await app.call({ method: 'GET', url: twin.version })).body.data;
  const links = version.temporalDependencies.links as Array<{ target: string; lag: number }>;
  const lags = new Set(links.filter((l) => l.target === 'sales' && l.lag > 0).map((l) => l.lag));
  const history = Math.max(...lags);
  assert.ok(lags.has(1) && history <= 7, `lags into sales ${[...lags]}`);
  const later = (day: string) => new Date(Date.parse(day) + 1000 * DAY).toISOString().slice(0, 10);
  const future = await scoredRows(twin, { rows: records.map((r) => ({ ...r, day: later(r.day) })), targets });
  future.rows.forEach((row, k) => assert.equal(row.verdict === 'unscorable', k < history, `future day ${k}`));
  assert.match(future.digest.rowSummaries[0].summary, /^Unscorable: no value for .*sales⟨t-1⟩/);

  // A day the rows skip is missing: the days whose lags reach it lack their past; the others answer as before.
  const skipping = [...records.slice(0, 20), ...records.slice(21, 40)];
  const gap = await scoredRows(twin, { rows: skipping, targets });
  gap.rows.forEach((row, i) => {
    const day = i < 20 ? i : i + 1;
    if (day > 20 && lags.has(day - 20)) assert.equal(row.verdict, 'unscorable', `day ${day}`);
    else assert.equal(row.predictions.sales, rows[day]!.predictions.sales, `day ${day}`);
  });

  // Refused at submit: rows out of time order or two on one day, unknown variables, data that is not there.
  const refused = async (body: Record<string, unknown>, location: string, message: RegExp) => {
    const response = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, ...body } });
    assert.equal(response.status, 422, JSON.stringify(response.body));
    assert.ok(response.body.errors.some((e: { location: string; message: string }) => e.location === location && message.test(e.message)), JSON.stringify(response.body));
  };
  await refused({ rows: [records[2], records[1]] }, 'body/rows/1', /time order/);
  const header = Object.keys(records[1]!);
  await refused({ rowsTable: { columns: header, rows: [records[2], records[1]].map((record) => header.map((name) => record![name as keyof typeof record])) } }, 'body/rowsTable/rows/1', /time order/);
  await refused({ rows: [records[1], { ...records[1], day: `${records[1]!.day}T06:00:00Z` }] }, 'body/rows/1', /one day step/);
  await refused({ rows: [{ ...records[1], clicks: 3 }] }, 'body/rows', /unknown variable 'clicks'/);
  await refused({ rowsFrom: { sourceId: 'src_doesnotexist' } }, 'body/rowsFrom/sourceId', /not a tabular source/);
});

test('a temporal twin scores rows read by reference in time order, chunk after chunk, as it scores them inline', async (t) => {
  const twin = await dailyTwin(t, DAYS);
  const { app } = twin;
  // 10,500 days after the data (more than one chunk of 10,000 rows), stored shuffled, one without a day.
  const truth = dailyTruth(DAYS + 10_500);
  const records = dailyRecords(truth, DAYS, DAYS + 10_500);
  const stored = [...records.map((r, i) => ({ id: `d${i}`, ...r })), { id: 'none', day: null, ads: 1, visits: 1, sales: 1 }];
  const shuffled = stored.map((row, k) => ({ row, at: (k * 7919) % stored.length })).sort((x, y) => x.at - y.at).map(({ row }) => row);
  const source = await app.call({ method: 'POST', url: `/api/v1/workspaces/${twin.ws}/sources/from-data`, body: { name: 'days to score', rows: shuffled } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const targets = [{ variable: 'sales', value: 62, matchMode: 'orLess' }];
  const run = async (body: Record<string, unknown>) => {
    const accepted = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, ...body } });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const done = await waitForRun(twin, accepted.body.data.runId, 120_000);
    assert.equal(done.status, 'completed', done.error);
    return done;
  };
  const inline = await run({ rows: records });
  const byReference = await run({ rowsFrom: { sourceId: source.body.data.id, keepColumns: ['id'] } });
  assert.equal(byReference.outputs['1.0.0'].details.chunks, 2);
  const page = async (id: string, cursor: string | null) => (await app.call({ method: 'GET', url: `${twin.simulations}/${id}/score?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}` })).body.data;
  let cursors: [string | null, string | null] = [null, null];
  let compared = 0;
  do {
    const [a, b] = [await page(inline.id, cursors[0]), await page(byReference.id, cursors[1])];
    assert.deepEqual(b.rows, a.rows);
    compared += a.rows.length;
    cursors = [a.pagination.hasMore ? a.pagination.cursor : null, b.pagination.hasMore ? b.pagination.cursor : null];
  } while (cursors[0] !== null);
  assert.equal(compared, records.length, 'the row without a day is left out');
  const kept = (await app.call({ method: 'GET', url: `${twin.simulations}/${byReference.id}/rows?limit=3` })).body.data;
  assert.deepEqual(kept.map((r: { id: string }) => r.id), ['d0', 'd1', 'd2'], 'rows in time order');
  const refused = async (rows: Array<Record<string, unknown>>, message: RegExp) => {
    const data = await app.call({ method: 'POST', url: `/api/v1/workspaces/${twin.ws}/sources/from-data`, body: { name: 'steps', rows } });
    const response = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, rowsFrom: { sourceId: data.body.data.id } } });
    assert.equal(response.status, 422, JSON.stringify(response.body));
    assert.equal(response.body.errors[0].location, 'body/rowsFrom');
    assert.match(response.body.errors[0].message, message);
  };
  await refused([{ ads: 1, visits: 2, sales: 3 }], /time column 'day'/);
  // Learning combines rows that share a day; scoring answers each row, so the data must say which one is the day's.
  await refused([records[0]!, records[1]!, { ...records[1]!, sales: 70 }], /2 rows share one time .*2\d{3}-\d\d-\d\d.*combine them in a dataset/);
  // Two rows on one day at different hours pass the submit and fail the run, saying which row of the data.
  const hours = await app.call({ method: 'POST', url: `/api/v1/workspaces/${twin.ws}/sources/from-data`, body: { name: 'hours', rows: records.slice(0, 3).flatMap((r) => [{ ...r, day: `${r.day}T06:00:00Z` }, { ...r, day: `${r.day}T18:00:00Z` }]) } });
  const split = await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, rowsFrom: { sourceId: hours.body.data.id } } });
  assert.equal(split.status, 202, JSON.stringify(split.body));
  const failed = await waitForRun(twin, split.body.data.runId);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /the data's row \d in time order \(day 2\d{3}-\d\d-\d\d \d\d:00:00(\.000)?\): two records fall on one day step/);
  // A series whose target's only same-step input is absent still has the target's own past to read.
  const onlySales = await app.call({ method: 'POST', url: `/api/v1/workspaces/${twin.ws}/sources/from-data`, body: { name: 'sales only', rows: records.slice(0, 20).map(({ day, sales }) => ({ day, sales })) } });
  assert.equal((await app.call({ method: 'POST', url: `${twin.version}/score`, body: { targets, rowsFrom: { sourceId: onlySales.body.data.id } } })).status, 202);
});
