import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../../../src/lib/canonical-json.js';
import { newId } from '../../../src/lib/ids.js';

test('ids carry their prefix and sort by creation time', () => {
  const earlier = newId('ws', 1_700_000_000_000);
  const later = newId('ws', 1_700_000_000_001);
  assert.match(earlier, /^ws_[0-9a-z]{26}$/);
  assert.ok(earlier < later);
});

test('ids made in the same millisecond differ', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => newId('x', 5)));
  assert.equal(ids.size, 1000);
});

test('canonical JSON is independent of key order and drops undefined members', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null }, u: undefined }), canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }));
  assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
});
