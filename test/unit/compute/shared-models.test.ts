/** Models cross to the workers once (src/compute/shared-models.ts): serialised once per object, read once per worker. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModelCache, ModelSharing } from '../../../src/compute/shared-models.js';

const model = (seed: number) => ({ nodes: [{ name: `x${seed}`, coefficients: [seed, 2], residualQuantiles: Array.from({ length: 50 }, (_, i) => i / 50 + seed) }], weights: new Float64Array([seed, 0.5]), byName: new Map([['x', seed]]) });

test('a model object is serialised once and read back equal, once per worker', () => {
  const sharing = new ModelSharing();
  const a = model(1);
  const handle = sharing.share(a);
  assert.equal(sharing.share(a), handle, 'the same object shares the same bytes');
  assert.notEqual(sharing.share(model(1)).id, handle.id, 'another object (an equal one too) is another model');
  assert.ok(handle.bytes instanceof SharedArrayBuffer);
  const cache = new ModelCache();
  const read = cache.read(handle) as ReturnType<typeof model>;
  assert.deepEqual(read, a);
  assert.equal(cache.read(handle), read, 'read again, the worker answers the model it kept');
  assert.ok(!(read.weights.buffer instanceof SharedArrayBuffer), 'typed arrays are the worker\'s own, not views on the shared bytes');
});

test('a worker keeps the models it used last, and reads an evicted one again', () => {
  const sharing = new ModelSharing();
  const cache = new ModelCache();
  const handles = Array.from({ length: 20 }, (_, i) => sharing.share(model(i)));
  const first = cache.read(handles[0]!);
  for (const handle of handles.slice(1)) cache.read(handle);
  const again = cache.read(handles[0]!);
  assert.notEqual(again, first, 'the oldest of 20 was evicted (16 are kept) and is read anew');
  assert.deepEqual(again, first);
  assert.equal(cache.read(handles[19]!), cache.read(handles[19]!), 'a recent one is kept');
});
