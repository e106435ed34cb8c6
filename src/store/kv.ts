/**
 * The storage primitives every repository is written against. Two implementations: `MemoryKeyValueStore`
 * (embedded single-process mode) and `RedisKeyValueStore`. Semantics follow Redis, and the contract suite in
 * `test/store/` holds both to them: a plain `set` clears a TTL, `incr`/hash/set writes keep it, removing the
 * last field/member deletes the key, and using a key as the wrong type throws a `WRONGTYPE` error.
 *
 * Keys are complete key names, built with `Keys` (src/store/keys.ts); the store adds no prefix of its own.
 */

export interface SetOptions {
  /** Expire the key after this many milliseconds (Redis `PX`). */
  ttlMs?: number;
  /** Only write when the key does not exist (Redis `NX`). */
  onlyIfAbsent?: boolean;
}

/** A sorted-set member and its score. */
export interface Scored {
  member: string;
  score: number;
}

/**
 * Where `countOnce` remembers what it counted: one sorted set (member → when counted) for every thing it counts,
 * capped and expiring, so counting many things never leaves a key per thing.
 */
export interface CountedSet {
  key: string;
  /** The thing counted: the same for every try of it. */
  member: string;
  /** A member counted this long ago may be counted again; the set expires this long after its last write. */
  ttlMs: number;
  /** The newest members kept; the oldest go first (one counted again after that many others counts twice). */
  keep: number;
}

/** One hash field raised by `countOnce`, and how long its hash lives after. */
export interface HashCount {
  key: string;
  field: string;
  by: number;
  ttlMs: number;
}

export interface KeyValueStore {
  get(key: string): Promise<string | null>;
  /** Returns whether the value was written (always true unless `onlyIfAbsent` found the key present). */
  set(key: string, value: string, options?: SetOptions): Promise<boolean>;
  /** Returns whether the key existed. */
  del(key: string): Promise<boolean>;
  /** Sets a TTL on an existing key; returns whether the key existed. */
  expire(key: string, ttlMs: number): Promise<boolean>;
  /** Adds `by` (default 1) to an integer string (missing = 0) and returns the new value. */
  incr(key: string, by?: number): Promise<number>;

  hashGet(key: string, field: string): Promise<string | null>;
  hashSet(key: string, fields: Readonly<Record<string, string>>): Promise<void>;
  /** Returns how many of the fields existed. */
  hashDel(key: string, ...fields: string[]): Promise<number>;
  /** All fields; `{}` when the key does not exist. */
  hashGetAll(key: string): Promise<Record<string, string>>;
  /** How many fields the hash has (0 when the key does not exist). */
  hashLen(key: string): Promise<number>;
  /** The hash's field names, without their values (`[]` when the key does not exist). */
  hashFields(key: string): Promise<string[]>;
  /** The values of `fields`, in their order (null for a field that does not exist). */
  hashGetMany(key: string, fields: readonly string[]): Promise<(string | null)[]>;

  /** Returns how many members were new. */
  setAdd(key: string, ...members: string[]): Promise<number>;
  /** Returns how many members were present. */
  setRemove(key: string, ...members: string[]): Promise<number>;
  setMembers(key: string): Promise<string[]>;

  /**
   * Sorted sets (Redis ZSET): members ordered by score, equal scores by member bytes. `add` returns how many
   * members were new; `onlyIfAbsent` leaves an existing member where it is (Redis `ZADD NX`).
   */
  sortedAdd(key: string, entries: readonly Scored[], options?: { onlyIfAbsent?: boolean }): Promise<number>;
  /** Returns how many members were present. */
  sortedRemove(key: string, ...members: string[]): Promise<number>;
  /** At most `limit` members with `minScore` ≤ score ≤ `maxScore`, lowest first (Redis `ZRANGE … BYSCORE LIMIT`). */
  sortedUpTo(key: string, maxScore: number, limit: number, minScore?: number): Promise<Scored[]>;
  /** The first `limit` members, lowest score first (Redis `ZRANGE 0 limit-1`). */
  sortedFirst(key: string, limit: number): Promise<Scored[]>;
  /** How many members the sorted set has (0 when the key does not exist). */
  sortedCount(key: string): Promise<number>;
  /** The member's score; undefined when the member (or the key) does not exist (Redis `ZSCORE`). */
  sortedScore(key: string, member: string): Promise<number | undefined>;
  /** Moves a member to `score` only while it still has `expected`; returns whether it was moved. */
  sortedSetIfScore(key: string, member: string, expected: number, score: number): Promise<boolean>;
  /** Removes a member only while it still has `expected`; returns whether it was removed. */
  sortedRemoveIfScore(key: string, member: string, expected: number): Promise<boolean>;

  /**
   * Every live key starting with `prefix` — and containing `containing` after it, when given (Redis `SCAN` of
   * every master, the pattern matched by Redis): for maintenance jobs and uninstalls, never a request path.
   */
  keysWithPrefix(prefix: string, containing?: string): Promise<string[]>;
  /** Writes a string only while it still holds `expected`, keeping its TTL; returns whether it was written. */
  setIfEqual(key: string, expected: string, value: string): Promise<boolean>;
  /** Sets a string's TTL only while it still holds `expected` (a lease renewed by its owner); whether it was set. */
  expireIfEqual(key: string, expected: string, ttlMs: number): Promise<boolean>;
  /** Deletes a string only while it still holds `expected` (a lease released by its owner); whether it was deleted. */
  delIfEqual(key: string, expected: string): Promise<boolean>;
  /** Writes a hash field only when it does not exist yet (Redis `HSETNX`); returns whether it was written. */
  hashSetIfAbsent(key: string, field: string, value: string): Promise<boolean>;
  /** Writes a hash field only while it still holds `expected`; returns whether it was written. */
  hashSetIfEqual(key: string, field: string, expected: string, value: string): Promise<boolean>;
  /** Deletes a hash field only while it still holds `expected`; returns whether it was deleted. */
  hashDelIfEqual(key: string, field: string, expected: string): Promise<boolean>;

  /**
   * Counts one thing once, atomically: unless `counted.member` was counted within `counted.ttlMs` before `now`, it
   * is added to the set at `now` (the oldest beyond `keep` dropped) and each count raises its hash
   * field (Redis HINCRBY), the hash then expiring after the count's `ttlMs`. False, and nothing changed, when it
   * was counted. On Redis Cluster all the keys must share a hash slot (one hash tag).
   */
  countOnce(counted: CountedSet, now: number, counts: readonly HashCount[]): Promise<boolean>;

  /** Resolves when the backend answers (readiness probe); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const WRONGTYPE_MESSAGE = 'WRONGTYPE Operation against a key holding the wrong kind of value';

/** What `countOnce` checks before it writes anything. */
export function assertCountOnce(counted: CountedSet, now: number, counts: readonly HashCount[]): void {
  assertTtl(counted.ttlMs);
  if (!Number.isSafeInteger(counted.keep) || counted.keep <= 0)
    throw new RangeError('countOnce: keep must be positive');
  if (!Number.isSafeInteger(now)) throw new RangeError('countOnce: now must be an integer');
  for (const c of counts) {
    assertTtl(c.ttlMs);
    if (!Number.isSafeInteger(c.by)) throw new RangeError('countOnce: by must be an integer');
  }
}

export function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
}
