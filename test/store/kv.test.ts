import { describe, expect, it } from 'vitest';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { storeBackends } from './backends.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const backends = storeBackends(redis, await requireCluster());

describe.each(backends)('KeyValueStore contract ($name)', ({ create }) => {
  it('gets, sets and deletes strings', async () => {
    const { kv, keys } = create();
    const key = keys.cache('kv', 'a');
    expect(await kv.get(key)).toBeNull();
    expect(await kv.set(key, 'one')).toBe(true);
    expect(await kv.get(key)).toBe('one');
    expect(await kv.set(key, 'two')).toBe(true);
    expect(await kv.get(key)).toBe('two');
    expect(await kv.del(key)).toBe(true);
    expect(await kv.del(key)).toBe(false);
    expect(await kv.get(key)).toBeNull();
  });

  it('expires keys after their TTL', async () => {
    const { kv, keys } = create();
    const key = keys.cache('kv', 'ttl');
    await kv.set(key, 'v', { ttlMs: 60 });
    expect(await kv.get(key)).toBe('v');
    await waitFor(async () => (await kv.get(key)) === null, 'the key to expire');
  });

  it('writes with onlyIfAbsent only when the key is missing (SET NX), and again once it expired', async () => {
    const { kv, keys } = create();
    const key = keys.cache('kv', 'nx');
    expect(await kv.set(key, 'first', { onlyIfAbsent: true, ttlMs: 80 })).toBe(true);
    expect(await kv.set(key, 'second', { onlyIfAbsent: true, ttlMs: 80 })).toBe(false);
    expect(await kv.get(key)).toBe('first');
    await waitFor(async () => (await kv.get(key)) === null, 'the key to expire');
    expect(await kv.set(key, 'third', { onlyIfAbsent: true })).toBe(true);
    expect(await kv.get(key)).toBe('third');
  });

  it('clears the TTL on a plain set, keeps it on incr', async () => {
    const { kv, keys } = create();
    const plain = keys.cache('kv', 'plain');
    await kv.set(plain, 'v', { ttlMs: 60 });
    await kv.set(plain, 'w');
    const counter = keys.cache('kv', 'counter');
    await kv.set(counter, '5', { ttlMs: 60 });
    expect(await kv.incr(counter)).toBe(6);
    // Both were given the same TTL: once the counter is gone, the plain key's would have run out too.
    await waitFor(async () => (await kv.get(counter)) === null, 'the counter to expire');
    expect(await kv.get(plain)).toBe('w');
  });

  it('increments integers and rejects non-integers', async () => {
    const { kv, keys } = create();
    const key = keys.cache('kv', 'n');
    expect(await kv.incr(key)).toBe(1);
    expect(await kv.incr(key, 5)).toBe(6);
    expect(await kv.incr(key, -2)).toBe(4);
    expect(await kv.get(key)).toBe('4');
    await kv.set(key, 'abc');
    await expect(kv.incr(key)).rejects.toThrow(/not an integer/);
  });

  it('sets a TTL on an existing key with expire', async () => {
    const { kv, keys } = create();
    const key = keys.cache('kv', 'exp');
    expect(await kv.expire(key, 50)).toBe(false);
    await kv.hashSet(key, { a: '1' });
    expect(await kv.expire(key, 50)).toBe(true);
    expect(await kv.hashGetAll(key)).toEqual({ a: '1' });
    await waitFor(async () => Object.keys(await kv.hashGetAll(key)).length === 0, 'the hash to expire');
  });

  it('stores hashes; removing the last field removes the key', async () => {
    const { kv, keys } = create();
    const key = keys.workspace('T-hash');
    expect(await kv.hashGetAll(key)).toEqual({});
    expect(await kv.hashFields(key)).toEqual([]);
    expect(await kv.hashGetMany(key, ['a'])).toEqual([null]);
    const fresh = keys.workspace('T-hash-nx');
    expect(await kv.hashSetIfAbsent(fresh, 'a', '1')).toBe(true);
    expect(await kv.hashGetAll(fresh)).toEqual({ a: '1' });
    await kv.del(fresh);
    expect(await kv.hashGet(key, 'a')).toBeNull();
    await kv.hashSet(key, { a: '1', b: '2' });
    await kv.hashSet(key, { b: '3' });
    expect(await kv.hashGet(key, 'b')).toBe('3');
    expect(await kv.hashGetAll(key)).toEqual({ a: '1', b: '3' });
    expect((await kv.hashFields(key)).sort()).toEqual(['a', 'b']);
    expect(await kv.hashGetMany(key, ['b', 'missing', 'a'])).toEqual(['3', null, '1']);
    expect(await kv.hashSetIfAbsent(key, 'a', 'other')).toBe(false);
    expect(await kv.hashSetIfAbsent(key, 'c', '4')).toBe(true);
    expect(await kv.hashDel(key, 'c')).toBe(1);
    expect(await kv.hashDel(key, 'a', 'missing')).toBe(1);
    expect(await kv.hashDel(key, 'b')).toBe(1);
    // The key is gone: it can be created again as another type.
    expect(await kv.set(key, 'x', { onlyIfAbsent: true })).toBe(true);
  });

  it('counts a thing once in several hashes at once, and not again while it is among the counted, in one capped set', async () => {
    const clock = { now: 1_700_000_000_000 };
    const { kv, keys } = create({ now: () => clock.now });
    // The keys of one count share the workspace's hash tag (one slot on a cluster).
    const a = keys.alertWindow('T-count', 'alert-a');
    const b = keys.alertWindow('T-count', 'alert-b');
    const set = keys.alertCounted('T-count');
    const counted = (member: string, ttlMs = 60_000, keep = 3) => ({ key: set, member, ttlMs, keep });
    const counts = [
      { key: a, field: '7:calls', by: 1, ttlMs: 60_000 },
      { key: a, field: '7:matched', by: 1, ttlMs: 60_000 },
      { key: b, field: '7:calls', by: 1, ttlMs: 1_000 },
    ];
    expect(await kv.countOnce(counted('call-1'), clock.now, counts)).toBe(true);
    expect(await kv.countOnce(counted('call-1'), clock.now, counts)).toBe(false);
    expect(await kv.countOnce(counted('call-2'), clock.now, counts.slice(0, 1))).toBe(true);
    expect(await kv.hashGetAll(a)).toEqual({ '7:calls': '2', '7:matched': '1' });
    expect(await kv.hashGetAll(b)).toEqual({ '7:calls': '1' });
    // Each hash takes its count's TTL: `b` goes (Redis or the memory store expires it), `a` stays.
    await waitFor(async () => Object.keys(await kv.hashGetAll(b)).length === 0, 'the short-lived count to expire');
    expect(await kv.hashGetAll(a)).toEqual({ '7:calls': '2', '7:matched': '1' });
    // One key holds what was counted, never more than `keep`: the oldest goes first, and then counts again.
    for (const call of ['call-3', 'call-4']) expect(await kv.countOnce(counted(call), clock.now, [])).toBe(true);
    expect((await kv.sortedFirst(set, 10)).map((m) => m.member).sort()).toEqual(['call-2', 'call-3', 'call-4']);
    expect(await kv.countOnce(counted('call-1'), clock.now, counts.slice(0, 1))).toBe(true);
    expect(await kv.countOnce(counted('call-4'), clock.now, counts.slice(0, 1))).toBe(false);
    // A member counted longer ago than its TTL counts again.
    clock.now += 60_000;
    expect(await kv.countOnce(counted('call-4'), clock.now, counts.slice(0, 1))).toBe(true);
    expect(await kv.hashGet(a, '7:calls')).toBe('4');
    // The set itself expires a TTL after its last write.
    expect(await kv.countOnce(counted('call-5', 60), clock.now, [])).toBe(true);
    await waitFor(async () => (await kv.sortedCount(set)) === 0, 'the counted set to expire');
    await expect(kv.countOnce(counted('call-6'), clock.now, [{ ...counts[0]!, by: 0.5 }])).rejects.toThrow();
  });

  it('stores sets; removing the last member removes the key', async () => {
    const { kv, keys } = create();
    const key = keys.routes('T-set');
    expect(await kv.setMembers(key)).toEqual([]);
    expect(await kv.setAdd(key, 'a', 'b')).toBe(2);
    expect(await kv.setAdd(key, 'b', 'c')).toBe(1);
    expect((await kv.setMembers(key)).sort()).toEqual(['a', 'b', 'c']);
    expect(await kv.setRemove(key, 'a', 'zzz')).toBe(1);
    expect(await kv.setRemove(key, 'b', 'c')).toBe(2);
    expect(await kv.set(key, 'x', { onlyIfAbsent: true })).toBe(true);
  });

  it('keeps sorted sets in Redis order: score, then member; reads only the lowest', async () => {
    const { kv, keys } = create();
    const key = keys.routes('T-sorted');
    expect(await kv.sortedFirst(key, 5)).toEqual([]);
    expect(await kv.sortedCount(key)).toBe(0);
    const added = await kv.sortedAdd(key, [
      { member: 'b', score: 2 },
      { member: 'a', score: 2 },
      { member: 'late', score: 9_000_000_000_000 },
      { member: 'first', score: -1 },
    ]);
    expect(added).toBe(4);
    expect(await kv.sortedFirst(key, 3)).toEqual([
      { member: 'first', score: -1 },
      { member: 'a', score: 2 },
      { member: 'b', score: 2 },
    ]);
    expect((await kv.sortedUpTo(key, 2, 10)).map((s) => s.member)).toEqual(['first', 'a', 'b']);
    expect((await kv.sortedUpTo(key, 2, 1)).map((s) => s.member)).toEqual(['first']);
    // onlyIfAbsent (ZADD NX) adds new members and leaves existing ones; a plain add moves them.
    expect(await kv.sortedAdd(key, [{ member: 'late', score: 1 }])).toBe(0);
    expect(
      await kv.sortedAdd(
        key,
        [
          { member: 'late', score: 7 },
          { member: 'new', score: 8 },
        ],
        { onlyIfAbsent: true },
      ),
    ).toBe(1);
    expect(await kv.sortedAdd(key, [{ member: 'first', score: 3 }])).toBe(0);
    expect((await kv.sortedFirst(key, 10)).map((s) => `${s.member}=${s.score}`)).toEqual([
      'late=1',
      'a=2',
      'b=2',
      'first=3',
      'new=8',
    ]);
    expect(await kv.sortedCount(key)).toBe(5);
    expect(await kv.sortedRemove(key, 'a', 'nope')).toBe(1);
    expect(await kv.sortedRemove(key, 'b', 'late', 'first', 'new')).toBe(4);
    expect(await kv.set(key, 'x', { onlyIfAbsent: true })).toBe(true);
    await expect(kv.sortedFirst(key, 1)).rejects.toThrow(/WRONGTYPE/);
  });

  it('reads a member’s score, and moves or removes it only while it still has the score expected', async () => {
    const { kv, keys } = create();
    const key = keys.routes('T-sorted-cas');
    expect(await kv.sortedScore(key, 'm')).toBeUndefined();
    expect(await kv.sortedSetIfScore(key, 'm', 5, 6)).toBe(false); // missing key
    expect(await kv.sortedRemoveIfScore(key, 'm', 5)).toBe(false);
    await kv.sortedAdd(key, [
      { member: 'm', score: 1_700_000_000_123 },
      { member: 'other', score: 2 },
    ]);
    expect(await kv.sortedScore(key, 'm')).toBe(1_700_000_000_123);
    expect(await kv.sortedScore(key, 'nope')).toBeUndefined();
    expect(await kv.sortedSetIfScore(key, 'nope', 2, 3)).toBe(false); // missing member: not added
    expect(await kv.sortedScore(key, 'nope')).toBeUndefined();
    expect(await kv.sortedSetIfScore(key, 'm', 1_700_000_000_122, 9)).toBe(false);
    expect(await kv.sortedSetIfScore(key, 'm', 1_700_000_000_123, 1)).toBe(true);
    expect((await kv.sortedFirst(key, 5)).map((s) => `${s.member}=${s.score}`)).toEqual(['m=1', 'other=2']);
    expect(await kv.sortedRemoveIfScore(key, 'm', 2)).toBe(false);
    expect(await kv.sortedRemoveIfScore(key, 'm', 1)).toBe(true);
    expect(await kv.sortedRemoveIfScore(key, 'other', 2)).toBe(true);
    // The last member gone, the key is gone.
    expect(await kv.set(key, 'x', { onlyIfAbsent: true })).toBe(true);
    await expect(kv.sortedScore(key, 'm')).rejects.toThrow(/WRONGTYPE/);
    await expect(kv.sortedSetIfScore(key, 'm', 1, 2)).rejects.toThrow(/WRONGTYPE/);
  });

  it('refuses to use a key as the wrong type (WRONGTYPE)', async () => {
    const { kv, keys } = create();
    const key = keys.cache('kv', 'typed');
    await kv.hashSet(key, { a: '1' });
    await expect(kv.get(key)).rejects.toThrow(/WRONGTYPE/);
    await expect(kv.setAdd(key, 'm')).rejects.toThrow(/WRONGTYPE/);
    await kv.set(key, 'now a string'); // SET replaces any type
    await expect(kv.hashGet(key, 'a')).rejects.toThrow(/WRONGTYPE/);
  });

  it('lists live keys by prefix, taking the prefix literally (no glob)', async () => {
    const { kv, keys } = create();
    const p = keys.prefix;
    await kv.set(`${p}scan[x]*:a`, '1');
    await kv.hashSet(`${p}scan[x]*:b`, { f: '1' });
    await kv.set(`${p}scanx:c`, '1');
    await kv.set(`${p}scan[x]*:gone`, '1', { ttlMs: 40 });
    // Gone from the list once its TTL has passed (Redis drops it; the memory store leaves out what expired).
    await waitFor(async () => (await kv.keysWithPrefix(`${p}scan[x]*:`)).length === 2, 'the short-lived key to expire');
    expect((await kv.keysWithPrefix(`${p}scan[x]*:`)).sort()).toEqual([`${p}scan[x]*:a`, `${p}scan[x]*:b`]);
    expect(await kv.keysWithPrefix(`${p}nothing-here:`)).toEqual([]);
  });

  it('compare-and-sets strings (keeping the TTL) and hash fields', async () => {
    const { kv, keys } = create();
    const key = keys.cache('kv', 'cas');
    expect(await kv.setIfEqual(key, 'old', 'new')).toBe(false); // missing
    await kv.set(key, 'old', { ttlMs: 80 });
    expect(await kv.setIfEqual(key, 'other', 'new')).toBe(false);
    expect(await kv.setIfEqual(key, 'old', 'new')).toBe(true);
    expect(await kv.get(key)).toBe('new');
    const hash = keys.cache('kv', 'cas-hash');
    expect(await kv.hashSetIfEqual(hash, 'f', 'a', 'b')).toBe(false); // missing
    await kv.hashSet(hash, { f: 'a', g: 'x' });
    expect(await kv.hashSetIfEqual(hash, 'f', 'z', 'b')).toBe(false);
    expect(await kv.hashSetIfEqual(hash, 'f', 'a', 'b')).toBe(true);
    expect(await kv.hashGetAll(hash)).toEqual({ f: 'b', g: 'x' });
    await waitFor(async () => (await kv.get(key)) === null, 'the compare-and-set value to keep its TTL and expire');
  });

  it('answers ping', async () => {
    const { kv } = create();
    await expect(kv.ping()).resolves.toBeUndefined();
  });
});

describe('RedisKeyValueStore connections', () => {
  it('opens its own client from a URL and quits it on close; leaves a caller client open', async () => {
    const { RedisKeyValueStore } = await import('../../src/store/redis-kv.js');
    const own = new RedisKeyValueStore({ url: redis.url });
    await own.set(`${redis.prefix}own`, '1');
    await own.close();
    await expect(own.get(`${redis.prefix}own`)).rejects.toThrow();

    const client = redis.connect();
    const borrowed = new RedisKeyValueStore({ redis: client });
    await borrowed.close();
    expect(await client.get(`${redis.prefix}own`)).toBe('1');
  });
});
