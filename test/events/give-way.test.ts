/**
 * When the worker holds back for intake: only while intake is busy, and only while the backlog is small — a
 * flood that lasts is worked off at full pace instead of piling up. Real queues (memory and Redis), a fake
 * clock for the age of the depth figure.
 */
import { describe, expect, it } from 'vitest';
import { GiveWay } from '../../src/events/give-way.js';
import { IntakeLoad } from '../../src/events/intake.js';
import type { QueueDepth } from '../../src/store/queue.js';
import { storeBackends, waitFor } from '../store/backends.js';
import { requireRedis } from '../support/redis.js';

const redis = await requireRedis();

describe.each(storeBackends(redis))('giving way to intake ($name)', ({ create }) => {
  it('holds back while intake is busy and the backlog is under the limit, not after', async () => {
    const store = create();
    // The real queue's depth, with each figure it answered noted (to know when a read has come back).
    const read: number[] = [];
    const queue = {
      depth: async (): Promise<QueueDepth> => {
        const depth = await store.queue.depth();
        read.push(depth.total);
        return depth;
      },
    };
    const load = new IntakeLoad();
    let now = 0;
    const giveWay = new GiveWay(load, queue, 3, () => now);
    const enqueue = (i: number) =>
      store.queue.enqueueOnce(`d-${i}`, { teamId: 'T1', orderKey: `k-${i}`, payload: { i } }, 60_000);

    expect(giveWay.yielding()).toBe(false); // intake idle: the depth is not even read
    expect(read).toEqual([]);
    load.inFlight = 9;
    await enqueue(1);
    expect(giveWay.yielding()).toBe(true); // busy, and no figure yet
    await waitFor(() => read.length === 1, 'the first depth read');
    expect(read).toEqual([1]);
    expect(giveWay.yielding()).toBe(true); // 1 queued, under 3

    for (const i of [2, 3, 4]) await enqueue(i);
    expect(giveWay.yielding()).toBe(true); // the figure read a moment ago is still fresh: not read again
    expect(read).toEqual([1]);
    now += 150;
    giveWay.yielding(); // too old: read again
    await waitFor(() => read.length === 2, 'the second depth read');
    expect(read).toEqual([1, 4]);
    expect(giveWay.yielding()).toBe(false); // 4 queued: full pace although intake is busy

    load.inFlight = 0;
    expect(giveWay.yielding()).toBe(false);
  });
});
