import assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgeConfidence, resampleFrame } from '../../../src/engine/discovery/bootstrap.js';
import { categoricalColumn, continuousColumn, frameOf } from '../../../src/engine/frame.js';
import type { DiscoveryResult } from '../../../src/engine/types.js';

const frame = frameOf([
  continuousColumn('A', Array.from({ length: 50 }, (_, i) => i)),
  categoricalColumn('B', Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 'even' : 'odd'))),
]);

test('a resample is half of the rows without replacement, in their order, kept whole, and repeats for the same seed', () => {
  const one = resampleFrame(frame, 7);
  const again = resampleFrame(frame, 7);
  const other = resampleFrame(frame, 8);
  assert.equal(one.nRows, 25);
  const a = one.columns[0]!;
  const b = one.columns[1]!;
  assert.ok(a.kind === 'continuous' && b.kind === 'categorical');
  for (let r = 0; r < one.nRows; r++) assert.equal(b.categories[b.codes[r]!], a.values[r]! % 2 === 0 ? 'even' : 'odd', 'row kept whole');
  assert.equal(new Set(a.values).size, 25, 'no row twice');
  for (let r = 1; r < one.nRows; r++) assert.ok(a.values[r]! > a.values[r - 1]!, 'rows keep their order');
  assert.deepEqual(again, one);
  assert.notDeepEqual(other, one);
  // Every row is equally likely: over many seeds each of the 50 rows is drawn about half the time.
  const drawn = new Float64Array(50);
  for (let seed = 0; seed < 400; seed++) for (const v of (resampleFrame(frame, seed).columns[0] as { values: Float64Array }).values) drawn[v]!++;
  for (const count of drawn) assert.ok(Math.abs(count / 400 - 0.5) < 0.1, `row drawn in ${count} of 400 half-samples`);
});

const result = (cpdag: DiscoveryResult['cpdag']): DiscoveryResult => ({ edges: [], cpdag, stats: { tests: 0, depthReached: 0, timedOut: false, millis: 0 } });

test('edge confidence counts same-direction edges as 1, undirected as 1/2, reversed or absent as 0', () => {
  const results = [
    result([{ source: 'A', target: 'B', directed: true }]),
    result([{ source: 'B', target: 'A', directed: false }]),
    result([{ source: 'B', target: 'A', directed: true }]),
    result([]),
  ];
  assert.deepEqual(edgeConfidence(results, [{ source: 'A', target: 'B' }, { source: 'B', target: 'A' }, { source: 'A', target: 'C' }]), [
    (1 + 0.5) / 4,
    (0.5 + 1) / 4,
    0,
  ]);
  assert.deepEqual(edgeConfidence([], [{ source: 'A', target: 'B' }]), [0]);
});
