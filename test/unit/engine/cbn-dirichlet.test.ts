/**
 * CPT rows as Dirichlet posterior means with the prior chosen by marginal likelihood (src/engine/cbn/dirichlet.ts),
 * checked on counts drawn from known CPTs: a rare parent configuration is estimated from its own rows instead of
 * being flattened towards uniform, a node its parents do not move is shrunk towards its margin, and no class ever
 * gets probability 0.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dirichletCpt } from '../../../src/engine/cbn/dirichlet.js';
import { Rng } from '../../../src/engine/random.js';

/** Counts of n draws from each row of `cpt`, `sizes[j]` draws for row j. */
function counts(cpt: number[][], sizes: number[], seed: number): Float64Array[] {
  const rng = new Rng(seed);
  return cpt.map((row, j) => {
    const out = new Float64Array(row.length);
    for (let i = 0; i < sizes[j]!; i++) {
      let u = rng.uniform();
      let k = 0;
      while (k < row.length - 1 && u >= row[k]!) u -= row[k++]!;
      out[k]!++;
    }
    return out;
  });
}

const tv = (a: readonly number[], b: readonly number[]) => 0.5 * a.reduce((s, p, k) => s + Math.abs(p - b[k]!), 0);
const laplace = (row: Float64Array) => {
  const n = row.reduce((a, b) => a + b, 0);
  return Array.from(row, (c) => (c + 1) / (n + row.length));
};

test('a parent configuration seen a few times keeps what its rows say (Laplace flattens it)', () => {
  // Near-deterministic rows, as in insurance's PropCost: the rare configuration (4 rows) is all class 3.
  const truth = [[0.7, 0.3, 0, 0], [0, 0.95, 0.05, 0], [0, 0, 0.98, 0.02], [0, 0, 0, 1]];
  const table = counts(truth, [8000, 1500, 500, 4], 3);
  const margin = [0.6, 0.3, 0.09, 0.01];
  const fitted = dirichletCpt(table, margin);
  const rare = fitted.rows[3]!;
  assert.ok(tv(rare, truth[3]!) < 0.1, `rare row ${rare.map((p) => p.toFixed(3))} vs truth ${truth[3]}`);
  assert.ok(tv(laplace(table[3]!), truth[3]!) > 0.3, 'Laplace smoothing flattens the same row (5 of 8 in class 3)');
  for (const row of fitted.rows) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.ok(fitted.alpha <= 8, `near-deterministic rows choose a small equivalent sample size, got ${fitted.alpha}`);
});

test('a node its parents do not move is shrunk towards its margin, rare rows included', () => {
  const margin = [0.5, 0.3, 0.2];
  const truth = [margin, margin, margin, margin];
  const table = counts(truth, [3000, 3000, 3000, 3], 5);
  const fitted = dirichletCpt(table, margin);
  assert.equal(fitted.shape, 'marginal');
  assert.ok(fitted.alpha >= 16, `rows that all equal the margin choose a large equivalent sample size, got ${fitted.alpha}`);
  assert.ok(tv(fitted.rows[3]!, margin) < tv(laplace(table[3]!), margin), 'the rare row is closer to the truth than Laplace makes it');
});

test('an unseen configuration takes the prior shape and no class gets probability 0', () => {
  const table = [Float64Array.from([50, 0, 0]), Float64Array.from([0, 0, 0])];
  const fitted = dirichletCpt(table, [0.96, 0.02, 0.02]);
  for (const row of fitted.rows) for (const p of row) assert.ok(p > 0, `row ${row}`);
  const unseen = fitted.rows[1]!;
  assert.ok(fitted.shape === 'uniform' ? unseen.every((p) => Math.abs(p - 1 / 3) < 1e-12) : Math.abs(unseen[0]! - 0.96) < 1e-12, `unseen row ${unseen}`);
  assert.ok(fitted.rowPrior > 0);
});
