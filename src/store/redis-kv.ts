import { pino } from 'pino';
import type { Logger } from 'pino';
import { assertCountOnce, assertTtl } from './kv.js';
import type { CountedSet, HashCount, KeyValueStore, Scored, SetOptions } from './kv.js';
import { openRedis, scanTargets, type RedisClient } from './redis-connection.js';
import { withScripts } from './redis-scripts.js';

export type RedisKeyValueStoreOptions =
  /** A client owned by the caller: `close()` leaves it open. */
  | { redis: RedisClient }
  /** Opened here and quit by `close()`. */
  | { url: string; logger?: Logger };

/** `KeyValueStore` over an ioredis client; every method is one Redis command (`keysWithPrefix`: a SCAN walk of every master). */
export class RedisKeyValueStore implements KeyValueStore {
  private readonly redis: RedisClient;
  private readonly ownsClient: boolean;

  constructor(options: RedisKeyValueStoreOptions) {
    if ('redis' in options) {
      this.redis = withScripts(options.redis);
      this.ownsClient = false;
    } else {
      this.redis = withScripts(openRedis(options.url, options.logger ?? pino({ enabled: false })));
      this.ownsClient = true;
    }
  }

  get(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    const { ttlMs, onlyIfAbsent } = options;
    if (ttlMs !== undefined) {
      assertTtl(ttlMs);
      const reply = onlyIfAbsent
        ? await this.redis.set(key, value, 'PX', ttlMs, 'NX')
        : await this.redis.set(key, value, 'PX', ttlMs);
      return reply === 'OK';
    }
    const reply = onlyIfAbsent ? await this.redis.set(key, value, 'NX') : await this.redis.set(key, value);
    return reply === 'OK';
  }

  async del(key: string): Promise<boolean> {
    return (await this.redis.del(key)) > 0;
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    return (await this.redis.pexpire(key, ttlMs)) === 1;
  }

  incr(key: string, by = 1): Promise<number> {
    if (!Number.isSafeInteger(by)) return Promise.reject(new RangeError('incr: by must be an integer'));
    return this.redis.incrby(key, by);
  }

  hashGet(key: string, field: string): Promise<string | null> {
    return this.redis.hget(key, field);
  }

  async hashSet(key: string, fields: Readonly<Record<string, string>>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    await this.redis.hset(key, fields);
  }

  hashDel(key: string, ...fields: string[]): Promise<number> {
    if (fields.length === 0) return Promise.resolve(0);
    return this.redis.hdel(key, ...fields);
  }

  hashGetAll(key: string): Promise<Record<string, string>> {
    return this.redis.hgetall(key);
  }

  hashLen(key: string): Promise<number> {
    return this.redis.hlen(key);
  }

  hashFields(key: string): Promise<string[]> {
    return this.redis.hkeys(key);
  }

  hashGetMany(key: string, fields: readonly string[]): Promise<(string | null)[]> {
    if (fields.length === 0) return Promise.resolve([]);
    return this.redis.hmget(key, ...fields);
  }

  setAdd(key: string, ...members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.redis.sadd(key, ...members);
  }

  setRemove(key: string, ...members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.redis.srem(key, ...members);
  }

  setMembers(key: string): Promise<string[]> {
    return this.redis.smembers(key);
  }

  sortedAdd(key: string, entries: readonly Scored[], options: { onlyIfAbsent?: boolean } = {}): Promise<number> {
    if (entries.length === 0) return Promise.resolve(0);
    const pairs = entries.flatMap(({ member, score }) => [score, member]);
    return options.onlyIfAbsent ? this.redis.zadd(key, 'NX', ...pairs) : this.redis.zadd(key, ...pairs);
  }

  sortedRemove(key: string, ...members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.redis.zrem(key, ...members);
  }

  async sortedUpTo(key: string, maxScore: number, limit: number, minScore?: number): Promise<Scored[]> {
    if (limit <= 0) return [];
    const min = minScore ?? '-inf';
    return scoredPairs(await this.redis.zrangebyscore(key, min, maxScore, 'WITHSCORES', 'LIMIT', 0, limit));
  }

  async sortedFirst(key: string, limit: number): Promise<Scored[]> {
    if (limit <= 0) return [];
    return scoredPairs(await this.redis.zrange(key, 0, limit - 1, 'WITHSCORES'));
  }

  sortedCount(key: string): Promise<number> {
    return this.redis.zcard(key);
  }

  async sortedScore(key: string, member: string): Promise<number | undefined> {
    const score = await this.redis.zscore(key, member);
    return score === null ? undefined : Number(score);
  }

  async sortedSetIfScore(key: string, member: string, expected: number, score: number): Promise<boolean> {
    return (await this.redis.campaignSortedSetIfScore(key, member, expected, score)) === 1;
  }

  async sortedRemoveIfScore(key: string, member: string, expected: number): Promise<boolean> {
    return (await this.redis.campaignSortedRemoveIfScore(key, member, expected)) === 1;
  }

  async keysWithPrefix(prefix: string, containing?: string): Promise<string[]> {
    const found = new Set<string>();
    // SCAN may return a key twice; MATCH is a glob, so the given text's own glob characters are escaped.
    const glob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');
    const match = `${glob(prefix)}*${containing === undefined ? '' : `${glob(containing)}*`}`;
    for (const node of await scanTargets(this.redis)) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
        for (const key of batch) found.add(key);
        cursor = next;
      } while (cursor !== '0');
    }
    return [...found];
  }

  async setIfEqual(key: string, expected: string, value: string): Promise<boolean> {
    return (await this.redis.campaignSetIfEqual(key, expected, value)) === 1;
  }

  async expireIfEqual(key: string, expected: string, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    return (await this.redis.campaignExpireIfEqual(key, expected, ttlMs)) === 1;
  }

  async delIfEqual(key: string, expected: string): Promise<boolean> {
    return (await this.redis.campaignDelIfEqual(key, expected)) === 1;
  }

  async hashSetIfAbsent(key: string, field: string, value: string): Promise<boolean> {
    return (await this.redis.hsetnx(key, field, value)) === 1;
  }

  async hashSetIfEqual(key: string, field: string, expected: string, value: string): Promise<boolean> {
    return (await this.redis.campaignHashSetIfEqual(key, field, expected, value)) === 1;
  }

  async hashDelIfEqual(key: string, field: string, expected: string): Promise<boolean> {
    return (await this.redis.campaignHashDelIfEqual(key, field, expected)) === 1;
  }

  async countOnce(counted: CountedSet, now: number, counts: readonly HashCount[]): Promise<boolean> {
    assertCountOnce(counted, now, counts);
    const keys = [counted.key, ...counts.map((c) => c.key)];
    const args = [counted.member, now, counted.ttlMs, counted.keep, ...counts.flatMap((c) => [c.field, c.by, c.ttlMs])];
    return (await this.redis.campaignCountOnce(keys.length, ...keys, ...args)) === 1;
  }

  async ping(): Promise<void> {
    const reply: string = await this.redis.ping();
    if (reply !== 'PONG') throw new Error(`unexpected PING reply: ${reply}`);
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** A `WITHSCORES` reply (member, score, member, score…) as members and their scores. */
function scoredPairs(flat: readonly string[]): Scored[] {
  const out: Scored[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]) });
  return out;
}
