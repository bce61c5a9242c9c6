import { loadWasmKernels } from '../../src/compute/wasm.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { benchmarkDataDir, readTable } from './benchmark-data.js';
const kernels = loadWasmKernels();
const dir = benchmarkDataDir();
for (const which of process.argv.slice(2)) {
  const frame = readTable(`${dir}/bnlearn_discrete_10000/data/${which}.txt`, 'categorical');
  for (let rep = 0; rep < 2; rep++) {
    const t0 = performance.now();
    let last = '';
    const marks: string[] = [];
    discoverStatic(frame, {}, kernels, { progress: (f, s) => { if (s !== last) { marks.push(`${s}@${((performance.now() - t0) / 1000).toFixed(3)}`); last = s; } } });
    console.log(which, rep, ((performance.now() - t0) / 1000).toFixed(3), marks.join(' '));
  }
}
