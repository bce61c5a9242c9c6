/**
 * Kernel benchmark: each kernel of src/compute/kernels.ts run by the WebAssembly build (src/compute/wasm.ts,
 * inputs copied into linear memory and outputs copied out on every call, exactly as the pool workers call it)
 * and by the TypeScript reference (src/compute/reference.ts), in the same process and run, on the same inputs,
 * at sizes 10^1..10^6 (rows for most kernels; tests for Fisher-z, draws for uniforms, the matrix order k for
 * Cholesky). A kernel's sweep stops once a single call passes BENCH_CALL_LIMIT_MS (default 2,000 ms) or the next
 * size would take several times that.
 *
 * Each figure is the median over repetitions of the time per call, a repetition running the call enough times
 * to last ~25 ms, WASM and TS repetitions alternating; the ratio is the median of the per-round ratios. Every
 * result is folded into a checksum printed at the end, so no call can be optimised away.
 * Prints a markdown table with the ratio TS/WASM and replaces the section "## Kernels (bench/kernels/kernels.ts)"
 * of BENCHMARKS.md.
 *
 * Run: `make bench-kernels` (or `npm run build && node dist/bench/kernels/kernels.js`)
 * Env: BENCH_MAX_SIZE (default 1000000), BENCH_CALL_LIMIT_MS (default 2000), BENCH_WRITE=0 (do not touch BENCHMARKS.md).
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kernels } from '../../src/compute/kernels.js';
import { referenceKernels } from '../../src/compute/reference.js';
import { loadWasmKernels } from '../../src/compute/wasm.js';
import { machineLine, median, writeSection } from '../lib/report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECTION = '## Kernels (bench/kernels/kernels.ts)';
const MAX_SIZE = Number(process.env.BENCH_MAX_SIZE ?? 1_000_000);
const CALL_LIMIT_MS = Number(process.env.BENCH_CALL_LIMIT_MS ?? 2000);
const SAMPLE_MS = 25;
const ASC_VERSION = (createRequire(import.meta.url)('assemblyscript/package.json') as { version: string }).version;

/** One kernel at one size: `run` calls it on prepared inputs and answers one number of its result. */
interface Case {
  kernel: string;
  /** What the size counts, and the fixed dimensions. */
  shape: string;
  sizes: number[];
  /** How the cost grows from one size to the next (10 for linear kernels, 1000 for k^3). */
  growth: number;
  prepare(size: number): (kernels: Kernels) => number;
}

/** Inputs from the reference's own generator: uniform values in [-2, 2). */
const draws = (count: number, seed: number) => referenceKernels.uniforms(count, seed);
const values = (count: number, seed: number) => draws(count, seed).map((u) => 4 * u - 2);
const codes = (count: number, levels: number[], seed: number) => {
  const u = draws(count * levels.length, seed);
  return Int32Array.from(u, (v, i) => Math.floor(v * levels[Math.floor(i / count)]!));
};
const decades = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => 10 ** (from + i)).filter((s) => s <= MAX_SIZE);

/** k-variable tests cycling k = 0..3 over a p-variable problem, packed for fisherZBatch / gSquareBatch. */
function testBatch(count: number, p: number): Int32Array {
  const packed = new Int32Array(count * 6);
  for (let t = 0; t < count; t++) {
    const k = t % 4;
    const variables = Array.from({ length: k + 2 }, (_, i) => (t + i * 3) % p);
    packed.set([variables[0]!, variables[1]!, k, ...variables.slice(2)], t * 6);
  }
  return packed;
}

