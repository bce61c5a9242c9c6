import { createClient } from 'redis';
import { decide, type RateLimiter } from './port.js';

/**
 * Shared counters in Redis: INCR + PEXPIRE of a per-window key in one pipeline (one round trip), so every
 * process of the scale-out profile spends the same budget.
 */
export async function createRedisRateLimiter(url: string, prefix = 'causa:rl:'): Promise<RateLimiter> {
  const client = createClient({ url });
  client.on('error', () => undefined); // reconnects on its own; readiness reports the outage
  await client.connect();
  return {
    kind: 'redis',
    async consume(key, limit, windowMs) {
      const now = Date.now();
      const windowStart = now - (now % windowMs);
      const redisKey = `${prefix}${key}:${windowStart}`;
      const [count] = (await client.multi().incr(redisKey).pExpire(redisKey, windowMs).execAsPipeline()) as unknown as [number];
      return decide(Number(count), limit, windowStart, windowMs, now);
    },
    ping: async () => {
      await client.ping();
    },
    close: async () => {
      await client.quit();
    },
  };
}
