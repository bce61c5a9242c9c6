/**
 * Multi-environment static twins over HTTP: a generated panel (test/helpers/panel.ts) learned through
 * run-pipeline; the pooled graph with agreement rates and gated edges against the truth, nodes carrying the
 * environment columns, the panel evaluation, and the stored profile kept off the version record.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../src/engine/random.js';
import { buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { panelRows, panelTruth, sitePanel } from '../helpers/panel.js';
import { type TrainedTwin, completedRun, submit, waitForRun } from '../helpers/simulations.js';

const API = '/api/v1';

test('a multi-environment static twin learns what holds everywhere and what is gated, per environment', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const truth = panelTruth(12, 5, { minRows: 40, maxRows: 300 });
  const rows = [...panelRows(truth, 6), { site: null, a: 0, b: 0, c: 0, d: 0, e: 0 }];
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'sites', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'Sites', type: 'multi-environment-static', sourceId: source.body.data.id, environmentColumns: ['site'], shardCount: 3 } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const base = `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}`;
  const accepted = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 4, alpha: 0.01 } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  const job = await waitForJob(app, ws, accepted.body.data.jobId, 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));

  const version = (await app.call({ method: 'GET', url: `${base}/versions/${created.body.data.versionId}` })).body.data;
  assert.equal(version.status, 'trained');
  assert.equal(version.environmentProfile, undefined, 'the profile is not part of the version record');
  const edges = new Map<string, Record<string, any>>(version.causalGraph.map((e: Record<string, any>) => [`${e.source}->${e.target}`, e]));
  assert.deepEqual([...edges.keys()].sort(), [...truth.edges].sort());
  for (const [key, edge] of edges) {
    const expected = truth.presence[key] ?? 1;
    assert.ok(Math.abs(edge.agreementRate - expected) <= 0.15, `${key}: agreement ${edge.agreementRate} vs ${expected}`);
    assert.equal(edge.isEnvironmentGated, truth.gated.includes(key), `${key} gated`);
  }
  assert.equal(edges.get('a->b')!.orientation, 'compelled', 'the environment orients a -> b');
  const nodes = new Map<string, Record<string, any>>(version.nodes.map((n: Record<string, any>) => [n.name, n]));
  assert.deepEqual(nodes.get('c')!.environmentColumns, ['site']);
  assert.deepEqual(nodes.get('a')!.environmentColumns, []);
  const panelEvaluation = version.panelEvaluation;
  assert.equal(Object.keys(panelEvaluation.environments).length, truth.keys.length);
  assert.ok(panelEvaluation.pooling.c.partial < panelEvaluation.pooling.c.pooled, JSON.stringify(panelEvaluation.pooling.c));
  assert.ok(panelEvaluation.spread.c.environments >= 1);

  // Graph slices: the gated edge d -> c holds where the truth has it and not elsewhere.
  const sites = (present: boolean) => truth.keys.flatMap((key, e) => ((truth.coefficients[e]!['d->c'] !== 0) === present ? [key.slice('site='.length)] : []));
  const slice = (body: Record<string, unknown>) => app.call({ method: 'POST', url: `${base}/versions/${version.id}/graph/slice`, body });
  const withD = await slice({ mode: 'columnValues', columnValues: { site: sites(true) } });
  assert.equal(withD.status, 200, JSON.stringify(withD.body));
  const sliced = new Map<string, Record<string, any>>(withD.body.data.causalGraph.map((e: Record<string, any>) => [`${e.source}->${e.target}`, e]));
  assert.ok(sliced.has('d->c') && sliced.get('d->c')!.agreementRate >= 0.8, JSON.stringify(withD.body.data.causalGraph));
  assert.equal(withD.body.data.envCount, sites(true).length);
  assert.equal(withD.body.data.totalEnvCount, truth.keys.length);
  assert.equal(withD.body.data.agreementThreshold, 0.5);
  assert.equal(withD.body.data.sampleSize, truth.sizes.filter((_, e) => truth.coefficients[e]!['d->c'] !== 0).reduce((a, b) => a + b, 0));
  const withoutD = await slice({ mode: 'columnValues', columnValues: { site: sites(false) }, agreementThreshold: 0.3 });
  assert.equal(withoutD.status, 200, JSON.stringify(withoutD.body));
  assert.ok(!withoutD.body.data.causalGraph.some((e: Record<string, any>) => e.source === 'd' && e.target === 'c'), JSON.stringify(withoutD.body.data.causalGraph));
  assert.equal(withoutD.body.data.agreementThreshold, 0.3);
  const group = await app.call({ method: 'POST', url: `${base}/environment-groups`, body: { name: 'With d', definition: { mode: 'columnValues', columnValues: { site: sites(true) } }, agreementThreshold: 0.9 } });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  const byGroup = await slice({ groupId: group.body.data.id });
  assert.equal(byGroup.status, 200, JSON.stringify(byGroup.body));
  assert.equal(byGroup.body.data.agreementThreshold, 0.9);
  for (const [body, location] of [
    [{ mode: 'columnValues', columnValues: { site: ['nowhere'] } }, 'body/mode'],
    [{ mode: 'columnValues', columnValues: { site: ['s000'] }, groupId: group.body.data.id }, 'body/groupId'],
    [{}, 'body/mode'],
    [{ mode: 'columnValues', columnValues: { region: ['x'] } }, 'body/columnValues/region'],
  ] as const) {
    const refused = await slice(body);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.errors[0].location, location, JSON.stringify(refused.body));
  }

  // Panel questions: each environment answers with its own mechanisms.
  const twin: TrainedTwin = { app, ws, twinId: created.body.data.id, versionId: version.id, simulations: `${API}/workspaces/${ws}/simulations`, version: '1.0.0' };
  const raiseB = { type: 'panel_intervention', interventions: [{ variable: 'b', valueSpec: { type: 'relative_change', mode: 'absolute', value: 1 } }], targetVars: ['c'] };
  const whatIf = await completedRun(twin, raiseB);
  const perEnvironment = whatIf.outputs['1.0.0'].details.environments;
  assert.deepEqual(Object.keys(perEnvironment).sort(), [...truth.keys].sort());
  const errors = truth.keys.map((key, e) => {
    const c = perEnvironment[key].details.variables.find((v: { variable: string }) => v.variable === 'c');
    return Math.abs(c.effect.difference - truth.coefficients[e]!['b->c']!) / Math.abs(truth.coefficients[e]!['b->c']!);
  }).sort((x, y) => x - y);
  assert.ok(errors[Math.floor(errors.length / 2)]! < 0.15, `median relative error of per-environment effects ${errors.join(', ')}`);
  assert.ok(whatIf.outputs['1.0.0'].results.c.length > 0, 'combined results');
  assert.match(whatIf.resultsSummary.summary, /12 environments/);
  assert.deepEqual(whatIf.environmentGroupSnapshots, []);

  // Groups narrow a run; names and groups intersect; the snapshot is frozen at submit.
  const [inGroup, outside] = [sites(true)[0]!, sites(false)[0]!].map((site) => `site=${site}`) as [string, string];
  const narrowed = await submit(twin, { ...raiseB, environments: [inGroup, outside] }, { environmentGroupIds: [group.body.data.id] });
  const done = await waitForRun(twin, narrowed.runId);
  assert.equal(done.status, 'completed', JSON.stringify(done.error));
  assert.deepEqual(Object.keys(done.outputs['1.0.0'].details.environments), [inGroup]);
  assert.equal(done.environmentGroupSnapshots[0].id, group.body.data.id);
  assert.equal(done.environmentGroupSnapshots[0].envKeys.length, sites(true).length);
  const edited = await app.call({ method: 'PATCH', url: `${base}/environment-groups/${group.body.data.id}`, body: { definition: { mode: 'columnValues', columnValues: { site: [outside.slice('site='.length)] } } } });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  const reread = await app.call({ method: 'GET', url: `${twin.simulations}/${narrowed.runId}` });
  assert.deepEqual(reread.body.data.environmentGroupSnapshots, done.environmentGroupSnapshots, 'frozen at submit');
  const post = (scenario: Record<string, unknown>, extra: Record<string, unknown> = {}) => app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario, ...extra } });
  const empty = await post({ ...raiseB, environments: [inGroup] }, { environmentGroupIds: [group.body.data.id] });
  assert.equal(empty.status, 400, JSON.stringify(empty.body));
  assert.match(empty.body.detail, /intersected/);
  for (const [scenario, extra, location] of [
    [{ ...raiseB, environments: ['site=nowhere'] }, {}, 'body/scenario/environments/0'],
    [raiseB, { environmentGroupIds: ['eg_unknown'] }, 'body/environmentGroupIds/0'],
  ] as const) {
    const refused = await post(scenario, extra);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.errors[0].location, location, JSON.stringify(refused.body));
  }

  // A range intervention sweeps each environment: the sweep lists them until one is named.
  const swept = await completedRun(twin, { ...raiseB, interventions: [{ variable: 'b', valueSpec: { type: 'range', from: 0, to: 2, steps: 3 } }], environments: [inGroup, outside] });
  const sweepUrl = `${twin.simulations}/${swept.id}/sweep`;
  const listing = await app.call({ method: 'GET', url: sweepUrl });
  assert.equal(listing.status, 200, JSON.stringify(listing.body));
  assert.deepEqual(listing.body.data.environments.sort(), [inGroup, outside].sort());
  assert.equal(listing.body.data.environment, null);
  const filtered = await app.call({ method: 'GET', url: `${sweepUrl}?filter=${encodeURIComponent(inGroup.slice(-3))}` });
  assert.deepEqual(filtered.body.data.environments, [inGroup]);
  const curve = await app.call({ method: 'GET', url: `${sweepUrl}?environment=${encodeURIComponent(inGroup)}&metric=c` });
  assert.equal(curve.status, 200, JSON.stringify(curve.body));
  assert.equal(curve.body.data.environment, inGroup);
  const points = curve.body.data.points as Array<{ value: number; mean: number }>;
  assert.equal(points.length, 3);
  const slope = (points[2]!.mean - points[0]!.mean) / (points[2]!.value - points[0]!.value);
  const e = truth.keys.indexOf(inGroup);
  assert.ok(Math.abs(slope - truth.coefficients[e]!['b->c']!) < 0.3, `sweep slope ${slope} vs ${truth.coefficients[e]!['b->c']}`);
  const unknownEnvironment = await app.call({ method: 'GET', url: `${sweepUrl}?environment=site%3Dnowhere` });
  assert.equal(unknownEnvironment.status, 400, JSON.stringify(unknownEnvironment.body));

  // Every static panel family answers per environment.
  const pair = [inGroup, outside];
  const row = { a: 0, b: 0, c: 0, d: 0, e: 0 };
  const optimised = await completedRun(twin, { type: 'panel_optimisation', objectives: [{ direction: 'maximise', variable: 'c' }], decisionVars: ['b'], variableConstraints: [{ variable: 'b', type: 'range', minValue: -1, maxValue: 1 }], samples: 500, environments: pair });
  for (const key of pair) {
    const b = optimised.outputs['1.0.0'].details.environments[key].details.recommendation.find((r: { variable: string }) => r.variable === 'b');
    const coefficient = truth.coefficients[truth.keys.indexOf(key)]!['b->c']!;
    assert.ok(Math.abs(b.value - Math.sign(coefficient)) < 0.1, `${key}: c moves with b by ${coefficient}; b set to ${b.value}`);
  }
  const others: Array<Record<string, unknown>> = [
    { type: 'panel_counterfactual', samples: [row], targets: [{ variable: 'c', value: 3, matchMode: 'orMore' }], maxChanges: 1 },
    { type: 'panel_explanation', explanationMode: 'discovery', effectVariable: 'c' },
    { type: 'static_panel_root_cause_analysis', targetVariable: 'c', samples: [{ ...row, d: 6, c: 9 }] },
    { type: 'static_panel_anomaly_detection', samples: [row, { ...row, d: 6, c: 9 }], autoRca: true },
  ];
  for (const scenario of others) {
    const answered = await completedRun(twin, { ...scenario, environments: pair });
    assert.deepEqual(Object.keys(answered.outputs['1.0.0'].details.environments).sort(), [...pair].sort(), String(scenario.type));
    assert.match(answered.resultsSummary.summary, /2 environments/);
  }

  // Prediction per environment, combined by rows.
  // The per-environment records are the run's panel result artifacts: kept in the data store, exported as csv.
  const predicted = await completedRun(twin, { type: 'prediction', sample: [{ a: 1, b: 0, d: 1, e: 0 }, { a: 0, b: 0, d: 0, e: 0 }], targetVars: ['c'], environments: [inGroup, outside] });
  assert.deepEqual(predicted.exportFormats, ['json', 'csv']);
  assert.equal(predicted.outputsStorageType, 'inline+datastore');
  assert.equal(predicted.outputs['1.0.0'].details.environments[inGroup].results, undefined, 'not inline');
  const exportUrl = `${twin.simulations}/${predicted.id}/export/csv`;
  const file = await app.call({ method: 'GET', url: exportUrl });
  assert.equal(file.status, 200, file.raw.payload);
  assert.match(String(file.headers['content-type']), /text\/csv/);
  const [header, ...lines] = file.raw.payload.trim().split('\n');
  assert.equal(header, '"environment","timestamp","row","c","c_lower","c_upper"');
  assert.equal(lines.length, 4, 'two rows in each of two environments');
  const cell = (key: string, row: number) => {
    const line = lines.find((l) => l.startsWith(`"${key}",\\N,${row},`) || l.startsWith(`"${key}",,${row},`));
    assert.ok(line !== undefined, `no csv line for ${key} row ${row}: ${lines.join(' | ')}`);
    return line.split(',').slice(3).map(Number);
  };
  const [x, y] = [inGroup, outside].map((key) => cell(key, 0)[0]);
  const [lower, upper] = cell(inGroup, 0).slice(1);
  assert.ok(lower! < x! && x! < upper!, `interval ${lower} .. ${upper} around ${x}`);
  const weights = predicted.outputs['1.0.0'].details.combination.weights;
  const combined = predicted.outputs['1.0.0'].results.c[0].prediction as number;
  assert.ok(Math.abs(combined - (weights[inGroup] * x! + weights[outside] * y!)) < 1e-4, `combined ${combined} from ${x}, ${y}`);
  const at = (key: string) => truth.keys.indexOf(key);
  for (const [key, value] of [[inGroup, x!], [outside, y!]] as const) {
    const e = at(key);
    const expected = truth.intercepts[e]!.c! + truth.coefficients[e]!['a->c']! + truth.coefficients[e]!['d->c']!;
    assert.ok(Math.abs(value - expected) < 0.6, `${key}: predicted c ${value} vs ${expected}`);
  }
  // Records that name their environment are each predicted by its own mechanisms, in the records' order.
  const siteOf = (key: string) => key.slice('site='.length);
  const routed = await completedRun(twin, { type: 'prediction', sample: [{ site: siteOf(outside), a: 1, b: 0, d: 1, e: 0 }, { site: siteOf(inGroup), a: 1, b: 0, d: 1, e: 0 }], targetVars: ['c'] });
  const routedDetails = routed.outputs['1.0.0'].details;
  assert.equal(routedDetails.routing, 'byRecord');
  assert.deepEqual(routedDetails.recordEnvironments, [outside, inGroup]);
  const routedC = routed.outputs['1.0.0'].results.c;
  assert.ok(Math.abs(routedC[0].prediction - y!) < 1e-6 && Math.abs(routedC[1].prediction - x!) < 1e-6, `${routedC[0].prediction} vs ${y}, ${routedC[1].prediction} vs ${x}`);
  assert.deepEqual(routedC.map((r: { row: number }) => r.row), [0, 1]);
  const routedFile = (await app.call({ method: 'GET', url: `${twin.simulations}/${routed.id}/export/csv` })).raw.payload.trim().split('\n').slice(1);
  assert.deepEqual(routedFile.map((line) => line.split(',').filter((_, i) => i === 0 || i === 2).join(' ')).sort(), [`"${inGroup}" 1`, `"${outside}" 0`].sort());
  for (const [scenario, location] of [
    [{ type: 'prediction', sample: [{ a: 1, b: 0, d: 1, e: 0, site: siteOf(inGroup) }, { a: 1, b: 0, d: 1, e: 0 }], targetVars: ['c'] }, 'body/scenario/sample/1'],
    [{ type: 'prediction', sample: [{ a: 1, b: 0, d: 1, e: 0, site: 'nowhere' }], targetVars: ['c'] }, 'body/scenario/sample/0'],
    [{ type: 'prediction', sample: [{ a: 1, b: 0, d: 1, e: 0, site: siteOf(inGroup) }], targetVars: ['c'], environments: [inGroup] }, 'body/scenario/environments'],
  ] as const) {
    const refused = await post(scenario, {});
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.errors[0].location, location, JSON.stringify(refused.body));
  }

  // Rows by reference: each row predicted by the environment its site names (the same answers as the records
  // above); a site the twin never saw takes the pooled mechanisms, and says so.
  const stored = [
    { id: 'r0', site: siteOf(outside), a: 1, b: 0, d: 1, e: 0 },
    { id: 'r1', site: siteOf(inGroup), a: 1, b: 0, d: 1, e: 0 },
    { id: 'r2', site: 'nowhere', a: 1, b: 0, d: 1, e: 0 },
  ];
  const toPredict = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'to predict', rows: stored } });
  assert.equal(toPredict.status, 201, JSON.stringify(toPredict.body));
  const byReference = await completedRun(twin, { type: 'prediction', rowsFrom: { sourceId: toPredict.body.data.id, keepColumns: ['id'] }, targetVars: ['c'] });
  assert.equal(byReference.outputsStorageType, 'datastore');
  assert.deepEqual([byReference.outputs['1.0.0'].details.routing, byReference.outputs['1.0.0'].details.unknownEnvironmentRows], ['byRecord', 1]);
  assert.match(byReference.resultsSummary.keyPoints.join(" "), /1 row named no environment of the twin/);
  const table = (await app.call({ method: 'GET', url: `${twin.simulations}/${byReference.id}/rows?limit=10` })).body.data as Array<Record<string, any>>;
  assert.deepEqual(table.map((r) => r.id), ['r0', 'r1', 'r2']);
  assert.ok(Math.abs(table[0]!.c_predicted - y!) < 1e-6 && Math.abs(table[1]!.c_predicted - x!) < 1e-6, JSON.stringify(table));
  assert.ok(Number.isFinite(table[2]!.c_predicted), JSON.stringify(table[2]));
  const noSite = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'no site', rows: stored.map(({ site: _site, ...row }) => row) } });
  for (const [scenario, location] of [
    [{ type: 'prediction', rowsFrom: { sourceId: noSite.body.data.id }, targetVars: ['c'] }, 'body/scenario/rowsFrom'],
    [{ type: 'prediction', rowsFrom: { sourceId: toPredict.body.data.id }, targetVars: ['c'], environments: [inGroup] }, 'body/scenario/environments'],
    [{ type: 'prediction', sample: [{ a: 1, b: 0, d: 1, e: 0 }], targetVars: ['c'], resultsStorage: 'datastore' }, 'body/scenario/resultsStorage'],
  ] as const) {
    const refused = await post(scenario, {});
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.errors[0].location, location, JSON.stringify(refused.body));
  }

  // Other runs offer json only; a deleted twin takes its artifacts with it.
  assert.deepEqual(whatIf.exportFormats, ['json']);
  assert.equal((await app.call({ method: 'GET', url: `${twin.simulations}/${whatIf.id}/export/csv` })).status, 400);
  assert.equal((await app.call({ method: 'DELETE', url: base })).status, 204);
  const gone = await app.call({ method: 'GET', url: exportUrl });
  assert.equal(gone.status, 400, JSON.stringify(gone.body));
  assert.match(gone.body.detail, /gone/);
  assert.equal((await app.call({ method: 'GET', url: `${twin.simulations}/${predicted.id}/export/json` })).status, 200);
});

test('a multi-environment twin whose data hold one environment fails its job with the reason', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const rows = panelRows(panelTruth(1, 3, { minRows: 200, maxRows: 201 }), 4);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'one site', rows } });
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'One', type: 'multi-environment-static', sourceId: source.body.data.id, environmentColumns: ['site'] } });
  const accepted = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}/run-pipeline`, body: { bootstrapSamples: 0 } });
  const job = await waitForJob(app, ws, accepted.body.data.jobId);
  assert.equal(job.status, 'failed');
  assert.match(JSON.stringify(job.error), /at least two environments/);
});

test('edges into a categorical variable are judged per environment: the effect present in half of the sites is gated', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  // churn depends on plan at every site and on promo at the first six of twelve.
  const rng = new Rng(9);
  const rows: Array<Record<string, string>> = [];
  for (let site = 0; site < 12; site++) {
    for (let r = 0; r < 250; r++) {
      const plan = ['basic', 'plus', 'pro'][rng.int(3)]!;
      const promo = rng.uniform() < 0.5 ? 'yes' : 'no';
      const p = 0.15 + 0.3 * ['basic', 'plus', 'pro'].indexOf(plan) + (site < 6 ? (promo === 'yes' ? -0.25 : 0.25) : 0);
      rows.push({ site: `s${site}`, plan, promo, churn: rng.uniform() < Math.min(0.95, Math.max(0.05, p)) ? 'left' : 'stayed' });
    }
  }
  const { version, between } = await sitePanel(app, ws, 'churn sites', rows);
  const promo = between('promo', 'churn');
  const plan = between('plan', 'churn');
  assert.ok(promo && plan, JSON.stringify(version.causalGraph));
  assert.ok(promo.agreementRate >= 0.3 && promo.agreementRate <= 0.7, JSON.stringify(promo));
  assert.equal(promo.isEnvironmentGated, true, JSON.stringify(promo));
  assert.ok(plan.agreementRate >= 0.8 && plan.isEnvironmentGated === false, JSON.stringify(plan));
});

test('edges into a categorical variable with a numeric input are judged per environment: an effect present in half of the sites is gated', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  // churn depends on tenure at every site and on discount at the first six of twelve.
  const rng = new Rng(10);
  const rows: Array<Record<string, string | number>> = [];
  for (let site = 0; site < 12; site++) {
    for (let r = 0; r < 300; r++) {
      const tenure = rng.normal();
      const discount = rng.normal();
      const logit = -1.3 * tenure + (site < 6 ? -1.3 * discount : 0);
      rows.push({ site: `s${site}`, tenure: Math.round(tenure * 1e4) / 1e4, discount: Math.round(discount * 1e4) / 1e4, churn: rng.uniform() < 1 / (1 + Math.exp(-logit)) ? 'left' : 'stayed' });
    }
  }
  const { version, between } = await sitePanel(app, ws, 'churn by tenure', rows);
  const discount = between('discount', 'churn');
  const tenure = between('tenure', 'churn');
  assert.ok(discount && tenure, JSON.stringify(version.causalGraph));
  assert.equal(discount.target, 'churn');
  assert.ok(discount.agreementRate >= 0.3 && discount.agreementRate <= 0.7, JSON.stringify(discount));
  assert.equal(discount.isEnvironmentGated, true, JSON.stringify(discount));
  assert.ok(tenure.agreementRate >= 0.8 && tenure.isEnvironmentGated === false, JSON.stringify(tenure));
});

test('a slope that differs across sites, at the same level, orients the edge into the variable it changes', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  // price -> demand with demand's sensitivity to price differing by site; price alone is the same everywhere.
  const rng = new Rng(41);
  const rows = Array.from({ length: 10 }, (_, site) => site).flatMap((site) => {
    const slope = -0.3 - (1.2 * site) / 9;
    return Array.from({ length: 200 }, () => {
      const price = rng.normal();
      return { site: `s${site}`, price, demand: slope * price + rng.normal() };
    });
  });
  const { version, between } = await sitePanel(app, ws, 'price sites', rows);
  const edge = between('price', 'demand');
  assert.deepEqual([edge?.source, edge?.target, edge?.orientation], ['price', 'demand', 'compelled'], JSON.stringify(version.causalGraph));
  const nodes = new Map<string, Record<string, any>>(version.nodes.map((n: Record<string, any>) => [n.name, n]));
  assert.deepEqual(nodes.get('demand')!.environmentColumns, ['site']);
  assert.deepEqual(nodes.get('price')!.environmentColumns, []);
});
