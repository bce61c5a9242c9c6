import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import { coalesce } from '../../../src/lib/coalesce.js';

async function through(chunks: Buffer[], bytes: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  await pipeline(Readable.from(chunks, { objectMode: false }), coalesce(bytes), new Writable({ write(chunk: Buffer, _e, done) { out.push(chunk); done(); } }));
  return out;
}

test('small chunks are gathered into chunks of at least the size asked, in order, the rest at the end', async () => {
  const chunks = Array.from({ length: 25 }, (_, i) => Buffer.alloc(7, i));
  const out = await through(chunks, 50);
  assert.deepEqual(out.map((chunk) => chunk.length), [56, 56, 56, 7]);
  assert.deepEqual(Buffer.concat(out), Buffer.concat(chunks));
});

test('a chunk at least the size asked passes as it is; an empty stream stays empty', async () => {
  const big = Buffer.alloc(100, 1);
  const out = await through([big, Buffer.alloc(3, 2)], 50);
  assert.equal(out[0], big);
  assert.deepEqual(out.map((chunk) => chunk.length), [100, 3]);
  assert.deepEqual(await through([], 50), []);
});
