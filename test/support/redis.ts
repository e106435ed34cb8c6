/**
 * Real Redis for tests. `requireRedis()` FAILS (throws) when Redis is unreachable — tests needing Redis
 * never skip. Call it at the top level of a test file (`const redis = await requireRedis();`): it gives the
 * file its own key prefix and, after the file, deletes every key under it and closes its connections.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface RedisTestContext {
  url: string;
  /** `test:<random>:` — unique to this file; derive per-test prefixes from it. */
  prefix: string;
  /** A connection for inspecting what is stored. */
  redis: Redis;
  /** Another connection (closed after the file). */
  connect(): Redis;
  /** Every key under `prefix` (SCAN). */
  keys(pattern?: string): Promise<string[]>;
  /** Deletes the file's keys and closes its connections (registered with afterAll already). */
  cleanup(): Promise<void>;
}

export async function requireRedis(): Promise<RedisTestContext> {
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2_000, lazyConnect: true });
    client.on('error', () => undefined); // surfaced through the failing command instead
    connections.push(client);
    return client;
  };
  const redis = connect();
  try {
    await redis.connect();
    const pong: string = await redis.ping();
    if (pong !== 'PONG') throw new Error(`unexpected PING reply ${pong}`);
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `These tests need Redis at ${REDIS_URL} (set REDIS_URL to change it) and could not reach it: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }

  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const keys = async (pattern = '*'): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}${pattern}`, 'COUNT', 1000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return found;
  };
  const cleanup = async (): Promise<void> => {
    const all = await keys();
    for (let i = 0; i < all.length; i += 500) await redis.del(...all.slice(i, i + 500));
    await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
  };
  afterAll(cleanup);

  return {
    url: REDIS_URL,
    prefix,
    redis,
    connect, // lazy: connects on its first command
    keys,
    cleanup,
  };
}
