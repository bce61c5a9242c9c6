/**
 * Every static family through the API on a twin of a known model (test/helpers/simulations.ts: y = 2x +
 * 1.5[premium] + e, z = -1.5y + e): the answers are checked against that model, not eyeballed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completedRun, submit, trainedTwin, waitForRun } from '../helpers/simulations.js';

test('prediction: continuous targets with std and bounds, categorical ones with class probabilities, aligned with the rows', async (t) => {
  const twin = await trainedTwin(t);
  const sample = [{ x: 1, plan: 'premium', w: 0 }, { x: -1, plan: 'basic', w: 0 }];
  const run = await completedRun(twin, { type: 'prediction', sample, targetVars: ['y', 'z'], confidenceLevel: 0.9 });
  const { results } = run.outputs['1.0.0'];
  assert.equal(results.y.length, 2);
  const truthY = [3.5, -2];
  results.y.forEach((record: any, i: number) => {
    assert.ok(Math.abs(record.prediction - truthY[i]!) < 0.25, `y[${i}] ${record.prediction} (truth ${truthY[i]})`);
    assert.ok(Math.abs(record.std - 1) < 0.15, `std of y ${record.std}`);
    assert.ok(record.lowerBound < record.prediction && record.prediction < record.upperBound);
    assert.equal(record.confidenceLevel, 0.9);
  });
  results.z.forEach((record: any, i: number) => assert.ok(Math.abs(record.prediction - -1.5 * truthY[i]!) < 0.4, `z[${i}] ${record.prediction}`));
  const categorical = await completedRun(twin, { type: 'prediction', sample: [{ x: 0, y: 4, z: -6 }], targetVars: ['plan'] });
  const plan = categorical.outputs['1.0.0'].results.plan[0];
  assert.equal(plan.prediction, 'premium', 'y far above 2x makes premium the likelier class');
  assert.deepEqual([...plan.categories].sort(), ['basic', 'premium']);
  assert.ok(Math.abs(plan.probabilities.reduce((a: number, b: number) => a + b, 0) - 1) < 1e-9);
  assert.equal(plan.lowerBound.length, 2);
});

test('counterfactual: the fewest changes that reach the target, verified by re-simulation; fixed variables never move', async (t) => {
  const twin = await trainedTwin(t);
  const samples = [{ x: 0, plan: 'basic', y: 0, z: 0, w: 0 }];
  const run = await completedRun(twin, { type: 'counterfactual', samples, targets: [{ variable: 'z', value: -3, matchMode: 'orLess' }], maxChanges: 1 });
  const answer = run.outputs['1.0.0'].details.samples[0];
  assert.equal(answer.achieved, true, JSON.stringify(answer));
  assert.equal(answer.changes.length, 1);
  assert.ok(['x', 'y'].includes(answer.changes[0].variable), JSON.stringify(answer.changes));
  assert.ok(answer.targets[0].counterfactual <= -3 && answer.targets[0].met === true, JSON.stringify(answer.targets));
  const fixed = await completedRun(twin, { type: 'counterfactual', samples, targets: [{ variable: 'z', value: -3, matchMode: 'orLess' }], constraints: { x: { type: 'fixed' }, y: { type: 'fixed' } } });
  const constrained = fixed.outputs['1.0.0'].details.samples[0];
  assert.ok(constrained.changes.every((c: { variable: string }) => c.variable !== 'x' && c.variable !== 'y'), JSON.stringify(constrained));
});

test('optimisation: a lever goes to the bound its effect points to, within its constraint', async (t) => {
  const twin = await trainedTwin(t);
  const run = await completedRun(twin, {
    type: 'optimisation',
    objectives: [{ direction: 'maximise', variable: 'z' }],
    decisionVars: ['x'],
    variableConstraints: [{ variable: 'x', type: 'range', minValue: -1, maxValue: 1 }],
    samples: 2000,
  });
  const { details } = run.outputs['1.0.0'];
  const x = details.recommendation.find((r: { variable: string }) => r.variable === 'x');
  assert.ok(x !== undefined && Math.abs(x.value - -1) < 0.05, `z = -3x + ...: maximised at x = -1, got ${JSON.stringify(details.recommendation)}`);
  assert.equal(details.feasible, true);
});

test('explanation: the causes of z ranked by their effect, y first', async (t) => {
  const twin = await trainedTwin(t);
  const run = await completedRun(twin, { type: 'explanation', explanationMode: 'discovery', effectVariable: 'z' });
  const text = JSON.stringify(run.outputs['1.0.0'].details);
  for (const cause of ['x', 'y', 'plan']) assert.match(text, new RegExp(`"${cause}"`), `${cause} is a cause of z`);
  assert.doesNotMatch(text, /"variable":"w"/, 'w is independent of z');
  assert.ok(run.resultsSummary.summary.length > 0);
});

test('root cause analysis and anomaly scan: an injected shift in y is found and blamed on y; a normal row is not flagged', async (t) => {
  const twin = await trainedTwin(t);
  const normal = { x: 0.2, plan: 'basic', y: 0.5, z: -0.6, w: 0.1 };
  const shifted = { x: 0, plan: 'basic', y: 8, z: -12, w: 0 };
  // y's own noise 4.5 standard deviations high moves z to -6.75, inside z's normal range (sd about 3.7).
  const withinRange = { x: 0, plan: 'basic', y: 4.5, z: -6.75, w: 0 };
  const rca = await completedRun(twin, { type: 'root_cause_analysis', targetVariable: 'z', samples: [shifted, withinRange, normal], targetFpr: 0.01 });
  const [diagnosis, upstream, quiet] = rca.outputs['1.0.0'].details.samples;
  assert.deepEqual([diagnosis.anomalous, diagnosis.anomalyBasis, diagnosis.targetAnomalous], [true, 'target', true]);
  assert.deepEqual([diagnosis.rootCauses[0].variable, diagnosis.rootCauses[0].rank], ['y', 1], JSON.stringify(diagnosis.rootCauses));
  assert.deepEqual([upstream.anomalous, upstream.anomalyBasis, upstream.targetAnomalous], [true, 'upstream', false], JSON.stringify(upstream));
  assert.equal(upstream.rootCauses[0].variable, 'y', JSON.stringify(upstream.rootCauses));
  assert.deepEqual([quiet.anomalous, quiet.rootCauses], [false, []]);
  assert.match(rca.resultsSummary.summary, /z was anomalous in 2 of 3 samples.*In 1 of them z's own value stayed within its normal range/);
  // The same shift in y already there before (baselineSamples): a standing condition, not the cause of this sample.
  const before = { x: 0, plan: 'basic', y: 8.5, z: -12.8, w: 0 };
  const withBaseline = await completedRun(twin, { type: 'root_cause_analysis', targetVariable: 'z', samples: [shifted], baselineSamples: [before, normal], targetFpr: 0.01 });
  const [standing] = withBaseline.outputs['1.0.0'].details.samples;
  // y's shift and the value of z it explains were both there before: no new incident.
  assert.deepEqual([standing.anomalous, standing.targetAnomalous, standing.standing, standing.rootCauses], [false, true, ['y', 'z'], []], JSON.stringify(standing));
  assert.match(withBaseline.resultsSummary.summary, /not anomalous.*standing conditions: y, z/);
  const refused = await twin.app.call({
    method: 'POST', url: twin.simulations,
    body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario: { type: 'root_cause_analysis', targetVariable: 'z', samples: [shifted], baselineSamples: [{ churn: 1 }] } },
  });
  assert.equal(refused.status, 422);
  assert.match(JSON.stringify(refused.body), /baselineSamples/);
  const scan = await completedRun(twin, { type: 'anomaly_detection', samples: [normal, shifted], targetFpr: 0.01, autoRca: true });
  const [first, second] = scan.outputs['1.0.0'].details.samples;
  assert.equal(first.isAnomaly, false);
  assert.equal(second.isAnomaly, true);
  assert.equal(second.rootCause.rootCauses[0].variable, 'y', JSON.stringify(second.rootCause));
});

test('score: rows judged against a target, changes proposed for misses, read back as digest plus pages', async (t) => {
  const twin = await trainedTwin(t);
  const rows = [{ x: 0, plan: 'basic', w: 0 }, { x: 2, plan: 'premium', w: 0 }, { x: -1, plan: 'basic', w: 0 }];
  const accepted = await twin.app.call({ method: 'POST', url: `${twin.version}/score`, body: { rows, targets: [{ variable: 'z', value: -3, matchMode: 'orLess' }] } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  const run = await waitForRun(twin, accepted.body.data.runId);
  assert.equal(run.status, 'completed', run.error);
  assert.equal(run.scenario.type, 'score');
  const url = `${twin.simulations}/${run.id}/score`;
  const first = (await twin.app.call({ method: 'GET', url: `${url}?limit=2` })).body.data;
  assert.deepEqual(first.digest.verdicts, { meets: 1, misses: 2, unscorable: 0 });
  assert.equal(first.rows.length, 2);
  assert.equal(first.pagination.total, 3);
  assert.equal(first.rows[0].verdict, 'misses');
  assert.equal(first.rows[1].verdict, 'meets');
  assert.ok(first.rows[0].changes.length > 0 && first.rows[0].reachable === true, JSON.stringify(first.rows[0]));
  assert.ok(first.digest.topDrivers.length > 0);
  const second = (await twin.app.call({ method: 'GET', url: `${url}?limit=2&cursor=${encodeURIComponent(first.pagination.cursor)}` })).body.data;
  assert.deepEqual(second.rows.map((r: { index: number }) => r.index), [2]);
  assert.equal(second.pagination.hasMore, false);
  assert.equal((await twin.app.call({ method: 'GET', url: `${twin.simulations}/${run.id}/sweep` })).status, 404);
  const unknown = await twin.app.call({ method: 'POST', url: `${twin.version}/score`, body: { rows, targets: [{ variable: 'churn', value: 1 }] } });
  assert.equal(unknown.status, 422);
  // Located in the score body, not in a scenario the request never had.
  assert.equal(unknown.body.errors[0].location, 'body/targets/0/variable', JSON.stringify(unknown.body));
  assert.match(unknown.body.detail, /^The scoring request is invalid: body\/targets\/0\/variable/);
});

test('scenario-from-query: plain English becomes a scenario that runs; what cannot be mapped answers 422', async (t) => {
  const twin = await trainedTwin(t);
  const answer = await twin.app.call({ method: 'POST', url: `${twin.version}/scenario-from-query`, body: { query: 'What happens to z if x rises by 10%?' } });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const { scenario } = answer.body.data;
  assert.equal(scenario.type, 'intervention');
  assert.equal(scenario.interventions[0].variable, 'x');
  assert.deepEqual(scenario.interventions[0].valueSpec, { type: 'relative_change', mode: 'percentage', value: 10 });
  const run = await waitForRun(twin, (await submit(twin, scenario)).runId);
  assert.equal(run.status, 'completed', run.error);
  const unmapped = await twin.app.call({ method: 'POST', url: `${twin.version}/scenario-from-query`, body: { query: 'what happens to churn if price rises 10%?' } });
  assert.equal(unmapped.status, 422);
  assert.match(unmapped.body.detail, /churn|price/);
});

test("the twin's suggested simulations are accepted as they are and complete", async (t) => {
  const twin = await trainedTwin(t);
  const record = (await twin.app.call({ method: 'GET', url: `/api/v1/workspaces/${twin.ws}/digital-twins/${twin.twinId}` })).body.data;
  assert.ok(record.suggestedSimulations.length > 0);
  for (const suggestion of record.suggestedSimulations) {
    const run = await waitForRun(twin, (await submit(twin, suggestion.scenario)).runId);
    assert.equal(run.status, 'completed', `${suggestion.name}: ${run.error}`);
  }
});
