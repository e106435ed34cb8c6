/**
 * The run's real three-master Redis Cluster (started once by test/support/cluster-setup.ts), for one test file:
 * `const cluster = await requireCluster();` at the top level connects to it and FAILS, never skips, when it does
 * not answer. Every file keeps to its own key prefix there (derive it from `requireRedis()`'s); the connection is
 * closed after the file. Tests that stop or restart a master start a cluster of their own (`startRedisCluster`).
 */
import { Cluster } from 'ioredis';
import { afterAll, inject } from 'vitest';
import type { RedisCluster } from '../../bench/lib/redis-cluster.js';

/** What the files get of the shared cluster: its address, and a client for inspecting what is stored. */
export type SharedCluster = Pick<RedisCluster, 'spec' | 'seeds' | 'client'>;

export async function requireCluster(): Promise<SharedCluster> {
  const { spec, seeds } = inject('redisCluster');
  const client = new Cluster(seeds, { redisOptions: { maxRetriesPerRequest: 1 } });
  client.on('error', () => undefined); // surfaced through the failing command instead
  afterAll(() => client.disconnect());
  try {
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(
      `The test Redis Cluster (${spec}) did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { spec, seeds, client };
}
