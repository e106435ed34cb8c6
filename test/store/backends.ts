/**
 * The two store backends the contract suites run against. Every store made here gets its own key prefix
 * (under the file's Redis prefix) and is closed after its test.
 */
import { randomBytes } from 'node:crypto';
import { afterEach } from 'vitest';
import { createStore } from '../../src/store/index.js';
import type { EventQueue, Store } from '../../src/store/index.js';
import type { RedisCluster } from '../../bench/lib/redis-cluster.js';
import type { RedisTestContext } from '../support/redis.js';
import { waitFor } from '../support/wait.js';

export interface Backend {
  name: 'memory' | 'redis' | 'cluster';
  /** `now`: the store's clock (expiry decisions), when a test moves it. */
  create: (options?: { now?: () => number }) => Store;
}

/** Memory, one Redis and, when given, a Redis Cluster (keys under the file's prefix there too). */
export function storeBackends(redis: RedisTestContext, cluster?: RedisCluster): Backend[] {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  let n = 0;
  const track = (store: Store): Store => {
    open.push(store);
    return store;
  };
  const backends: Backend[] = [
    { name: 'memory', create: (options = {}) => track(createStore(options)) },
    {
      name: 'redis',
      create: (options = {}) =>
        track(
          createStore({
            ...options,
            redisUrl: redis.url,
            keyPrefix: `${redis.prefix}${++n}:`,
            secretsKey: randomBytes(32),
          }),
        ),
    },
  ];
  if (cluster) {
    backends.push({
      name: 'cluster',
      create: (options = {}) =>
        track(
          createStore({
            ...options,
            redisCluster: { nodes: cluster.seeds },
            keyPrefix: `${redis.prefix}${++n}:`,
            secretsKey: randomBytes(32),
          }),
        ),
    });
  }
  return backends;
}

/** Resolves once the queue holds nothing: every entry handled (or dead-lettered) and acknowledged, none in flight. */
export async function queueIdle(queue: Pick<EventQueue, 'depth'>, timeoutMs = 5_000): Promise<void> {
  await waitFor(
    async () => (await queue.depth()).total === 0,
    'the queue to be empty with nothing in flight',
    timeoutMs,
  );
}

/** A synchronous function as an async handler (a throw becomes a rejection). */
export function sync<A extends unknown[]>(fn: (...args: A) => unknown): (...args: A) => Promise<void> {
  return (...args) => {
    try {
      fn(...args);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
}
