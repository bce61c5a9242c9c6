/**
 * The invalidation bus port: a process that changes something other processes may hold in a cache (a revoked
 * key, a deleted workspace) announces it; every process, itself included, drops its copy. In-process by
 * default; Redis pub/sub in the scale-out profile. Delivery is best effort: caches also expire on their own.
 */
export type InvalidationTopic = 'api-key' | 'workspace';

export interface InvalidationBus {
  readonly kind: 'memory' | 'redis';
  publish(topic: InvalidationTopic, key: string): Promise<void>;
  subscribe(topic: InvalidationTopic, handler: (key: string) => void): void;
  close(): Promise<void>;
}

/** Local fan-out shared by both adapters: the publishing process never waits for a round trip to itself. */
export class LocalSubscribers {
  private readonly handlers = new Map<InvalidationTopic, Array<(key: string) => void>>();

  add(topic: InvalidationTopic, handler: (key: string) => void): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  deliver(topic: InvalidationTopic, key: string): void {
    for (const handler of this.handlers.get(topic) ?? []) handler(key);
  }
}
