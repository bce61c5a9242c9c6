import { referenceKernels as kernels } from '../../src/compute/reference.js';
import { prepareForDiscovery } from '../../src/engine/discovery/prepare.js';
import { localScorerFor } from '../../src/engine/discovery/local-score.js';
import { benchmarkDataDir, readTable } from './benchmark-data.js';
const dir = benchmarkDataDir();
const frame = readTable(`${dir}/bnlearn_discrete_10000/data/alarm.txt`, 'categorical');
const data = prepareForDiscovery(frame, kernels);
const scorer = localScorerFor(data, kernels);
let t = performance.now();
let s = 0;
let count = 0;
for (let y = 0; y < 37; y++) for (let a = 0; a < 37; a++) for (let b = a + 1; b < 37; b += 7) { if (a === y || b === y) continue; s += scorer.logLik(y, [a, b]); count++; }
console.log('evals', count, 'per eval us', ((performance.now() - t) * 1000 / count).toFixed(1), s);
t = performance.now(); count = 0;
for (let y = 0; y < 37; y++) for (let a = 0; a < 37; a++) { if (a === y) continue; s += scorer.logLik(y, [a]); count++; }
console.log('evals', count, 'per eval us', ((performance.now() - t) * 1000 / count).toFixed(1), s);
