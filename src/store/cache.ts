import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

/**
 * A small read-through cache of a workspace's values over the KV store (shared between processes when Redis
 * is used), e.g. for the "is this user an admin" check. Values are stored as JSON, so `T` must survive JSON (no Dates, Maps…).
 * Concurrent misses of one key in this process share one call of `fn`.
 */
export class Cache {
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /**
   * Returns the workspace's value cached under `key` (a logical key such as `admin:U1`; stored under
   * `keys.cache(teamId, key)`),
   * or calls `fn`, caches its result for `ttlMs` and returns it. A result of `undefined` is returned but not
   * cached (the way to say "could not tell, ask again next time"); a throwing `fn` caches nothing.
   */
  async remember<T>(teamId: string, key: string, ttlMs: number, fn: () => Promise<T>): Promise<T> {
    const storeKey = this.keys.cache(teamId, key);
    const cached = await this.kv.get(storeKey);
    if (cached !== null) {
      // Written below as {"v": value}: the wrapper keeps a cached null/false/0 distinguishable from a miss.
      return (JSON.parse(cached) as { v: T }).v;
    }
    const running = this.inflight.get(storeKey);
    if (running) return running as Promise<T>;
    const load = (async () => {
      const value = await fn();
      if (value !== undefined) await this.kv.set(storeKey, JSON.stringify({ v: value }), { ttlMs });
      return value;
    })();
    this.inflight.set(storeKey, load);
    try {
      return await load;
    } finally {
      this.inflight.delete(storeKey);
    }
  }

  async forget(teamId: string, key: string): Promise<void> {
    await this.kv.del(this.keys.cache(teamId, key));
  }
}
