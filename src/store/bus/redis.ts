import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { type InvalidationBus, type InvalidationTopic, LocalSubscribers } from './port.js';

const TOPICS: InvalidationTopic[] = ['api-key', 'workspace'];

/**
 * Redis pub/sub between the processes of the scale-out profile. The publisher delivers locally at once and
 * ignores its own echo (messages carry the sender id).
 */
export async function createRedisBus(url: string, channelPrefix = 'causa:invalidate:'): Promise<InvalidationBus> {
  const sender = randomUUID();
  const local = new LocalSubscribers();
  const publisher = createClient({ url });
  publisher.on('error', () => undefined);
  const subscriber = publisher.duplicate();
  subscriber.on('error', () => undefined);
  await Promise.all([publisher.connect(), subscriber.connect()]);
  for (const topic of TOPICS) {
    await subscriber.subscribe(`${channelPrefix}${topic}`, (message) => {
      const separator = message.indexOf(' ');
      if (message.slice(0, separator) !== sender) local.deliver(topic, message.slice(separator + 1));
    });
  }
  return {
    kind: 'redis',
    async publish(topic, key) {
      local.deliver(topic, key);
      await publisher.publish(`${channelPrefix}${topic}`, `${sender} ${key}`);
    },
    subscribe: (topic, handler) => local.add(topic, handler),
    async close() {
      await Promise.all([subscriber.quit(), publisher.quit()]);
    },
  };
}
