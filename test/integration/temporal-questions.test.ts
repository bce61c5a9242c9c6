import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { type TrainedTwin, completedRun, scenarioChecks } from '../helpers/simulations.js';
import { DAY, START, dailyRecords, dailyTruth, dailyTwin, dayText } from '../helpers/temporal.js';

const API = '/api/v1';
const DAYS = 500;

test('temporal root cause, anomaly scan and health monitor find injected faults through the API, and unchanged data stays quiet', async (t) => {
  const twin = await dailyTwin(t, DAYS);
  const { app } = twin;

  // A shock of 12 noise std to ads on day 520: visits and sales jump the next day, through ads' lag.
  const shocked = dailyTruth(560, { adsShock: { day: 520, size: 12 } });
  const window = dailyRecords(shocked, 490, 530); // index k is day 490 + k; the shock at index 30
  for (const target of ['visits', 'sales']) {
    const run = await completedRun(twin, { type: 'temporal_root_cause_analysis', targetVariable: target, samples: window, anomalyTimestep: 31 });
    const details = run.outputs['1.0.0'].details;
    assert.equal(details.targetAnomalous, true, JSON.stringify(details));
    assert.equal(details.timestamp, START + 521 * DAY);
    assert.deepEqual(
      { variable: details.rootCauses[0].variable, stepsBefore: details.rootCauses[0].stepsBefore, timestamp: details.rootCauses[0].timestamp },
      { variable: 'ads', stepsBefore: 1, timestamp: START + 520 * DAY },
      JSON.stringify(details.rootCauses.slice(0, 3)),
    );
    assert.match(run.resultsSummary.summary, new RegExp(`Leading root cause: ads 1 step before \\(${dayText(520)}\\)`));
  }

  // The scan flags the shock's step and not its echo the next day; the worst step is diagnosed.
  const scan = (await completedRun(twin, { type: 'temporal_anomaly_detection', samples: window, startStep: 2, autoRcaTopK: 1 })).outputs['1.0.0'].details;
  const steps = scan.steps as Array<{ index: number; isAnomaly: boolean; variables: Array<{ variable: string }>; rootCause?: { targetVariable: string; rootCauses: Array<{ variable: string; stepsBefore: number }> } }>;
  assert.equal(steps.length, 38);
  const shockStep = steps.find((s) => s.index === 30)!;
  assert.equal(shockStep.isAnomaly, true);
  assert.equal(shockStep.variables[0]!.variable, 'ads');
  assert.equal(steps.find((s) => s.index === 31)!.isAnomaly, false, 'the echo of the shock is not a second anomaly');
  assert.ok(scan.anomalyCount <= 3, `${scan.anomalyCount} steps flagged`);
  assert.deepEqual(scan.diagnosed, [30]);
  assert.equal(shockStep.rootCause!.targetVariable, 'ads');
  assert.deepEqual([shockStep.rootCause!.rootCauses[0]!.variable, shockStep.rootCause!.rootCauses[0]!.stepsBefore], ['ads', 0]);

  // Visits stop following ads from day 600 (0.8 -> -0.2): the link is flagged since about then; sales' mechanisms are not.
  const changed = dailyTruth(700, { adsToVisits: { from: 600, coefficient: -0.2 } });
  const health = (await completedRun(twin, { type: 'causal_health_monitor', samples: dailyRecords(changed, 500, 650) })).outputs['1.0.0'].details;
  type Item = { source?: string; target?: string; variable?: string; lag?: number; alertType: string; evidence: { then: { value: number }; now: { value: number }; since: { index: number; timestamp: number } } };
  const link = (health.links as Item[]).find((l) => l.source === 'ads' && l.target === 'visits' && l.lag === 1)!;
  assert.ok(['worsening', 'sustained'].includes(link.alertType), JSON.stringify(link));
  assert.ok(Math.abs(link.evidence.since.index - 100) <= 15, JSON.stringify(link.evidence.since));
  assert.ok(Math.abs(link.evidence.then.value - 0.8) < 0.15 && Math.abs(link.evidence.now.value + 0.2) < 0.3, JSON.stringify(link.evidence));
  const intoSales = [...(health.links as Item[]).filter((l) => l.target === 'sales'), ...(health.variables as Item[]).filter((v) => v.variable === 'sales')];
  assert.ok(intoSales.length >= 3 && intoSales.every((item) => item.alertType === 'normal'), JSON.stringify(intoSales.map((i) => [i.source ?? i.variable, i.alertType])));
  assert.equal(health.unmonitored.length, 0);

  // The same window without the change, and the version's own recent data: (almost) every mechanism is normal.
  for (const scenario of [{ type: 'causal_health_monitor', samples: dailyRecords(dailyTruth(700), 500, 650) }, { type: 'causal_health_monitor' }]) {
    const quiet = await completedRun(twin, scenario);
    const details = quiet.outputs['1.0.0'].details;
    const items = [...details.links, ...details.variables] as Item[];
    assert.ok(items.filter((i) => i.alertType !== 'normal').length <= 1, JSON.stringify(items.filter((i) => i.alertType !== 'normal')));
    assert.equal(details.window.source, 'samples' in scenario ? 'samples' : 'version history');
  }

  // Another organisation cannot read these runs, nor submit on this twin.
  const other = await app.call({ method: 'POST', url: `${API}/workspaces/${app.other.libraryWorkspaceId}/simulations`, key: app.other.key, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario: { type: 'causal_health_monitor' } } });
  assert.equal(other.status, 404, JSON.stringify(other.body));
});

