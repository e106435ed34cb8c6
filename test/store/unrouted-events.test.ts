/**
 * `UnroutedEventRepo` on every backend: events that arrived for no channel, counted once each over 7 days, the
 * newest 20 kept with their details, and forgotten with the workspace.
 */
import { describe, expect, it } from 'vitest';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { storeBackends } from './backends.js';

const redis = await requireRedis();
const backends = storeBackends(redis, await requireCluster());

const DAY = 24 * 3_600_000;
const T0 = Date.parse('2024-05-01T12:00:00Z');

describe.each(backends)('UnroutedEventRepo ($name)', ({ create }) => {
  it('counts each event once however often it is recorded, and shows the newest first', async () => {
    const clock = { now: T0 };
    const { unroutedEvents } = create({ now: () => clock.now });
    expect(await unroutedEvents.summary('T1')).toEqual({ count: 0, recent: [] });

    expect(
      await unroutedEvents.record('T1', 'entry-1', {
        trigger: 'call_completed',
        campaignId: 'spring',
        at: T0 - 60_000,
      }),
    ).toBe(true);
    // The same queue entry again (a retry): not counted twice.
    expect(
      await unroutedEvents.record('T1', 'entry-1', {
        trigger: 'call_completed',
        campaignId: 'spring',
        at: T0 - 60_000,
      }),
    ).toBe(false);
    await unroutedEvents.record('T1', 'entry-2', { trigger: 'message_received', at: T0 });

    expect(await unroutedEvents.summary('T1')).toEqual({
      count: 2,
      recent: [
        { trigger: 'message_received', at: T0 },
        { trigger: 'call_completed', campaignId: 'spring', at: T0 - 60_000 },
      ],
    });
    // Another workspace has its own.
    expect(await unroutedEvents.summary('T2')).toEqual({ count: 0, recent: [] });
  });

  it('keeps the newest 20 with their details and counts them all; after 7 days they are gone', async () => {
    const clock = { now: T0 };
    const { unroutedEvents } = create({ now: () => clock.now });
    for (let i = 0; i < 25; i++)
      await unroutedEvents.record('T1', `entry-${i}`, { trigger: 'call_started', campaignId: `c-${i}`, at: T0 + i });
    const summary = await unroutedEvents.summary('T1');
    expect(summary.count).toBe(25);
    expect(summary.recent.map((e) => e.campaignId)).toEqual(Array.from({ length: 20 }, (_, i) => `c-${24 - i}`));

    clock.now = T0 + 6 * DAY;
    expect((await unroutedEvents.summary('T1')).count).toBe(25);
    clock.now = T0 + 7 * DAY + 3_600_000;
    expect(await unroutedEvents.summary('T1')).toEqual({ count: 0, recent: [] });
  });

  it('is forgotten when the workspace uninstalls', async () => {
    const store = create();
    await store.unroutedEvents.record('T-gone', 'entry-1', {
      trigger: 'call_completed',
      campaignId: 'x',
      at: Date.now(),
    });
    await store.unroutedEvents.record('T-kept', 'entry-1', {
      trigger: 'call_completed',
      campaignId: 'y',
      at: Date.now(),
    });
    expect(store.keys.workspaceOf(store.keys.unroutedRecent('T-gone'))).toBe('T-gone');
    expect(store.keys.workspaceOf(store.keys.unroutedCounted('T-gone'))).toBe('T-gone');
    await store.forgetWorkspace('T-gone');
    expect(await store.unroutedEvents.summary('T-gone')).toEqual({ count: 0, recent: [] });
    // Its mark went too: the same entry would count again.
    expect(await store.unroutedEvents.record('T-gone', 'entry-1', { trigger: 'call_completed', at: Date.now() })).toBe(
      true,
    );
    expect((await store.unroutedEvents.summary('T-kept')).count).toBe(1);
  });
});
