import { describe, expect, it } from 'vitest';
import {
  DEAD_LETTER_CAP,
  DEAD_LETTER_MAX_AGE_MS,
  DEDUP_MARK_BYTES as MARK,
  DEDUP_MARK_GUARD_MS,
} from '../../src/store/queue.js';
import type { EventQueue, QueueEntry } from '../../src/store/index.js';
import { MemoryQueue } from '../../src/store/memory-queue.js';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { queueIdle, storeBackends, sync } from './backends.js';
import { eventLoopTurns, waitFor } from '../support/wait.js';

const redis = await requireRedis();
const backends = storeBackends(redis, await requireCluster());

/** Fast settings for tests. */
const fast = { blockMs: 50, claimIdleMs: 200, retryDelayMs: () => 20 } as const;

const event = (orderKey: string, payload: unknown, teamId = 'T1') => ({ teamId, orderKey, payload });

/** What the worker does with an entry it gives up: keeps it as a dead letter, and the queue is done with it. */
async function keepDead(queue: EventQueue, entry: QueueEntry, error: string): Promise<void> {
  const { id, teamId, orderKey, payload, enqueuedAt, attempt } = entry;
  await queue.bury({ id, teamId, orderKey, payload, enqueuedAt, error, attempts: attempt, failedAt: Date.now() });
}

