import { loadWasmKernels } from '../../src/compute/wasm.js';
import { referenceKernels } from '../../src/compute/reference.js';
import { benchmarkDataDir, readTable } from './benchmark-data.js';
const dir = benchmarkDataDir();
const frame = readTable(`${dir}/bnlearn_discrete_10000/data/alarm.txt`, 'categorical');
const n = frame.nRows, p = frame.columns.length;
const codes = new Int32Array(n * p);
const levels = new Int32Array(p);
frame.columns.forEach((c, j) => { if (c.kind === 'categorical') { codes.set(c.codes, j * n); levels[j] = c.categories.length; } });
for (const [name, k] of [['wasm', loadWasmKernels()], ['reference', referenceKernels]] as const) {
  for (const depth of [0, 1, 2]) {
    const count = 500;
    const slot = depth + 3;
    const tests = new Int32Array(count * slot);
    for (let t = 0; t < count; t++) { tests[t * slot] = t % p; tests[t * slot + 1] = (t * 7 + 1) % p === t % p ? (t + 1) % p : (t * 7 + 1) % p; tests[t * slot + 2] = depth; for (let d = 0; d < depth; d++) tests[t * slot + 3 + d] = (t * 3 + 5 + d * 11) % p; }
    k.gSquareBatch(codes, n, levels, tests.subarray(0, 10 * slot), depth, 10);
    const t0 = performance.now();
    k.gSquareBatch(codes, n, levels, tests, depth, count);
    console.log(name, 'depth', depth, 'us/test', ((performance.now() - t0) * 1000 / count).toFixed(1));
  }
}
