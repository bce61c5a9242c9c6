import { decide, type RateLimiter } from './port.js';

/** One process's counters; entries of past windows are dropped when the map grows. */
export function createMemoryRateLimiter(): RateLimiter {
  const counters = new Map<string, { windowStart: number; count: number }>();
  return {
    kind: 'memory',
    consume(key, limit, windowMs) {
      const now = Date.now();
      const windowStart = now - (now % windowMs);
      let counter = counters.get(key);
      if (counter === undefined || counter.windowStart !== windowStart) {
        if (counters.size > 100_000) for (const [k, c] of counters) if (c.windowStart !== windowStart) counters.delete(k);
        counter = { windowStart, count: 0 };
        counters.set(key, counter);
      }
      counter.count += 1;
      return decide(counter.count, limit, windowStart, windowMs, now);
    },
    ping: async () => undefined,
    close: async () => counters.clear(),
  };
}
