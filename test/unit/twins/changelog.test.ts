import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildChangelog } from '../../../src/twins/changelog.js';

const edge = (source: string, target: string, strength: number) => ({
  source, target, orientation: 'compelled' as const, strength, strengthStatus: 'measured', timeLagEffects: [], cyclicalEffects: [], confidence: null, agreementRate: null, isEnvironmentGated: false,
});

test('a first version lists everything as added', () => {
  const log = buildChangelog(null, { fixedSubGraph: { relationships: [{ source: 'a', target: 'b' }], antiRelationships: [] }, causalGraph: [edge('a', 'b', 0.5)], nodes: [], evaluation: null });
  assert.deepEqual(log.causalGraphDiffs.map((d) => [d.type, d.key]), [['added', 'a -> b']]);
  assert.deepEqual(log.fixedSubGraphDiffs.map((d) => [d.type, d.key]), [['added', 'a -> b required']]);
});

test('against a base, edges and metrics are added, removed or changed', () => {
  const evaluation = (r2: number) => ({ modelType: 'cbn', nodeMetrics: { b: { r2 } }, globalMetrics: {}, skippedReason: null, skipReasons: [], nEvalPoints: 10 });
  const base = { fixedSubGraph: { relationships: [], antiRelationships: [] }, causalGraph: [edge('a', 'b', 0.5), edge('b', 'c', 0.3)], nodes: [], evaluation: evaluation(0.5) };
  const log = buildChangelog(base as never, { ...base, causalGraph: [edge('a', 'b', 0.8), edge('c', 'd', 0.2)], evaluation: evaluation(0.7) });
  assert.deepEqual(log.causalGraphDiffs.map((d) => [d.type, d.key]).sort(), [['added', 'c -> d'], ['changed', 'a -> b'], ['removed', 'b -> c']]);
  assert.deepEqual(log.evaluationDiffs, [{ type: 'changed', key: 'b.r2', before: 0.5, after: 0.7 }]);
});
