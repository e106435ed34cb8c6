/**
 * The catalog of what the bot has seen (CatalogRepo), on both backends: facts merged per id, bounded per
 * workspace and kind (least recently seen dropped), written only when something is new or an hour has passed,
 * and forgotten with the workspace. What is stored is read back through the store's own key-value layer.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG_LIMITS } from '../../src/store/index.js';
import { requireRedis } from '../support/redis.js';
import { storeBackends } from './backends.js';

const redis = await requireRedis();
const backends = storeBackends(redis);
const HOUR = 60 * 60_000;

describe.each(backends)('CatalogRepo ($name)', ({ create }) => {
  it('merges what each sighting says: a sighting without a name keeps the known one', async () => {
    const store = create();
    await store.catalog.noteSighting('T1', {
      campaignId: 'camp-1',
      campaignName: 'Spring Recall Reminders',
      campaignType: 'outbound',
      agentId: 'agent-11',
      agentName: 'Riley',
    });
    await store.catalog.note('T1', 'campaigns', { id: 'camp-1' });
    await store.catalog.noteSighting('T1', { campaignId: 'camp-2' });
    expect(await store.catalog.list('T1', 'campaigns')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'camp-1', name: 'Spring Recall Reminders', type: 'outbound' }),
        expect.objectContaining({ id: 'camp-2' }),
      ]),
    );
    expect(await store.catalog.list('T1', 'agents')).toEqual([
      expect.objectContaining({ id: 'agent-11', name: 'Riley', campaignId: 'camp-1' }),
    ]);
    // Workspaces are kept apart.
    expect(await store.catalog.list('T2', 'campaigns')).toEqual([]);
  });

  it('writes a known entry again only when it changed or an hour has passed', async () => {
    const clock = { now: 1_000_000 };
    const store = create({ now: () => clock.now });
    const stored = async () =>
      JSON.parse((await store.kv.hashGet(store.keys.catalog('T1', 'campaigns'), 'camp-1')) ?? 'null') as {
        n?: string;
        s: number;
      };
    await store.catalog.noteSighting('T1', { campaignId: 'camp-1', campaignName: 'Spring' });
    expect(await stored()).toEqual({ n: 'Spring', s: 1_000_000 });

    // Seen again with nothing new: no write, so "last seen" stays.
    clock.now += 30 * 60_000;
    await store.catalog.noteSighting('T1', { campaignId: 'camp-1', campaignName: 'Spring' });
    expect((await stored()).s).toBe(1_000_000);

    // A new name is written at once.
    clock.now += 60_000;
    await store.catalog.noteSighting('T1', { campaignId: 'camp-1', campaignName: 'Spring promo' });
    expect(await stored()).toEqual({ n: 'Spring promo', s: clock.now });

    // The same facts an hour later refresh "last seen".
    const renamedAt = clock.now;
    clock.now += HOUR;
    await store.catalog.noteSighting('T1', { campaignId: 'camp-1', campaignName: 'Spring promo' });
    expect((await stored()).s).toBe(renamedAt + HOUR);
  });

  it('keeps at most 500 campaigns per workspace, dropping the least recently seen tenth when full', async () => {
    const clock = { now: 0 };
    const store = create({ now: () => clock.now });
    const limit = CATALOG_LIMITS.campaigns;
    for (let i = 0; i < limit; i++) {
      clock.now += 1_000;
      await store.catalog.note('T1', 'campaigns', { id: `camp-${i}` });
    }
    // camp-0 seen again (an hour on): now the most recently seen, so it stays.
    clock.now += HOUR;
    await store.catalog.note('T1', 'campaigns', { id: 'camp-0' });
    expect(await store.kv.hashLen(store.keys.catalog('T1', 'campaigns'))).toBe(limit);

    clock.now += 1_000;
    await store.catalog.note('T1', 'campaigns', { id: 'camp-new' });
    const ids = (await store.catalog.list('T1', 'campaigns')).map((e) => e.id);
    expect(ids).toHaveLength(limit - limit / 10);
    expect(ids.slice(0, 2)).toEqual(['camp-new', 'camp-0']);
    // The 51 least recently seen went: camp-1 … camp-51.
    expect(ids).not.toContain('camp-1');
    expect(ids).not.toContain('camp-51');
    expect(ids).toContain('camp-52');
    // Another workspace's catalog is not touched.
    expect(await store.catalog.list('T2', 'campaigns')).toEqual([]);
  });

  it('ignores what is no id or name: empty, control characters only, too long', async () => {
    const store = create();
    await store.catalog.noteSighting('T1', { campaignId: '', agentId: '  ' });
    await store.catalog.note('T1', 'campaigns', { id: 'x'.repeat(201) });
    await store.catalog.note('T1', 'campaigns', { id: 'camp-1', name: `\u0000${'n'.repeat(250)}` });
    expect(await store.catalog.list('T1', 'agents')).toEqual([]);
    expect(await store.catalog.list('T1', 'campaigns')).toEqual([{ id: 'camp-1', seenAt: expect.any(Number) }]);
  });

  it('forgets one entry, and everything of a workspace', async () => {
    const store = create();
    await store.catalog.noteSighting('T1', { campaignId: 'camp-1', agentId: 'agent-11' });
    await store.catalog.note('T1', 'numbers', { id: 'pn-1', campaignId: 'camp-1' });
    await store.catalog.noteSighting('T2', { campaignId: 'camp-9' });
    await store.catalog.forget('T1', 'agents', 'agent-11');
    expect(await store.catalog.list('T1', 'agents')).toEqual([]);
    // Seen again after being forgotten: recorded again (this process does not think it is known).
    await store.catalog.noteSighting('T1', { agentId: 'agent-11' });
    expect(await store.catalog.list('T1', 'agents')).toHaveLength(1);

    await store.catalog.clear('T1');
    for (const kind of ['campaigns', 'agents', 'numbers'] as const) {
      expect(await store.kv.hashLen(store.keys.catalog('T1', kind))).toBe(0);
    }
    expect(await store.catalog.list('T2', 'campaigns')).toHaveLength(1);
    await store.catalog.noteSighting('T1', { campaignId: 'camp-1' });
    expect(await store.catalog.list('T1', 'campaigns')).toHaveLength(1);
  });
});
