import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { CursorCodec } from '../../../src/lib/cursor.js';

const codec = new CursorCodec(Buffer.alloc(32, 3));

test('a cursor round-trips its sort key', () => {
  const cursor = codec.encode({ after: ['ws_01', 42], scope: 's1' });
  assert.deepEqual(codec.decode(cursor, 's1').after, ['ws_01', 42]);
});

test('a tampered cursor is refused as invalid_cursor', () => {
  const cursor = codec.encode({ after: ['ws_01'], scope: 's1' });
  const [body, signature] = cursor.split('.');
  const forgedBody = Buffer.from(JSON.stringify([['ws_99'], 's1'])).toString('base64url');
  for (const bad of [`${forgedBody}.${signature}`, `${body}.x${signature!.slice(1)}`, 'garbage', `${cursor}.extra`]) {
    assert.throws(() => codec.decode(bad, 's1'), (e: unknown) => e instanceof AppError && e.code === 'invalid_cursor');
  }
});

test('a cursor signed with another key is refused', () => {
  const other = new CursorCodec(Buffer.alloc(32, 4));
  assert.throws(() => codec.decode(other.encode({ after: [1], scope: 's' }), 's'), AppError);
});

test('a cursor made for other filters is refused', () => {
  const cursor = codec.encode({ after: [1], scope: 'filters-a' });
  assert.throws(() => codec.decode(cursor, 'filters-b'), (e: unknown) => e instanceof AppError && e.status === 400);
});
