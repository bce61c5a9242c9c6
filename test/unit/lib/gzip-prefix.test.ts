import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { GzipPrefix, acceptsGzip } from '../../../src/lib/gzip-prefix.js';

test('a gzip member spliced from a deflated prefix and a stored tail inflates to prefix + tail, CRC and size checked', () => {
  const prefix = Buffer.from(`{"jsonrpc":"2.0","result":${JSON.stringify({ tools: Array.from({ length: 200 }, (_, i) => ({ name: `tool_${i}`, description: 'x'.repeat(i % 37) })) })},"id":`);
  const gzip = new GzipPrefix(prefix);
  for (const tail of ['1}', '"a-string-id"}', 'null}', '', '\u00e9\u4e2d\ud83d\ude00}', 'z'.repeat(65_535)]) {
    const bytes = gzip.with(Buffer.from(tail));
    // gunzipSync verifies the trailer's CRC-32 and ISIZE: a wrong continuation of either throws.
    assert.equal(gunzipSync(bytes).toString(), prefix.toString() + tail);
  }
  assert.ok(gzip.with(Buffer.from('1}')).length < prefix.length / 4, 'the prefix is compressed');
  assert.throws(() => gzip.with(Buffer.alloc(65_536)), RangeError);
});

test('Accept-Encoding accepts gzip by name or by *, unless its q is 0 (RFC 9110 §12.5.3)', () => {
  assert.equal(acceptsGzip(undefined), false);
  assert.equal(acceptsGzip('gzip, deflate'), true);
  assert.equal(acceptsGzip('br;q=1.0, GZIP;q=0.5'), true);
  assert.equal(acceptsGzip('deflate, br'), false);
  assert.equal(acceptsGzip('gzip;q=0'), false);
  assert.equal(acceptsGzip('*'), true);
  assert.equal(acceptsGzip('*;q=0, deflate'), false);
  assert.equal(acceptsGzip('gzip;q=0, *'), false);
  assert.equal(acceptsGzip('identity'), false);
});
