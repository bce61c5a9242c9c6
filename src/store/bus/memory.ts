import { type InvalidationBus, LocalSubscribers } from './port.js';

/** One process: invalidations are delivered synchronously to this process's caches. */
export function createMemoryBus(): InvalidationBus {
  const local = new LocalSubscribers();
  return {
    kind: 'memory',
    publish: async (topic, key) => local.deliver(topic, key),
    subscribe: (topic, handler) => local.add(topic, handler),
    close: async () => undefined,
  };
}
