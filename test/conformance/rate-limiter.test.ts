/**
 * Conformance of the rate limiter adapters (the style of hono's `src/router/common.case.test.ts`): one suite,
 * `describeRateLimiterConformance`, states what every RateLimiter must do, and each adapter runs it.
 *
 * - memory: always.
 * - Redis: only with TEST_REDIS_URL. Unset, its cases are skipped with that reason, unless CAUSA_REQUIRE_SCALE_OUT=1,
 *   in which case they fail. Each run uses its own key prefix, so runs never share counters (and the counters
 *   expire on their own with their window).
 *
 * The limiter counts fixed windows aligned to multiples of windowMs. A case that must stay inside one window
 * first waits for a window with enough time left (`freshWindow`), so no case depends on luck with the clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../../src/lib/ids.js';
import { createMemoryRateLimiter } from '../../src/store/limiter/memory.js';
import type { RateDecision, RateLimiter } from '../../src/store/limiter/port.js';
import { createRedisRateLimiter } from '../../src/store/limiter/redis.js';

export interface RateLimiterTarget {
  /** Opens an instance; with `shared`, every instance spends the same budgets (as separate processes would). */
  open(): Promise<RateLimiter>;
  /** True when instances share budgets (scale-out); a memory limiter counts for its own process only. */
  shared: boolean;
  /** When set, every case is skipped with this reason. */
  skip?: string;
  /** When set, the suite fails with this reason instead of running (an adapter that is required is not configured). */
  fail?: string;
}

/** Waits, if need be, until the current window of `windowMs` has at least `needMs` left. */
async function freshWindow(windowMs: number, needMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await sleep(left + 5);
}

const key = (label: string) => `conformance:${label}:${newId('k')}`;

const consumeMany = (limiter: RateLimiter, k: string, n: number, limit: number, windowMs: number) =>
  Promise.all(Array.from({ length: n }, () => limiter.consume(k, limit, windowMs)));

async function consumeInTurn(limiter: RateLimiter, k: string, n: number, limit: number, windowMs: number): Promise<RateDecision[]> {
  const decisions: RateDecision[] = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume(k, limit, windowMs));
  return decisions;
}

