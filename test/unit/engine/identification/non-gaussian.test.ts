import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { continuousColumn, frameOf } from '../../../../src/engine/frame.js';
import { likelihoodRatio, negentropy, orientByNonGaussianity } from '../../../../src/engine/identification/non-gaussian.js';
import type { EdgeRef } from '../../../../src/engine/types.js';
import { seededRandom } from '../../../helpers/simulated.js';

const e = (source: string, target: string): EdgeRef => ({ source, target });
type Noise = 'gaussian' | 'uniform' | 'laplace';

function draw(random: ReturnType<typeof seededRandom>, kind: Noise): number {
  if (kind === 'gaussian') return random.normal();
  if (kind === 'uniform') return (random.uniform() - 0.5) * Math.sqrt(12);
  const u = random.uniform() - 0.5;
  return -Math.sign(u) * Math.log(1 - 2 * Math.abs(u)) / Math.SQRT2;
}

/** Truth x -> a -> y with the given noise; the DAG handed over is the reverse chain y -> a -> x (same class). */
function chain(noise: Noise, seed: number, n = 3000) {
  const random = seededRandom(seed);
  const x: number[] = [];
  const a: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    x.push(draw(random, noise));
    a.push(0.8 * x[i]! + draw(random, noise));
    y.push(0.8 * a[i]! + draw(random, noise));
  }
  return frameOf([continuousColumn('x', x), continuousColumn('a', a), continuousColumn('y', y)]);
}

test('the negentropy approximation is near 0 for Gaussian data and positive otherwise', () => {
  const random = seededRandom(3);
  const sample = (kind: Noise) => Float64Array.from({ length: 20000 }, () => draw(random, kind));
  assert.ok(negentropy(sample('gaussian')) < 0.001);
  assert.ok(negentropy(sample('uniform')) > 0.01);
  assert.ok(negentropy(sample('laplace')) > 0.01);
});

test('the pairwise ratio favours the true direction under non-Gaussian noise, either kind', () => {
  for (const kind of ['uniform', 'laplace'] as const) {
    const random = seededRandom(5);
    const x = Float64Array.from({ length: 5000 }, () => draw(random, kind));
    const y = x.map((v) => 0.7 * v + draw(random, kind));
    assert.ok(likelihoodRatio(x, y) > 0, `${kind}: x -> y`);
    assert.ok(likelihoodRatio(y, x) < 0, `${kind}: not y -> x`);
  }
});

test('with non-Gaussian noise a reversible chain is oriented the true way and labelled as assumed', () => {
  for (const [kind, seed] of [['uniform', 1], ['laplace', 2], ['uniform', 3]] as const) {
    const result = orientByNonGaussianity(chain(kind, seed), [e('y', 'a'), e('a', 'x')], { required: [], forbidden: [] }, kernels);
    assert.deepEqual(result.edges.map((d) => `${d.source}->${d.target}`).sort(), ['a->y', 'x->a'], `${kind} seed ${seed}`);
    assert.deepEqual(result.assumed.map((d) => `${d.source}->${d.target}:${d.assumption}`).sort(), ['a->y:non_gaussian_residuals', 'x->a:non_gaussian_residuals']);
  }
});

test('with Gaussian noise the assumption does not hold and orients nothing', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const result = orientByNonGaussianity(chain('gaussian', seed), [e('y', 'a'), e('a', 'x')], { required: [], forbidden: [] }, kernels);
    assert.deepEqual(result.assumed, [], `seed ${seed}`);
    assert.deepEqual(result.edges, [e('y', 'a'), e('a', 'x')]);
  }
});

test('the assumption never overrides the data or the fixed graph', () => {
  // A v-structure x -> y <- z is compelled; with x -> y pinned nothing is left to assume.
  const random = seededRandom(9);
  const n = 3000;
  const x = Array.from({ length: n }, () => draw(random, 'uniform'));
  const z = Array.from({ length: n }, () => draw(random, 'uniform'));
  const y = x.map((v, i) => 0.8 * v + 0.8 * z[i]! + draw(random, 'uniform'));
  const frame = frameOf([continuousColumn('x', x), continuousColumn('z', z), continuousColumn('y', y)]);
  assert.deepEqual(orientByNonGaussianity(frame, [e('x', 'y'), e('z', 'y')], { required: [], forbidden: [] }, kernels).assumed, []);
  const pinned = orientByNonGaussianity(chain('uniform', 4), [e('y', 'a'), e('a', 'x')], { required: [e('y', 'a')], forbidden: [] }, kernels);
  assert.ok(pinned.edges.some((d) => d.source === 'y' && d.target === 'a'), 'the pinned direction stays, against the assumption');
});
