/**
 * The WebAssembly kernels (build/kernels.wasm, compiled from assembly/ by `npm run build:wasm`) behind the
 * Kernels interface. Each call empties the module's arena, copies its inputs into linear memory at offsets the
 * module hands out, runs the kernel and copies the outputs back (the "copy in" layer of stdlib's WASM routines).
 * The module is compiled and instantiated synchronously, once per thread, on first use.
 */
import { readFileSync } from 'node:fs';
import { requireCodedColumns, requireColumn, requireLength, requireSize, requireTestBatch } from './kernel-arguments.js';
import type { Kernels } from './kernels.js';

/** The module's exports (assembly/index.ts): pointers and sizes are 32-bit, results are status codes. */
export interface KernelExports {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  reset(): void;
  covariance(data: number, n: number, p: number, means: number, cov: number): number;
  correlation(data: number, n: number, p: number, corr: number): number;
  fisherZBatch(corr: number, p: number, n: number, tests: number, maxK: number, count: number, partial: number, pValue: number): number;
  contingency(codes: number, n: number, levels: number, columns: number, x: number, y: number, out: number): number;
  gSquareBatch(codes: number, n: number, levels: number, columns: number, tests: number, maxK: number, count: number, statistic: number, df: number, pValue: number): number;
  chiSquareSurvival(x: number, df: number): number;
  cholesky(a: number, k: number, l: number): number;
  leastSquares(x: number, y: number, n: number, k: number, ridge: number, coef: number, rss: number): number;
  logisticRegression(x: number, y: number, n: number, k: number, classes: number, l2: number, maxIter: number, weights: number, logLoss: number): number;
  sampleLinearGaussian(n: number, p: number, intercept: number, noiseStd: number, parentStart: number, parentIndex: number, parentCount: number, weight: number, fixed: number, seed: number, out: number): number;
  uniforms(count: number, seed: number, out: number): number;
}

/** <repo>/build/kernels.wasm from <repo>/<outDir>/src/compute/wasm.js. */
const WASM_URL = new URL('../../../build/kernels.wasm', import.meta.url);
/** assembly/shared/status.ts STATUS_OUT_OF_MEMORY: the arena could not grow for a kernel's scratch space. */
const STATUS_OUT_OF_MEMORY = 3;
const MAX_BYTES = 2 ** 32;

let instanceExports: KernelExports | undefined;
let kernels: Kernels | undefined;

/** This thread's instance of the module (module-level state is per thread: each worker gets its own). */
export function loadWasmModule(): KernelExports {
  if (instanceExports === undefined) {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(readFileSync(WASM_URL));
    } catch (cause) {
      throw new Error(`cannot read ${WASM_URL.pathname}; build it with \`npm run build:wasm\``, { cause });
    }
    instanceExports = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as KernelExports;
  }
  return instanceExports;
}

/** One kernel call's traffic through the arena: inputs in, outputs reserved, then read back. */
class ArenaCall {
  constructor(private readonly wasm: KernelExports) {
    wasm.reset();
  }

  private allocate(bytes: number): number {
    const ptr = bytes < MAX_BYTES ? this.wasm.alloc(bytes) >>> 0 : 0;
    if (ptr === 0) throw new RangeError(`WebAssembly kernel memory cannot hold another ${bytes} bytes`);
    return ptr;
  }

  f64(values: Float64Array): number {
    const ptr = this.allocate(values.byteLength);
    new Float64Array(this.wasm.memory.buffer, ptr, values.length).set(values);
    return ptr;
  }

  i32(values: Int32Array): number {
    const ptr = this.allocate(values.byteLength);
    new Int32Array(this.wasm.memory.buffer, ptr, values.length).set(values);
    return ptr;
  }

  /** Room for `count` doubles of output. */
  output(count: number): number {
    return this.allocate(count * 8);
  }

  /** A copy of `count` doubles at ptr (the memory's buffer is only valid until the next growth). */
  read(ptr: number, count: number): Float64Array {
    return new Float64Array(this.wasm.memory.buffer, ptr, count).slice();
  }

  /** The kernel's status, except out-of-memory, which is the caller's problem as it is in JavaScript. */
  status(code: number): number {
    if (code === STATUS_OUT_OF_MEMORY) throw new RangeError('WebAssembly kernel memory cannot hold the scratch space of this call');
    return code;
  }
}

