/**
 * The workspace roster (src/store/rosters.ts) behaves the same in memory and in Redis: one letter per person,
 * its facts under `#`, a listing that replaces the whole roster (people met elsewhere asked about again), one
 * person rewritten by Slack's events.
 */
import { describe, expect, it } from 'vitest';
import { requireRedis } from '../support/redis.js';
import { storeBackends } from './backends.js';

const redis = await requireRedis();
const backends = storeBackends(redis);

describe.each(backends)('RosterRepo ($name)', ({ create }) => {
  it('keeps 2,500 people as one letter each, read back in order in one call per thousand', async () => {
    const { rosters, kv, keys } = create();
    const people = Array.from({ length: 2_500 }, (_, i) => `U${String(i).padStart(6, '0')}`);
    const verdicts = new Map(people.map((id, i) => [id, i === 1_234 ? ('g' as const) : ('m' as const)]));
    await rosters.replace('T1', verdicts, { listedAt: 1_000, changedAt: 1_000, enterpriseId: 'E1' });

    expect(await rosters.meta('T1')).toEqual({ listedAt: 1_000, changedAt: 1_000, enterpriseId: 'E1' });
    const read = await rosters.verdicts('T1', [people[1_234]!, 'U0NOBODY', people[0]!]);
    expect(read).toEqual(['g', undefined, 'm']);
    expect(await kv.hashLen(keys.roster('T1'))).toBe(2_501);
    expect((await rosters.verdicts('T1', people)).filter((v) => v === 'g')).toHaveLength(1);
  });

  it('a listing forgets who it no longer names; one person rewritten answers who they were', async () => {
    const { rosters } = create();
    await rosters.replace(
      'T2',
      new Map([
        ['U1', 'm'],
        ['U2', 'g'],
      ]),
      { listedAt: 1, changedAt: 1 },
    );
    expect(await rosters.set('T2', 'U3', 'x')).toBeUndefined(); // met in a Slack Connect channel
    await rosters.replace(
      'T2',
      new Map([
        ['U1', 'm'],
        ['U2', 'm'],
      ]),
      { listedAt: 2, changedAt: 2 },
    );
    expect(await rosters.verdicts('T2', ['U1', 'U2', 'U3'])).toEqual(['m', 'm', undefined]);

    expect(await rosters.set('T2', 'U2', 'g')).toBe('m');
    expect(await rosters.verdicts('T2', ['U2'])).toEqual(['g']);
    await rosters.setMeta('T2', { listedAt: 2, changedAt: 3, staleSince: 4 });
    expect(await rosters.meta('T2')).toEqual({ listedAt: 2, changedAt: 3, staleSince: 4 });
    expect(await rosters.meta('T404')).toBeUndefined();
  });
});
