import { assertCountOnce, assertTtl, WRONGTYPE_MESSAGE } from './kv.js';
import type { CountedSet, HashCount, KeyValueStore, Scored, SetOptions } from './kv.js';
import { SortedMembers } from './memory-sorted.js';

type Value =
  | { kind: 'string'; data: string }
  | { kind: 'hash'; data: Map<string, string> }
  | { kind: 'set'; data: Set<string> }
  | { kind: 'sorted'; data: SortedMembers };

interface Item {
  value: Value;
  /** Epoch ms; undefined = no TTL. */
  expiresAt: number | undefined;
}

export interface MemoryKeyValueStoreOptions {
  /** How often expired keys are swept (they are also dropped lazily on access). Default 30 s. */
  sweepIntervalMs?: number;
  now?: () => number;
}

/**
 * In-process `KeyValueStore` for the embedded mode. Mirrors the Redis semantics the contract suite checks,
 * including real TTL expiry: lazily on every access, plus an unref'd sweep so that write-once keys (dedup
 * marks) do not pile up in a long-running process.
 */
export class MemoryKeyValueStore implements KeyValueStore {
  private readonly items = new Map<string, Item>();
  private readonly now: () => number;
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;

  constructor(options: MemoryKeyValueStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sweepTimer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 30_000);
    this.sweepTimer.unref();
  }

  /** Number of live keys (for tests and diagnostics). */
  get size(): number {
    this.sweep();
    return this.items.size;
  }

  get(key: string): Promise<string | null> {
    return this.run(() => {
      const item = this.live(key);
      if (!item) return null;
      return this.expect(item, 'string').data;
    });
  }

  set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    return this.run(() => {
      if (options.ttlMs !== undefined) assertTtl(options.ttlMs);
      if (options.onlyIfAbsent && this.live(key)) return false;
      // Like Redis SET: replaces any type and clears a previous TTL unless a new one is given.
      this.items.set(key, {
        value: { kind: 'string', data: value },
        expiresAt: options.ttlMs === undefined ? undefined : this.now() + options.ttlMs,
      });
      return true;
    });
  }

  del(key: string): Promise<boolean> {
    return this.run(() => {
      const existed = this.live(key) !== undefined;
      this.items.delete(key);
      return existed;
    });
  }

  expire(key: string, ttlMs: number): Promise<boolean> {
    return this.run(() => {
      assertTtl(ttlMs);
      const item = this.live(key);
      if (!item) return false;
      item.expiresAt = this.now() + ttlMs;
      return true;
    });
  }

  incr(key: string, by = 1): Promise<number> {
    return this.run(() => {
      if (!Number.isSafeInteger(by)) throw new RangeError('incr: by must be an integer');
      const item = this.live(key);
      const current = item ? this.expect(item, 'string').data : '0';
      if (!/^-?\d+$/.test(current) || !Number.isSafeInteger(Number(current))) {
        throw new Error('ERR value is not an integer or out of range');
      }
      const next = Number(current) + by;
      // INCR keeps the key's TTL.
      this.items.set(key, { value: { kind: 'string', data: String(next) }, expiresAt: item?.expiresAt });
      return next;
    });
  }

  hashGet(key: string, field: string): Promise<string | null> {
    return this.run(() => {
      const item = this.live(key);
      if (!item) return null;
      return this.expect(item, 'hash').data.get(field) ?? null;
    });
  }

  hashSet(key: string, fields: Readonly<Record<string, string>>): Promise<void> {
    return this.run(() => {
      const entries = Object.entries(fields);
      if (entries.length === 0) return;
      const item = this.live(key);
      const hash = item ? this.expect(item, 'hash').data : new Map<string, string>();
      for (const [field, value] of entries) hash.set(field, value);
      if (!item) this.items.set(key, { value: { kind: 'hash', data: hash }, expiresAt: undefined });
    });
  }

  hashDel(key: string, ...fields: string[]): Promise<number> {
    return this.run(() => {
      const item = this.live(key);
      if (!item) return 0;
      const hash = this.expect(item, 'hash').data;
      let removed = 0;
      for (const field of fields) if (hash.delete(field)) removed++;
      if (hash.size === 0) this.items.delete(key);
      return removed;
    });
  }

  hashGetAll(key: string): Promise<Record<string, string>> {
    return this.run(() => {
      const item = this.live(key);
      if (!item) return {};
      return Object.fromEntries(this.expect(item, 'hash').data);
    });
  }

  hashLen(key: string): Promise<number> {
    return this.run(() => {
      const item = this.live(key);
      return item ? this.expect(item, 'hash').data.size : 0;
    });
  }

  hashFields(key: string): Promise<string[]> {
    return this.run(() => {
      const item = this.live(key);
      return item ? [...this.expect(item, 'hash').data.keys()] : [];
    });
  }

  hashGetMany(key: string, fields: readonly string[]): Promise<(string | null)[]> {
    return this.run(() => {
      const item = this.live(key);
      const hash = item ? this.expect(item, 'hash').data : undefined;
      return fields.map((f) => hash?.get(f) ?? null);
    });
  }

  setAdd(key: string, ...members: string[]): Promise<number> {
    return this.run(() => {
      if (members.length === 0) return 0;
      const item = this.live(key);
      const set = item ? this.expect(item, 'set').data : new Set<string>();
      let added = 0;
      for (const member of members) {
        if (!set.has(member)) {
          set.add(member);
          added++;
        }
      }
      if (!item) this.items.set(key, { value: { kind: 'set', data: set }, expiresAt: undefined });
      return added;
    });
  }

  setRemove(key: string, ...members: string[]): Promise<number> {
    return this.run(() => {
      const item = this.live(key);
      if (!item) return 0;
      const set = this.expect(item, 'set').data;
      let removed = 0;
      for (const member of members) if (set.delete(member)) removed++;
      if (set.size === 0) this.items.delete(key);
      return removed;
    });
  }

  setMembers(key: string): Promise<string[]> {
    return this.run(() => {
      const item = this.live(key);
      if (!item) return [];
      return [...this.expect(item, 'set').data];
    });
  }

  sortedAdd(key: string, entries: readonly Scored[], options: { onlyIfAbsent?: boolean } = {}): Promise<number> {
    return this.run(() => {
      if (entries.length === 0) return 0;
      for (const { score } of entries)
        if (!Number.isFinite(score)) throw new RangeError('sortedAdd: score must be finite');
      const item = this.live(key);
      const sorted = item ? this.expect(item, 'sorted').data : new SortedMembers();
      let added = 0;
      for (const { member, score } of entries) if (sorted.add(member, score, options.onlyIfAbsent)) added++;
      if (!item) this.items.set(key, { value: { kind: 'sorted', data: sorted }, expiresAt: undefined });
      return added;
    });
  }

  sortedRemove(key: string, ...members: string[]): Promise<number> {
    return this.run(() => {
      const item = this.live(key);
      if (!item) return 0;
      const sorted = this.expect(item, 'sorted').data;
      let removed = 0;
      for (const member of members) if (sorted.remove(member)) removed++;
      if (sorted.size === 0) this.items.delete(key);
      return removed;
    });
  }

  sortedUpTo(key: string, maxScore: number, limit: number, minScore?: number): Promise<Scored[]> {
    return this.run(() => {
      const item = this.live(key);
      return item ? this.expect(item, 'sorted').data.upTo(maxScore, limit, minScore) : [];
    });
  }

  sortedFirst(key: string, limit: number): Promise<Scored[]> {
    return this.run(() => {
      const item = this.live(key);
      return item ? this.expect(item, 'sorted').data.first(limit) : [];
    });
  }

  sortedCount(key: string): Promise<number> {
    return this.run(() => {
      const item = this.live(key);
      return item ? this.expect(item, 'sorted').data.size : 0;
    });
  }

  sortedScore(key: string, member: string): Promise<number | undefined> {
    return this.run(() => {
      const item = this.live(key);
      return item ? this.expect(item, 'sorted').data.scoreOf(member) : undefined;
    });
  }

  sortedSetIfScore(key: string, member: string, expected: number, score: number): Promise<boolean> {
    return this.run(() => {
      if (!Number.isFinite(score)) throw new RangeError('sortedSetIfScore: score must be finite');
      const item = this.live(key);
      const sorted = item ? this.expect(item, 'sorted').data : undefined;
      if (!sorted || sorted.scoreOf(member) !== expected) return false;
      sorted.add(member, score);
      return true;
    });
  }

  sortedRemoveIfScore(key: string, member: string, expected: number): Promise<boolean> {
    return this.run(() => {
      const item = this.live(key);
      const sorted = item ? this.expect(item, 'sorted').data : undefined;
      if (!sorted || sorted.scoreOf(member) !== expected) return false;
      sorted.remove(member);
      if (sorted.size === 0) this.items.delete(key);
      return true;
    });
  }

  keysWithPrefix(prefix: string, containing?: string): Promise<string[]> {
    return this.run(() =>
      [...this.items.keys()].filter(
        (key) =>
          key.startsWith(prefix) &&
          (containing === undefined || key.indexOf(containing, prefix.length) >= 0) &&
          this.live(key),
      ),
    );
  }

  setIfEqual(key: string, expected: string, value: string): Promise<boolean> {
    return this.run(() => {
      const item = this.live(key);
      if (!item || this.expect(item, 'string').data !== expected) return false;
      item.value = { kind: 'string', data: value };
      return true;
    });
  }

  expireIfEqual(key: string, expected: string, ttlMs: number): Promise<boolean> {
    return this.run(() => {
      assertTtl(ttlMs);
      const item = this.live(key);
      if (!item || this.expect(item, 'string').data !== expected) return false;
      item.expiresAt = this.now() + ttlMs;
      return true;
    });
  }

  delIfEqual(key: string, expected: string): Promise<boolean> {
    return this.run(() => {
      const item = this.live(key);
      if (!item || this.expect(item, 'string').data !== expected) return false;
      this.items.delete(key);
      return true;
    });
  }

  hashSetIfAbsent(key: string, field: string, value: string): Promise<boolean> {
    return this.run(() => {
      const item = this.live(key);
      const hash = item ? this.expect(item, 'hash').data : new Map<string, string>();
      if (hash.has(field)) return false;
      hash.set(field, value);
      if (!item) this.items.set(key, { value: { kind: 'hash', data: hash }, expiresAt: undefined });
      return true;
    });
  }

  hashSetIfEqual(key: string, field: string, expected: string, value: string): Promise<boolean> {
    return this.run(() => {
      const item = this.live(key);
      const hash = item ? this.expect(item, 'hash').data : undefined;
      if (!hash || hash.get(field) !== expected) return false;
      hash.set(field, value);
      return true;
    });
  }

  hashDelIfEqual(key: string, field: string, expected: string): Promise<boolean> {
    return this.run(() => {
      const item = this.live(key);
      const hash = item ? this.expect(item, 'hash').data : undefined;
      if (!hash || hash.get(field) !== expected) return false;
      hash.delete(field);
      if (hash.size === 0) this.items.delete(key);
      return true;
    });
  }

  countOnce(counted: CountedSet, now: number, counts: readonly HashCount[]): Promise<boolean> {
    return this.run(() => {
      assertCountOnce(counted, now, counts);
      for (const c of counts) {
        const item = this.live(c.key);
        if (item) this.expect(item, 'hash');
      }
      const item = this.live(counted.key);
      const set = item ? this.expect(item, 'sorted').data : new SortedMembers();
      const seen = set.scoreOf(counted.member);
      if (seen !== undefined && seen > now - counted.ttlMs) return false;
      set.add(counted.member, now);
      for (const old of set.first(set.size - counted.keep)) set.remove(old.member);
      this.items.set(counted.key, { value: { kind: 'sorted', data: set }, expiresAt: this.now() + counted.ttlMs });
      for (const c of counts) {
        const item = this.live(c.key);
        const hash = item ? this.expect(item, 'hash').data : new Map<string, string>();
        hash.set(c.field, String(Number(hash.get(c.field) ?? '0') + c.by));
        this.items.set(c.key, { value: { kind: 'hash', data: hash }, expiresAt: this.now() + c.ttlMs });
      }
      return true;
    });
  }

  ping(): Promise<void> {
    return this.run(() => undefined);
  }

  close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.items.clear();
    return Promise.resolve();
  }

  /** Runs an operation synchronously and reports it as a promise, like a round trip would. */
  private run<T>(operation: () => T): Promise<T> {
    try {
      if (this.closed) throw new Error('store is closed');
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private live(key: string): Item | undefined {
    const item = this.items.get(key);
    if (item?.expiresAt !== undefined && item.expiresAt <= this.now()) {
      this.items.delete(key);
      return undefined;
    }
    return item;
  }

  private expect<K extends Value['kind']>(item: Item, kind: K): Extract<Value, { kind: K }> {
    if (item.value.kind !== kind) throw new Error(WRONGTYPE_MESSAGE);
    return item.value as Extract<Value, { kind: K }>;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, item] of this.items) {
      if (item.expiresAt !== undefined && item.expiresAt <= now) this.items.delete(key);
    }
  }
}
