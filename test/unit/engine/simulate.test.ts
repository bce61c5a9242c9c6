import assert from 'node:assert/strict';
import { test } from 'node:test';
import { topologicalSort } from '../../../src/engine/graph/dag.js';
import { Rng } from '../../../src/engine/random.js';
import { modelEdges, randomDag, randomModel, sampleModel, withMissingValues } from '../../../src/engine/simulate.js';

test('an ER2 random DAG is acyclic with about p edges on average, and the same seed gives the same graph', () => {
  let edges = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const model = randomModel(30, 2, seed);
    const names = model.nodes.map((n) => n.name);
    assert.ok(topologicalSort(names, modelEdges(model)) !== null);
    edges += modelEdges(model).length;
  }
  assert.ok(Math.abs(edges / 40 - 30) < 3, `mean edges ${edges / 40}`);
  assert.deepEqual(randomDag(20, 2, new Rng(3)), randomDag(20, 2, new Rng(3)));
});

test('linear-Gaussian samples have the covariance the weights imply', () => {
  const model = randomModel(2, 2, 1, { weightRange: [1, 1] });
  // With p = 2 and expected degree 2 the single pair is always an edge: child = +-1 * parent + N(0, 1).
  const [edge] = modelEdges(model);
  assert.ok(edge);
  const frame = sampleModel(model, 50_000, 2);
  const column = (name: string) => (frame.columns.find((c) => c.name === name) as { values: Float64Array }).values;
  const parent = column(edge.source);
  const child = column(edge.target);
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < frame.nRows; i++) {
    sxx += parent[i]! ** 2;
    sxy += parent[i]! * child[i]!;
    syy += child[i]! ** 2;
  }
  assert.ok(Math.abs(sxx / frame.nRows - 1) < 0.03);
  assert.ok(Math.abs(Math.abs(sxy / frame.nRows) - 1) < 0.03);
  assert.ok(Math.abs(syy / frame.nRows - 2) < 0.05);
});

test('categorical nodes take every level and missing values appear at the asked share', () => {
  const model = randomModel(6, 2, 4, { categoricalShare: 1, minLevels: 3, maxLevels: 3 });
  const frame = withMissingValues(sampleModel(model, 4000, 5), 0.25, 6);
  for (const column of frame.columns) {
    assert.ok(column.kind === 'categorical');
    const missing = column.codes.filter((c) => c < 0).length;
    assert.ok(Math.abs(missing / 4000 - 0.25) < 0.03);
    assert.equal(new Set(column.codes.filter((c) => c >= 0)).size, 3);
  }
});
