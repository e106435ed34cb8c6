import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** One Redis or a Redis Cluster: every store, dedup and queue operation runs on either. */
export type RedisClient = Redis | Cluster;

export interface ClusterSettings {
  nodes: ReadonlyArray<{ host: string; port: number }>;
  password?: string;
}

/**
 * Opens an ioredis client with the settings this app relies on:
 * - no auto-pipelining: ioredis writes concurrent commands without waiting for replies anyway, the queue
 *   batches its own scripts (queue-batch.ts), and auto-pipelining's per-batch objects outlive young-generation
 *   GCs — measured at 2,000 webhooks/s: 5–8 ms scavenges every ~180 ms instead of ~1 ms, which set the p99;
 * - a small per-command retry budget, so that while Redis is down a webhook gets its 503 within seconds
 *   instead of hanging on ioredis' default 20 reconnect attempts;
 * - an `error` listener (ioredis prints unhandled connection errors to the console otherwise).
 */
export function openRedis(url: string, logger: Logger, overrides: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
    ...overrides,
  });
  watchErrors(redis, logger);
  return redis;
}

/**
 * A Redis Cluster client with the same settings. Keys a script touches together share a hash tag
 * (`src/store/keys.ts`), so every script runs on one node; `MOVED`/`ASK` redirects are followed by ioredis.
 */
export function openRedisCluster(settings: ClusterSettings, logger: Logger): Cluster {
  const password = settings.password;
  const cluster = new Cluster(
    settings.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      // Off (as on one Redis, see openRedis); on a cluster also because ioredis batches auto-pipelined commands per
      // node, and a batch spanning slots comes back MOVED instead of being redirected (redis/ioredis#1890, #2075).
      enableAutoPipelining: false,
      // While a master fails over or restarts, commands wait for the slot map instead of failing at once.
      retryDelayOnClusterDown: 200,
      retryDelayOnFailover: 200,
      redisOptions: { maxRetriesPerRequest: 3, connectTimeout: 5_000, ...(password ? { password } : {}) },
    },
  );
  watchErrors(cluster, logger);
  return cluster;
}

/** Logs connection errors through pino, at most once per 10 s per connection (reconnect loops are noisy). */
export function watchErrors(redis: RedisClient, logger: Logger): void {
  let lastLoggedAt = 0;
  redis.on('error', (error: unknown) => {
    const now = Date.now();
    if (now - lastLoggedAt < 10_000) return;
    lastLoggedAt = now;
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'redis connection error');
  });
}

/** A second connection to the same Redis or Cluster (blocking reads must not share one with other commands). */
export function duplicateConnection(client: RedisClient): RedisClient {
  return client instanceof Cluster
    ? client.duplicate([], { enableAutoPipelining: false })
    : client.duplicate({ enableAutoPipelining: false });
}

/**
 * The connections a full key scan must walk: every master of a cluster, or the one Redis. A cluster client
 * knows its masters only once it has loaded the slot map, so this waits for that first.
 */
export async function scanTargets(client: RedisClient): Promise<Redis[]> {
  if (!(client instanceof Cluster)) return [client];
  if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      client.once('ready', resolve);
      client.once('end', () => reject(new Error('the Redis Cluster connection ended before it was ready')));
    });
  }
  return client.nodes('master');
}
