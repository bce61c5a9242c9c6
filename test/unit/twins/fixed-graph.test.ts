import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { applyFixedGraphPatch, edgesForTraining, findCycle } from '../../../src/twins/fixed-graph.js';

const empty = { relationships: [], antiRelationships: [] };
const e = (source: string, target: string) => ({ source, target });

test('findCycle names a directed cycle and answers null for a DAG', () => {
  assert.equal(findCycle([e('a', 'b'), e('b', 'c'), e('a', 'c')]), null);
  assert.deepEqual(findCycle([e('a', 'b'), e('b', 'c'), e('c', 'a')]), ['a', 'b', 'c', 'a']);
  assert.deepEqual(findCycle([e('a', 'b'), e('b', 'a')]), ['a', 'b', 'a']);
});

test('a patch pins, forbids and clears edges; clearEdges applies first', () => {
  const pinned = applyFixedGraphPatch(empty, { addEdges: [e('a', 'b')], removeEdges: [e('b', 'c')] }, ['a', 'b', 'c']);
  assert.deepEqual(pinned, { relationships: [e('a', 'b')], antiRelationships: [e('b', 'c')] });
  const swapped = applyFixedGraphPatch(pinned, { clearEdges: [e('b', 'c')], addEdges: [e('b', 'c')] }, ['a', 'b', 'c']);
  assert.deepEqual(swapped, { relationships: [e('a', 'b'), e('b', 'c')], antiRelationships: [] });
  assert.deepEqual(applyFixedGraphPatch(pinned, { addEdges: [e('a', 'b')] }, null), pinned, 'pinning twice is idempotent');
});

test('inconsistent pins answer 422 listing every problem', () => {
  const refuse = (patch: Parameters<typeof applyFixedGraphPatch>[1], pattern: RegExp, current = empty as Parameters<typeof applyFixedGraphPatch>[0]) =>
    assert.throws(() => applyFixedGraphPatch(current, patch, ['a', 'b', 'c']), (error: unknown) => error instanceof AppError && error.code === 'validation_failed' && pattern.test(error.detail));
  refuse({ addEdges: [e('a', 'b')], removeEdges: [e('a', 'b')] }, /both pinned present and forbidden/);
  refuse({ addEdges: [e('a', 'b'), e('b', 'c'), e('c', 'a')] }, /cycle/);
  refuse({ addEdges: [e('a', 'a')] }, /to itself/);
  refuse({ removeEdges: [e('a', 'zz')] }, /zz is not a variable/);
  refuse({ addEdges: [e('b', 'a')] }, /cycle/, { relationships: [e('a', 'b')], antiRelationships: [] });
});

test('training keeps pins, drops forbidden edges and discovered edges that would close a cycle, weakest first', () => {
  const discovered = [
    { ...e('a', 'b'), strength: 0.9 },
    { ...e('b', 'c'), strength: 0.5 },
    { ...e('c', 'd'), strength: 0.1 },
    { ...e('x', 'y'), strength: 0.4 },
  ];
  const edges = edgesForTraining(discovered, { relationships: [e('d', 'a')], antiRelationships: [e('x', 'y')] });
  assert.deepEqual(edges, [e('d', 'a'), e('a', 'b'), e('b', 'c')]);
});

test('pins name a lag on temporal twins: a variable may depend on its own past, lagged pins form no cycle, static twins refuse lags', () => {
  const temporal = applyFixedGraphPatch(empty, { addEdges: [{ source: 'a', target: 'a', lag: 1 }, { source: 'a', target: 'b', lag: 0 }, { source: 'b', target: 'a', lag: 2 }], removeEdges: [{ source: 'c', target: 'a' }] }, ['a', 'b', 'c'], true);
  assert.deepEqual(temporal.relationships, [{ source: 'a', target: 'a', lag: 1 }, { source: 'a', target: 'b', lag: 0 }, { source: 'b', target: 'a', lag: 2 }]);
  // The same pair at two lags are two pins; clearing names the lag.
  const cleared = applyFixedGraphPatch(temporal, { clearEdges: [{ source: 'b', target: 'a', lag: 2 }] }, null, true);
  assert.equal(cleared.relationships.length, 2);
  const refused = (patch: Parameters<typeof applyFixedGraphPatch>[1], temporalTwin: boolean) => {
    try {
      applyFixedGraphPatch(empty, patch, null, temporalTwin);
    } catch (error) {
      return (error as AppError).extras.errors?.map((e) => `${e.location}: ${e.message}`).join('; ') ?? '';
    }
    return 'accepted';
  };
  assert.match(refused({ addEdges: [{ source: 'a', target: 'a', lag: 0 }] }, true), /itself needs a lag of at least 1/);
  assert.match(refused({ addEdges: [{ source: 'a', target: 'b', lag: 0 }, { source: 'b', target: 'a', lag: 0 }] }, true), /cycle/);
  assert.match(refused({ addEdges: [{ source: 'a', target: 'b', lag: 1 }] }, false), /body\/addEdges\/0\/lag: a lag applies to temporal twins/);
});
