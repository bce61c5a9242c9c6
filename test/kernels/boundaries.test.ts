import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { loadWasmKernels, loadWasmModule } from '../../src/compute/wasm.js';
import { correlatedData, InputSource, packTests, reference, wasm } from './support.js';

const implementations = { reference, wasm };

for (const [name, kernels] of Object.entries(implementations)) {
  test(`${name}: arrays of the wrong length and negative or fractional sizes throw a RangeError`, () => {
    const data = new Float64Array(6);
    assert.throws(() => kernels.covariance(data, 4, 2), /data has 6 values, expected 8/);
    assert.throws(() => kernels.correlation(data, -1, 2), RangeError);
    assert.throws(() => kernels.fisherZBatch(new Float64Array(4), 2, 10, new Int32Array(5), 1, 2), /tests has 5 values/);
    assert.throws(() => kernels.gSquareBatch(new Int32Array(5), 3, new Int32Array([2, 2]), packTests(0, [[0, 1]]), 0, 1), RangeError);
    assert.throws(() => kernels.contingency(new Int32Array(6), 3, new Int32Array([2, -1]), 0, 1), /levels\[1\]/);
    assert.throws(() => kernels.cholesky(data, 2.5), RangeError);
    assert.throws(() => kernels.leastSquares(data, new Float64Array(2), 3, 2, 0), /y has 2 values/);
    assert.throws(() => kernels.logisticRegression(data, new Int32Array(3), 3, 2, 2, 0, -1), RangeError);
    assert.throws(() => kernels.sampleLinearGaussian(2, 2, data, data, new Int32Array(3), new Int32Array(0), new Float64Array(0), data, 1), /intercept/);
    assert.throws(() => kernels.uniforms(Number.NaN, 1), RangeError);
  });
}

test('the WASM arena grows for a large call and still answers a small call after it', () => {
  const source = new InputSource(51);
  const before = loadWasmModule().memory.buffer.byteLength;
  const n = 400_000;
  const big = correlatedData(source, n, 12); // 38 MB in, more than the module starts with
  assert.deepEqual(wasm.covariance(big, n, 12), reference.covariance(big, n, 12));
  assert.ok(loadWasmModule().memory.buffer.byteLength > before);
  const small = correlatedData(source, 5, 2);
  assert.deepEqual(wasm.covariance(small, 5, 2), reference.covariance(small, 5, 2));
});

test('a request past 4 GiB of WASM memory throws a RangeError instead of trapping', () => {
  assert.throws(() => wasm.uniforms(2 ** 31 - 1, 1), /WebAssembly kernel memory/);
  // A 65,536 x 65,536 table inside the kernel: its scratch space cannot fit, on either implementation.
  const levels = new Int32Array([65_536, 65_536]);
  for (const kernels of [wasm, reference]) {
    assert.throws(() => kernels.gSquareBatch(new Int32Array(4), 2, levels, packTests(0, [[0, 1]]), 0, 1), RangeError);
  }
  assert.equal(wasm.uniforms(3, 1).length, 3, 'the module still works afterwards');
});

test('loadWasmKernels caches one instance per thread and works inside a worker thread', async () => {
  assert.equal(loadWasmKernels(), loadWasmKernels());
  const url = new URL('../../src/compute/wasm.js', import.meta.url).href;
  const worker = new Worker(
    `import(${JSON.stringify(url)}).then(({ loadWasmKernels }) => require('node:worker_threads').parentPort.postMessage(loadWasmKernels().uniforms(8, 2024)));`,
    { eval: true },
  );
  const [draws] = (await once(worker, 'message')) as [Float64Array];
  await worker.terminate();
  assert.deepEqual(draws, reference.uniforms(8, 2024));
});
