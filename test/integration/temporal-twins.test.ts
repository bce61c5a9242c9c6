import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { seededRandom } from '../helpers/simulated.js';
import { type TrainedTwin, completedRun, scenarioChecks } from '../helpers/simulations.js';
import { COEFFICIENTS, DAY, START, dailySeries as series } from '../helpers/temporal.js';

const API = '/api/v1';
test('a temporal twin learns lags, seasonality and gaps from a daily series, forecasts, and answers a what-if over time', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const days = 700;
  const { rows, truth } = series(days);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'daily', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'daily', type: 'temporal', selectedTimeColumnName: 'day', sourceId: source.body.data.id } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const twinId = created.body.data.id;
  const versionId = created.body.data.versionId;
  const version = `${API}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}`;
  const learn = async () => {
    const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: {} });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    const done = await waitForJob(app, ws, job.body.data.jobId);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    return (await app.call({ method: 'GET', url: version })).body.data;
  };
  const learned = await learn();

  // The series: daily, its gaps and duplicate days reported, the weekly wave of visits found.
  assert.equal(learned.granularity, 'day');
  const profile = learned.timeSeriesMetadata;
  assert.equal(profile.steps, days);
  assert.equal(profile.gaps.missingSteps, 7);
  assert.ok(profile.duplicateTimestampRows >= 6, JSON.stringify(profile));
  assert.ok(profile.missingShare.visits > 0);
  assert.ok(profile.seasonalPeriods.some((s: { variable: string; period: number }) => s.variable === 'visits' && Math.abs(s.period - 7) < 0.01), JSON.stringify(profile.seasonalPeriods));

  // The graph: ads acts on visits a day later, visits on sales the same day (compelled by ads' lag), nothing else.
  const edge = (s: string, target: string) => learned.causalGraph.find((e: { source: string; target: string }) => e.source === s && e.target === target);
  assert.deepEqual(edge('ads', 'visits').timeLagEffects.map((l: { lag: number }) => l.lag), [1]);
  assert.equal(edge('ads', 'visits').orientation, 'compelled');
  assert.ok(edge('ads', 'visits').timeLagEffects[0].granularity === 'day');
  assert.ok(edge('ads', 'visits').cyclicalEffects.some((c: { frequency: number }) => Math.abs(c.frequency - 1 / 7) < 1e-3));
  assert.deepEqual(edge('visits', 'sales').timeLagEffects.map((l: { lag: number }) => l.lag), [0]);
  assert.equal(edge('visits', 'sales').orientation, 'compelled');
  // Confidence from rediscovery on half-length windows of the series: both links hold in most windows.
  for (const [s, target] of [['ads', 'visits'], ['visits', 'sales']] as const) assert.ok(edge(s, target).confidence >= 0.75, `${s} -> ${target}: ${edge(s, target).confidence}`);
  assert.equal(learned.discovery.bootstrapSamples, 8);
  assert.equal(learned.causalGraph.length, 2, JSON.stringify(learned.causalGraph.map((e: { source: string; target: string }) => `${e.source}->${e.target}`)));
  const links = learned.temporalDependencies.links as Array<{ source: string; target: string; lag: number }>;
  for (const own of ['ads', 'visits', 'sales']) assert.ok(links.some((l) => l.source === own && l.target === own && l.lag === 1), `${own} depends on its own past`);
  assert.equal(learned.evaluation.modelType, 'temporal-cbn');
  assert.ok(learned.evaluation.nodeMetrics.sales.r2 > 0.5, JSON.stringify(learned.evaluation.nodeMetrics.sales));
  assert.ok(learned.evaluation.nodeMetrics.sales.mseHorizon > 0);
  assert.ok(learned.evaluation.globalMetrics.horizonSteps >= 1);
  assert.equal(learned.changelog.temporalDependenciesDiffs.length, links.length);

  const twin: TrainedTwin = { app, ws, twinId, versionId, simulations: `${API}/workspaces/${ws}/simulations`, version };
  // forecast from the end of the data: daily timestamps after the last day, history before it.
  const forecast = await completedRun(twin, { type: 'forecast', forecastH: 14, targetVars: ['visits', 'sales'] });
  const out = forecast.outputs['1.0.0'];
  assert.equal(out.results.visits.length, 14);
  assert.deepEqual(out.results.visits.slice(0, 2).map((r: { timestamp: number }) => r.timestamp), [START + days * DAY, START + (days + 1) * DAY]);
  assert.ok(out.results.sales.every((r: { lowerBound: number; prediction: number; upperBound: number }) => r.lowerBound < r.prediction && r.prediction < r.upperBound));
  assert.equal(out.history.sales.timestamps.at(-1), START + (days - 1) * DAY);
  assert.ok(Array.isArray(out.changepoints.visits));
  // The weekly wave shows in the forecast: its turning points are driven by the season or visits' own past.
  assert.ok(out.changepoints.visits.length >= 2, JSON.stringify(out.changepoints.visits));
  assert.match(forecast.resultsSummary.summary, /Forecast of 2 variables over 14 steps/);

  // From an origin inside the data: a backtest whose 90% intervals cover what happened about 90% of the time.
  const origin = START + 500 * DAY;
  const backtest = (await completedRun(twin, { type: 'forecast', forecastH: 1, originTimestamp: origin, confidenceLevel: 0.9 })).outputs['1.0.0'];
  assert.equal(backtest.results.sales[0].timestamp, origin);
  assert.equal(backtest.details.actuals.sales[0], Math.round(truth[500]!.sales * 1e4) / 1e4);

  // What if ads were held 10 above their level from the first forecast step on: visits and sales follow with the lags.
  const adsLevel = COEFFICIENTS.ads.c / (1 - COEFFICIENTS.ads.ar);
  const whatIf = await completedRun(twin, {
    type: 'temporal_intervention',
    interventions: [{ variable: 'ads', valueSpec: { type: 'set_value', value: adsLevel + 10 } }],
    forecastH: 12,
    metrics: [{ name: 'mean sales', sqlQuery: 'SELECT avg(sales) AS value FROM df WHERE step >= 6' }],
  });
  const details = whatIf.outputs['1.0.0'].details;
  // The truth, on mean paths: ads moves by (level + 10 - its baseline mean path), visits and sales follow.
  const last = truth.at(-1)!;
  let ads = last.ads;
  let visits = { base: last.visits, diff: 0 };
  let sales = 0;
  let adsDiffBefore = 0;
  const truthSales: number[] = [];
  for (let h = 0; h < 12; h++) {
    ads = COEFFICIENTS.ads.c + COEFFICIENTS.ads.ar * ads;
    const visitsDiff = COEFFICIENTS.visits.ar * visits.diff + COEFFICIENTS.visits.ads * adsDiffBefore;
    visits = { base: visits.base, diff: visitsDiff };
    sales = COEFFICIENTS.sales.ar * sales + COEFFICIENTS.sales.visits * visitsDiff;
    truthSales.push(sales);
    adsDiffBefore = adsLevel + 10 - ads;
  }
  const effect = details.effects.sales as Array<{ mean: number; lowerBound: number; upperBound: number }>;
  assert.ok(Math.abs(effect[0]!.mean) < 0.5, 'no effect on sales the same day ads change (the link is lagged)');
  for (const h of [5, 11]) {
    assert.ok(Math.abs(effect[h]!.mean - truthSales[h]!) < 0.1 * Math.abs(truthSales[h]!), `step ${h}: effect ${effect[h]!.mean}, truth ${truthSales[h]}`);
    assert.ok(effect[h]!.lowerBound <= truthSales[h]! && truthSales[h]! <= effect[h]!.upperBound, `step ${h}: interval ${effect[h]!.lowerBound}..${effect[h]!.upperBound}, truth ${truthSales[h]}`);
  }
  assert.equal(details.identification.sales.identified, true);
  assert.ok(details.metrics[0].difference > 0);
  assert.match(whatIf.resultsSummary.summary, /Changing ads over the 12-step horizon/);

  // A range sweeps ads: mean sales over the horizon rise with them, read back from the sweep endpoint.
  const swept = await completedRun(twin, { type: 'temporal_intervention', interventions: [{ variable: 'ads', valueSpec: { type: 'range', from: adsLevel, to: adsLevel + 20, steps: 3 } }], forecastH: 8 });
  const curve = await app.call({ method: 'GET', url: `${twin.simulations}/${swept.id}/sweep?metric=sales` });
  assert.equal(curve.status, 200, JSON.stringify(curve.body));
  const means = curve.body.data.points.map((p: { mean: number }) => p.mean);
  assert.equal(means.length, 3);
  assert.ok(means[0] < means[1] && means[1] < means[2], `sales over the sweep: ${means.join(', ')}`);
  assert.equal(curve.body.data.identified, true);

  // Pins name a lag: sales two days back on ads, pinned, is fitted at that lag and marked fixed.
  assert.equal((await app.call({ method: 'PATCH', url: `${version}/graph/fixed`, body: { addEdges: [{ source: 'sales', target: 'ads', lag: 2 }] } })).status, 200);
  const pinned = await learn();
  const pin = pinned.causalGraph.find((e: { source: string; target: string }) => e.source === 'sales' && e.target === 'ads');
  assert.equal(pin.orientation, 'fixed');
  assert.deepEqual(pin.timeLagEffects.map((l: { lag: number }) => l.lag), [2]);
});