function wrap(wasm: KernelExports): Kernels {
  return {
    covariance(data, n, p) {
      requireSize('n', n);
      requireSize('p', p);
      requireLength('data', data, n * p);
      const call = new ArenaCall(wasm);
      const [dataPtr, means, cov] = [call.f64(data), call.output(p), call.output(p * p)];
      call.status(wasm.covariance(dataPtr, n, p, means, cov));
      return { means: call.read(means, p), cov: call.read(cov, p * p) };
    },

    correlation(data, n, p) {
      requireSize('n', n);
      requireSize('p', p);
      requireLength('data', data, n * p);
      const call = new ArenaCall(wasm);
      const [dataPtr, corr] = [call.f64(data), call.output(p * p)];
      call.status(wasm.correlation(dataPtr, n, p, corr));
      return call.read(corr, p * p);
    },

    fisherZBatch(corr, p, n, tests, maxK, count) {
      requireSize('p', p);
      requireSize('n', n);
      requireLength('corr', corr, p * p);
      requireTestBatch(tests, maxK, count);
      const call = new ArenaCall(wasm);
      const [corrPtr, testsPtr, partial, pValue] = [call.f64(corr), call.i32(tests), call.output(count), call.output(count)];
      call.status(wasm.fisherZBatch(corrPtr, p, n, testsPtr, maxK, count, partial, pValue));
      return { partial: call.read(partial, count), pValue: call.read(pValue, count) };
    },

    gSquareBatch(codes, n, levels, tests, maxK, count) {
      requireCodedColumns(codes, n, levels);
      requireTestBatch(tests, maxK, count);
      const call = new ArenaCall(wasm);
      const [codesPtr, levelsPtr, testsPtr] = [call.i32(codes), call.i32(levels), call.i32(tests)];
      const [statistic, df, pValue] = [call.output(count), call.output(count), call.output(count)];
      call.status(wasm.gSquareBatch(codesPtr, n, levelsPtr, levels.length, testsPtr, maxK, count, statistic, df, pValue));
      return { statistic: call.read(statistic, count), df: call.read(df, count), pValue: call.read(pValue, count) };
    },

    contingency(codes, n, levels, x, y) {
      requireCodedColumns(codes, n, levels);
      requireColumn('x', x, levels.length);
      requireColumn('y', y, levels.length);
      const call = new ArenaCall(wasm);
      const cells = levels[x]! * levels[y]!;
      const [codesPtr, levelsPtr, out] = [call.i32(codes), call.i32(levels), call.output(cells)];
      call.status(wasm.contingency(codesPtr, n, levelsPtr, levels.length, x, y, out));
      return call.read(out, cells);
    },

    cholesky(a, k) {
      requireSize('k', k);
      requireLength('a', a, k * k);
      const call = new ArenaCall(wasm);
      const [aPtr, l] = [call.f64(a), call.output(k * k)];
      const status = call.status(wasm.cholesky(aPtr, k, l));
      return { status, l: call.read(l, k * k) };
    },

    leastSquares(x, y, n, k, ridge) {
      requireSize('n', n);
      requireSize('k', k);
      requireLength('x', x, n * k);
      requireLength('y', y, n);
      const call = new ArenaCall(wasm);
      const [xPtr, yPtr, coef, rss] = [call.f64(x), call.f64(y), call.output(k), call.output(1)];
      const status = call.status(wasm.leastSquares(xPtr, yPtr, n, k, ridge, coef, rss));
      return { status, coef: call.read(coef, k), rss: call.read(rss, 1)[0]! };
    },

    logisticRegression(x, y, n, k, classes, l2, maxIter) {
      for (const [name, value] of [['n', n], ['k', k], ['classes', classes], ['maxIter', maxIter]] as const) requireSize(name, value);
      requireLength('x', x, n * k);
      requireLength('y', y, n);
      const call = new ArenaCall(wasm);
      const [xPtr, yPtr, weights, logLoss] = [call.f64(x), call.i32(y), call.output(classes * k), call.output(1)];
      const status = call.status(wasm.logisticRegression(xPtr, yPtr, n, k, classes, l2, maxIter, weights, logLoss));
      return { status, weights: call.read(weights, classes * k), logLoss: call.read(logLoss, 1)[0]! };
    },

    sampleLinearGaussian(n, p, intercept, noiseStd, parentStart, parentIndex, weight, fixed, seed) {
      requireSize('n', n);
      requireSize('p', p);
      for (const [name, array] of [['intercept', intercept], ['noiseStd', noiseStd], ['fixed', fixed]] as const) requireLength(name, array, p);
      requireLength('parentStart', parentStart, p + 1);
      requireLength('weight', weight, parentIndex.length);
      const call = new ArenaCall(wasm);
      const pointers = [call.f64(intercept), call.f64(noiseStd), call.i32(parentStart), call.i32(parentIndex)] as const;
      const [weightPtr, fixedPtr, out] = [call.f64(weight), call.f64(fixed), call.output(n * p)];
      // An invalid parent list (status 4) has already been answered with NaN by the kernel.
      call.status(wasm.sampleLinearGaussian(n, p, ...pointers, parentIndex.length, weightPtr, fixedPtr, seed >>> 0, out));
      return call.read(out, n * p);
    },

    uniforms(count, seed) {
      requireSize('count', count);
      const call = new ArenaCall(wasm);
      const out = call.output(count);
      call.status(wasm.uniforms(count, seed >>> 0, out));
      return call.read(out, count);
    },
  };
}

/** The WASM kernels of this thread, instantiated on first use. */
export function loadWasmKernels(): Kernels {
  kernels ??= wrap(loadWasmModule());
  return kernels;
}
