/**
 * Store-kept timers (TimerRepo + Timers): due on the store's clock, fired once across replicas, moved on or
 * ended by their handler, never overwriting a timer re-set meanwhile, retried after a failed firing's lease.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Timers } from '../../src/app/timers.js';
import { createStore, workspaceTimerId as timerId, type Store } from '../../src/store/index.js';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { monitorRedis } from '../support/redis-monitor.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const cluster = await requireCluster();
const quiet = pino({ enabled: false });
const open: Array<Store | Timers> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await (item instanceof Timers ? item.stop() : item.close());
});

let n = 0;
/** Two stores on one state (two replicas), sharing the test's clock. */
function replicas(backend: 'memory' | 'redis' | 'cluster', clock: { now: number }): [Store, Store] {
  const now = () => clock.now;
  if (backend === 'memory') {
    const store = createStore({ now });
    open.push(store);
    return [store, store];
  }
  const where = backend === 'redis' ? { redisUrl: redis.url } : { redisCluster: { nodes: cluster.seeds } };
  const options = { ...where, keyPrefix: `${redis.prefix}${++n}:`, secretsKey: randomBytes(32), now };
  const stores: [Store, Store] = [createStore(options), createStore(options)];
  open.push(...stores);
  return stores;
}

function timersOn(store: Store, leaseMs = 60_000): Timers {
  const timers = new Timers(store, quiet, { leaseMs });
  open.push(timers);
  return timers;
}

describe.each(['memory', 'redis', 'cluster'] as const)('timers (%s)', (backend) => {
  it('fires a due timer once across two replicas, then at the time its handler returns', async () => {
    const clock = { now: 1_000_000 };
    const [a, b] = replicas(backend, clock);
    const fired: string[] = [];
    const [ta, tb] = [timersOn(a), timersOn(b)];
    for (const [name, t] of [
      ['a', ta],
      ['b', tb],
    ] as const) {
      t.on('digest', (timer, now) => {
        fired.push(`${name}:${timer.id}@${timer.dueAt}`);
        return Promise.resolve(now + 60_000);
      });
    }
    await a.timers.set('digest', 'C1', clock.now + 30_000);

    expect(await Promise.all([ta.runDue(), tb.runDue()])).toEqual([0, 0]);
    clock.now += 30_000;
    const counts = await Promise.all([ta.runDue(), tb.runDue()]);
    expect(counts.reduce((x, y) => x + y)).toBe(1);
    expect(fired).toHaveLength(1);
    expect(await a.timers.dueAt('digest', 'C1')).toBe(clock.now + 60_000);

    clock.now += 60_000;
    await Promise.all([tb.runDue(), ta.runDue()]);
    expect(fired).toHaveLength(2);
  });

  it('ends a timer whose handler returns nothing, unless it was set again while it fired', async () => {
    const clock = { now: 5_000 };
    const [store] = replicas(backend, clock);
    const timers = timersOn(store);
    timers.on('sla', async (timer) => {
      if (timer.id === 'moved') await store.timers.set('sla', 'moved', clock.now + 300_000);
      return undefined;
    });
    await store.timers.set('sla', 'ended', 5_000);
    await store.timers.set('sla', 'moved', 5_000);

    expect(await timers.runDue()).toBe(2);
    expect(await store.timers.dueAt('sla', 'ended')).toBeUndefined();
    expect(await store.timers.dueAt('sla', 'moved')).toBe(305_000);
  });

  it('forgets a workspace’s timers of every kind but the kept ones, and no other workspace’s', async () => {
    const clock = { now: 5_000 };
    const [store] = replicas(backend, clock);
    const [gone, kept] = ['T0TIMERGONE', 'T0TIMERKEPT'];
    await store.timers.set('digest', timerId(gone, 'C1'), 9_000);
    await store.timers.set('quota', timerId(gone), 9_000);
    await store.timers.set('forget', timerId(gone), 9_000);
    await store.timers.set('digest', timerId(kept, 'C1'), 9_000);
    await store.timers.set('quota', timerId(gone), 10_000); // set again: one timer still
    await store.timers.cancel('digest', timerId(gone, 'C1'));
    await store.timers.set('digest', timerId(gone, 'C2'), 9_000);

    expect(await store.timers.forgetTeam(gone, ['forget'])).toBe(2);
    expect(await store.timers.dueAt('digest', timerId(gone, 'C2'))).toBeUndefined();
    expect(await store.timers.dueAt('quota', timerId(gone))).toBeUndefined();
    expect(await store.timers.dueAt('forget', timerId(gone))).toBe(9_000);
    expect(await store.timers.dueAt('digest', timerId(kept, 'C1'))).toBe(9_000);
  });

  it('keeps a failed firing due and tries it again once its lease has expired', async () => {
    const clock = { now: 0 };
    const [store] = replicas(backend, clock);
    // The lease is a store-side TTL on real time: long enough that the second tick surely meets it held.
    const timers = timersOn(store, 1_000);
    let calls = 0;
    timers.on('quota', () => {
      calls++;
      return calls === 1 ? Promise.reject(new Error('platform down')) : Promise.resolve(undefined);
    });
    await store.timers.set('quota', 'T1', 0);

    expect(await timers.runDue()).toBe(1);
    expect(await timers.runDue()).toBe(0); // the lease still holds
    expect(await store.timers.dueAt('quota', 'T1')).toBe(0);
    // Ticks until the lease has run out and the firing is tried again.
    await waitFor(async () => (await timers.runDue()) === 1, 'the failed firing tried again', 10_000);
    expect(calls).toBe(2);
    expect(await store.timers.dueAt('quota', 'T1')).toBeUndefined();
  });
});

