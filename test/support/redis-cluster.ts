/**
 * A real three-master Redis Cluster for one test file: `const cluster = await requireCluster();` at the top
 * level starts it on free local ports (it FAILS, never skips, when redis-server cannot start) and stops it
 * after the file.
 */
import { afterAll } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../bench/lib/redis-cluster.js';

export async function requireCluster(): Promise<RedisCluster> {
  const cluster = await startRedisCluster();
  afterAll(() => cluster.close());
  return cluster;
}
