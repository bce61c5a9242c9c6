import { referenceKernels as kernels } from '../../src/compute/reference.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import { benchmarkDataDir, readTable, readEdgeCsv } from './benchmark-data.js';
const dir = benchmarkDataDir();
const frame = readTable(`${dir}/sachs/derived_sachs_853_cd3cd28_observational.csv`, 'continuous');
const names = frame.columns.map((c) => c.name);
const truth = dagToCpdag(names, readEdgeCsv(`${dir}/sachs/derived_sachs_consensus17_edges.csv`));
for (const alpha of [0.01, 0.05, 0.1]) {
  const r = discoverStatic(frame, { alpha }, kernels);
  console.log('alpha', alpha, 'SHD', structuralHammingDistance(r.cpdag, truth));
}
const r = discoverStatic(frame, {}, kernels);
const key = (a: string, b: string) => [a, b].sort().join('~');
const t = new Map(truth.map((e) => [key(e.source, e.target), e]));
const est = new Map(r.cpdag.map((e) => [key(e.source, e.target), e]));
const show = (e: { source: string; target: string; directed: boolean }) => `${e.source}${e.directed ? '->' : '--'}${e.target}`;
for (const [k, e] of t) console.log('truth', show(e), ' est', est.has(k) ? show(est.get(k)!) : 'MISSING');
for (const [k, e] of est) if (!t.has(k)) console.log('extra', show(e));
{
  const logged = { ...frame, columns: frame.columns.map((c) => (c.kind === 'continuous' ? { ...c, values: c.values.map((v) => Math.log(v)) } : c)) };
  const r2 = discoverStatic(logged, {}, kernels);
  console.log('log-transformed SHD', structuralHammingDistance(r2.cpdag, truth), r2.edges.length, 'edges');
  const skew = frame.columns.map((c) => { const v = (c as { values: Float64Array }).values; const m = v.reduce((a, b) => a + b, 0) / v.length; const s2 = v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length; const s3 = v.reduce((a, b) => a + (b - m) ** 3, 0) / v.length; return `${c.name}:${(s3 / s2 ** 1.5).toFixed(1)}`; });
  console.log(skew.join(' '));
}