describe.each(backends)('EventQueue contract ($name)', ({ create }) => {
  it('queues exactly one of 20 concurrent enqueues of one dedup key', async () => {
    const { queue } = create();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => queue.enqueueOnce('call_completed:call-1', event('conv-1', { i }), 60_000)),
    );
    expect(results.filter((r) => r === 'queued')).toHaveLength(1);
    expect(results.filter((r) => r === 'duplicate')).toHaveLength(19);
    expect((await queue.depth()).total).toBe(1);

    const seen: QueueEntry[] = [];
    const consumer = queue.consume(
      sync((e: QueueEntry) => seen.push(e)),
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => seen.length === 1, 'the one entry');
    await waitFor(async () => (await queue.depth()).total === 0, 'the queue to drain');
    await consumer.stop();
    expect(seen).toHaveLength(1);
    expect(await queue.depth()).toEqual({ total: 0, pending: 0, lag: 0 });
  });

  it('wakes waiting readers at once for new work, whoever’s it is: no event waits out a reader’s wait', async () => {
    const { queue } = create();
    const seen: unknown[] = [];
    // Readers that wait ten minutes for work: every event below is seen within waitFor's 5 s only if it wakes one.
    const readers = ['w1', 'w2'].map((name) =>
      queue.consume(
        sync(({ payload }: QueueEntry) => seen.push(payload)),
        { consumer: name, ...fast, blockMs: 600_000 },
      ),
    );
    await queueIdle(queue);
    // A workspace's first event, a second while it is still being read, then other workspaces' (other groups).
    const sends: Array<[string, string]> = [
      ['T1', 'a1'],
      ['T1', 'a2'],
      ['T2', 'b1'],
      ['T3', 'c1'],
      ['T1', 'a3'],
    ];
    for (const [team, payload] of sends) {
      await queue.enqueueOnce(payload, event(`conv-${team}`, payload, team), 60_000);
      await waitFor(() => seen.includes(payload), `${payload} to be read`);
    }
    await Promise.all(readers.map((r) => r.stop()));
    expect(seen).toEqual(sends.map(([, payload]) => payload));
  });

  it('answers each of 150 enqueues arriving at once on its own: queued in order, copies duplicates, a capped team full', async () => {
    const { queue } = create();
    const calls = Array.from({ length: 150 }, (_, i) => {
      if (i === 49 || i === 99 || i === 139) return queue.enqueueOnce(`k-${i - 1}`, event('conv-a', i), 60_000); // a copy of the one before
      if (i >= 140) return queue.enqueueOnce(`capped-${i}`, event(`cap-${i}`, i, 'T9'), 60_000, { maxBacklog: 5 });
      return queue.enqueueOnce(`k-${i}`, event(i % 2 === 0 ? 'conv-a' : 'conv-b', i), 60_000);
    });
    const results = await Promise.all(calls);
    expect([results[49], results[99], results[139]]).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect(results.slice(140)).toEqual([
      'queued',
      'queued',
      'queued',
      'queued',
      'queued',
      'full',
      'full',
      'full',
      'full',
      'full',
    ]);
    expect(results.filter((r) => r === 'queued')).toHaveLength(150 - 3 - 5);
    expect((await queue.depth()).total).toBe(142);

    const seen: QueueEntry[] = [];
    const consumer = queue.consume(
      sync((e: QueueEntry) => seen.push(e)),
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => seen.length === 142, 'every queued entry');
    await consumer.stop();
    for (const key of ['conv-a', 'conv-b']) {
      const order = seen.filter((e) => e.orderKey === key).map((e) => e.payload as number);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it('scopes dedup keys per team and forgets them after their TTL', async () => {
    const { queue } = create();
    // Long enough that the copy below comes before it expires however busy the machine; waited out, not slept.
    const TTL = 1_000;
    expect(await queue.enqueueOnce('k', event('o', 1, 'T1'), TTL)).toBe('queued');
    expect(await queue.enqueueOnce('k', event('o', 1, 'T2'), TTL)).toBe('queued');
    expect(await queue.enqueueOnce('k', event('o', 1, 'T1'), TTL)).toBe('duplicate');
    // A copy is refused until the mark's TTL has passed, then queued (once).
    await waitFor(
      async () => (await queue.enqueueOnce('k', event('o', 1, 'T1'), TTL)) === 'queued',
      'the mark to expire',
    );
    expect((await queue.depth()).total).toBe(3);
  });

  it('hands the handler what was queued', async () => {
    const { queue } = create();
    const payload = { callId: 'c-1', durationMs: 123456, nested: { list: [1, 'two', null] }, text: 'héllo 👋' };
    const before = Date.now();
    await queue.enqueueOnce('d1', event('conv-9', payload, 'T7'), 60_000);
    const seen: QueueEntry[] = [];
    const consumer = queue.consume(
      sync((e: QueueEntry) => seen.push(e)),
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => seen.length === 1, 'the entry');
    await consumer.stop();
    expect(seen[0]).toMatchObject({ teamId: 'T7', orderKey: 'conv-9', payload, attempt: 1 });
    expect(seen[0]!.id).toMatch(/^\d+-\d+$/);
    expect(seen[0]!.enqueuedAt).toBeGreaterThanOrEqual(before);
  });

  it('hands out what JSON makes of a payload', async () => {
    const { queue } = create();
    const payload = { at: new Date(Date.UTC(2024, 2, 8)), gone: undefined, ratio: Number.NaN, data: { list: [1] } };
    // eslint-disable-next-line no-sparse-arrays -- a hole, which JSON writes as null
    const plainButNotJson = { zero: -0, holes: [1, , 3] };
    await queue.enqueueOnce('d-json', event('o-json', payload), 60_000);
    await queue.enqueueOnce('d-json-2', event('o-json', plainButNotJson), 60_000);
    const seen: unknown[] = [];
    const consumer = queue.consume(
      sync(({ payload: p }: QueueEntry) => seen.push(p)),
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => seen.length === 2, 'the entries');
    await consumer.stop();
    expect(seen[0]).toStrictEqual({ at: '2024-03-08T00:00:00.000Z', ratio: null, data: { list: [1] } });
    expect(seen[1]).toStrictEqual({ zero: 0, holes: [1, null, 3] });
    expect(Object.is((seen[1] as { zero: number }).zero, 0)).toBe(true);
  });

  it('refuses a payload JSON cannot hold, and queues nothing for it', async () => {
    const { queue } = create();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    await expect(queue.enqueueOnce('d-cyclic', event('o-cyclic', cyclic), 60_000)).rejects.toThrow();
    await expect(queue.enqueueOnce('d-bigint', event('o-bigint', { n: 1n }), 60_000)).rejects.toThrow();
    expect((await queue.depth()).total).toBe(0);
    // Not marked either: the same key with a good payload is queued.
    expect(await queue.enqueueOnce('d-cyclic', event('o-cyclic', { a: 1 }), 60_000)).toBe('queued');
  });

  it('runs several entries at once, a failing one tried again while the others go on, and says which entry is the first not finished', async () => {
    const { queue } = create();
    for (let i = 0; i < 6; i++) await queue.enqueueOnce(`e-${i}`, event('A', { i }), 60_000);
    const ids: string[] = [];
    const firsts: Array<string | undefined> = [];
    const done: number[] = [];
    let running = 0;
    let maxParallel = 0;
    let failedOnce = false;
    const consumer = queue.consume(
      async ({ id, payload }) => {
        const { i } = payload as { i: number };
        ids[i] = id;
        running++;
        maxParallel = Math.max(maxParallel, running);
        try {
          if (i === 0) await waitFor(() => maxParallel > 1, 'two entries handled at once');
          await eventLoopTurns(Math.floor(Math.random() * 4));
          if (i === 0 && !failedOnce) {
            failedOnce = true;
            throw new Error('store hiccup');
          }
          firsts[i] = await queue.firstUnfinished('T1');
          done.push(i);
        } finally {
          running--;
        }
      },
      { consumer: 'w1', concurrency: 4, ...fast },
    );
    await waitFor(() => done.length === 6, 'all entries');
    await consumer.stop();
    expect([...done].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(done.indexOf(0)).toBeGreaterThan(0); // tried again after others went on
    expect(failedOnce).toBe(true);
    expect(maxParallel).toBeGreaterThan(1);
    // While the first entry waited for its second try, it was the first not finished.
    expect(firsts.slice(1).some((f) => f === ids[0])).toBe(true);
    expect(firsts[0]).toBe(ids[0]);
    expect(await queue.firstUnfinished('T1')).toBeUndefined();
    expect((await queue.depth()).total).toBe(0);
  });

  it('lets the event loop turn while it works off a backlog (at most 256 handlers started per turn)', async () => {
    const { queue } = create();
    for (let i = 0; i < 1500; i++) await queue.enqueueOnce(`e-${i}`, event(`K${i}`, i), 60_000);
    let handled = 0;
    const seen = new Set<unknown>();
    // Handlers that finish at once: where the backend answers within the turn too (memory), nothing else
    // would make the consumer let go of the event loop.
    const consumer = queue.consume(
      sync(({ payload }) => {
        handled++;
        seen.add(payload);
      }),
      { consumer: 'w1', concurrency: 8, ...fast },
    );
    let mostInOneTurn = 0;
    let turns = 0;
    await new Promise<void>((resolve) => {
      let before = 0;
      const turn = () => {
        mostInOneTurn = Math.max(mostInOneTurn, handled - before);
        before = handled;
        turns++;
        if (handled >= 1500) resolve();
        else setImmediate(turn);
      };
      setImmediate(turn);
    });
    await consumer.stop();
    expect(handled).toBe(1500);
    expect(seen.size).toBe(1500); // each once, none lost (the memory backend's waiting list compacts on the way)
    expect(mostInOneTurn).toBeLessThanOrEqual(256);
    expect(turns).toBeGreaterThan(1500 / 256);
  });

  it('shares the work between two consumers without handling an entry twice', async () => {
    const { queue } = create();
    for (let i = 0; i < 30; i++) await queue.enqueueOnce(`e-${i}`, event(`K${i % 3}`, i), 60_000);
    const done: number[] = [];
    const by = new Map<string, number>();
    const handler =
      (name: string) =>
      async ({ payload }: QueueEntry) => {
        await eventLoopTurns(2);
        done.push(payload as number);
        by.set(name, (by.get(name) ?? 0) + 1);
      };
    const c1 = queue.consume(handler('w1'), { consumer: 'w1', concurrency: 2, prefetch: 4, ...fast });
    const c2 = queue.consume(handler('w2'), { consumer: 'w2', concurrency: 2, prefetch: 4, ...fast });
    await waitFor(() => done.length === 30, 'all 30 entries', 10_000);
    await Promise.all([c1.stop(), c2.stop()]);
    expect([...done].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(by.get('w1')).toBeGreaterThan(0);
    expect(by.get('w2')).toBeGreaterThan(0);
  });

  it('counts each failed try and tries again while the next entry goes on, until its handler keeps it as a dead letter', async () => {
    const { queue } = create();
    await queue.enqueueOnce('p1', event('conv', { poison: true }), 60_000);
    await queue.enqueueOnce('p2', event('conv', { poison: false }), 60_000);
    const attempts: number[] = [];
    let nextHandled = false;
    const consumer = queue.consume(
      async (entry: QueueEntry) => {
        const { payload, attempt } = entry;
        if (!(payload as { poison: boolean }).poison) {
          nextHandled = true;
          return;
        }
        attempts.push(attempt);
        if (attempt < 3) throw new Error(`channel_not_found (try ${attempt})`);
        const { id, teamId, orderKey, enqueuedAt } = entry;
        const error = `channel_not_found (try ${attempt})`;
        await queue.bury({ id, teamId, orderKey, payload, enqueuedAt, error, attempts: attempt, failedAt: Date.now() });
      },
      { consumer: 'w1', ...fast },
    );
    await waitFor(
      async () => nextHandled && (await queue.depth()).total === 0,
      'the next entry, and the failing one kept as a dead letter',
    );
    await consumer.stop();
    expect(attempts).toEqual([1, 2, 3]);

    const dead = await queue.deadLetters('T1');
    expect(dead.count).toBe(1);
    expect(dead.entries).toHaveLength(1);
    expect(dead.entries[0]).toMatchObject({
      teamId: 'T1',
      orderKey: 'conv',
      payload: { poison: true },
      error: 'channel_not_found (try 3)',
      attempts: 3,
    });
    expect(await queue.deadLetters('T-other')).toEqual({ count: 0, entries: [] });
    expect((await queue.depth()).total).toBe(0);
  });

  it('keeps one dead letter per event: given up in a second channel it holds both causes, counted once; given up again after a Retry it is not counted again', async () => {
    const { queue } = create();
    const failedIn = (channel: string, error: string) => ({
      id: '7-0',
      teamId: 'T-twin',
      orderKey: 'conv',
      payload: { text: 'hello' },
      error: `posting failed in ${channel}: ${error}`,
      causes: [{ channel, error }],
      attempts: 5,
      enqueuedAt: Date.now() - 1_000,
      failedAt: Date.now(),
    });
    expect(await queue.bury(failedIn('C1', 'invalid_blocks'))).toBe(true);
    expect(await queue.bury(failedIn('C2', 'msg_too_long'))).toBe(false);
    let dead = await queue.deadLetters('T-twin');
    expect(dead.count).toBe(1);
    expect(dead.entries).toHaveLength(1);
    expect(dead.entries[0]!.causes).toEqual([
      { channel: 'C1', error: 'invalid_blocks' },
      { channel: 'C2', error: 'msg_too_long' },
    ]);
    // Retry takes it whole; the retried event is refused again: the same letter, not a second one counted.
    const taken = await queue.takeDeadLetter('T-twin', '7-0');
    expect(taken?.causes).toHaveLength(2);
    expect(await queue.takeDeadLetter('T-twin', '7-0')).toBeUndefined();
    expect(await queue.bury({ ...failedIn('C1', 'invalid_blocks'), retried: true })).toBe(false);
    dead = await queue.deadLetters('T-twin');
    expect(dead.count).toBe(1);
    expect(dead.entries.map((d) => d.id)).toEqual(['7-0']);
  });

  it('keeps each workspace its own newest dead letters, and none older than two weeks', async () => {
    const { queue } = create();
    const letter = (teamId: string, id: string, failedAt = Date.now()) => ({
      id,
      teamId,
      orderKey: `${teamId}:conv`,
      payload: { id },
      error: 'channel_not_found',
      attempts: 1,
      enqueuedAt: failedAt,
      failedAt,
    });
    await queue.bury(letter('T-quiet', 'quiet-1'));
    // A noisy workspace fails more than its cap: its oldest go, the quiet one's letter stays.
    for (let i = 0; i <= DEAD_LETTER_CAP; i++) await queue.bury(letter('T-noisy', `noisy-${i}`));
    expect((await queue.deadLetters('T-quiet')).entries.map((d) => d.id)).toEqual(['quiet-1']);
    const noisy = await queue.deadLetters('T-noisy', DEAD_LETTER_CAP + 1);
    expect(noisy.count).toBe(DEAD_LETTER_CAP + 1);
    expect(noisy.entries).toHaveLength(DEAD_LETTER_CAP);
    expect(noisy.entries[0]!.id).toBe(`noisy-${DEAD_LETTER_CAP}`);
    expect(noisy.entries.at(-1)!.id).toBe('noisy-1');

    const old = Date.now() - DEAD_LETTER_MAX_AGE_MS - 60_000;
    await queue.bury(letter('T-old', 'old-1', old));
    expect((await queue.deadLetters('T-old')).entries).toEqual([]);
    await queue.bury(letter('T-old', 'new-1'));
    expect((await queue.deadLetters('T-old')).entries.map((d) => d.id)).toEqual(['new-1']);
    // Gone, not hidden: retrying the old one finds nothing.
    expect(await queue.takeDeadLetter('T-old', 'old-1')).toBeUndefined();
  });

  it('lists dead letters most recent first, bounded by the limit', async () => {
    const { queue } = create();
    for (let i = 0; i < 4; i++) {
      const at = Date.now();
      await queue.bury({
        id: `${i}-0`,
        teamId: 'T1',
        orderKey: `k${i}`,
        payload: i,
        error: `fail ${i}`,
        attempts: 1,
        enqueuedAt: at,
        failedAt: at,
      });
    }
    const dead = await queue.deadLetters('T1', 2);
    expect(dead.count).toBe(4);
    expect(dead.entries.map((d) => d.error)).toEqual(['fail 3', 'fail 2']);
  });

  it('stop() waits for the handlers in flight, then takes no more work', async () => {
    const { queue } = create();
    await queue.enqueueOnce('s1', event('a', 1), 60_000);
    let started = false;
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const handled: unknown[] = [];
    const consumer = queue.consume(
      async ({ payload }) => {
        started = true;
        await finishing;
        handled.push(payload);
      },
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => started, 'the handler to start');
    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    // stop() is still waiting while the handler is: a round trip to the store later, it has not resolved.
    await queue.depth();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(handled).toEqual([1]);
    expect((await queue.depth()).total).toBe(0); // and it was acknowledged

    // What comes next is there for the taking, and another consumer takes it: the stopped one never did.
    await queue.enqueueOnce('s2', event('a', 2), 60_000);
    const other: unknown[] = [];
    const next = queue.consume(
      sync(({ payload }: QueueEntry) => other.push(payload)),
      { consumer: 'w2', ...fast },
    );
    await waitFor(() => other.length === 1, 'the next consumer to take the entry');
    await next.stop();
    expect(handled).toEqual([1]);
    expect(other).toEqual([2]);
  });

  it('does not let another consumer take over a slow handler whose consumer is alive', async () => {
    const { queue } = create();
    await queue.enqueueOnce('slow', event('conv', 'slow'), 60_000);
    const runs: string[] = [];
    let finished = false;
    const slow = queue.consume(
      async () => {
        runs.push('w1');
        // eslint-disable-next-line no-restricted-syntax -- the entry must stay unacknowledged past claimIdleMs as Redis counts idle time (XAUTOCLAIM's min-idle-time, by its own clock): only real time gets it there
        await new Promise((resolve) => setTimeout(resolve, 3.5 * fast.claimIdleMs));
        finished = true;
      },
      { consumer: 'w1', ...fast },
    );
    await waitFor(() => runs.length === 1, 'w1 to start');
    const other = queue.consume(
      sync(() => runs.push('w2')),
      { consumer: 'w2', ...fast },
    );
    await waitFor(() => finished, 'the slow handler');
    // Acknowledged and held by nobody: there is nothing left that w2 could still take over.
    await queueIdle(queue);
    await Promise.all([slow.stop(), other.stop()]);
    expect(runs).toEqual(['w1']);
  });

  it('hands entries held by a stopped consumer to another one', async () => {
    const { queue } = create();
    for (let i = 0; i < 6; i++) await queue.enqueueOnce(`g${i}`, event('conv', i), 60_000);
    const done: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // w1 reads all six, blocks on the first, is stopped with five still held.
    let running = false;
    const first = queue.consume(
      async ({ payload }) => {
        running = true;
        await gate;
        done.push(Number(payload));
      },
      { consumer: 'w1', ...fast, concurrency: 1, prefetch: 10 },
    );
    await waitFor(async () => running && (await queue.depth()).pending === 6, 'w1 to run one and hold all entries');
    const stopping = first.stop();
    release();
    await stopping;
    expect(done).toEqual([0]);
    const second = queue.consume(
      sync(({ payload }: QueueEntry) => done.push(Number(payload))),
      { consumer: 'w2', ...fast },
    );
    await waitFor(() => done.length === 6, 'w2 to take over', 5_000);
    await second.stop();
    expect(done).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe.each(backends)('one team among many ($name)', ({ create }) => {
  it('caps each team’s unfinished entries at maxBacklog: duplicates still recognised, other teams apart, room again once entries finish or are dead-lettered', async () => {
    const { queue } = create();
    const cap = { maxBacklog: 2 };
    expect(await queue.enqueueOnce('c1', event('c1', 'ok'), 60_000, cap)).toBe('queued');
    expect(await queue.enqueueOnce('c2', event('c2', 'poison'), 60_000, cap)).toBe('queued');
    expect(await queue.enqueueOnce('c3', event('c3', 'ok'), 60_000, cap)).toBe('full');
    expect(await queue.enqueueOnce('c1', event('c1', 'ok'), 60_000, cap)).toBe('duplicate');
    expect(await queue.enqueueOnce('c3', event('c3', 'ok', 'T2'), 60_000, cap)).toBe('queued');
    // Refused means not written: the same event is queued later, not taken for a duplicate.
    expect((await queue.depth()).total).toBe(3);

    const handled: string[] = [];
    const consumer = queue.consume(
      async (entry: QueueEntry) => {
        if (entry.payload === 'poison') return keepDead(queue, entry, 'poison');
        handled.push(`${entry.teamId}:${entry.orderKey}`);
      },
      { consumer: 'w1', ...fast },
    );
    await waitFor(async () => (await queue.depth()).total === 0, 'both entries of T1 to finish (one as a dead letter)');
    await consumer.stop();
    expect(handled.sort()).toEqual(['T1:c1', 'T2:c3']);
    expect((await queue.deadLetters('T1')).count).toBe(1);
    expect(await queue.enqueueOnce('c3', event('c3', 'ok'), 60_000, cap)).toBe('queued');
    expect(await queue.enqueueOnce('c4', event('c4', 'ok'), 60_000, cap)).toBe('queued');
    expect(await queue.enqueueOnce('c5', event('c5', 'ok'), 60_000, cap)).toBe('full');
  });

  it('caps each team’s backlog bytes at maxBacklogBytes (UTF-8 bytes of the JSON): duplicates still recognised, other teams apart, the bytes released once entries finish, a dead letter’s kept with it', async () => {
    const { queue } = create();
    // 'é' is two bytes in UTF-8: both backends count the bytes stored, not characters.
    const payload = (kind: string) => ({ kind, text: 'é'.repeat(500) });
    const size = Buffer.byteLength(JSON.stringify(payload('ok')));
    // Each event's dedup mark counts too.
    const cap = { maxBacklog: 100, maxBacklogBytes: 3 * (size + MARK) };
    expect(await queue.enqueueOnce('b1', event('b1', payload('ok')), 60_000, cap)).toBe('queued');
    expect(await queue.enqueueOnce('b2', event('b2', payload('no')), 60_000, cap)).toBe('queued');
    expect(await queue.enqueueOnce('b3', event('b3', payload('ok')), 60_000, cap)).toBe('queued');
    expect(await queue.usage('T1')).toEqual({ events: 3, bytes: 3 * (size + MARK) });
    expect(await queue.enqueueOnce('b4', event('b4', payload('ok')), 60_000, cap)).toBe('full_bytes');
    // Something smaller that fits is still taken; a copy of a queued event is still its duplicate.
    const small = { maxBacklogBytes: 3 * size + 4 + 4 * MARK };
    expect(await queue.enqueueOnce('small', event('small', 'ok'), 60_000, small)).toBe('queued');
    expect(await queue.enqueueOnce('b1', event('b1', payload('ok')), 60_000, cap)).toBe('duplicate');
    expect(await queue.enqueueOnce('b4', event('b4', payload('ok'), 'T2'), 60_000, cap)).toBe('queued');
    expect(await queue.usage('T1')).toEqual({ events: 4, bytes: 3 * size + 4 + 4 * MARK });

    const consumer = queue.consume(
      async (entry: QueueEntry) => {
        if ((entry.payload as { kind?: string }).kind === 'no') await keepDead(queue, entry, 'refused');
      },
      { consumer: 'w1', ...fast },
    );
    await waitFor(async () => (await queue.depth()).total === 0, 'every entry to finish (one as a dead letter)');
    await consumer.stop();
    const [letter] = (await queue.deadLetters('T1')).entries;
    expect(letter?.payload).toEqual(payload('no'));
    // The dead letter still holds its event's bytes (and a few of its own), the marks theirs: they stay counted.
    const usage = await queue.usage('T1');
    expect(usage.events).toBe(0);
    expect(usage.bytes - 4 * MARK).toBeGreaterThan(size);
    expect(usage.bytes - 4 * MARK).toBeLessThan(size + 500);
    expect(await queue.usage('T2')).toEqual({ events: 0, bytes: MARK });
    // Refused means not written: the same event is queued now that there is room.
    expect(await queue.enqueueOnce('b4', event('b4', payload('ok')), 60_000, cap)).toBe('queued');
    // Retrying the letter takes its bytes out with it.
    expect(await queue.takeDeadLetter('T1', letter!.id)).toBeDefined();
    expect(await queue.usage('T1')).toEqual({ events: 1, bytes: size + 5 * MARK });
  });

  it('counts dead letters toward the byte cap, dropping a team’s oldest ones to take a new event that fits beside its backlog or to keep a new letter under it', async () => {
    const { queue } = create();
    const weight = 'x'.repeat(10_000);
    const letter = (teamId: string, id: string) => ({
      id,
      teamId,
      orderKey: `${teamId}:conv`,
      payload: { id, weight },
      error: 'invalid_blocks',
      attempts: 1,
      enqueuedAt: Date.now(),
      failedAt: Date.now(),
    });
    const letterBytes = Buffer.byteLength(JSON.stringify(letter('T1', 'd-0')));
    for (let i = 0; i < 5; i++) await queue.bury(letter('T1', `d-${i}`));
    await queue.bury(letter('T2', 'other-0'));
    expect(await queue.usage('T1')).toEqual({ events: 0, bytes: 5 * letterBytes });

    // Room for four letters and a bit: a 10 KB event fits beside the backlog, so the two oldest letters go.
    const cap = { maxBacklogBytes: 4 * letterBytes + 100 };
    expect(await queue.enqueueOnce('e1', event('e1', { weight }), 60_000, cap)).toBe('queued');
    const usage = await queue.usage('T1');
    expect(usage.bytes).toBeLessThanOrEqual(cap.maxBacklogBytes);
    expect((await queue.deadLetters('T1')).entries.map((d) => d.id)).toEqual(['d-4', 'd-3', 'd-2']);
    // An event that could not fit even without them drops none.
    expect(await queue.enqueueOnce('e2', event('e2', { weight: weight.repeat(5) }), 60_000, cap)).toBe('full_bytes');
    expect((await queue.deadLetters('T1')).entries).toHaveLength(3);
    // A letter buried later keeps the letters under the cap the team's events were taken by: the oldest goes.
    await queue.bury(letter('T1', 'd-5'));
    expect((await queue.usage('T1')).bytes).toBeLessThanOrEqual(cap.maxBacklogBytes);
    expect((await queue.deadLetters('T1')).entries.map((d) => d.id)).toEqual(['d-5', 'd-4', 'd-3']);
    // Another team's letters are its own.
    expect((await queue.deadLetters('T2')).entries.map((d) => d.id)).toEqual(['other-0']);
    expect(await queue.usage('T2')).toEqual({
      events: 0,
      bytes: Buffer.byteLength(JSON.stringify(letter('T2', 'other-0'))),
    });
    // Uninstalling forgets the letters' bytes with them.
    await queue.forgetTeam('T1');
    expect(await queue.usage('T1')).toEqual({ events: 0, bytes: 0 });
  });

  it('counts a team’s dedup marks toward its byte cap: young ones never give way, older ones do, and one past its TTL holds nothing', async () => {
    const clock = { now: 1_700_000_000_000 };
    const { queue } = create({ now: () => clock.now });
    const DAY = 24 * 3_600_000;
    // Room for ten events of '"x"' (3 bytes) and their marks.
    const cap = { maxBacklogBytes: 10 * (3 + MARK) };
    for (let i = 0; i < 10; i++) expect(await queue.enqueueOnce(`m${i}`, event(`m${i}`, 'x'), DAY, cap)).toBe('queued');
    expect(await queue.usage('T1')).toEqual({ events: 10, bytes: 10 * (3 + MARK) });
    // The budget is full and every mark is young: refused, nothing written; copies are still duplicates.
    expect(await queue.enqueueOnce('m10', event('m10', 'x'), DAY, cap)).toBe('full_bytes');
    expect(await queue.enqueueOnce('m0', event('m0', 'x'), DAY, cap)).toBe('duplicate');
    expect(await queue.usage('T1')).toEqual({ events: 10, bytes: 10 * (3 + MARK) });
    // Another team's marks are its own.
    expect(await queue.enqueueOnce('m10', event('m10', 'x', 'T2'), DAY, cap)).toBe('queued');

    // Past the guard the oldest marks give way, as few as the new event needs: the budget holds.
    clock.now += DEDUP_MARK_GUARD_MS;
    expect(await queue.enqueueOnce('m10', event('m10', 'x'), DAY, cap)).toBe('queued');
    expect((await queue.usage('T1')).bytes).toBeLessThanOrEqual(cap.maxBacklogBytes);
    expect(await queue.enqueueOnce('m9', event('m9', 'x'), DAY, cap)).toBe('duplicate');
    expect(await queue.enqueueOnce('m10', event('m10', 'x'), DAY, cap)).toBe('duplicate');
    // m0's mark gave way: its copy is taken again (another older mark giving way for it).
    expect(await queue.enqueueOnce('m0', event('m0', 'x'), DAY, cap)).toBe('queued');
    expect((await queue.usage('T1')).bytes).toBeLessThanOrEqual(cap.maxBacklogBytes);

    // A day on, every mark is past its TTL: a copy is queued, and the expired marks go as new ones come.
    clock.now += DAY;
    expect(await queue.enqueueOnce('m9', event('m9', 'x'), DAY, { maxBacklogBytes: 1_000_000 })).toBe('queued');
    await queue.forgetTeam('T1');
    expect(await queue.usage('T1')).toEqual({ events: 0, bytes: 0 });
    expect(await queue.enqueueOnce('m9', event('m9', 'x'), DAY)).toBe('queued');
  });

  it('makes a new event’s room from dedup marks past the guard before it drops a dead letter', async () => {
    const clock = { now: 1_700_000_000_000 };
    const { queue } = create({ now: () => clock.now });
    const letter = {
      id: 'd-0',
      teamId: 'T1',
      orderKey: 'T1:conv',
      payload: { weight: 'x'.repeat(2_000) },
      error: 'invalid_blocks',
      attempts: 1,
      enqueuedAt: Date.now(),
      failedAt: Date.now(),
    };
    const letterBytes = Buffer.byteLength(JSON.stringify(letter));
    // Room for the letter and four marks: the events are handled, so only their marks stay.
    const cap = { maxBacklogBytes: letterBytes + 4 * MARK + 3 };
    const consumer = queue.consume(
      sync(() => undefined),
      { consumer: 'w1', ...fast },
    );
    for (let i = 0; i < 4; i++)
      expect(await queue.enqueueOnce(`m${i}`, event(`m${i}`, 'x'), 60_000, cap)).toBe('queued');
    await queueIdle(queue);
    await queue.bury(letter);
    expect(await queue.usage('T1')).toEqual({ events: 0, bytes: letterBytes + 4 * MARK });
    // Past the guard, the oldest marks give way to the next events, one each: the letter stays.
    clock.now += DEDUP_MARK_GUARD_MS;
    for (const m of ['m4', 'm5', 'm6', 'm7']) {
      expect(await queue.enqueueOnce(m, event(m, 'x'), 60_000, cap)).toBe('queued');
      await queueIdle(queue);
    }
    expect((await queue.deadLetters('T1')).entries.map((d) => d.id)).toEqual(['d-0']);
    expect(await queue.usage('T1')).toEqual({ events: 0, bytes: letterBytes + 4 * MARK });
    // With every mark young, the letter is what gives way (letters never block new events).
    expect(await queue.enqueueOnce('m8', event('m8', 'x'), 60_000, cap)).toBe('queued');
    await queueIdle(queue);
    expect((await queue.deadLetters('T1')).entries).toEqual([]);
    expect(await queue.usage('T1')).toEqual({ events: 0, bytes: 5 * MARK });
    await consumer.stop();
  });

  it('counts parked work toward its team’s backlog, events and bytes, until it is removed', async () => {
    const { queue } = create();
    const json = JSON.stringify({ call: 'ü'.repeat(100) });
    const bytes = Buffer.byteLength(json);
    await queue.outboxes.put('T1', 'C1', '1-0', json, 1);
    await queue.outboxes.put('T1', 'C1', '1-0', json, 1); // the same item again: kept and counted once
    await queue.outboxes.put('T1', 'C2', '1-0', json, 1); // the same id in another place is another item
    expect(await queue.outboxes.count('T1', 'C1')).toBe(1);
    expect((await queue.outboxes.head('T1', 'C1', 10)).map((item) => item.id)).toEqual(['1-0']);
    expect(await queue.outboxes.get('T1', 'C1', ['1-0', '2-0'])).toEqual({ '1-0': json });
    expect(await queue.usage('T1')).toEqual({ events: 2, bytes: 2 * bytes });
    expect(await queue.usage('T2')).toEqual({ events: 0, bytes: 0 });

    expect(await queue.enqueueOnce('e1', event('e1', 'x'), 60_000, { maxBacklog: 3 })).toBe('queued');
    expect(await queue.enqueueOnce('e2', event('e2', 'x'), 60_000, { maxBacklog: 3 })).toBe('full');
    expect(await queue.enqueueOnce('e2', event('e2', 'x'), 60_000, { maxBacklogBytes: 2 * bytes + 3 })).toBe(
      'full_bytes',
    );
    expect(await queue.enqueueOnce('e2', event('e2', 'x', 'T2'), 60_000, { maxBacklog: 1 })).toBe('queued');

    expect(await queue.outboxes.remove('T1', 'C1', ['1-0', '9-9'])).toBe(1);
    expect(await queue.outboxes.remove('T1', 'C1', ['1-0'])).toBe(0);
    expect((await queue.outboxes.head('T1', 'C1', 10)).map((item) => item.id)).toEqual([]);
    expect(await queue.outboxes.get('T1', 'C1', ['1-0'])).toEqual({});
    expect(await queue.usage('T1')).toEqual({ events: 2, bytes: bytes + 3 + MARK });
    expect(await queue.enqueueOnce('e2', event('e2', 'x'), 60_000, { maxBacklog: 3 })).toBe('queued');
    await queue.outboxes.remove('T1', 'C2', ['1-0']);
    expect(await queue.usage('T1')).toEqual({ events: 2, bytes: 6 + 2 * MARK });
  });

  it('hands out waiting entries round robin between teams: one team’s backlog does not delay another’s entry', async () => {
    const { queue } = create();
    for (let i = 0; i < 60; i++) await queue.enqueueOnce(`flood-${i}`, event(`flood-${i}`, i, 'T-FLOOD'), 60_000);
    await queue.enqueueOnce('quiet', event('quiet', 'quiet', 'T-QUIET'), 60_000);
    const handled: string[] = [];
    const consumer = queue.consume(
      async ({ teamId }) => {
        handled.push(teamId);
        await eventLoopTurns(1);
      },
      { consumer: 'w1', ...fast, concurrency: 2, prefetch: 4 },
    );
    await waitFor(() => handled.length === 61, 'every entry');
    await consumer.stop();
    // Behind the whole flood it would be last; round robin puts it in the first read.
    expect(handled.indexOf('T-QUIET')).toBeLessThan(4);
  });
});

/** A consumer that crashed: it read entries (they are pending for it) and will never acknowledge them. */
describe('takeover of a crashed consumer', () => {
  const IDLE_MS = 600;
  const crashCases: {
    name: string;
    setup: () => Promise<{
      queue: EventQueue;
      crash: () => Promise<number>;
      pendingFor: (c: string) => Promise<number>;
    }>;
  }[] = [
    {
      name: 'redis',
      setup: () => {
        const store = backends[1]!.create();
        const { keys } = store;
        const stream = keys.queueTeamStream('T1');
        return Promise.resolve({
          queue: store.queue,
          crash: async () => {
            const reply = (await redis.redis.call(
              'XREADGROUP',
              'GROUP',
              'workers',
              'crashed',
              'COUNT',
              100,
              'STREAMS',
              stream,
              '>',
            )) as [string, unknown[]][];
            return reply[0]![1].length;
          },
          pendingFor: async (consumer) => {
            const rows = (await redis.redis.call('XPENDING', stream, 'workers', '-', '+', 100, consumer)) as unknown[];
            return rows.length;
          },
        });
      },
    },
    {
      name: 'memory',
      setup: () => {
        const queue = new MemoryQueue();
        return Promise.resolve({
          queue,
          crash: async () => (await queue.openReader('crashed').readNew(100, 1)).length,
          pendingFor: async (consumer) => (await queue.openReader(consumer).readOwnPending()).length,
        });
      },
    },
  ];

  it.each(crashCases)(
    'another consumer takes over its pending entries once they are idle, and handles each once ($name)',
    async ({ setup }) => {
      const { queue, crash, pendingFor } = await setup();
      for (let i = 0; i < 5; i++) {
        await queue.enqueueOnce(`a${i}`, event('conv-A', i), 60_000);
        await queue.enqueueOnce(`b${i}`, event('conv-B', i), 60_000);
      }
      // Payloads 0…4 are one byte of JSON each.
      expect(await queue.usage('T1')).toEqual({ events: 10, bytes: 10 + 10 * MARK });
      const crashedAt = Date.now();
      expect(await crash()).toBe(10);
      expect(await pendingFor('crashed')).toBe(10);

      const done = new Map<string, number[]>();
      let first = 0;
      const survivor = queue.consume(
        sync(({ orderKey, payload }: QueueEntry) => {
          first ||= Date.now();
          done.set(orderKey, [...(done.get(orderKey) ?? []), Number(payload)]);
        }),
        { consumer: 'survivor', ...fast, claimIdleMs: IDLE_MS },
      );
      await waitFor(
        () => (done.get('conv-A')?.length ?? 0) + (done.get('conv-B')?.length ?? 0) === 10,
        'the takeover',
        5_000,
      );
      await survivor.stop();
      expect(done.get('conv-A')?.sort()).toEqual([0, 1, 2, 3, 4]);
      expect(done.get('conv-B')?.sort()).toEqual([0, 1, 2, 3, 4]);
      // Taken only once the crashed consumer had been silent for the idle time.
      expect(first - crashedAt).toBeGreaterThanOrEqual(IDLE_MS - 20);
      expect(await pendingFor('crashed')).toBe(0);
      expect(await queue.depth()).toEqual({ total: 0, pending: 0, lag: 0 });
      // Taken over, not counted twice: the bytes left with the entries, their marks stay.
      expect(await queue.usage('T1')).toEqual({ events: 0, bytes: 10 * MARK });
      await queue.close();
    },
  );
});
