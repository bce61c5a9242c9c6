import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webhookEvent } from '../../../src/webhooks/deliver.js';
import type { TerminalStatus } from '../../../src/webhooks/events.js';

test('the event names the subject and its terminal status', () => {
  assert.equal(webhookEvent('job', 'completed'), 'job.completed');
  assert.equal(webhookEvent('job', 'failed'), 'job.failed');
  assert.equal(webhookEvent('job', 'cancelled'), 'job.cancelled');
  assert.equal(webhookEvent('simulation', 'completed'), 'simulation.completed');
  assert.equal(webhookEvent('simulation', 'failed'), 'simulation.failed');
  assert.equal(webhookEvent('simulation', 'cancelled'), 'simulation.cancelled');
});

test('a status that is not terminal has no event', () => {
  assert.throws(() => webhookEvent('simulation', 'running' as TerminalStatus), RangeError);
});