export function describeRateLimiterConformance(name: string, target: RateLimiterTarget): void {
  describe(name, () => {
    if (target.fail !== undefined) {
      it('is configured', () => assert.fail(target.fail));
      return;
    }
    const skip = target.skip ?? false;
    const needsShared = skip !== false ? skip : target.shared ? false : 'this limiter counts for its own process only';
    const opened: RateLimiter[] = [];
    let limiter: RateLimiter;
    const open = async () => {
      const instance = await target.open();
      opened.push(instance);
      return instance;
    };

    before(async () => {
      if (skip === false) limiter = await open();
    });
    after(async () => {
      for (const instance of opened) await instance.close();
    });

    it('answers a ping', { skip }, async () => {
      await limiter.ping();
    });

    it('counts up to the limit, then refuses', { skip }, async () => {
      const windowMs = 60_000;
      await freshWindow(windowMs, 5_000);
      const k = key('limit');
      const decisions = await consumeInTurn(limiter, k, 7, 5, windowMs);
      assert.deepEqual(
        decisions.map((d) => [d.allowed, d.remaining, d.limit]),
        [
          [true, 4, 5],
          [true, 3, 5],
          [true, 2, 5],
          [true, 1, 5],
          [true, 0, 5],
          [false, 0, 5],
          [false, 0, 5],
        ],
      );
    });

    it('reports the remaining budget and a reset time within the window', { skip }, async () => {
      for (const windowMs of [200, 10_000]) {
        await freshWindow(windowMs, Math.min(windowMs / 2, 2_000));
        const decisions = await consumeInTurn(limiter, key('reset'), 3, 10, windowMs);
        decisions.forEach((d, i) => {
          assert.equal(d.remaining, 10 - (i + 1));
          assert.ok(d.resetMs > 0 && d.resetMs <= windowMs, `resetMs ${d.resetMs} outside (0, ${windowMs}]`);
        });
        for (let i = 1; i < decisions.length; i++) assert.ok(decisions[i]!.resetMs <= decisions[i - 1]!.resetMs, 'the reset time moved back');
      }
    });

    it('gives separate keys separate budgets', { skip }, async () => {
      const windowMs = 60_000;
      await freshWindow(windowMs, 5_000);
      const [a, b] = [key('a'), key('b')];
      await consumeInTurn(limiter, a, 2, 2, windowMs);
      assert.equal((await limiter.consume(a, 2, windowMs)).allowed, false);
      const other = await limiter.consume(b, 2, windowMs);
      assert.deepEqual([other.allowed, other.remaining], [true, 1]);
    });

    it('starts a new budget when the window turns', { skip }, async () => {
      const windowMs = 200;
      await freshWindow(windowMs, 100);
      const k = key('window');
      const spent = await consumeInTurn(limiter, k, 4, 3, windowMs);
      assert.deepEqual(spent.map((d) => d.allowed), [true, true, true, false]);
      await sleep(spent.at(-1)!.resetMs + 20);
      const next = await limiter.consume(k, 3, windowMs);
      assert.deepEqual([next.allowed, next.remaining], [true, 2]);
      assert.ok(next.resetMs > 0 && next.resetMs <= windowMs);
    });

    it('allows exactly 100 of 200 concurrent requests with a limit of 100', { skip }, async () => {
      const windowMs = 60_000;
      await freshWindow(windowMs, 10_000);
      const decisions = await consumeMany(limiter, key('burst'), 200, 100, windowMs);
      assertExactlyOneBudget(decisions, 100);
    });

    it('makes two instances (two processes) spend one budget', { skip: needsShared }, async () => {
      const windowMs = 60_000;
      await freshWindow(windowMs, 5_000);
      const second = await open();
      const k = key('shared');
      const first = await consumeInTurn(limiter, k, 3, 5, windowMs);
      const then = await consumeInTurn(second, k, 3, 5, windowMs);
      assert.deepEqual([...first, ...then].map((d) => [d.allowed, d.remaining]), [
        [true, 4],
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      assert.equal((await limiter.consume(k, 5, windowMs)).allowed, false, 'the first instance sees the budget spent by the second');
    });

    it('allows exactly 100 of 200 requests racing through two instances with a limit of 100', { skip: needsShared }, async () => {
      const windowMs = 60_000;
      await freshWindow(windowMs, 10_000);
      const second = await open();
      const k = key('shared-burst');
      const halves = await Promise.all([consumeMany(limiter, k, 100, 100, windowMs), consumeMany(second, k, 100, 100, windowMs)]);
      assertExactlyOneBudget(halves.flat(), 100);
    });
  });
}

/** Exactly `limit` decisions were allowed, each with a different place in the budget (remaining limit-1 … 0). */
function assertExactlyOneBudget(decisions: RateDecision[], limit: number): void {
  const allowed = decisions.filter((d) => d.allowed);
  assert.equal(allowed.length, limit);
  assert.deepEqual(
    allowed.map((d) => d.remaining).sort((x, y) => x - y),
    Array.from({ length: limit }, (_, i) => i),
  );
  for (const d of decisions) if (!d.allowed) assert.equal(d.remaining, 0);
}

/**
 * A scale-out adapter runs when its variable names a server; unset, it is skipped, unless CAUSA_REQUIRE_SCALE_OUT=1
 * demands it, and then its suite fails.
 */
function scaleOut(variable: string): { url: string } | { skip: string } | { fail: string } {
  const url = process.env[variable];
  if (url) return { url };
  if (process.env.CAUSA_REQUIRE_SCALE_OUT === '1') return { fail: `${variable} is not set, but CAUSA_REQUIRE_SCALE_OUT=1 requires this adapter to run` };
  return { skip: `${variable} not set` };
}

describeRateLimiterConformance('memory rate limiter', { open: async () => createMemoryRateLimiter(), shared: false });

const redis = scaleOut('TEST_REDIS_URL');
const prefix = `causa:conformance:${newId('run')}:`; // one prefix per run: instances of this run share it, other runs do not
describeRateLimiterConformance('Redis rate limiter', {
  open: () => createRedisRateLimiter('url' in redis ? redis.url : '', prefix),
  shared: true,
  ...('skip' in redis && { skip: redis.skip }),
  ...('fail' in redis && { fail: redis.fail }),
});