test('temporal monitoring and explanation questions are checked at submit and read from plain English over the version\'s recent data', async (t) => {
  const twin = await dailyTwin(t, DAYS);
  const { app } = twin;
  const { post: submit, refusal } = scenarioChecks(twin);
  const window = dailyRecords(dailyTruth(DAYS), 400, 440);
  await refusal({ type: 'temporal_root_cause_analysis', targetVariable: 'revenue', samples: window }, 'body/scenario/targetVariable', /unknown variable 'revenue'/);
  await refusal({ type: 'temporal_root_cause_analysis', targetVariable: 'sales', samples: [...window, { day: dayText(440), revenue: 3 }] }, 'body/scenario/samples', /unknown variable 'revenue'/);
  await refusal({ type: 'temporal_root_cause_analysis', targetVariable: 'sales', samples: window, anomalyTimestep: 40 }, 'body/scenario/anomalyTimestep', /past the last record of samples \(39\)/);
  await refusal({ type: 'temporal_root_cause_analysis', targetVariable: 'sales', samples: [...window.slice(0, 3), { ads: 1, visits: 2, sales: 3 }] }, 'body/scenario/samples/3', /3 of 4 records carry a time \(day or timestamp\)/);
  await refusal({ type: 'temporal_root_cause_analysis', targetVariable: 'sales', samples: [window[1]!, window[0]!] }, 'body/scenario/samples/1', /time order/);
  await refusal({ type: 'temporal_root_cause_analysis', targetVariable: 'sales', samples: [{ ...window[0]!, day: 'soon' }] }, 'body/scenario/samples/0/day', /not a time/);
  await refusal({ type: 'temporal_anomaly_detection', samples: window, startStep: 10, endStep: 5 }, 'body/scenario/endStep', /before startStep/);
  await refusal({ type: 'temporal_anomaly_detection', samples: window, autoRcaTopK: 0 }, 'body/scenario/autoRcaTopK', /./);
  await refusal({ type: 'causal_health_monitor', samples: window, windowSteps: 50 }, 'body/scenario/windowSteps', /not both/);
  await refusal({ type: 'causal_health_monitor', targetFpr: 0.5 }, 'body/scenario/targetFpr', /./);
  await refusal({ type: 'causal_health_monitor', samples: window.slice(0, 10) }, 'body/scenario/samples', /at least 20 records/);
  // A timestamp key works as well as the time column; records without times are the last steps of the data.
  const timed = window.map(({ day, ...values }) => ({ ...values, timestamp: Date.parse(`${day}T00:00:00Z`) }));
  assert.equal((await submit({ type: 'temporal_anomaly_detection', samples: timed })).status, 202);
  assert.equal((await submit({ type: 'temporal_anomaly_detection', samples: window.map(({ day: _day, ...values }) => values) })).status, 202);

  const fromQuery = (query: string) => app.call({ method: 'POST', url: `${twin.version}/scenario-from-query`, body: { query } });
  const health = await fromQuery('is the twin still healthy over the last 60 days?');
  assert.equal(health.status, 200, JSON.stringify(health.body));
  assert.deepEqual(health.body.data.scenario, { type: 'causal_health_monitor', windowSteps: 60 });
  assert.equal((await fromQuery('monitor the last 30 days for anomalies')).body.data.scenario.type, 'temporal_anomaly_detection');
  const scan = await fromQuery('any anomalies in the last 2 weeks, and why?');
  assert.equal(scan.status, 200, JSON.stringify(scan.body));
  const scanned = scan.body.data.scenario;
  assert.equal(scanned.type, 'temporal_anomaly_detection');
  assert.equal(scanned.autoRcaTopK, 3);
  assert.equal(scanned.samples.length - scanned.startStep, 14);
  assert.equal(scanned.samples.at(-1).day, `${dayText(DAYS - 1)}T00:00:00.000Z`);
  const why = await fromQuery(`why did sales spike on ${dayText(450)}`);
  assert.equal(why.status, 200, JSON.stringify(why.body));
  const diagnosis = why.body.data.scenario;
  assert.equal(diagnosis.type, 'temporal_root_cause_analysis');
  assert.equal(diagnosis.targetVariable, 'sales');
  assert.equal(diagnosis.samples[diagnosis.anomalyTimestep].day, `${dayText(450)}T00:00:00.000Z`);
  assert.match(why.body.data.interpretation, new RegExp(`root causes of sales at ${dayText(450)}`));
  // What the reader builds runs as it is.
  assert.equal((await submit(diagnosis)).status, 202);
  assert.equal((await fromQuery('why did sales spike on 1999-01-01')).status, 422);

  // Explanation over lags: ads act on sales through visits, a day later; nothing on the same day.
  await refusal({ type: 'temporal_explanation', explanationMode: 'directional', causeVariable: 'ads' }, 'body/scenario/effectVariable', /needs effectVariable/);
  const explained = (await completedRun(twin, { type: 'temporal_explanation', explanationMode: 'directional', causeVariable: 'ads', effectVariable: 'sales' })).outputs['1.0.0'].details;
  assert.deepEqual(explained.mediators, ['visits']);
  assert.ok(Math.abs(explained.lagEffects[0].effect) < 0.05, JSON.stringify(explained.lagEffects[0]));
  assert.ok(explained.peakLag >= 1 && explained.lagEffects[1].effect > 0.2, JSON.stringify(explained.lagEffects.slice(0, 3)));
  assert.ok(explained.totalEffect.effect > 0.5 && Math.abs(explained.directEffect.effect) < 0.05, JSON.stringify({ total: explained.totalEffect, direct: explained.directEffect }));
  const drives = await fromQuery('what drives sales?');
  assert.equal(drives.status, 200, JSON.stringify(drives.body));
  assert.deepEqual(drives.body.data.scenario, { type: 'temporal_explanation', explanationMode: 'discovery', effectVariable: 'sales' });
});

