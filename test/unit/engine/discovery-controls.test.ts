import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../src/compute/reference.js';
import { discoverStatic } from '../../../src/engine/discovery/discover-static.js';
import { AppError } from '../../../src/errors.js';
import { topologicalSort } from '../../../src/engine/graph/dag.js';
import { randomModel, sampleModel } from '../../../src/engine/simulate.js';
import { colliderFrame, hasEdge } from './fixtures.js';

const frame = colliderFrame(3000, 21);

test('a required edge is kept and oriented as given even when the data says the pair is independent', () => {
  const result = discoverStatic(frame, { required: [{ source: 'W', target: 'X' }] }, kernels);
  assert.ok(hasEdge(result.edges, 'W', 'X'));
  assert.ok(result.cpdag.some((e) => e.source === 'W' && e.target === 'X' && e.directed));
});

test('a required edge against the data orientation is kept in the required direction', () => {
  const result = discoverStatic(frame, { required: [{ source: 'Z', target: 'X' }] }, kernels);
  assert.ok(hasEdge(result.edges, 'Z', 'X'));
  assert.ok(!hasEdge(result.edges, 'X', 'Z'));
  assert.ok(topologicalSort(['X', 'Y', 'Z', 'W'], result.edges) !== null);
});

test('a forbidden direction never appears, and forbidding both directions removes a strong edge', () => {
  const oneWay = discoverStatic(frame, { forbidden: [{ source: 'X', target: 'Z' }] }, kernels);
  assert.ok(!hasEdge(oneWay.edges, 'X', 'Z'));
  const bothWays = discoverStatic(frame, { forbidden: [{ source: 'X', target: 'Z' }, { source: 'Z', target: 'X' }] }, kernels);
  assert.ok(!hasEdge(bothWays.edges, 'X', 'Z') && !hasEdge(bothWays.edges, 'Z', 'X'));
});

test('required edges that form a cycle, or name unknown columns, are refused as validation_failed', () => {
  const cycle = [{ source: 'X', target: 'Y' }, { source: 'Y', target: 'Z' }, { source: 'Z', target: 'X' }];
  assert.throws(() => discoverStatic(frame, { required: cycle }, kernels), (e: unknown) => e instanceof AppError && e.code === 'validation_failed');
  assert.throws(() => discoverStatic(frame, { required: [{ source: 'X', target: 'nope' }] }, kernels), AppError);
  assert.throws(() => discoverStatic(frame, { required: [{ source: 'X', target: 'Z' }], forbidden: [{ source: 'X', target: 'Z' }] }, kernels), AppError);
});

test('maxDepth caps the conditioning sets PC tries', () => {
  const model = randomModel(12, 3, 4);
  const data = sampleModel(model, 2000, 5);
  const unlimited = discoverStatic(data, {}, kernels);
  assert.ok(unlimited.stats.depthReached >= 2, `an unlimited run reaches depth ${unlimited.stats.depthReached}`);
  for (const maxDepth of [0, 1]) {
    const capped = discoverStatic(data, { maxDepth }, kernels);
    assert.ok(capped.stats.depthReached <= maxDepth);
    assert.ok(capped.stats.tests < unlimited.stats.tests);
  }
});

test('an exhausted time budget stops cleanly, says so, and still answers a DAG', () => {
  const model = randomModel(15, 2, 6);
  const result = discoverStatic(sampleModel(model, 2000, 7), { timeBudgetMs: 0 }, kernels);
  assert.equal(result.stats.timedOut, true);
  assert.ok(topologicalSort(model.nodes.map((n) => n.name), result.edges) !== null);
  assert.equal(discoverStatic(frame, {}, kernels).stats.timedOut, false);
});

test('aborted() stops the work with an AbortError', () => {
  let calls = 0;
  assert.throws(
    () => discoverStatic(frame, {}, kernels, { aborted: () => ++calls > 2 }),
    (e: unknown) => e instanceof Error && e.name === 'AbortError',
  );
  assert.ok(calls >= 3);
});

test('progress is reported as a non-decreasing fraction that ends at 1', () => {
  const fractions: number[] = [];
  const states = new Set<string>();
  discoverStatic(sampleModel(randomModel(10, 2, 8), 2000, 9), {}, kernels, {
    progress: (fraction, state) => {
      fractions.push(fraction);
      states.add(state);
    },
  });
  assert.ok(fractions.length >= 4);
  for (let i = 1; i < fractions.length; i++) assert.ok(fractions[i]! >= fractions[i - 1]!, `progress went back at ${i}: ${fractions.join(',')}`);
  assert.equal(fractions.at(-1), 1);
  assert.ok(states.has('skeleton') && states.has('done'));
});

test('the same data and options give the same answer', () => {
  const a = discoverStatic(frame, {}, kernels);
  const b = discoverStatic(frame, {}, kernels);
  assert.deepEqual(a.edges, b.edges);
  assert.deepEqual(a.cpdag, b.cpdag);
});