const CASES: Case[] = [
  {
    kernel: 'covariance',
    shape: 'n rows x 10 columns',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (n) => {
      const data = values(n * 10, 1);
      return (k) => k.covariance(data, n, 10).cov[1]!;
    },
  },
  {
    kernel: 'correlation',
    shape: 'n rows x 10 columns',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (n) => {
      const data = values(n * 10, 2);
      return (k) => k.correlation(data, n, 10)[1]!;
    },
  },
  {
    kernel: 'fisherZBatch',
    shape: 'n tests conditioning on 0-3 of 20 variables',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (count) => {
      const corr = referenceKernels.correlation(values(500 * 20, 3), 500, 20);
      const tests = testBatch(count, 20);
      return (k) => k.fisherZBatch(corr, 20, 500, tests, 3, count).pValue[0]!;
    },
  },
  {
    kernel: 'gSquareBatch',
    shape: 'n rows x 6 columns of 2-4 levels, 10 tests conditioning on 0-3',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (n) => {
      const levels = [2, 3, 3, 4, 2, 3];
      const data = codes(n, levels, 4);
      const tests = testBatch(10, 6);
      return (k) => k.gSquareBatch(data, n, new Int32Array(levels), tests, 3, 10).statistic[0]!;
    },
  },
  {
    kernel: 'contingency',
    shape: 'n rows, a 4 x 5 table',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (n) => {
      const data = codes(n, [4, 5], 5);
      return (k) => k.contingency(data, n, new Int32Array([4, 5]), 0, 1)[0]!;
    },
  },
  {
    kernel: 'cholesky',
    shape: 'k x k matrix (size = k)',
    sizes: decades(1, 4),
    growth: 1000,
    prepare: (order) => {
      // A diagonally dominant symmetric matrix is positive definite.
      const a = values(order * order, 6);
      for (let i = 0; i < order; i++) {
        for (let j = 0; j < i; j++) a[i * order + j] = a[j * order + i]!;
        a[i * order + i] = order * 4;
      }
      return (k) => k.cholesky(a, order).l[0]!;
    },
  },
  {
    kernel: 'leastSquares',
    shape: 'n rows x 10 columns',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (n) => {
      const x = values(n * 10, 7);
      const y = values(n, 8);
      return (k) => k.leastSquares(x, y, n, 10, 0.1).rss;
    },
  },
  {
    kernel: 'logisticRegression',
    shape: 'n rows x 5 columns, 3 classes, l2 = 1',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (n) => {
      const x = values(n * 5, 9);
      for (let r = 0; r < n; r++) x[r * 5] = 1;
      const y = Int32Array.from({ length: n }, (_, r) => (x[r * 5 + 1]! + x[r * 5 + 2]! > 0.5 ? 2 : x[r * 5 + 3]! > 0 ? 1 : 0));
      return (k) => k.logisticRegression(x, y, n, 5, 3, 1, 25).logLoss;
    },
  },
  {
    kernel: 'sampleLinearGaussian',
    shape: 'n rows x 20 nodes, up to 3 parents each',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (n) => {
      const p = 20;
      const parentStart = new Int32Array(p + 1);
      const parentIndex: number[] = [];
      for (let j = 0; j < p; j++) {
        for (let m = 0; m < Math.min(j, 3); m++) parentIndex.push((j * 7 + m * 5) % j);
        parentStart[j + 1] = parentIndex.length;
      }
      const weight = values(parentIndex.length, 10).map((w) => w / 3);
      const fixed = new Float64Array(p).fill(Number.NaN);
      const intercept = values(p, 11);
      const noise = new Float64Array(p).fill(1);
      return (k) => k.sampleLinearGaussian(n, p, intercept, noise, parentStart, new Int32Array(parentIndex), weight, fixed, 42)[n * p - 1]!;
    },
  },
  {
    kernel: 'uniforms',
    shape: 'n draws',
    sizes: decades(1, 6),
    growth: 10,
    prepare: (count) => (k) => k.uniforms(count, 13)[count - 1]!,
  },
];

let checksum = 0;

/** Calls `run` for ~`ms` (at least once) so V8 has optimised the code; answers the last call's ms. */
function warmUp(run: () => number, ms = SAMPLE_MS): number {
  const started = performance.now();
  let last: number;
  do {
    const start = performance.now();
    checksum += run();
    last = performance.now() - start;
  } while (performance.now() - started < ms);
  return last;
}

/** Milliseconds per call over a repetition of `calls` calls. */
function repetition(run: () => number, calls: number): number {
  const start = performance.now();
  for (let i = 0; i < calls; i++) checksum += run();
  return (performance.now() - start) / calls;
}

/**
 * Median ms per call of each implementation, and the median of the per-round TS/WASM ratios: the two run in
 * alternating repetitions of ~SAMPLE_MS, so background load on the shared cores falls on both alike.
 */
