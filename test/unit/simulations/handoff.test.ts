import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScenarioHandoff } from '../../../src/simulations/handoff.js';

test('a handed-off scenario is taken once; the oldest go when more wait than are kept', () => {
  const handoff = new ScenarioHandoff();
  handoff.put('job_a', { type: 'prediction' });
  assert.deepEqual(handoff.take('job_a'), { type: 'prediction' });
  assert.equal(handoff.take('job_a'), undefined, 'taken once: a second run start reads the stored text');
  for (let i = 0; i < 40; i++) handoff.put(`job_${i}`, { i });
  assert.equal(handoff.take('job_0'), undefined, 'evicted');
  assert.deepEqual(handoff.take('job_39'), { i: 39 });
});
