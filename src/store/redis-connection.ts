import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Opens an ioredis client with the settings this app relies on:
 * - auto-pipelining, so concurrent commands share round trips;
 * - a small per-command retry budget, so that while Redis is down a webhook gets its 503 within seconds
 *   instead of hanging on ioredis' default 20 reconnect attempts;
 * - an `error` listener (ioredis prints unhandled connection errors to the console otherwise).
 */
export function openRedis(url: string, logger: Logger, overrides: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    enableAutoPipelining: true,
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
    ...overrides,
  });
  watchErrors(redis, logger);
  return redis;
}

/** Logs connection errors through pino, at most once per 10 s per connection (reconnect loops are noisy). */
export function watchErrors(redis: Redis, logger: Logger): void {
  let lastLoggedAt = 0;
  redis.on('error', (error: unknown) => {
    const now = Date.now();
    if (now - lastLoggedAt < 10_000) return;
    lastLoggedAt = now;
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'redis connection error');
  });
}
