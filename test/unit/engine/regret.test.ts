import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MultinomialRegret } from '../../../src/engine/discovery/regret.js';

/** log C(n, r) by its definition: the sum over every count vector of n draws from r categories. */
function bruteForce(n: number, r: number): number {
  let total = 0;
  const counts = new Array<number>(r).fill(0);
  const factorial = (k: number): number => (k <= 1 ? 1 : k * factorial(k - 1));
  const visit = (category: number, left: number) => {
    if (category === r - 1) {
      counts[category] = left;
      let term = factorial(n);
      for (const c of counts) term *= (c === 0 ? 1 : (c / n) ** c) / factorial(c);
      total += term;
      return;
    }
    for (let c = 0; c <= left; c++) {
      counts[category] = c;
      visit(category + 1, left - c);
    }
  };
  visit(0, n);
  return Math.log(total);
}

test('the multinomial regret equals its defining sum (recurrence of Kontkanen & Myllymaki)', () => {
  for (const n of [1, 2, 5, 9]) {
    const regret = new MultinomialRegret(n);
    for (const r of [1, 2, 3, 4, 6]) {
      const expected = bruteForce(n, r);
      assert.ok(Math.abs(regret.log(r) - expected) < 1e-9, `n ${n}, r ${r}: ${regret.log(r)} vs ${expected}`);
    }
  }
});

test('the regret grows with the categories, and past the recurrence by n log r as its asymptote says', () => {
  const regret = new MultinomialRegret(1000);
  let previous = 0;
  for (const r of [2, 10, 100, 10_000, 1_000_000]) {
    const value = regret.log(r);
    assert.ok(value > previous, `r ${r}: ${value} after ${previous}`);
    previous = value;
  }
  // Beyond the cap (2^20 categories) each doubling adds n log 2; just below it the recurrence does nearly the same.
  const cap = 1 << 20;
  assert.ok(Math.abs(regret.log(2 * cap) - regret.log(cap) - 1000 * Math.log(2)) < 1e-6);
  const belowCap = regret.log(cap) - regret.log(cap / 2);
  assert.ok(Math.abs(belowCap - 1000 * Math.log(2)) < 0.5 * 1000 * Math.log(2) * 0.01, `last doubling below the cap adds ${belowCap}`);
});
