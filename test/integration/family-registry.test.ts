import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registerFamily } from '../../src/families/registry.js';
import columnTotal from '../fixtures/families/column-total/index.js';
import { type TrainedTwin, completedRun, trainedTwin } from '../helpers/simulations.js';

const refused = async (twin: TrainedTwin, scenario: Record<string, unknown>) => {
  const response = await twin.app.call({ method: 'POST', url: twin.simulations, body: { digitalTwinId: twin.twinId, digitalTwinVersionId: twin.versionId, scenario } });
  assert.equal(response.status, 422, JSON.stringify(response.body));
  return response.body;
};

test('a question family added in its own folder is validated, documented, run on the pool and stored, with no shared file edited', async (t) => {
  registerFamily(columnTotal);
  const twin = await trainedTwin(t);
  const run = await completedRun(twin, { type: 'column_total', variable: 'y', rows: [{ y: 1.5 }, { y: 2 }] });
  assert.equal(run.outputs['1.0.0'].details.total, 3.5);
  assert.equal(run.outputs['1.0.0'].details.modelNodes, 5);
  assert.equal(run.resultsSummary.summary, "The rows' y adds up to 3.5.");
  const unknown = await refused(twin, { type: 'column_total', variable: 'revenue', rows: [{ y: 1 }] });
  assert.equal(unknown.errors[0].location, 'body/scenario/variable');
  const categorical = await refused(twin, { type: 'column_total', variable: 'plan', rows: [{ y: 1 }] });
  const openapi = await twin.app.call({ method: 'GET', url: '/api/v1/openapi.json' });
  assert.ok(openapi.body.components.schemas.ColumnTotalScenario !== undefined, 'the family is documented as an OpenAPI component');
  assert.match(categorical.errors[0].message, /numeric variable/);
  assert.throws(() => registerFamily(columnTotal), /registered twice/);
});
