import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../src/compute/reference.js';
import { exactCopies } from '../../../src/engine/discovery/copies.js';
import { discoverStatic } from '../../../src/engine/discovery/discover-static.js';
import { prepareForDiscovery } from '../../../src/engine/discovery/prepare.js';
import { categoricalColumn, continuousColumn, frameOf } from '../../../src/engine/frame.js';
import { structuralHammingDistance } from '../../../src/engine/graph/metrics.js';
import { randomModel, sampleModel } from '../../../src/engine/simulate.js';
import type { CategoricalColumn, Frame } from '../../../src/engine/types.js';
import { truthCpdag } from './fixtures.js';

/** `column` under new labels (a code's label column): the same values one to one, the same rows missing. */
function relabelled(column: CategoricalColumn, name: string): CategoricalColumn {
  const labels = column.categories.map((c) => `label ${c}`);
  return categoricalColumn(name, [...column.codes].map((c) => (c < 0 ? null : labels[c]!)), labels);
}

const categorical = (frame: Frame, name: string) => frame.columns.find((c) => c.name === name) as CategoricalColumn;

test('an exact copy is a categorical column mapping one to one onto an earlier one, with the same rows missing', () => {
  const a = categoricalColumn('a', ['x', 'y', 'x', 'z', null, 'y'], ['x', 'y', 'z']);
  const frame = frameOf([
    a,
    relabelled(a, 'copy'),
    categoricalColumn('coarser', ['x', 'y', 'x', 'x', null, 'y'], ['x', 'y']), // a function of a, not one to one
    categoricalColumn('lessMissing', ['x', 'y', 'x', 'z', 'x', 'y'], ['x', 'y', 'z']),
    categoricalColumn('oneRowOff', ['x', 'y', 'x', 'z', null, 'x'], ['x', 'y', 'z']),
    relabelled(a, 'second copy'),
  ]);
  const data = prepareForDiscovery(frame, kernels);
  assert.deepEqual([...data.copyOf], [-1, -1, -1, -1, -1, -1], 'nothing is set aside unless asked');
  assert.deepEqual([...exactCopies(data)], [-1, 0, -1, -1, -1, 0]);
  const toOther = (name: string) => ({ source: name, target: 'coarser' });
  assert.deepEqual([...exactCopies(data, { forbidden: [toOther('copy')] })], [1, -1, -1, -1, -1, 1], 'a copy knowledge ties to the rest of the graph is searched as itself');
  assert.deepEqual([...exactCopies(data, { forbidden: [toOther('copy'), toOther('a')] })], [-1, -1, -1, -1, -1, 0], 'two such copies are both searched');
  assert.deepEqual([...exactCopies(data, { required: [{ source: 'second copy', target: 'a' }] })], [5, 5, -1, -1, -1, -1], 'a pinned edge between copies names the one that acts');
  const prepared = prepareForDiscovery(frame, kernels, { copies: {} });
  assert.deepEqual([...prepared.informative], [1, 0, 1, 1, 1, 0], 'copies are kept out of tests and scores');
});

