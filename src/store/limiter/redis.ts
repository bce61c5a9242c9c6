import { createClient, defineScript } from 'redis';
import type { RateDecision, RateLimiter } from './port.js';

/**
 * Counts one request in the current fixed window, on Redis's own clock: processes whose clocks disagree still
 * share exact windows. Returns {count, ms until the window resets}. One round trip (EVALSHA).
 */
const consumeScript = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
    local now = redis.call('TIME')
    local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    local window = tonumber(ARGV[1])
    local start = ms - (ms % window)
    local key = KEYS[1] .. ':' .. start
    local count = redis.call('INCR', key)
    if count == 1 then redis.call('PEXPIRE', key, window) end
    return { count, start + window - ms }`,
  parseCommand(parser, key: string, windowMs: number) {
    parser.pushKey(key);
    parser.push(String(windowMs));
  },
  transformReply: (reply: unknown) => reply as [number, number],
});

/** Shared counters in Redis, so every process of the scale-out profile spends one budget per key. */
export async function createRedisRateLimiter(url: string, prefix = 'causa:rl:'): Promise<RateLimiter> {
  const client = createClient({ url, scripts: { consume: consumeScript } });
  client.on('error', () => undefined); // reconnects on its own; readiness reports the outage
  await client.connect();
  return {
    kind: 'redis',
    async consume(key, limit, windowMs): Promise<RateDecision> {
      const [count, resetMs] = (await client.consume(`${prefix}${key}`, windowMs)) as unknown as [number, number];
      return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetMs };
    },
    ping: async () => {
      await client.ping();
    },
    close: async () => {
      await client.quit();
    },
  };
}