test('temporal questions are checked at submit: the family, the variables and the times', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const { rows } = series(300);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'daily', rows } });
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'daily', type: 'temporal', selectedTimeColumnName: 'day', sourceId: source.body.data.id } });
  const twinId = created.body.data.id;
  const versionId = created.body.data.versionId;
  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: {} });
  assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
  const { refusal } = scenarioChecks({ app, simulations: `${API}/workspaces/${ws}/simulations`, twinId, versionId });
  await refusal({ type: 'panel_forecast', forecastH: 3 }, 'body/scenario/type', /does not match this temporal twin/);
  await refusal({ type: 'intervention', interventions: [{ variable: 'ads', valueSpec: { type: 'set_value', value: 1 } }] }, 'body/scenario/type', /does not match this temporal twin; it answers forecast, temporal_intervention/);
  await refusal({ type: 'forecast', forecastH: 5, targetVars: ['revenue'] }, 'body/scenario/targetVars/0', /unknown variable 'revenue'/);
  await refusal({ type: 'forecast', forecastH: 5, originTimestamp: START }, 'body/scenario/originTimestamp', /before the history this version keeps/);
  await refusal({ type: 'forecast' }, 'body/scenario', /forecastH/);
  // What a run may simulate at once is bounded: paths x steps x variables.
  await refusal({ type: 'forecast', forecastH: 1000, samples: 20_000 }, 'body/scenario/samples', /simulated values; at most 20000000: lower samples or forecastH/);
  await refusal(
    { type: 'temporal_intervention', interventions: [{ variable: 'ads', valueSpec: { type: 'range', from: 1, to: 2, steps: 3 } }, { variable: 'visits', valueSpec: { type: 'range', from: 1, to: 2, steps: 3 } }] },
    'body/scenario/interventions',
    /at most one range/,
  );
  await refusal(
    { type: 'temporal_intervention', interventions: [{ variable: 'ads', valueSpec: { type: 'set_value', value: 1 }, persistent: true, durationSteps: 3 }] },
    'body/scenario/interventions/0/durationSteps',
    /not both/,
  );
  // Plain English: a horizon in days or weeks becomes the twin's steps, for forecasts and what-ifs over time.
  const fromQuery = (query: string) => app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}/scenario-from-query`, body: { query } });
  const read = await fromQuery('forecast sales for the next 2 weeks');
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.deepEqual(read.body.data.scenario, { type: 'forecast', forecastH: 14, targetVars: ['sales'] });
  assert.match(read.body.data.interpretation, /over the next 14 steps \(2 weeks\)/);
  assert.deepEqual((await fromQuery('what will visits and ads be')).body.data.scenario, { type: 'forecast', forecastH: 10, targetVars: ['visits', 'ads'] });
  const whatIf = await fromQuery('what if ads rise 10% over the next 3 weeks');
  assert.equal(whatIf.status, 200, JSON.stringify(whatIf.body));
  assert.deepEqual(whatIf.body.data.scenario, { type: 'temporal_intervention', interventions: [{ variable: 'ads', valueSpec: { type: 'relative_change', mode: 'percentage', value: 10 } }], forecastH: 21 });
  assert.equal((await fromQuery('what if ads rise 10% for customers with sales above 5')).status, 422);
  // A start date: a month named alone is its first day after the data end; a full date is taken as said.
  const learnedProfile = (await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}` })).body.data.timeSeriesMetadata;
  const end = Date.parse(learnedProfile.end);
  const endYear = new Date(end).getUTCFullYear();
  const nextJune = Date.UTC(endYear, 5, 1) > end ? Date.UTC(endYear, 5, 1) : Date.UTC(endYear + 1, 5, 1);
  const fromJune = await fromQuery('what if ads rise 10% from June over the next 3 weeks');
  assert.equal(fromJune.status, 200, JSON.stringify(fromJune.body));
  assert.deepEqual(fromJune.body.data.scenario, { type: 'temporal_intervention', interventions: [{ variable: 'ads', valueSpec: { type: 'relative_change', mode: 'percentage', value: 10 }, timestamp: nextJune }], forecastH: 21 });
  assert.match(fromJune.body.data.interpretation, new RegExp(`held from ${new Date(nextJune).toISOString().slice(0, 10)} \\("June"\\)`));
  const dated = await fromQuery(`what if ads were set to 40 starting 15 March ${endYear + 1}`);
  assert.equal(dated.status, 200, JSON.stringify(dated.body));
  assert.equal(dated.body.data.scenario.interventions[0].timestamp, Date.UTC(endYear + 1, 2, 15));
  assert.equal(dated.body.data.scenario.interventions[0].valueSpec.value, 40);
  const iso = await fromQuery(`what if ads rise 5% as of ${endYear + 1}-02-01`);
  assert.equal(iso.body.data.scenario.interventions[0].timestamp, Date.UTC(endYear + 1, 1, 1), JSON.stringify(iso.body));
});

