/**
 * When the worker holds back for intake: only while intake is busy, and only while the backlog is small — a
 * flood that lasts is worked off at full pace instead of piling up. Real queues (memory and Redis), a fake
 * clock for the age of the depth figure.
 */
import { describe, expect, it } from 'vitest';
import { GiveWay } from '../../src/events/give-way.js';
import { IntakeLoad } from '../../src/events/intake.js';
import { storeBackends } from '../store/backends.js';
import { requireRedis } from '../support/redis.js';

const redis = await requireRedis();

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

describe.each(storeBackends(redis))('giving way to intake ($name)', ({ create }) => {
  it('holds back while intake is busy and the backlog is under the limit, not after', async () => {
    const store = create();
    const load = new IntakeLoad();
    let now = 0;
    const giveWay = new GiveWay(load, store.queue, 3, () => now);
    const enqueue = (i: number) =>
      store.queue.enqueueOnce(`d-${i}`, { teamId: 'T1', orderKey: `k-${i}`, payload: { i } }, 60_000);

    expect(giveWay.yielding()).toBe(false); // intake idle
    load.inFlight = 9;
    await enqueue(1);
    expect(giveWay.yielding()).toBe(true); // busy, backlog (as last read: none) under 3
    await settled();
    expect(giveWay.yielding()).toBe(true); // read: 1 queued

    for (const i of [2, 3, 4]) await enqueue(i);
    expect(giveWay.yielding()).toBe(true); // the figure read a moment ago is still fresh
    now += 150;
    giveWay.yielding(); // too old: read again
    await settled();
    expect(giveWay.yielding()).toBe(false); // 4 queued: full pace although intake is busy

    load.inFlight = 0;
    expect(giveWay.yielding()).toBe(false);
  });
});
