import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatencyHistogram } from '../../../src/http/latency-histogram.js';

test('observations render as cumulative Prometheus buckets with sum and count per series', () => {
  const histogram = new LatencyHistogram('latency_seconds', 'help text', [0.01, 0.1, 1]);
  for (const seconds of [0.005, 0.05, 0.05, 2]) histogram.observe('GET', '/a/:id', 200, seconds);
  histogram.observe('POST', '/a', 422, 0.5);
  const text = histogram.render();
  const lines = text.trim().split('\n');
  assert.deepEqual(lines.slice(0, 2), ['# HELP latency_seconds help text', '# TYPE latency_seconds histogram']);
  const get = lines.filter((line) => line.includes('method="GET"'));
  assert.deepEqual(get, [
    'latency_seconds_bucket{le="0.01",method="GET",route="/a/:id",status_code="200"} 1',
    'latency_seconds_bucket{le="0.1",method="GET",route="/a/:id",status_code="200"} 3',
    'latency_seconds_bucket{le="1",method="GET",route="/a/:id",status_code="200"} 3',
    'latency_seconds_bucket{le="+Inf",method="GET",route="/a/:id",status_code="200"} 4',
    'latency_seconds_sum{method="GET",route="/a/:id",status_code="200"} 2.105',
    'latency_seconds_count{method="GET",route="/a/:id",status_code="200"} 4',
  ]);
  assert.ok(lines.includes('latency_seconds_bucket{le="1",method="POST",route="/a",status_code="422"} 1'));
});

test('label values are escaped', () => {
  const histogram = new LatencyHistogram('x', 'h', [1]);
  histogram.observe('GET', 'a"b\\c', 200, 0.1);
  assert.match(histogram.render(), /route="a\\"b\\\\c"/);
});
