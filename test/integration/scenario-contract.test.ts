/**
 * The members of the spec's Scenario object beyond each family's own fields, through the API on a twin of a known
 * model (test/helpers/simulations.ts: x ~ N(0, 1), P(premium) = 0.4, y = 2x + 1.5[premium] + e, z = -1.5y + e).
 * Each answer is checked against that model.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TrainedTwin, completedRun, trainedTwin } from '../helpers/simulations.js';

const API = '/api/v1';

const near = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} +- ${tolerance}`);

async function refused(twin: TrainedTwin, scenario: Record<string, unknown>, location: string, message: RegExp): Promise<void> {
  const response = await twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario } });
  assert.equal(response.status, 422, JSON.stringify(response.body));
  const error = response.body.errors.find((e: { location: string }) => e.location === location);
  assert.ok(error !== undefined, `no error at ${location}: ${JSON.stringify(response.body.errors)}`);
  assert.match(error.message, message);
}

test('conditions restrict the evaluated population: do(x = 1) among units with x > 0 moves y by 2(1 - E[x | x > 0])', async (t) => {
  const twin = await trainedTwin(t);
  const setX = { variable: 'x', valueSpec: { type: 'set_value', value: 1 } };
  const run = await completedRun(twin, { type: 'intervention', interventions: [setX], targetVars: ['y'], conditions: [{ variable: 'x', operator: 'gt', value: 0 }] });
  const { details } = run.outputs['1.0.0'];
  const y = details.variables.find((v: { variable: string }) => v.variable === 'y');
  // E[x | x > 0] = sqrt(2 / pi) = 0.798: the effect is 2 * (1 - 0.798) = 0.40, not the population's 2.
  near(y.effect.difference, 2 * (1 - Math.sqrt(2 / Math.PI)), 0.12, 'effect on y among x > 0');
  near(details.conditionedShare, 0.5, 0.05, 'share of units with x > 0');
  assert.ok(run.resultsSummary.keyPoints.some((p: string) => /meet the conditions/.test(p)), JSON.stringify(run.resultsSummary));
  // Conditions belong to populations: a family that answers given samples says so.
  await refused(twin, { type: 'prediction', sample: [{ x: 1, plan: 'basic', w: 0 }], targetVars: ['y'], conditions: [{ variable: 'x', operator: 'gt', value: 0 }] }, 'body/scenario/conditions', /samples/);
  await refused(twin, { type: 'intervention', interventions: [setX], conditions: [{ variable: 'nope', operator: 'gt', value: 0 }] }, 'body/scenario/conditions/0/variable', /unknown variable/);
});

test('segments: effects and metrics per segment, and with segment interventions the effect of acting on one segment alone', async (t) => {
  const twin = await trainedTwin(t);
  const segmentDefinitions = [
    { id: 'premium', description: 'premium plan', conditions: [{ variable: 'plan', operator: 'eq', value: 'premium' }] },
    { id: 'basic', conditions: [{ variable: 'plan', operator: 'eq', value: 'basic' }] },
  ];
  const run = await completedRun(twin, {
    type: 'intervention',
    interventions: [{ variable: 'plan', valueSpec: { type: 'set_value', value: 'premium' } }],
    targetVars: ['y'],
    metrics: [{ name: 'mean z', sqlQuery: 'SELECT avg(z) AS value FROM df' }],
    segmentDefinitions,
    enableSegmentInterventions: true,
  });
  const segments = run.outputs['1.0.0'].details.segments as any[];
  assert.deepEqual(segments.map((s) => s.id), ['premium', 'basic']);
  const [premium, basic] = segments;
  near(premium.share, 0.4, 0.05, 'premium share');
  near(premium.variables[0].effect.difference, 0, 0.1, 'premium units are premium already');
  near(basic.variables[0].effect.difference, 1.5, 0.2, 'basic units gain 1.5 in y');
  near(basic.metrics[0].difference, -2.25, 0.35, 'mean z in basic');
  // Acting on basic alone moves the whole population's y by 1.5 x 0.6; acting on premium alone does nothing.
  near(basic.targeted.variables[0].effect.difference, 0.9, 0.15, 'whole-population effect of acting on basic');
  near(premium.targeted.variables[0].effect.difference, 0, 0.1, 'whole-population effect of acting on premium');
  near(basic.targeted.metrics[0].difference, -1.35, 0.25, 'whole-population mean z when acting on basic');
  assert.ok(run.resultsSummary.keyPoints.some((p: string) => /Segment basic/.test(p)), JSON.stringify(run.resultsSummary));
  await refused(twin, { type: 'intervention', interventions: [{ variable: 'x', valueSpec: { type: 'set_value', value: 1 } }], enableSegmentInterventions: true }, 'body/scenario/enableSegmentInterventions', /needs segmentDefinitions/);
  await refused(twin, { type: 'anomaly_detection', samples: [{ x: 0, plan: 'basic', y: 0, z: 0, w: 0 }], segmentDefinitions }, 'body/scenario/segmentDefinitions', /samples/);
  // An explanation takes segmentDefinitions as it takes segments.
  const explained = await completedRun(twin, { type: 'explanation', explanationMode: 'impact', causeVariable: 'x', segmentDefinitions });
  assert.deepEqual(explained.outputs['1.0.0'].details.segments.map((s: { id: string }) => s.id), ['premium', 'basic']);
});

test('optimisation: a target caps an objective, so the search stops where it is met and spends the rest elsewhere', async (t) => {
  const twin = await trainedTwin(t);
  // z = -3x - 1.5(1.5 premium) + noise: maximising z pushes x down; a weaker wish for a high x pulls it up.
  const base = {
    type: 'optimisation',
    decisionVars: ['x'],
    variableConstraints: [{ variable: 'x', type: 'range', minValue: -1, maxValue: 1 }],
    samples: 2000,
  };
  // The objective names a semantic-layer concept at the version it was written against (edited once: version 1).
  const concepts = `${API}/workspaces/${twin.ws}/ontology/concepts`;
  const conceptId = (await twin.app.call({ method: 'POST', url: concepts, body: { name: 'Net margin z', conceptClassification: 'measure' } })).body.data.id as string;
  await twin.app.call({ method: 'PUT', url: `${concepts}/${conceptId}`, body: { _id: conceptId, description: 'what z measures' } });
  const objectives = (target?: Record<string, unknown>) => [
    { direction: 'maximise', variable: 'z', ...(target ? { target } : {}), conceptId, conceptEditVersion: 1 },
    { direction: 'maximise', variable: 'x', weight: 0.5 },
  ];
  const xOf = (run: Record<string, any>) => run.outputs['1.0.0'].details.recommendation.find((r: { variable: string }) => r.variable === 'x').value as number;
  const free = await completedRun(twin, { ...base, objectives: objectives() });
  near(xOf(free), -1, 0.05, 'without a target z wins: x at its lower bound');
  // E[z] = -3x - 0.9 reaches 0 at x = -0.3: past it z earns nothing and the wish for a high x decides.
  const capped = await completedRun(twin, { ...base, objectives: objectives({ type: 'absolute', value: 0 }) });
  near(xOf(capped), -0.3, 0.12, 'with the target met, x stops near -0.3');
  const z = capped.outputs['1.0.0'].details.objectives[0];
  assert.equal(z.targetMet, true, JSON.stringify(z));
  assert.equal(z.targetValue, 0);
  assert.deepEqual(z.target, { type: 'absolute', value: 0 });
  assert.equal(z.conceptId, conceptId);
  assert.equal(capped.scenario.objectives[0].conceptEditVersion, 1, 'the concept references are stored with the run');
  const submit = (objective: Record<string, unknown>) => twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario: { ...base, objectives: [{ direction: 'maximise', variable: 'z', ...objective }] } } });
  const unknown = await submit({ conceptId: 'cpt_00000000000000000000000000' });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.errors[0].location, 'body/scenario/objectives/0/conceptId');
  assert.equal((await submit({ conceptId, conceptEditVersion: 0 })).status, 409, 'an objective written against an older concept version is stale');
  // A percentage target is an improvement over the baseline; an unreachable one is reported as missed.
  const far = await completedRun(twin, { ...base, objectives: [{ direction: 'maximise', variable: 'z', target: { type: 'percentage', value: 1000 } }] });
  const missed = far.outputs['1.0.0'].details.objectives[0];
  near(missed.targetValue, missed.baseline + Math.abs(missed.baseline) * 10, 1e-9, 'percentage target level');
  assert.equal(missed.targetMet, false);
  assert.ok(far.resultsSummary.keyPoints.some((p: string) => /not reached/.test(p)), JSON.stringify(far.resultsSummary));
});

test('optimisation: relative_change keeps each unit\'s spread, segment interventions decide per segment, conditions narrow the population', async (t) => {
  const twin = await trainedTwin(t);
  const base = {
    type: 'optimisation',
    objectives: [{ direction: 'maximise', metricSqlQuery: 'SELECT avg(z) AS value FROM df', variablesRelevantToMetric: ['z'] }],
    decisionVars: ['x'],
    variableConstraints: [{ variable: 'x', type: 'range', minValue: -1, maxValue: 1 }],
    samples: 2000,
  };
  const xRecord = (run: Record<string, any>) => run.outputs['1.0.0'].results.x[0];
  const set = await completedRun(twin, base);
  near(xRecord(set).std, 0, 1e-9, 'set_value gives every unit the same x');
  assert.deepEqual(set.outputs['1.0.0'].details.objectives[0].variablesRelevantToMetric, ['z']);
  assert.equal(set.outputs['1.0.0'].details.objectives[0].identified, true, 'the metric reads z, whose effect the pinned graph decides');
  const shifted = await completedRun(twin, { ...base, interventionTypes: { x: 'relative_change' } });
  const recommendation = shifted.outputs['1.0.0'].details.recommendation[0];
  assert.equal(recommendation.interventionType, 'relative_change');
  near(recommendation.value, -1, 0.05, 'the mean of x moves to its bound');
  near(xRecord(shifted).std, 1, 0.1, 'each unit keeps its own deviation');
  // One segment: only premium units get the decision; the others keep x ~ N(0, 1).
  const segmented = await completedRun(twin, {
    ...base,
    segmentDefinitions: [{ id: 'premium', conditions: [{ variable: 'plan', operator: 'eq', value: 'premium' }] }],
    enableSegmentInterventions: true,
  });
  const [lever] = segmented.outputs['1.0.0'].details.recommendation;
  assert.equal(lever.segment, 'premium');
  near(lever.value, -1, 0.05, 'premium units go to the bound');
  near(xRecord(segmented).prediction, 0.4 * -1, 0.08, 'mean x: premium units at -1, basic ones at 0');
  const [segment] = segmented.outputs['1.0.0'].details.segments;
  near(segment.share, 0.4, 0.05, 'premium share');
  assert.ok(segment.objectives[0].optimised > segment.objectives[0].baseline + 2, JSON.stringify(segment));
  // The run draws its own seed. With 2,000 samples (about 800 premium units, sd of z among them 3.5) the baseline's
  // sampling error was near 0.12 and a run fell outside the tolerance now and then (-1.93 once); with 8,000, six runs
  // read -2.10 to -2.22 (the twin's fit sits about 0.09 above the truth).
  const conditioned = await completedRun(twin, { ...base, samples: 8000, conditions: [{ variable: 'plan', operator: 'eq', value: 'premium' }] });
  const objective = conditioned.outputs['1.0.0'].details.objectives[0];
  // Among premium units E[z] = -1.5(2 E[x] + 1.5) = -2.25 at baseline.
  near(objective.baseline, -2.25, 0.3, 'baseline mean z among premium units');
  await refused(twin, { ...base, interventionTypes: { y: 'relative_change' } }, 'body/scenario/interventionTypes/y', /not a decision variable/);
  await refused(twin, { ...base, decisionVars: ['plan'], variableConstraints: [], interventionTypes: { plan: 'relative_change' } }, 'body/scenario/interventionTypes/plan', /numeric/);
  await refused(twin, { ...base, objectives: [{ direction: 'maximise', variable: 'z', variablesRelevantToMetric: ['z'] }] }, 'body/scenario/objectives/0/variablesRelevantToMetric', /metricSqlQuery/);
});

test('a temporal window on a metric constraint is refused on a static twin; interventionTypes must agree with the valueSpec', async (t) => {
  const twin = await trainedTwin(t);
  const constraint = { metricName: 'z floor', sqlQuery: 'SELECT avg(z) AS value FROM df', constraintType: 'min_value', value: -10 };
  const scenario = (temporal: unknown) => ({
    type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'z' }], decisionVars: ['x'], samples: 500,
    variableConstraints: [{ variable: 'x', type: 'range', minValue: -1, maxValue: 1 }],
    metricConstraints: [{ ...constraint, ...(temporal === undefined ? {} : { temporal }) }],
  });
  await refused(twin, scenario({ startTimestampMs: 0, endTimestampMs: 86_400_000 }), 'body/scenario/metricConstraints/0/temporal', /static/);
  const run = await completedRun(twin, scenario(null));
  assert.equal(run.outputs['1.0.0'].details.feasible, true);
  const setX = { variable: 'x', valueSpec: { type: 'set_value', value: 1 } };
  await refused(twin, { type: 'intervention', interventions: [setX], interventionTypes: { x: 'relative_change' } }, 'body/scenario/interventionTypes/x', /disagrees/);
  await completedRun(twin, { type: 'intervention', interventions: [setX], targetVars: ['y'], interventionTypes: { x: 'set_value' } });
});
