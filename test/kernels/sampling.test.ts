import { test } from 'node:test';
import assert from 'node:assert/strict';
import { portableLog } from '../../src/compute/reference/sampling.js';
import { assertClose, InputSource, reference, wasm } from './support.js';

const implementations = { reference, wasm };

/** A network in topological order: parents and weights per node (kernels.ts, sampleLinearGaussian). */
interface Network {
  p: number;
  intercept: Float64Array;
  noiseStd: Float64Array;
  parentStart: Int32Array;
  parentIndex: Int32Array;
  weight: Float64Array;
}

function network(intercepts: number[], noiseStds: number[], parents: [number, number][][]): Network {
  const parentStart = new Int32Array(parents.length + 1);
  parents.forEach((list, j) => (parentStart[j + 1] = parentStart[j]! + list.length));
  return {
    p: parents.length,
    intercept: new Float64Array(intercepts),
    noiseStd: new Float64Array(noiseStds),
    parentStart,
    parentIndex: Int32Array.from(parents.flat().map(([parent]) => parent)),
    weight: Float64Array.from(parents.flat().map(([, w]) => w)),
  };
}

// 0 -> 1 -> 3, 0 -> 2 -> 3, 2 -> 4, with 4 also fed by 1.
const DIAMOND = network([1, -2, 0.5, 0, 3], [1, 0.5, 2, 1, 0.3], [[], [[0, 0.8]], [[0, -1.5]], [[1, 1], [2, 0.4]], [[2, 0.25], [1, -0.7]]]);

function sample(kernels: typeof reference, net: Network, n: number, seed: number, fixed = new Float64Array(net.p).fill(Number.NaN)): Float64Array {
  return kernels.sampleLinearGaussian(n, net.p, net.intercept, net.noiseStd, net.parentStart, net.parentIndex, net.weight, fixed, seed);
}

/** The model's means and covariance by the recursions mu_j = a_j + sum w mu_pa, Sigma_ij = sum w Sigma_pa,i (i < j). */
function impliedMoments(net: Network): { mean: number[]; cov: number[][] } {
  const { p } = net;
  const mean: number[] = [];
  const cov = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  for (let j = 0; j < p; j++) {
    const parents = Array.from({ length: net.parentStart[j + 1]! - net.parentStart[j]! }, (_, m) => net.parentStart[j]! + m);
    mean[j] = net.intercept[j]! + parents.reduce((s, m) => s + net.weight[m]! * mean[net.parentIndex[m]!]!, 0);
    for (let i = 0; i < j; i++) {
      cov[i]![j] = cov[j]![i] = parents.reduce((s, m) => s + net.weight[m]! * cov[net.parentIndex[m]!]![i]!, 0);
    }
    cov[j]![j] = net.noiseStd[j]! ** 2 + parents.reduce((s, m) => s + parents.reduce((t, q) => t + net.weight[m]! * net.weight[q]! * cov[net.parentIndex[m]!]![net.parentIndex[q]!]!, 0), 0);
  }
  return { mean, cov };
}

