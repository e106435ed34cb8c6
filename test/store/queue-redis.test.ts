/**
 * The Redis event queue beyond the contract every backend keeps: entries queued before any consumer ran, hash
 * slots (Redis Cluster), Redis being down or refusing one event, and what is left behind once entries finish.
 */
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { queueGroup } from '../../src/store/keys.js';
import { DEDUP_MARK_BYTES } from '../../src/store/queue.js';
import type { QueueEntry } from '../../src/store/index.js';
import hashSlot from 'cluster-key-slot';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { queueIdle, storeBackends, sync } from './backends.js';
import { monitoredArgs, monitorRedis } from '../support/redis-monitor.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const cluster = await requireCluster();
const backends = storeBackends(redis, cluster);

/** Fast settings for tests. */
const fast = { blockMs: 50, claimIdleMs: 200, retryDelayMs: () => 20 } as const;

const event = (orderKey: string, payload: unknown, teamId = 'T1') => ({ teamId, orderKey, payload });

describe('redis queue specifics', () => {
  it('reads entries queued before any consumer ran, in order', async () => {
    const store = backends[1]!.create();
    await store.queue.enqueueOnce('early', event('o', 'early'), 60_000);
    await store.queue.enqueueOnce('later', event('o', 'later'), 60_000);
    expect(await store.queue.depth()).toEqual({ total: 2, pending: 0, lag: 2 });
    const seen: unknown[] = [];
    const consumer = store.queue.consume(
      sync(({ payload }: QueueEntry) => seen.push(payload)),
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => seen.length === 2, 'both entries');
    await consumer.stop();
    expect(seen).toEqual(['early', 'later']);
    expect(await store.queue.depth()).toEqual({ total: 0, pending: 0, lag: 0 });
  });

  it('keeps a workspace’s dedup marks, stream and parked work with its queue group’s keys in one hash slot', () => {
    const { keys } = backends[1]!.create();
    const tag = (key: string) => /\{([^}]+)\}/.exec(key)?.[1];
    const slots = new Set<number>();
    for (const team of ['T{1}', 'T1', 'T2', 'T3']) {
      const group = queueGroup(team);
      const slotKeys = [
        keys.queueTeamStream(team),
        keys.queueTeams(group),
        keys.queueMarks(team),
        keys.queueDead(team),
        keys.queueDeadCounts(group),
        keys.queueUsage(team),
        keys.queueOutbox(team, 'C{1}'),
        keys.queueOutboxOrder(team, 'C{1}'),
      ];
      expect(new Set(slotKeys.map(tag))).toEqual(new Set([tag(keys.queueTeams(group))]));
      expect(tag(slotKeys[0]!)?.startsWith(`queue:${group}.`)).toBe(true);
      expect(new Set(slotKeys.map(hashSlot)).size).toBe(1);
      slots.add(hashSlot(slotKeys[0]!));
    }
    // Different groups, different slots: on a Cluster the queue is not one master's.
    expect(slots.size).toBe(new Set(['T{1}', 'T1', 'T2', 'T3'].map(queueGroup)).size);
    expect(slots.size).toBeGreaterThan(1);
  });

  it('spreads many workspaces’ queues over every master of a Cluster, and one consumer drains them all', async () => {
    const store = backends[2]!.create();
    const teams = Array.from({ length: 48 }, (_, i) => `T${i}`);
    await Promise.all(
      teams.map((team) => store.queue.enqueueOnce(`e-${team}`, event(`conv-${team}`, team, team), 60_000)),
    );
    const streams = (
      await Promise.all(cluster.nodes.map((node) => node.client.keys(`${store.keys.prefix}{queue:*}:stream:*`)))
    ).map((keys) => keys.length);
    expect(streams.reduce((a, b) => a + b)).toBe(48);
    // Every master holds some: no one master carries everybody's queue.
    for (const count of streams) expect(count).toBeGreaterThan(0);
    const seen: unknown[] = [];
    const consumer = store.queue.consume(
      sync(({ payload }: QueueEntry) => seen.push(payload)),
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => seen.length === 48, 'every workspace’s event');
    await consumer.stop();
    expect(new Set(seen)).toEqual(new Set(teams));
    expect(await store.queue.depth()).toEqual({ total: 0, pending: 0, lag: 0 });
  });

  it('runs every multi-key script on keys of one hash slot (what Redis Cluster requires)', async () => {
    const store = backends[1]!.create();
    const monitor = await monitorRedis(redis.url);
    const end = `${redis.prefix}monitor-end:${Date.now()}`;
    try {
      // Enqueue (two teams), start, fail and retry, dead-letter, complete, depth, usage, park and unpark: every
      // script the queue runs.
      await store.queue.outboxes.put('T1', 'C1', '1-0', '{}', 0);
      await store.queue.outboxes.remove('T1', 'C1', ['1-0']);
      await store.queue.usage('T1');
      await store.queue.enqueueOnce('a', event('conv-a', 'fail-once', 'T1'), 60_000);
      await store.queue.enqueueOnce('b', event('conv-b', 'always-fail', 'T2'), 60_000);
      await store.queue.enqueueOnce('c', event('conv-a', 'ok', 'T1'), 60_000);
      let failedOnce = false;
      const consumer = store.queue.consume(
        async (entry: QueueEntry) => {
          const { id, teamId, orderKey, payload, enqueuedAt, attempt } = entry;
          if (payload === 'always-fail' && attempt >= 2) {
            // Given up by its handler: the dead letter, then the queue is done with it.
            const error = 'handler failed';
            await store.queue.bury({
              id,
              teamId,
              orderKey,
              payload,
              enqueuedAt,
              error,
              attempts: attempt,
              failedAt: Date.now(),
            });
            return;
          }
          if (payload === 'always-fail' || (payload === 'fail-once' && !failedOnce)) {
            failedOnce = true;
            throw new Error('handler failed');
          }
        },
        { consumer: 'w1', ...fast },
      );
      await waitFor(async () => (await store.queue.depth()).total === 0, 'the queue to drain');
      await consumer.stop();
      expect((await store.queue.deadLetters('T2')).count).toBe(1);
      // Buried outside a consumer.
      const letter = { ...(await store.queue.deadLetters('T2')).entries[0]!, id: 'buried-1', teamId: 'T3' };
      await store.queue.bury(letter);
      expect((await store.queue.deadLetters('T3')).entries.map((d) => d.id)).toEqual(['buried-1']);
      await redis.redis.get(end);
      await waitFor(() => monitor.lines.some((line) => line.includes(end)), 'the monitor to catch up');
    } finally {
      monitor.close();
    }
    const scripts: string[][] = [];
    for (const args of monitor.lines.map(monitoredArgs)) {
      const command = args[0]?.toLowerCase();
      if (command !== 'eval' && command !== 'evalsha' && command !== 'fcall') continue;
      const keys = args.slice(3, 3 + Number(args[2]));
      if (keys.length > 1 && keys.every((k) => k.startsWith(redis.prefix))) scripts.push(keys);
    }
    expect(scripts.length).toBeGreaterThanOrEqual(11);
    for (const keys of scripts) expect(new Set(keys.map(hashSlot)), keys.join(' ')).toHaveProperty('size', 1);
  });

  it('fails to enqueue (instead of answering success) when Redis is unreachable', async () => {
    const store = createStore({
      redisUrl: 'redis://127.0.0.1:1',
      secretsKey: Buffer.alloc(32, 1),
      keyPrefix: `${redis.prefix}down:`,
    });
    try {
      await expect(store.queue.enqueueOnce('x', event('o', 1), 60_000)).rejects.toThrow();
      await expect(store.ping()).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it('an event Redis refuses fails alone: the others arriving with it are queued, each once', async () => {
    const store = backends[1]!.create();
    // Its team's stream is not a stream: Redis answers WRONGTYPE for this one event, before writing anything.
    await redis.redis.set(store.keys.queueTeamStream('T-broken'), 'not a stream');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.queue.enqueueOnce(`e${i}`, event(`o-${i}`, i, i === 4 ? 'T-broken' : 'T1'), 60_000),
      ),
    );
    expect(results[4]!.status).toBe('rejected');
    expect(String((results[4] as PromiseRejectedResult).reason)).toContain('WRONGTYPE');
    for (const [i, r] of results.entries())
      if (i !== 4) expect(r, `event ${i}`).toEqual({ status: 'fulfilled', value: 'queued' });
    const seen: number[] = [];
    const consumer = store.queue.consume(
      sync((e: QueueEntry) => void seen.push(e.payload as number)),
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => seen.length === 9, 'the nine other events');
    await queueIdle(store.queue);
    await consumer.stop();
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9]);
    expect(await redis.redis.exists(store.keys.queueMarks('T-broken'))).toBe(0);
  });

  it('removes finished entries from the stream and the pending list', async () => {
    const store = backends[1]!.create();
    for (let i = 0; i < 3; i++) await store.queue.enqueueOnce(`f${i}`, event('o', i), 60_000);
    const consumer = store.queue.consume(() => Promise.resolve(), { consumer: 'w1', ...fast });
    await waitFor(async () => (await store.queue.depth()).total === 0, 'the entries to finish');
    await consumer.stop();
    expect(await redis.redis.xlen(store.keys.queueTeamStream('T1'))).toBe(0);
    expect(await redis.redis.exists(store.keys.queueTeams(queueGroup('T1')))).toBe(0);
    // Nothing counted is left: the workspace's usage key goes with its last entry.
    expect(await redis.redis.exists(store.keys.queueUsage('T1'))).toBe(0);
  });

  it('counts no bytes for an empty stream, whatever was recorded (entries deleted by hand cannot block a team)', async () => {
    const store = backends[1]!.create();
    const cap = { maxBacklogBytes: 100 + 2 * DEDUP_MARK_BYTES };
    expect(await store.queue.enqueueOnce('h1', event('o', 'x'.repeat(40)), 60_000, cap)).toBe('queued');
    // An operator deletes the stream's entries by hand: the recorded bytes no longer match anything.
    const stream = store.keys.queueTeamStream('T1');
    const [[id]] = (await redis.redis.xrange(stream, '-', '+')) as [[string, string[]]];
    await redis.redis.xdel(stream, id);
    await redis.redis.hset(store.keys.queueUsage('T1'), 'bytes', 1_000_000);
    expect(await store.queue.usage('T1')).toEqual({ events: 0, bytes: DEDUP_MARK_BYTES });
    expect(await store.queue.enqueueOnce('h2', event('o2', 'x'.repeat(40)), 60_000, cap)).toBe('queued');
    expect(await store.queue.usage('T1')).toEqual({ events: 1, bytes: 42 + 2 * DEDUP_MARK_BYTES });
  });
});
