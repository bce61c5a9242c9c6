import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { createMemoryBus } from '../../src/store/bus/memory.js';
import type { InvalidationBus } from '../../src/store/bus/port.js';
import { createRedisBus } from '../../src/store/bus/redis.js';
import { scaleOutUrl } from '../helpers/scale-out.js';

const until = async (condition: () => boolean, ms = 2000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

function describeBusConformance(name: string, open: (() => Promise<InvalidationBus>) | undefined) {
  describe(`invalidation bus: ${name}`, { skip: open === undefined ? 'TEST_REDIS_URL not set' : false }, () => {
    it('delivers a publication to the publishing process at once, exactly once, by topic', async () => {
      const bus = await open!();
      try {
        const keys: string[] = [];
        const workspaces: string[] = [];
        bus.subscribe('api-key', (key) => keys.push(key));
        bus.subscribe('workspace', (id) => workspaces.push(id));
        await bus.publish('api-key', 'hash-1');
        assert.deepEqual(keys, ['hash-1']);
        await new Promise((resolve) => setTimeout(resolve, 50)); // an echo from the broker would arrive by now
        assert.deepEqual(keys, ['hash-1']);
        assert.deepEqual(workspaces, []);
      } finally {
        await bus.close();
      }
    });
  });
}

const redisUrl = scaleOutUrl('TEST_REDIS_URL');
const channel = `causa:test:${newId('bus')}:`;
describeBusConformance('memory', async () => createMemoryBus());
describeBusConformance('redis', redisUrl === undefined ? undefined : () => createRedisBus(redisUrl, channel));

describe('invalidation bus: redis across processes', { skip: redisUrl === undefined ? 'TEST_REDIS_URL not set' : false }, () => {
  it('delivers a publication to every other process', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => createRedisBus(redisUrl!, channel)));
    try {
      const seen = new Map<string, string[]>([['b', []], ['c', []]]);
      b!.subscribe('workspace', (id) => seen.get('b')!.push(id));
      c!.subscribe('workspace', (id) => seen.get('c')!.push(id));
      await a!.publish('workspace', 'ws_1');
      await until(() => seen.get('b')!.length === 1 && seen.get('c')!.length === 1);
      assert.deepEqual([...seen.values()], [['ws_1'], ['ws_1']]);
    } finally {
      await Promise.all([a!.close(), b!.close(), c!.close()]);
    }
  });
});
