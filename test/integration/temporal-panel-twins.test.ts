/**
 * Multi-environment temporal twins over HTTP: a generated temporal panel (test/helpers/temporal-panel.ts) learned
 * through run-pipeline; links, agreement and gating against the truth, each environment's time span, and every
 * temporal panel family: panel_forecast with its combined series and csv export, panel_intervention per
 * environment against the truth, the window families with shared and per-environment windows, and their 422s.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../src/engine/random.js';
import { buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { type TrainedTwin, completedRun, scenarioChecks } from '../helpers/simulations.js';
import { temporalPanelRows, temporalPanelTruth } from '../helpers/temporal-panel.js';

const API = '/api/v1';

test('a multi-environment temporal twin learns shared and gated links and answers every temporal panel family', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const truth = temporalPanelTruth(10, 11, { minSteps: 150, maxSteps: 300 });
  const { rows } = temporalPanelRows(truth, 12);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'site series', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'Sites over time', type: 'multi-environment-temporal', sourceId: source.body.data.id, environmentColumns: ['site'], selectedTimeColumnName: 'day', shardCount: 2 } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const base = `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}`;
  const accepted = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 2, alpha: 0.01, maxLag: 2 } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  const job = await waitForJob(app, ws, accepted.body.data.jobId, 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));

  const version = (await app.call({ method: 'GET', url: `${base}/versions/${created.body.data.versionId}` })).body.data;
  assert.equal(version.status, 'trained');
  assert.equal(version.granularity, 'day');
  assert.equal(version.timeSeriesMetadata.environments, truth.keys.length);
  const edges = new Map<string, Record<string, any>>(version.causalGraph.map((e: Record<string, any>) => [`${e.source}->${e.target}`, e]));
  assert.deepEqual([...edges.keys()].sort(), ['x->w', 'x->y', 'y->z', 'z->w']);
  const yz = edges.get('y->z')!;
  assert.equal(yz.isEnvironmentGated, true, JSON.stringify(yz));
  assert.ok(Math.abs(yz.agreementRate - truth.presence) <= 0.15, `y -> z agreement ${yz.agreementRate} vs ${truth.presence}`);
  assert.equal(yz.orientation, 'compelled', 'the environment orients the same-step link');
  assert.deepEqual(yz.timeLagEffects.map((l: { lag: number }) => l.lag), [0]);
  assert.equal(edges.get('x->y')!.isEnvironmentGated, false);
  assert.ok(edges.get('x->y')!.agreementRate >= 0.85, JSON.stringify(edges.get('x->y')));
  assert.deepEqual(edges.get('z->w')!.timeLagEffects.map((l: { lag: number }) => l.lag), [1]);
  assert.deepEqual(version.nodes.find((n: { name: string }) => n.name === 'z').environmentColumns, ['site']);
  assert.equal(Object.keys(version.panelEvaluation.environments).length, truth.keys.length);
  assert.equal(version.evaluation.modelType, 'temporal-panel-cbn');

  const listing = await app.call({ method: 'GET', url: `${base}/environments` });
  assert.equal(listing.status, 200, JSON.stringify(listing.body));
  const first = listing.body.data.find((e: { key: string }) => e.key === truth.keys[0]);
  assert.deepEqual(first.timeSpan, { start: '2024-01-01T00:00:00.000Z', end: new Date(Date.UTC(2024, 0, 1) + (truth.lengths[0]! - 1) * 86_400_000).toISOString(), steps: truth.lengths[0] });

  const twin: TrainedTwin = { app, ws, twinId: created.body.data.id, versionId: version.id, simulations: `${API}/workspaces/${ws}/simulations`, version: '1.0.0' };

  // panel_forecast: each environment from the end of its own data; the combined series sums them per day.
  const forecast = await completedRun(twin, { type: 'panel_forecast', forecastH: 4, targetVars: ['z', 'w'], aggregateMode: 'sum', samples: 200 });
  assert.deepEqual(forecast.exportFormats, ['json', 'csv']);
  assert.equal(forecast.outputsStorageType, 'inline+datastore');
  const out = forecast.outputs['1.0.0'];
  assert.equal(out.details.aggregateMode, 'sum');
  assert.deepEqual(Object.keys(out.details.environments).sort(), [...truth.keys].sort());
  // Each environment forecasts the 4 days after its own last one: the combined series covers their union.
  const days = new Set(truth.lengths.flatMap((length) => [0, 1, 2, 3].map((h) => length + h)));
  assert.equal(out.results.z.length, days.size);
  assert.deepEqual(out.details.combined.z.map((c: { environments: number }) => c.environments).reduce((a: number, b: number) => a + b, 0), truth.keys.length * 4);
  const csv = await app.call({ method: 'GET', url: `${twin.simulations}/${forecast.id}/export/csv` });
  assert.equal(csv.status, 200, csv.raw.payload);
  const lines = csv.raw.payload.trim().split('\n');
  assert.equal(lines[0], '"environment","timestamp","row","z","z_lower","z_upper","w","w_lower","w_upper"');
  assert.equal(lines.length - 1, truth.keys.length * 4);

  // panel_intervention: z moves by each environment's own y -> z coefficient when y is raised by 1.
  const whatIf = await completedRun(twin, { type: 'panel_intervention', interventions: [{ variable: 'y', valueSpec: { type: 'relative_change', mode: 'absolute', value: 1 } }], forecastH: 2, targetVars: ['z'] });
  const perEnvironment = whatIf.outputs['1.0.0'].details.environments;
  const errors = truth.keys.map((key, e) => Math.abs(perEnvironment[key].details.effects.z[0].mean - truth.yz[e]!));
  assert.ok(errors.filter((x) => x < 0.25).length >= truth.keys.length - 1, `per-environment effect errors ${errors.map((x) => x.toFixed(2)).join(', ')}`);
  assert.equal(whatIf.outputs['1.0.0'].results.z.length, 2, 'combined step by step');

  // Window families: a shared window, or each environment its own (panelSamples).
  const windowOf = (key: string, steps: number) => rows.filter((r) => `site=${r.site}` === key).slice(-steps).map(({ site: _site, ...record }) => record);
  const [a, b] = [truth.keys[0]!, truth.keys[1]!];
  const spiked = windowOf(b, 30).map((r, i) => (i === 25 ? { ...r, x: (r.x as number) + 8 } : r));
  const scan = await completedRun(twin, { type: 'panel_anomaly_detection', panelSamples: { [a]: windowOf(a, 30), [b]: spiked } });
  const scans = scan.outputs['1.0.0'].details.environments;
  assert.deepEqual(Object.keys(scans).sort(), [a, b].sort());
  assert.ok(scans[b].details.steps.find((s: { index: number }) => s.index === 25).isAnomaly, 'the spike is flagged in its environment');
  assert.deepEqual(scan.outputs['1.0.0'].results, {}, 'different windows are not combined');
  const rca = await completedRun(twin, { type: 'panel_root_cause_analysis', targetVariable: 'w', samples: spiked.slice(0, 26), environments: [a, b] });
  assert.equal(Object.keys(rca.outputs['1.0.0'].details.environments).length, 2);
  const health = await completedRun(twin, { type: 'panel_causal_health_monitor', environments: [a], windowSteps: 60 });
  assert.ok(Array.isArray(health.outputs['1.0.0'].details.environments[a].details.links));
  const why = await completedRun(twin, { type: 'panel_explanation', explanationMode: 'discovery', effectVariable: 'w', environments: [a], samples: 300 });
  assert.ok(why.outputs['1.0.0'].details.environments[a].details.causes.length > 0);
  const plan = await completedRun(twin, { type: 'panel_optimisation', decisionVars: ['x'], objectives: [{ variable: 'w', direction: 'maximise' }], variableConstraints: [{ variable: 'x', type: 'range', minValue: -1, maxValue: 1 }], forecastHorizon: 3, environments: [a] });
  assert.equal(plan.outputs['1.0.0'].details.environments[a].details.plan.length, 3);
  const hindsight = await completedRun(twin, { type: 'panel_counterfactual', targets: [{ variable: 'w', value: 50, matchMode: 'orMore' }], environments: [a], maxChanges: 1 });
  assert.equal(typeof hindsight.outputs['1.0.0'].details.environments[a].details.achieved, 'boolean');

  const { refusal } = scenarioChecks(twin);
  await refusal({ type: 'panel_anomaly_detection' }, 'body/scenario/samples', /give samples \(shared\) or a window in panelSamples/);
  await refusal({ type: 'panel_anomaly_detection', panelSamples: { 'site=nowhere': windowOf(a, 10) } }, 'body/scenario/panelSamples/site=nowhere', /not an environment/);
  await refusal({ type: 'panel_anomaly_detection', panelSamples: { [a]: [{ ...windowOf(a, 3)[0], revenue: 1 }] } }, `body/scenario/panelSamples/${a}`, /unknown variable 'revenue'/);
  await refusal({ type: 'panel_forecast', forecastH: 3, environments: ['site=nowhere'] }, 'body/scenario/environments/0', /not an environment/);
  await refusal({ type: 'panel_forecast', forecastH: 3, aggregateMode: 'median' }, 'body/scenario/aggregateMode', /./);
  await refusal({ type: 'forecast', forecastH: 3 }, 'body/scenario/type', /does not match this multi-environment-temporal twin/);
  await refusal({ type: 'static_panel_anomaly_detection', samples: windowOf(a, 3) }, 'body/scenario/type', /does not match/);
});

test('environments sampled at different step lengths: refused by default, put on the coarsest step by stepAggregation', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  // Two sites report daily totals, a third the same kind of process hour by hour (each day's total spread evenly).
  const rng = new Rng(4);
  const rows: Array<Record<string, string | number>> = [];
  const day = 86_400_000;
  const start = Date.UTC(2024, 0, 1);
  for (const site of ['s0', 's1', 'h2']) {
    let x = 0;
    let previous = 0;
    for (let d = 0; d < 150; d++) {
      x = 0.5 * x + rng.normal();
      const y = 0.8 * previous + 0.3 * rng.normal();
      previous = x;
      if (site !== 'h2') rows.push({ site, time: new Date(start + d * day).toISOString(), x, y });
      else for (let h = 0; h < 24; h++) rows.push({ site, time: new Date(start + d * day + h * 3_600_000).toISOString(), x: x / 24, y: y / 24 });
    }
  }
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'mixed steps', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const learn = async (extra: Record<string, unknown>) => {
    const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: `Mixed ${JSON.stringify(extra)}`, type: 'multi-environment-temporal', sourceId: source.body.data.id, environmentColumns: ['site'], selectedTimeColumnName: 'time', ...extra } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const base = `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}`;
    const accepted = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 0, maxLag: 1 } });
    return { created: created.body.data, base, job: await waitForJob(app, ws, accepted.body.data.jobId, 120_000) };
  };
  const refused = await learn({});
  assert.equal(refused.job.status, 'failed');
  assert.match(JSON.stringify(refused.job.error), /different step lengths.*stepAggregation/);
  const summed = await learn({ stepAggregation: 'sum' });
  assert.equal(summed.created.stepAggregation, 'sum');
  assert.equal(summed.job.status, 'completed', JSON.stringify(summed.job));
  const version = (await app.call({ method: 'GET', url: `${summed.base}/versions/${summed.created.versionId}` })).body.data;
  assert.equal(version.granularity, 'day');
  const listing = (await app.call({ method: 'GET', url: `${summed.base}/environments` })).body.data;
  const hourly = listing.find((e: Record<string, any>) => e.key === 'site=h2');
  assert.equal(hourly.timeSpan.steps, 150, JSON.stringify(hourly));
  // The summed days are the daily process: the lagged link x -> y is found.
  const link = version.causalGraph.find((e: Record<string, any>) => e.source === 'x' && e.target === 'y');
  assert.ok(link && link.timeLagEffects.some((l: { lag: number }) => l.lag === 1), JSON.stringify(version.causalGraph));
  // Other kinds have no environments to align.
  const staticTwin = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'Static', sourceId: source.body.data.id, stepAggregation: 'mean' } });
  assert.equal(staticTwin.status, 422, JSON.stringify(staticTwin.body));
  assert.equal(staticTwin.body.errors[0].location, 'body/stepAggregation');
});