test('temporal optimisation plans the levers over the horizon within windowed constraints, and the counterfactual finds earlier changes that reach a target', async (t) => {
  const twin = await dailyTwin(t, DAYS);
  const { app } = twin;
  const { post: submit, refusal } = scenarioChecks(twin);
  const objective = { objectives: [{ direction: 'maximise', variable: 'sales' }], decisionVars: ['ads'], variableConstraints: [{ variable: 'ads', type: 'range', minValue: 40, maxValue: 60 }] };

  // Sales rise with ads (through visits): held at the top of its range over the horizon.
  const held = await completedRun(twin, { type: 'temporal_optimisation', ...objective, forecastHorizon: 14 });
  const plan = held.outputs['1.0.0'].details;
  assert.equal(plan.plan.length, 14);
  assert.ok(plan.plan.every((step: { settings: { ads: number } }) => step.settings.ads > 59), JSON.stringify(plan.plan.map((p: { settings: unknown }) => p.settings)));
  assert.ok(plan.objectives[0].optimised > plan.objectives[0].baseline);
  assert.equal(plan.forecasts.sales.length, 14);
  assert.ok(plan.forecasts.sales[13].lowerBound > 0 && plan.forecasts.sales[0].difference < plan.forecasts.sales[13].difference, JSON.stringify([plan.forecasts.sales[0], plan.forecasts.sales[13]]));
  assert.equal(plan.feasible, true);
  assert.match(held.resultsSummary.summary, /ads: set to 60/);

  // Visits in the second week capped at their level doing nothing + 3: the plan keeps within it, scheduled per week.
  const lastDay = START + (DAYS - 1) * DAY;
  const baselineVisits = plan.forecasts.sales.length > 0 ? (await completedRun(twin, { type: 'forecast', forecastH: 14, targetVars: ['visits'] })).outputs['1.0.0'].results.visits : [];
  const cap = baselineVisits.slice(7).reduce((sum: number, r: { prediction: number }) => sum + r.prediction, 0) / 7 + 3;
  const capped = (await completedRun(twin, {
    type: 'temporal_optimisation', ...objective, forecastHorizon: 14, interventionTiming: { mode: 'schedule', blockSteps: 7 },
    metricConstraints: [{ metricName: 'visits in week 2', sqlQuery: 'SELECT avg(visits) AS value FROM df', constraintType: 'max_value', value: cap, temporal: { startTimestampMs: lastDay + 8 * DAY, endTimestampMs: lastDay + 14 * DAY } }],
  })).outputs['1.0.0'].details;
  assert.equal(capped.constraints[0].satisfied, true, JSON.stringify(capped.constraints));
  assert.ok(capped.constraints[0].blocks[0].optimised <= cap + 1e-9);
  assert.equal(capped.timing.blocks, 2);
  assert.ok(capped.plan[13].settings.ads < 59, JSON.stringify(capped.plan.map((p: { settings: unknown }) => p.settings)));
  assert.ok(capped.objectives[0].optimised > capped.objectives[0].baseline);

  await refusal({ type: 'temporal_optimisation', ...objective }, 'body/scenario', /forecastHorizon/);
  await refusal({ type: 'temporal_optimisation', ...objective, forecastHorizon: 5, interventionTiming: { blockSteps: 2 } }, 'body/scenario/interventionTiming/blockSteps', /schedule/);
  await refusal({ type: 'temporal_optimisation', ...objective, forecastHorizon: 5, variableConstraints: [{ variable: 'visits', type: 'range', maxValue: 3 }] }, 'body/scenario/variableConstraints/0/variable', /not a decision variable/);
  await refusal({ type: 'temporal_optimisation', ...objective, forecastHorizon: 5, variableConstraints: [{ variable: 'ads', type: 'range', conditionalAllowedValues: [{ condition: { variable: 'sales', operator: 'gt', value: 1 }, maxValue: 3 }] }] }, 'body/scenario/variableConstraints/0/conditionalAllowedValues', /static twins/);
  await refusal({ type: 'temporal_optimisation', ...objective, forecastHorizon: 5, metricConstraints: [{ metricName: 'm', sqlQuery: 'SELEC avg(visits) AS value FROM df', constraintType: 'max_value', value: 1 }] }, 'body/scenario/metricConstraints/0/sqlQuery', /./);

  // What would it have taken for the last day's sales to be 2 higher: earlier changes, re-simulated on the stored history.
  const observed = dailyTruth(DAYS)[DAYS - 1]!.sales;
  const hindsight = await completedRun(twin, { type: 'temporal_counterfactual', targets: [{ variable: 'sales', value: observed + 2, matchMode: 'orMore' }], constraints: { sales: { type: 'fixed' } } });
  const answer = hindsight.outputs['1.0.0'].details;
  assert.equal(answer.achieved, true, JSON.stringify(answer));
  assert.ok(answer.changes.length >= 1 && answer.changes.every((c: { variable: string; timestamp: number }) => c.variable !== 'sales' && c.timestamp < lastDay), JSON.stringify(answer.changes));
  assert.ok(Math.abs(answer.targets[0].observed - observed) < 1e-3 && answer.targets[0].counterfactual >= observed + 2 - 1e-6);
  assert.equal(answer.targets[0].timestamp, lastDay);
  await refusal({ type: 'temporal_counterfactual', samples: dailyRecords(dailyTruth(DAYS), 480, 500), historyUntil: lastDay, targets: [{ variable: 'sales', value: 1 }] }, 'body/scenario/historyUntil', /not both/);
  await refusal({ type: 'temporal_counterfactual', targets: [{ variable: 'sales', value: 'high' }] }, 'body/scenario/targets/0/value', /numeric/);

  const fromQuery = (query: string) => app.call({ method: 'POST', url: `${twin.version}/scenario-from-query`, body: { query } });
  const plain = await fromQuery('how should we set ads to maximise sales over the next 2 weeks?');
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  assert.deepEqual({ type: plain.body.data.scenario.type, horizon: plain.body.data.scenario.forecastHorizon, levers: plain.body.data.scenario.decisionVars }, { type: 'temporal_optimisation', horizon: 14, levers: ['ads'] });
  const past = await fromQuery(`what would it have taken for sales to reach 90 or more on ${dayText(480)}?`);
  assert.equal(past.status, 200, JSON.stringify(past.body));
  assert.deepEqual(past.body.data.scenario, { type: 'temporal_counterfactual', targets: [{ variable: 'sales', value: 90, matchMode: 'orMore', timestamp: START + 480 * DAY }], historyUntil: START + 480 * DAY });

  // Every family's completed run offers its JSON export, which holds the outputs.
  const run = await completedRun(twin, { type: 'temporal_counterfactual', targets: [{ variable: 'sales', value: observed + 1, matchMode: 'orMore' }] });
  assert.deepEqual(run.exportFormats, ['json']);
  const exported = await app.call({ method: 'GET', url: `${twin.simulations}/${run.id}/export/json` });
  assert.equal(exported.status, 200);
  assert.ok(JSON.stringify(exported.body).includes('"achieved"'));
});

