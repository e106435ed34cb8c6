/**
 * Slack call budgets (`RateBudget`): the burst, the pace after it, what a 429's Retry-After holds, the part of
 * the burst routine traffic leaves to urgent traffic — in this process on a fake clock, and in Redis, where
 * two stores (as two replicas would) share one budget.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRateBudget } from '../../src/store/rate-budget.js';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';

const redis = await requireRedis();
const cluster = await requireCluster();
const RULE = { intervalMs: 1_000, burst: 3 };

describe('a budget in this process (fake clock)', () => {
  it('lets a burst through, then one call per interval, and says how long to wait meanwhile', async () => {
    let now = 1_000_000;
    const budget = new MemoryRateBudget(() => now);
    const takes = [];
    for (let i = 0; i < 4; i++) takes.push(await budget.take('c1', RULE));
    expect(takes).toEqual([0, 0, 0, 1_000]);
    // Another budget is untouched by the first one's burst.
    expect(await budget.take('c2', RULE)).toBe(0);
    now += 400;
    expect(await budget.take('c1', RULE)).toBe(600);
    now += 600;
    expect(await budget.take('c1', RULE)).toBe(0);
    expect(await budget.take('c1', RULE)).toBe(1_000);
    // A quiet spell refills the whole burst, never more.
    now += 60_000;
    const after = [];
    for (let i = 0; i < 4; i++) after.push(await budget.take('c1', RULE));
    expect(after).toEqual([0, 0, 0, 1_000]);
  });

  it('leaves the reserved part of the burst to urgent callers', async () => {
    let now = 5_000_000;
    const budget = new MemoryRateBudget(() => now);
    // Routine callers (reserve 1) get two of the three...
    expect(await budget.take('c', RULE, 1)).toBe(0);
    expect(await budget.take('c', RULE, 1)).toBe(0);
    expect(await budget.take('c', RULE, 1)).toBeGreaterThan(0);
    // ...and an urgent one still goes at once.
    expect(await budget.take('c', RULE)).toBe(0);
    now += 10_000;
    expect(await budget.take('c', RULE, 1)).toBe(0);
  });

  it('holds a budget for a Retry-After, then lets one call through', async () => {
    let now = 9_000_000;
    const budget = new MemoryRateBudget(() => now);
    await budget.hold('c', RULE, 30_000);
    expect(await budget.take('c', RULE)).toBe(30_000);
    now += 29_999;
    expect(await budget.take('c', RULE)).toBe(1);
    now += 1;
    expect(await budget.take('c', RULE)).toBe(0);
    expect(await budget.take('c', RULE)).toBe(1_000);
  });

  it('holds a budget for minutes on the store’s clock, whatever the pace’s clock says', async () => {
    const paceNow = 2_000_000;
    let storeNow = 7_000_000;
    const budget = new MemoryRateBudget(
      () => paceNow,
      () => storeNow,
    );
    await budget.holdLong('w', 600_000);
    expect(await budget.take('w', RULE)).toBe(600_000);
    // Another budget is not held.
    expect(await budget.take('other', RULE)).toBe(0);
    storeNow += 599_999;
    expect(await budget.take('w', RULE)).toBe(1);
    storeNow += 1;
    expect(await budget.take('w', RULE)).toBe(0);
  });
});

const open: Store[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});
const backends = [
  { name: 'redis', connect: { redisUrl: redis.url } },
  { name: 'cluster', connect: { redisCluster: { nodes: cluster.seeds } } },
];

describe.each(backends)('a budget in $name', ({ connect }) => {
  const keyPrefix = `${redis.prefix}${randomBytes(4).toString('hex')}:`;
  /** A store as one replica opens it: its own connection, the shared keys. */
  const replica = () => {
    const store = createStore({ ...connect, keyPrefix, secretsKey: randomBytes(32) });
    open.push(store);
    return store;
  };

  it('is one budget for every store on the same keys, as for replicas', async () => {
    const a = replica();
    const b = replica();
    const key = `team:post:C${Math.random().toString(36).slice(2)}`;
    const rule = { intervalMs: 60_000, burst: 3 };
    const taken = [await a.budgets.take(key, rule), await b.budgets.take(key, rule), await a.budgets.take(key, rule)];
    expect(taken).toEqual([0, 0, 0]);
    const wait = await b.budgets.take(key, rule);
    expect(wait).toBeGreaterThan(55_000);
    expect(wait).toBeLessThanOrEqual(60_000);
  });

  it('holds for a Retry-After across stores, and lets routine traffic leave room for urgent', async () => {
    const a = replica();
    const key = `team:chat.update:${Math.random().toString(36).slice(2)}`;
    const rule = { intervalMs: 60_000, burst: 2 };
    expect(await a.budgets.take(key, rule, 1)).toBe(0);
    expect(await a.budgets.take(key, rule, 1)).toBeGreaterThan(55_000);
    expect(await a.budgets.take(key, rule)).toBe(0);
    const held = `team:post:H${Math.random().toString(36).slice(2)}`;
    await a.budgets.hold(held, rule, 30_000);
    const wait = await a.budgets.take(held, rule);
    expect(wait).toBeGreaterThan(25_000);
    expect(wait).toBeLessThanOrEqual(30_000);
  });

  it('holds for minutes across stores on their clock, and lets calls through once it has moved past', async () => {
    let skewMs = 0;
    const now = () => Date.now() + skewMs;
    const [a, b] = [0, 1].map(() => {
      const store = createStore({ ...connect, keyPrefix, secretsKey: randomBytes(32), now });
      open.push(store);
      return store;
    });
    const key = `team:posts:${Math.random().toString(36).slice(2)}`;
    const rule = { intervalMs: 10, burst: 100 };
    await a!.budgets.holdLong(key, 600_000);
    const wait = await b!.budgets.take(key, rule);
    expect(wait).toBeGreaterThan(590_000);
    expect(wait).toBeLessThanOrEqual(600_000);
    skewMs += 600_000;
    expect(await b!.budgets.take(key, rule)).toBe(0);
  });
});