test('temporal twins on an integer time axis and on hourly datetimes, with a categorical series; a text time column fails the job saying why', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const random = seededRandom(5);
  const learn = async (name: string, rows: Array<Record<string, unknown>>, timeColumn: string) => {
    const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows } });
    assert.equal(source.status, 201, JSON.stringify(source.body));
    const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name, type: 'temporal', selectedTimeColumnName: timeColumn, sourceId: source.body.data.id } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}/run-pipeline`, body: { bootstrapSamples: 0 } });
    const done = await waitForJob(app, ws, job.body.data.jobId);
    const version = `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}/versions/${created.body.data.versionId}`;
    const twin: TrainedTwin = { app, ws, twinId: created.body.data.id, versionId: created.body.data.versionId, simulations: `${API}/workspaces/${ws}/simulations`, version };
    return { done, twin, record: (await app.call({ method: 'GET', url: version })).body.data };
  };

  // Periods 1..400: load drives the shift's class a period later.
  let load = 0;
  const periods = Array.from({ length: 400 }, (_, k) => {
    const shift = load > 0.3 ? 'busy' : 'calm';
    load = 0.7 * load + random.normal();
    return { period: k + 1, load: Math.round(load * 1e4) / 1e4, shift };
  });
  const integer = await learn('periods', periods, 'period');
  assert.equal(integer.done.status, 'completed', JSON.stringify(integer.done));
  assert.equal(integer.record.granularity, 'step');
  const link = integer.record.causalGraph.find((e: { source: string; target: string }) => e.source === 'load' && e.target === 'shift');
  assert.deepEqual(link?.timeLagEffects.map((l: { lag: number }) => l.lag), [1]);
  const forecast = (await completedRun(integer.twin, { type: 'forecast', forecastH: 3 })).outputs['1.0.0'];
  assert.deepEqual(forecast.results.shift.map((r: { timestamp: number }) => r.timestamp), [401, 402, 403]);
  assert.deepEqual(forecast.results.shift[0].categories.slice().sort(), ['busy', 'calm']);
  assert.ok(['busy', 'calm'].includes(forecast.results.shift[0].prediction));

  // Hourly datetimes.
  const hourly = Array.from({ length: 300 }, (_, k) => ({ at: new Date(Date.UTC(2024, 5, 1, k)).toISOString().slice(0, 19).replace('T', ' '), a: random.normal(), b: random.normal() }));
  hourly.forEach((row, k) => k > 0 && (row.b += 0.9 * hourly[k - 1]!.a));
  const hours = await learn('hourly', hourly, 'at');
  assert.equal(hours.done.status, 'completed', JSON.stringify(hours.done));
  assert.equal(hours.record.granularity, 'hour');
  const next = (await completedRun(hours.twin, { type: 'forecast', forecastH: 2, targetVars: ['b'] })).outputs['1.0.0'];
  assert.deepEqual(next.results.b.map((r: { timestamp: number }) => new Date(r.timestamp).toISOString()), ['2024-06-13T12:00:00.000Z', '2024-06-13T13:00:00.000Z']);

  // A text column cannot order the rows.
  const text = await learn('labels', periods.map((row) => ({ ...row, label: `p-${row.period}` })), 'label');
  assert.equal(text.done.status, 'failed');
  assert.match(text.done.error, /time column label must hold dates, datetimes or integers; it holds/);
});