function timePair(runWasm: () => number, runTypescript: () => number): { wasmMs: number; typescriptMs: number; ratio: number } {
  const wasmFirst = warmUp(runWasm);
  const typescriptFirst = warmUp(runTypescript);
  const slowest = Math.max(wasmFirst, typescriptFirst);
  if (slowest > CALL_LIMIT_MS) return { wasmMs: wasmFirst, typescriptMs: typescriptFirst, ratio: typescriptFirst / wasmFirst };
  const calls = (ms: number) => Math.max(1, Math.floor(SAMPLE_MS / Math.max(ms, 1e-3)));
  const wasmTimes: number[] = [];
  const typescriptTimes: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < (slowest > 300 ? 3 : 7); round++) {
    const wasmMs = repetition(runWasm, calls(wasmFirst));
    const typescriptMs = repetition(runTypescript, calls(typescriptFirst));
    wasmTimes.push(wasmMs);
    typescriptTimes.push(typescriptMs);
    ratios.push(typescriptMs / wasmMs);
  }
  return { wasmMs: median(wasmTimes), typescriptMs: median(typescriptTimes), ratio: median(ratios) };
}

interface Row {
  kernel: string;
  shape: string;
  size: number;
  typescriptMs: number;
  wasmMs: number;
  ratio: number;
}

function measure(wasm: Kernels): { rows: Row[]; stops: string[] } {
  const rows: Row[] = [];
  const stops: string[] = [];
  // Every kernel at its smallest size first, long enough for V8 to move the WASM functions from its baseline
  // compiler (Liftoff) to the optimising one; WASM has no on-stack replacement, so a long first call stays slow.
  for (const benchCase of CASES) {
    const run = benchCase.prepare(benchCase.sizes[0]!);
    warmUp(() => run(wasm), 200);
    warmUp(() => run(referenceKernels), 200);
  }
  for (const benchCase of CASES) {
    for (const size of benchCase.sizes) {
      const run = benchCase.prepare(size);
      const { wasmMs, typescriptMs, ratio } = timePair(() => run(wasm), () => run(referenceKernels));
      rows.push({ kernel: benchCase.kernel, shape: benchCase.shape, size, typescriptMs, wasmMs, ratio });
      process.stderr.write(`${benchCase.kernel} ${size}: TS ${typescriptMs.toFixed(3)} ms, WASM ${wasmMs.toFixed(3)} ms\n`);
      const slowest = Math.max(typescriptMs, wasmMs);
      const next = benchCase.sizes[benchCase.sizes.indexOf(size) + 1];
      if (next !== undefined && (slowest > CALL_LIMIT_MS || slowest * benchCase.growth > 3 * CALL_LIMIT_MS)) {
        stops.push(`${benchCase.kernel} stops at ${size.toLocaleString('en-US')}: a call at ${next.toLocaleString('en-US')} would take ~${((slowest * benchCase.growth) / 1000).toFixed(0)} s`);
        break;
      }
    }
  }
  return { rows, stops };
}

const milliseconds = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4));

function report(machine: string, rows: Row[], stops: string[]): string {
  const lines = [
    SECTION,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine} (${loadavg()[0]!.toFixed(2)} at the end); AssemblyScript ${ASC_VERSION} \`-O3 --runtime stub --enable simd\`. Median time per call; the ratio is the median of per-round ratios (TS and WASM repetitions alternate); WASM times include copying the inputs into linear memory and the outputs back. A load average above the 2 cores means other work shared them: small sizes are the noisiest. Rerun with \`make bench-kernels\`.`,
    '',
    '| kernel | size | shape | TS reference ms | WASM ms | TS / WASM |',
    '|---|---:|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.kernel} | ${r.size.toLocaleString('en-US')} | ${r.shape} | ${milliseconds(r.typescriptMs)} | ${milliseconds(r.wasmMs)} | ${r.ratio.toFixed(2)} |`),
    '',
  ];
  const largest = new Map<string, Row>();
  for (const row of rows) largest.set(row.kernel, row);
  lines.push(`At each kernel's largest size: ${[...largest.values()].map((r) => `${r.kernel} ${r.ratio.toFixed(1)}x`).join(', ')}.`);
  if (stops.length > 0) lines.push('', `Sweeps cut short (single call over ${CALL_LIMIT_MS} ms, or predicted to be): ${stops.join('; ')}.`);
  return lines.join('\n');
}

function main(): void {
  const machine = machineLine();
  const wasm = loadWasmKernels();
  const { rows, stops } = measure(wasm);
  const section = report(machine, rows, stops);
  process.stdout.write(`${section}\n`);
  process.stderr.write(`checksum ${checksum}\n`);
  if (process.env.BENCH_WRITE !== '0') writeSection(resolve(HERE, '../../../BENCHMARKS.md'), SECTION, section);
}

main();