test('the health monitor gives each link into a categorical variable its own alert through the API', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  // A daily price (AR(1)) and a tier that follows the day's price; from day 600 on it follows it the other way.
  const series = (days: number, flipFrom: number) => {
    let state = 7;
    const random = () => ((state = (Math.imul(state, 48271) >>> 0) % 2147483647) / 2147483647);
    const normal = () => Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
    const rows: Array<{ day: string; price: number; tier: string }> = [];
    let price = 0;
    for (let d = 0; d < days; d++) {
      const latent = (d >= flipFrom ? -1.5 : 1.5) * price + normal();
      rows.push({ day: dayText(d), price, tier: latent < -0.7 ? 'low' : latent > 0.7 ? 'high' : 'mid' });
      price = 0.7 * price + normal();
    }
    return rows;
  };
  const learned = series(500, Number.POSITIVE_INFINITY);
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'tiers', rows: learned } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'tiers', type: 'temporal', selectedTimeColumnName: 'day', sourceId: source.body.data.id } });
  const twin: TrainedTwin = { app, ws, twinId: created.body.data.id, versionId: created.body.data.versionId, simulations: `${API}/workspaces/${ws}/simulations`, version: `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}/versions/${created.body.data.versionId}` };
  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twin.twinId}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
  type Bounds = { value: number; lowerBound: number | null; upperBound: number | null };
  type Link = { source: string; target: string; lag: number; alertType: string; evidence: { measure: string; category?: string; then: Bounds; now: Bounds; since: { index: number } } };
  const watch = async (flipFrom: number) => {
    const details = (await completedRun(twin, { type: 'causal_health_monitor', samples: series(700, flipFrom).slice(500) })).outputs['1.0.0'].details;
    const found = (details.links as Link[]).find((l) => l.source === 'price' && l.target === 'tier' && l.lag === 0);
    assert.ok(found !== undefined, JSON.stringify(details.links));
    return found;
  };
  const flipped = await watch(600);
  assert.ok(['worsening', 'sustained'].includes(flipped.alertType), JSON.stringify(flipped));
  assert.equal(flipped.evidence.measure, 'classProbabilitySlope');
  // The class's probability per unit of price turned the other way: learned and now of opposite signs.
  const { category, then, now } = flipped.evidence;
  assert.ok(['low', 'high'].includes(category!) && Math.sign(then.value) === -Math.sign(now.value) && (now.lowerBound! > 0 || now.upperBound! < 0), JSON.stringify(flipped.evidence));
  assert.ok(Math.abs(flipped.evidence.since.index - 100) <= 15, JSON.stringify(flipped));
  assert.equal((await watch(Number.POSITIVE_INFINITY)).alertType, 'normal');
});
