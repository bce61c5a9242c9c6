import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCOPES, parseScopes } from '../../../src/auth/scopes.js';

test('the scope list covers every area and action of the spec', () => {
  assert.equal(SCOPES.length, 24);
  assert.ok(SCOPES.includes('digital-twins:execute'));
  assert.ok(SCOPES.includes('exports:read'));
});

test('area:* expands to every action of the area; unknown entries are reported', () => {
  const { scopes, unknown } = parseScopes(['digital-twins:*', 'jobs:read', 'jobs:write', 'nope:*']);
  assert.deepEqual(scopes, ['digital-twins:read', 'digital-twins:write', 'digital-twins:delete', 'digital-twins:execute', 'jobs:read']);
  assert.deepEqual(unknown, ['jobs:write', 'nope:*']);
});