for (const [name, kernels] of Object.entries(implementations)) {
  test(`${name}: sampled means and covariance match those the linear-Gaussian model implies`, () => {
    const n = 200_000;
    const data = sample(kernels, DIAMOND, n, 12345);
    const { means, cov } = reference.covariance(data, n, DIAMOND.p);
    const implied = impliedMoments(DIAMOND);
    const sd = implied.cov.map((row, i) => Math.sqrt(row[i]!));
    // Standard errors are about sd / sqrt(n) = 0.2% of sd for means and sqrt(2 / n) = 0.3% for covariances.
    implied.mean.forEach((m, j) => assert.ok(Math.abs(means[j]! - m) < 0.02 * sd[j]!, `mean ${j}: ${means[j]} vs ${m}`));
    implied.cov.forEach((row, i) => row.forEach((c, j) => {
      assert.ok(Math.abs(cov[i * DIAMOND.p + j]! - c) < 0.02 * sd[i]! * sd[j]!, `cov ${i},${j}: ${cov[i * DIAMOND.p + j]} vs ${c}`);
    }));
  });

  test(`${name}: an intervention clamps its node, moves its descendants and leaves the other draws unchanged`, () => {
    const n = 50_000;
    const observed = sample(kernels, DIAMOND, n, 99);
    const fixed = new Float64Array(DIAMOND.p).fill(Number.NaN);
    fixed[2] = 4;
    const intervened = sample(kernels, DIAMOND, n, 99, fixed);
    let child = 0;
    for (let r = 0; r < n; r++) {
      assert.equal(intervened[r * DIAMOND.p + 2], 4);
      assert.equal(intervened[r * DIAMOND.p + 0], observed[r * DIAMOND.p + 0], 'node 0 is not downstream of 2');
      assert.equal(intervened[r * DIAMOND.p + 1], observed[r * DIAMOND.p + 1], 'node 1 is not downstream of 2');
      child += intervened[r * DIAMOND.p + 4]!;
    }
    // E[x4 | do(x2 = 4)] = 3 + 0.25 * 4 - 0.7 * E[x1], E[x1] = -2 + 0.8 * 1.
    assert.ok(Math.abs(child / n - (3 + 1 - 0.7 * -1.2)) < 0.02, `mean of node 4: ${child / n}`);
  });

  test(`${name}: the same seed gives the same samples and a different seed different ones`, () => {
    assert.deepEqual(sample(kernels, DIAMOND, 100, 7), sample(kernels, DIAMOND, 100, 7));
    const other = sample(kernels, DIAMOND, 100, 8);
    const same = sample(kernels, DIAMOND, 100, 7);
    assert.ok(other.every((v, i) => v !== same[i]));
    assert.deepEqual(kernels.uniforms(1000, 2 ** 32 + 5), kernels.uniforms(1000, 5), 'seeds are taken modulo 2^32');
    assert.deepEqual(kernels.uniforms(10, -1), kernels.uniforms(10, 4294967295));
    assert.notDeepEqual(kernels.uniforms(10, 0), kernels.uniforms(10, 1));
  });

  test(`${name}: uniforms lie in [0, 1) with mean 1/2 and variance 1/12`, () => {
    const draws = kernels.uniforms(200_000, 31);
    assert.ok(draws.every((u) => u >= 0 && u < 1));
    const mean = draws.reduce((s, u) => s + u, 0) / draws.length;
    const variance = draws.reduce((s, u) => s + (u - mean) ** 2, 0) / draws.length;
    assert.ok(Math.abs(mean - 0.5) < 0.003 && Math.abs(variance - 1 / 12) < 0.001, `mean ${mean}, variance ${variance}`);
  });

  test(`${name}: a parent list that points forward or past its arrays answers NaN samples`, () => {
    const forward = network([0, 0], [1, 1], [[[1, 0.5]], []]);
    assert.ok(sample(kernels, forward, 3, 1).every(Number.isNaN));
    const broken = { ...DIAMOND, parentStart: new Int32Array([0, 1, 0, 3, 4, 6]) };
    assert.ok(sample(kernels, broken, 3, 1).every(Number.isNaN));
  });
}

test('WASM samples and uniforms are bit-identical to the reference', () => {
  const source = new InputSource(41);
  for (const [n, p] of [[0, 3], [5, 0], [1, 1], [1000, 12], [20_000, 40]] as const) {
    const parents = Array.from({ length: p }, (_, j) => Array.from({ length: Math.min(j, source.integer(4)) }, () => [source.integer(j), source.normal()] as [number, number]));
    const net = network([...source.normals(p)], [...source.normals(p)].map(Math.abs), parents);
    const fixed = Float64Array.from({ length: p }, (_, j) => (j % 5 === 3 ? source.normal() : Number.NaN));
    assert.deepEqual(sample(wasm, net, n, 1234, fixed), sample(reference, net, n, 1234, fixed), `n=${n} p=${p}`);
  }
  assert.deepEqual(wasm.uniforms(100_001, 77), reference.uniforms(100_001, 77));
});

test('the portable logarithm agrees with Math.log to 1e-15 (a few ulps)', () => {
  const source = new InputSource(43);
  const points = [Number.MIN_VALUE * 2 ** 60, 1e-300, 1e-10, 0.5, Math.SQRT1_2, 1 - 2 ** -53, 1, 1.4, ...Array.from({ length: 10_000 }, () => source.uniform())];
  assertClose(points.map(portableLog), points.map(Math.log), 1e-15, 'ln', 1e-300);
});