for (const share of [1, 0.5]) {
  test(`a copy of a ${share === 1 ? 'discrete' : 'mixed'} network's variable hangs off it, undirected, and leaves the rest of the search as without it`, () => {
    const model = randomModel(8, 2, 3, { categoricalShare: share });
    const frame = sampleModel(model, 4000, 103);
    // The copied variable has parents and children in the truth, so a search with both columns would split them.
    const target = model.nodes.find((n, j) => n.kind === 'categorical' && n.parents.length > 0 && model.nodes.some((m) => m.parents.includes(j)))!;
    assert.ok(target, 'the model has a categorical variable with parents and children');
    const withCopy = frameOf([...frame.columns, relabelled(categorical(frame, target.name), 'copy')]);

    const alone = discoverStatic(frame, {}, kernels);
    const result = discoverStatic(withCopy, {}, kernels);
    assert.deepEqual(result.copies, [{ column: 'copy', copyOf: target.name }]);
    const copyEdge = result.edges.find((e) => e.target === 'copy' || e.source === 'copy');
    assert.deepEqual({ source: copyEdge?.source, target: copyEdge?.target, fromData: copyEdge?.orientationFromData }, { source: target.name, target: 'copy', fromData: false });
    assert.equal(result.edges.filter((e) => e.target === 'copy' || e.source === 'copy').length, 1, 'the copy has one edge');
    assert.ok(copyEdge!.strength > 0 && copyEdge!.strength <= 1, `strength ${copyEdge!.strength}`);
    assert.ok(result.cpdag.some((e) => e.source === target.name && e.target === 'copy' && !e.directed), 'undirected in the class');
    const rest = result.cpdag.filter((e) => e.source !== 'copy' && e.target !== 'copy');
    assert.equal(structuralHammingDistance(rest, alone.cpdag), 0, 'the other edges are those found without the copy');

    // Pinned as the one that acts, the copy is searched and the original hangs off it, the direction decided.
    const pinned = discoverStatic(withCopy, { required: [{ source: 'copy', target: target.name }] }, kernels);
    assert.deepEqual(pinned.copies, [{ column: target.name, copyOf: 'copy' }]);
    assert.ok(pinned.cpdag.some((e) => e.source === 'copy' && e.target === target.name && e.directed));
    const renamed = (name: string) => (name === 'copy' ? target.name : name === target.name ? 'copy' : name);
    const others = pinned.cpdag.filter((e) => ![e.source, e.target].every((n) => n === 'copy' || n === target.name)).map((e) => ({ ...e, source: renamed(e.source), target: renamed(e.target) }));
    assert.equal(structuralHammingDistance(others, alone.cpdag.filter((e) => true)), 0, 'the copy carries what the original carried');
  });
}

test('an amount in two units is a copy, and neither it nor a constant column changes what the search finds', () => {
  // The order search is needed here (the edge searches end at SHD 11: discover-static.test.ts); a variable kept out
  // of the search once turned it off for every variable.
  const model = randomModel(10, 2, 7008);
  const frame = sampleModel(model, 5000, 9008);
  const source = frame.columns.find((c) => c.name === 'X4')!;
  const inCents = continuousColumn('X4 in cents', [...(source as { values: Float64Array }).values].map((v) => -100 * v + 7));
  const wider = frameOf([...frame.columns, continuousColumn('constant', new Array<number>(frame.nRows).fill(3)), inCents]);
  const result = discoverStatic(wider, {}, kernels);
  assert.deepEqual(result.copies, [{ column: 'X4 in cents', copyOf: 'X4' }]);
  const copyEdge = result.edges.find((e) => e.target === 'X4 in cents')!;
  assert.ok(Math.abs(copyEdge.strength + 1) < 1e-9, `an affine copy with a negative scale: strength ${copyEdge.strength}`);
  const rest = result.cpdag.filter((e) => ![e.source, e.target].includes('X4 in cents'));
  assert.equal(structuralHammingDistance(rest, truthCpdag(model)), 0, JSON.stringify(rest));
});

test('columns of distinct values are not copies of each other, nor are continuous columns that are not affine maps of each other', () => {
  const x = Float64Array.from({ length: 200 }, (_, r) => Math.sin(r) * 10);
  const frame = frameOf([
    continuousColumn('x', [...x]),
    continuousColumn('cube', [...x].map((v) => v ** 3)), // one to one, distinct values: says nothing
    continuousColumn('noisy', [...x].map((v, r) => 2 * v + (r === 17 ? 1e-6 : 0))), // one row off the affine map
    categoricalColumn('id', [...x].map((_, r) => `row ${r}`)),
    categoricalColumn('id again', [...x].map((_, r) => `#${r}`)),
  ]);
  const data = prepareForDiscovery(frame, kernels);
  assert.deepEqual([...exactCopies(data)], [-1, -1, -1, -1, -1]);
});
