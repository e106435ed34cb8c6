/**
 * One Redis Cluster for the whole `npm test` run (vitest `globalSetup`): three masters take seconds to agree, and
 * the files that use one only ever read and write under their own key prefix, as they do on the shared Redis. Its
 * address reaches them through `inject('redisCluster')` (test/support/redis-cluster.ts); it stops after the run.
 */
import type { TestProject } from 'vitest/node';
import { startRedisCluster } from '../../bench/lib/redis-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisCluster: { spec: string; seeds: Array<{ host: string; port: number }> };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startRedisCluster();
  project.provide('redisCluster', { spec: cluster.spec, seeds: [...cluster.seeds] });
  return () => cluster.close();
}
