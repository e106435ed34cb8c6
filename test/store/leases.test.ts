/**
 * The lease contract, on both stores: only the owner renews or releases its lease, an expired lease passes to
 * the next taker and its old owner can no longer touch it, and a lease kept while work runs outlives its length
 * and tells its owner once another replica holds it.
 */
import { describe, expect, it } from 'vitest';
import { requireRedis } from '../support/redis.js';
import { waitFor, waitForValue } from '../support/wait.js';
import { storeBackends } from './backends.js';

const redis = await requireRedis();
const backends = storeBackends(redis);

describe.each(backends)('leases ($name)', ({ create }) => {
  /** A store, and a wait for one of its leases to expire (on both stores TTLs run on real time). */
  function setUp() {
    const store = create();
    const expire = async (key: string, ttlMs: number) =>
      waitFor(async () => (await store.kv.get(key)) === null, 'the lease to expire', ttlMs + 5_000);
    /** A lease key under the store's prefix (tests and runs never share one). */
    const key = (id: string) => store.keys.outboxLease('T1', id);
    return { store, leases: store.leases, expire, key };
  }

  it('is renewed and released only by its owner', async () => {
    const { leases, store, key } = setUp();
    expect(await leases.take(key('drain:C1'), 'a', 60_000)).toBe(true);
    expect(await leases.take(key('drain:C1'), 'b', 60_000)).toBe(false);
    expect(await leases.renew(key('drain:C1'), 'b', 60_000)).toBe(false);
    await leases.release(key('drain:C1'), 'b');
    expect(await store.kv.get(key('drain:C1'))).toBe('a');

    expect(await leases.renew(key('drain:C1'), 'a', 60_000)).toBe(true);
    expect(await leases.take(key('drain:C1'), 'a', 60_000)).toBe(true); // its own lease, taken again: still its own
    await leases.release(key('drain:C1'), 'a');
    expect(await store.kv.get(key('drain:C1'))).toBeNull();
    expect(await leases.take(key('drain:C1'), 'b', 60_000)).toBe(true);
  });

  it('hands an expired lease to the next taker; its old owner can neither renew nor release it', async () => {
    const { leases, store, expire, key } = setUp();
    expect(await leases.take(key('drain:C2'), 'a', 300)).toBe(true);
    await expire(key('drain:C2'), 300);
    expect(await leases.take(key('drain:C2'), 'b', 60_000)).toBe(true);
    expect(await leases.renew(key('drain:C2'), 'a', 60_000)).toBe(false);
    await leases.release(key('drain:C2'), 'a');
    expect(await store.kv.get(key('drain:C2'))).toBe('b');
  });

  it('claims a firing once, its own owner included, until the claim expires', async () => {
    const { leases, expire, key } = setUp();
    expect(await leases.claim(key('fire:1'), 'a', 300)).toBe(true);
    expect(await leases.claim(key('fire:1'), 'a', 300)).toBe(false);
    expect(await leases.claim(key('fire:1'), 'b', 300)).toBe(false);
    await expire(key('fire:1'), 300);
    expect(await leases.claim(key('fire:1'), 'b', 300)).toBe(true);
  });

  it('keeps a lease while its work runs, past its length, and gives it up at the end', async () => {
    const { leases, store, key } = setUp();
    const ttlMs = 1_500;
    expect(await leases.take(key('drain:C3'), 'a', ttlMs)).toBe(true);
    let renewals = 0;
    const kept = leases.keep(key('drain:C3'), 'a', ttlMs, () => Promise.resolve(++renewals));
    // Four renewals: longer than the lease lasts unrenewed.
    await waitFor(() => renewals >= 4, 'four renewals', 20_000);
    expect(kept.held()).toBe(true);
    expect(await leases.take(key('drain:C3'), 'b', ttlMs)).toBe(false);
    await kept.end();
    expect(await store.kv.get(key('drain:C3'))).toBeNull();
  });

  it('tells a kept lease’s owner it lost the lease once another replica holds it', async () => {
    const { leases, store, key } = setUp();
    const ttlMs = 1_500;
    expect(await leases.take(key('drain:C4'), 'a', ttlMs)).toBe(true);
    const kept = leases.keep(key('drain:C4'), 'a', ttlMs);
    // The lease ran out under it (a frozen process) and another replica took it.
    await store.kv.del(key('drain:C4'));
    expect(await leases.take(key('drain:C4'), 'b', 60_000)).toBe(true);
    await waitForValue(() => !kept.held(), 'the owner to learn it lost the lease', 20_000);
    await kept.end();
    expect(await store.kv.get(key('drain:C4'))).toBe('b');
  });
});