describe('background firings (a recording’s transfer) on Redis', () => {
  it('run beside the pass, and a replica that dies mid-firing leaves it to another once its lease runs out', async () => {
    const clock = { now: 0 };
    const [a, b] = replicas('redis', clock);
    const [ta, tb] = [timersOn(a, 600), timersOn(b, 600)];
    const fired: string[] = [];
    const slots = { total: 8, perWorkspace: 2 };
    // Replica a's firing runs until its timers stop; replica b's ends the timer.
    ta.on(
      'transfer',
      (timer, _now, stop) => {
        fired.push(`a:${timer.id}`);
        return new Promise((resolve) => stop.addEventListener('abort', () => resolve(clock.now)));
      },
      slots,
    );
    tb.on('transfer', (timer) => Promise.resolve(void fired.push(`b:${timer.id}`)), slots);
    await a.timers.set('transfer', 'R1', 0);

    // The pass does not wait for the firing, which holds its lease: b passes it by.
    expect(await ta.runDue()).toBe(1);
    expect(await tb.runDue()).toBe(0);
    expect(fired).toEqual(['a:R1']);

    // Replica a dies (its store gone: no renewal reaches Redis): b takes the firing on once the lease runs out.
    await a.close();
    await waitFor(async () => (await tb.runDue()) === 1, 'b fired it', 5_000);
    expect(fired).toEqual(['a:R1', 'b:R1']);
    expect(await b.timers.dueAt('transfer', 'R1')).toBeUndefined();
  });
});

describe.each(['memory', 'redis', 'cluster'] as const)('due timers (%s)', (backend) => {
  it('reads the due timers only, a page at a time, and reaches those behind a timer left due', async () => {
    const clock = { now: 1_000_000 };
    const [store] = replicas(backend, clock);
    await store.kv.sortedAdd(
      store.keys.timers('quota'),
      Array.from({ length: 1_000 }, (_, i) => ({ member: `idle-${i}`, score: 2_000_000 + i })),
    );
    await store.timers.set('quota', 'due', clock.now);
    expect(await store.timers.due('quota', clock.now)).toEqual([{ id: 'due', dueAt: clock.now }]);

    // Five due, read two at a time; the first is left due (its firing failed): the others are still reached.
    for (const id of ['d1', 'd2', 'd3', 'd4']) await store.timers.set('quota', id, clock.now - 10);
    const seen: string[] = [];
    for await (const timer of store.timers.eachDue('quota', clock.now, 2)) {
      seen.push(timer.id);
      if (timer.id !== 'd1') await store.timers.advance('quota', timer, clock.now + 60_000);
    }
    expect(seen).toEqual(['d1', 'd2', 'd3', 'd4', 'due']);
    expect(await store.timers.due('quota', clock.now)).toEqual([{ id: 'd1', dueAt: clock.now - 10 }]);
  });
});

describe('a tick on Redis', () => {
  /** What one tick sends Redis for the keys of `store` (its prefix shown as `<p>`), with `idle` timers not due. */
  async function tickCommands(idle: number): Promise<string[]> {
    const clock = { now: 1_000_000 };
    const [store] = replicas('redis', clock);
    const prefix = store.keys.timers('quota').slice(0, -'timers:quota'.length);
    if (idle > 0)
      await store.kv.sortedAdd(
        store.keys.timers('quota'),
        Array.from({ length: idle }, (_, i) => ({ member: `idle-${i}`, score: 2_000_000 + i })),
      );
    await store.timers.set('quota', 'due', clock.now);
    const timers = timersOn(store);
    timers.on('quota', (_timer, now) => Promise.resolve(now + 900_000));

    const monitor = await monitorRedis(redis.url);
    try {
      expect(await timers.runDue()).toBe(1);
      // Every command of the tick was sent before this one: seeing it, MONITOR has shown them all.
      const done = `${prefix}done`;
      await store.kv.get(done);
      await waitFor(() => monitor.lines.some((line) => line.includes(done)), 'MONITOR to show the tick');
    } finally {
      monitor.close();
    }
    expect(await store.timers.dueAt('quota', 'due')).toBe(clock.now + 900_000);
    return monitor.lines
      .filter((line) => line.includes(prefix) && !line.includes(`${prefix}done`))
      .map((line) => line.replace(/^\+\S+ \[[^\]]*\] /, '').replaceAll(prefix, '<p>'));
  }

  it('sends the same commands among 1,000 idle timers as among none: it reads only the timer due', async () => {
    await tickCommands(0); // loads the scripts, so both ticks below call them the same way
    const alone = await tickCommands(0);
    const amongIdle = await tickCommands(1_000);
    expect(amongIdle).toEqual(alone);
    // One read of the due timers, bounded, then the firing's lease and its compare-and-set.
    expect(alone[0]).toMatch(/^"zrangebyscore" "<p>timers:quota" "-inf" "1000000" "WITHSCORES" "LIMIT" "0" "200"$/i);
    expect(alone.filter((c) => /^"(zrange|zrangebyscore|hgetall|zscan|hscan)"/i.test(c))).toHaveLength(1);
  });
});
