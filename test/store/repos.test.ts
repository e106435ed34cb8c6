import { describe, expect, it } from 'vitest';
import { SecretBoxError } from '../../src/store/index.js';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { storeBackends } from './backends.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const backends = storeBackends(redis, await requireCluster());

describe.each(backends)('WorkspaceRepo ($name)', ({ create }) => {
  it('stores the API key encrypted and gives it back, with who connected it and when', async () => {
    const { workspaces, kv, keys } = create();
    const before = Date.now();
    await workspaces.setApiKey('T1', 'sk-live-abcdef123456WXYZ', { verifiedBy: 'U1' });
    const after = Date.now();

    expect(await workspaces.getApiKey('T1')).toBe('sk-live-abcdef123456WXYZ');
    const connection = await workspaces.getConnection('T1');
    expect(connection).toMatchObject({ last4: 'WXYZ', verifiedBy: 'U1' });
    expect(connection!.verifiedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(connection!.verifiedAt.getTime()).toBeLessThanOrEqual(after);

    const stored = JSON.stringify(await kv.hashGetAll(keys.workspace('T1')));
    expect(stored).not.toContain('abcdef123456');
    expect(stored).toMatch(/"v1\./);
  });

  it('answers null for a workspace that is not connected, and forgets everything on clear', async () => {
    const { workspaces } = create();
    expect(await workspaces.getApiKey('T404')).toBeNull();
    expect(await workspaces.getConnection('T404')).toBeNull();

    await workspaces.setApiKey('T2', 'key-0000-1111-2222', { verifiedBy: 'U2' });
    const token = await workspaces.createHookToken('T2');
    await workspaces.clear('T2');
    expect(await workspaces.getApiKey('T2')).toBeNull();
    expect(await workspaces.getConnection('T2')).toBeNull();
    expect(await workspaces.getHookToken('T2')).toBeNull();
    expect(await workspaces.resolveHookToken(token)).toBeNull();
  });

  it('reveals no last4 of a key too short to show any of it', async () => {
    const { workspaces } = create();
    await workspaces.setApiKey('T3', 'abc12', { verifiedBy: 'U3' });
    expect((await workspaces.getConnection('T3'))!.last4).toBe('');
    expect(await workspaces.getApiKey('T3')).toBe('abc12');
  });

  it('refuses an encrypted key copied to another workspace', async () => {
    const { workspaces, kv, keys } = create();
    await workspaces.setApiKey('T-victim', 'victim-key-123456789', { verifiedBy: 'U1' });
    await kv.hashSet(keys.workspace('T-attacker'), await kv.hashGetAll(keys.workspace('T-victim')));
    await expect(workspaces.getApiKey('T-attacker')).rejects.toThrow(SecretBoxError);
    await expect(workspaces.getApiKey('T-attacker')).rejects.toThrow(/another workspace/);
  });

  it('issues a hook token that resolves to its team, stores only its hash in the lookup, and can rebuild it', async () => {
    const { workspaces, kv, keys } = create();
    const token = await workspaces.createHookToken('T1');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url
    expect(await workspaces.resolveHookToken(token)).toBe('T1');
    expect(await workspaces.getHookToken('T1')).toBe(token);

    const other = await workspaces.createHookToken('T2');
    expect(other).not.toBe(token);
    expect(await workspaces.resolveHookToken(other)).toBe('T2');

    const fields = await kv.hashGetAll(keys.workspace('T1'));
    expect(JSON.stringify(fields)).not.toContain(token);
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(token).digest('hex');
    expect(fields.hookTokenHash).toBe(hash);
    expect(await kv.get(keys.hookToken(hash))).toBe('T1');
  });

  it('rejects unknown, malformed and replaced hook tokens', async () => {
    const { workspaces } = create();
    const first = await workspaces.createHookToken('T1');
    expect(await workspaces.resolveHookToken('A'.repeat(43))).toBeNull();
    expect(await workspaces.resolveHookToken('')).toBeNull();
    expect(await workspaces.resolveHookToken(`${first}x`)).toBeNull();
    expect(await workspaces.resolveHookToken('../../etc/passwd')).toBeNull();

    const second = await workspaces.createHookToken('T1');
    expect(await workspaces.resolveHookToken(first)).toBeNull();
    expect(await workspaces.resolveHookToken(second)).toBe('T1');
    expect(await workspaces.getHookToken('T1')).toBe(second);
  });

  it('does not trust a stale token mapping the workspace no longer names', async () => {
    const { workspaces, kv, keys } = create();
    const first = await workspaces.createHookToken('T1');
    const { createHash } = await import('node:crypto');
    const firstHash = createHash('sha256').update(first).digest('hex');
    await workspaces.createHookToken('T1');
    // As if deleting the old mapping had failed half-way through the rotation.
    await kv.set(keys.hookToken(firstHash), 'T1');
    expect(await workspaces.resolveHookToken(first)).toBeNull();
  });
});

describe.each(backends)('WorkspaceRepo hook token rotation ($name)', ({ create }) => {
  it('keeps a rotated-out token working for the grace period only, and remembers it until its hooks are cleared', async () => {
    let clock = 1_700_000_000_000;
    const { workspaces, kv, keys } = create({ now: () => clock });
    const first = await workspaces.createHookToken('T1');
    const rotated = await workspaces.rotateHookToken('T1', 600_000);
    expect(rotated.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.retired).toEqual([{ token: first, until: clock + 600_000 }]);
    expect(await workspaces.getHookToken('T1')).toBe(rotated.token);
    expect(await workspaces.resolveHookToken(rotated.token)).toBe('T1');
    expect(await workspaces.resolveHookToken(first)).toBe('T1');
    // Stored sealed like the current one: no token in plain text.
    const stored = JSON.stringify(await kv.hashGetAll(keys.workspace('T1')));
    expect(stored).toContain('retiredHookTokens');
    expect(stored).not.toContain(first);

    clock += 600_000;
    expect(await workspaces.resolveHookToken(first)).toBeNull();
    expect(await workspaces.resolveHookToken(rotated.token)).toBe('T1');

    // Not cleared yet: the next rotation hands it out again, with the one it replaces.
    const again = await workspaces.rotateHookToken('T1', 0);
    expect(again.retired.map((r) => r.token)).toEqual([first, rotated.token]);
    expect(await workspaces.resolveHookToken(rotated.token)).toBeNull(); // no grace at all
    await workspaces.markRetiredCleared('T1', [first, rotated.token]);
    expect((await workspaces.rotateHookToken('T1', 1_000)).retired.map((r) => r.token)).toEqual([again.token]);
  });

  it('forgets rotated-out tokens with the workspace', async () => {
    const { workspaces } = create();
    const first = await workspaces.createHookToken('T1');
    const { token } = await workspaces.rotateHookToken('T1', 600_000);
    await workspaces.clear('T1');
    expect(await workspaces.resolveHookToken(first)).toBeNull();
    expect(await workspaces.resolveHookToken(token)).toBeNull();
  });
});

describe.each(backends)('RouteRepo ($name)', ({ create }) => {
  const route = (campaignId: string, triggerName: string, channelId: string, teamId = 'T1') => ({
    teamId,
    campaignId,
    triggerName,
    channelId,
  });

  it('adds and removes routes once', async () => {
    const { routes } = create();
    expect(await routes.add(route('c1', 'call_started', 'C1'))).toBe(true);
    expect(await routes.add(route('c1', 'call_started', 'C1'))).toBe(false);
    expect(await routes.remove(route('c1', 'call_started', 'C1'))).toBe(true);
    expect(await routes.remove(route('c1', 'call_started', 'C1'))).toBe(false);
    expect(await routes.listForTeam('T1')).toEqual([]);
  });

  it('lists per team and per channel, sorted, with teams kept apart', async () => {
    const { routes } = create();
    await routes.add(route('c2', 'call_completed', 'C1'));
    await routes.add(route('c1', 'message_sent', 'C2'));
    await routes.add(route('c1', 'call_started', 'C1'));
    await routes.add(route('*', 'call_started', 'C9', 'T2'));
    expect(await routes.listForTeam('T1')).toEqual([
      route('c1', 'call_started', 'C1'),
      route('c1', 'message_sent', 'C2'),
      route('c2', 'call_completed', 'C1'),
    ]);
    expect(await routes.listForChannel('T1', 'C1')).toEqual([
      route('c1', 'call_started', 'C1'),
      route('c2', 'call_completed', 'C1'),
    ]);
    expect(await routes.listForTeam('T2')).toEqual([route('*', 'call_started', 'C9', 'T2')]);
  });

  it("sends an event to every channel routing its campaign or '*', each channel once", async () => {
    const { routes } = create();
    await routes.add(route('c1', 'call_completed', 'C-sales'));
    await routes.add(route('*', 'call_completed', 'C-sales'));
    await routes.add(route('*', 'call_completed', 'C-all'));
    await routes.add(route('c2', 'call_completed', 'C-other'));
    await routes.add(route('c1', 'call_started', 'C-starts'));
    await routes.add(route('c1', 'call_completed', 'C-elsewhere', 'T2'));
    expect((await routes.channelsFor('T1', 'c1', 'call_completed')).sort()).toEqual(['C-all', 'C-sales']);
    expect((await routes.channelsFor('T1', 'c3', 'call_completed')).sort()).toEqual(['C-all', 'C-sales']);
    expect(await routes.channelsFor('T1', 'c1', 'message_sent')).toEqual([]);
  });

  it("tells whether a platform subscription is still needed ('*' only matches '*')", async () => {
    const { routes } = create();
    await routes.add(route('c1', 'call_started', 'C1'));
    await routes.add(route('c1', 'call_started', 'C2'));
    await routes.add(route('*', 'call_completed', 'C1'));
    await routes.remove(route('c1', 'call_started', 'C1'));
    expect(await routes.isNeeded('T1', 'c1', 'call_started')).toBe(true);
    await routes.remove(route('c1', 'call_started', 'C2'));
    expect(await routes.isNeeded('T1', 'c1', 'call_started')).toBe(false);
    expect(await routes.isNeeded('T1', '*', 'call_completed')).toBe(true);
    expect(await routes.isNeeded('T1', 'c1', 'call_completed')).toBe(false);
  });

  it('keeps ids with separators and quotes apart', async () => {
    const { routes } = create();
    const odd = route('c:1"],["x', 'call_started', 'C:1');
    await routes.add(odd);
    await routes.add(route('c', '1', 'C'));
    expect(await routes.listForTeam('T1')).toContainEqual(odd);
    expect(await routes.channelsFor('T1', 'c:1"],["x', 'call_started')).toEqual(['C:1']);
  });

  it('keeps filters with a route: one route per channel, campaign and event, the latest filters replacing', async () => {
    const { routes } = create();
    const failed = { ...route('c1', 'call_completed', 'C1'), filters: { status: ['failed', 'busy'], minMs: 90_000 } };
    expect(await routes.add(failed)).toBe(true);
    expect(await routes.add({ ...failed, filters: { minMs: 90_000, status: ['busy', 'failed', 'busy'] } })).toBe(false);
    expect(await routes.listForTeam('T1')).toEqual([
      { ...failed, filters: { status: ['busy', 'failed'], minMs: 90_000 } },
    ]);

    const agentOnly = { ...route('c1', 'call_completed', 'C1'), filters: { agent: ['agent-7'] } };
    expect(await routes.add(agentOnly)).toBe(true);
    expect(await routes.listForTeam('T1')).toEqual([agentOnly]);
    // Back to no filters: the plain route.
    expect(await routes.add(route('c1', 'call_completed', 'C1'))).toBe(true);
    expect(await routes.listForTeam('T1')).toEqual([route('c1', 'call_completed', 'C1')]);

    await routes.add({ ...route('*', 'call_completed', 'C2'), filters: { type: ['outbound'] } });
    expect((await routes.routesFor('T1', 'c1', 'call_completed')).map((r) => [r.channelId, r.filters])).toEqual([
      ['C2', { type: ['outbound'] }],
      ['C1', undefined],
    ]);
    // Removing ignores filters.
    expect(await routes.remove(route('*', 'call_completed', 'C2'))).toBe(true);
    expect(await routes.isNeeded('T1', '*', 'call_completed')).toBe(false);
  });

  it('reads routes stored before filters existed, and stores unfiltered ones the same way', async () => {
    const { routes, kv, keys } = create();
    await kv.setAdd(keys.routes('T1'), JSON.stringify(['c1', 'call_started', 'C1']));
    expect(await routes.listForTeam('T1')).toEqual([route('c1', 'call_started', 'C1')]);
    expect(await routes.add(route('c1', 'call_started', 'C1'))).toBe(false);
    await routes.add({ ...route('c1', 'call_completed', 'C1'), filters: { reason: ['voicemail'] } });
    expect((await kv.setMembers(keys.routes('T1'))).sort()).toEqual([
      JSON.stringify(['c1', 'call_completed', 'C1', { reason: ['voicemail'] }]),
      JSON.stringify(['c1', 'call_started', 'C1']),
    ]);
    expect(await routes.remove(route('c1', 'call_completed', 'C1'))).toBe(true);
    expect(await kv.setMembers(keys.routes('T1'))).toEqual([JSON.stringify(['c1', 'call_started', 'C1'])]);
  });
});

describe.each(backends)('Cache ($name)', ({ create }) => {
  it('calls the loader once per TTL and shares it with concurrent callers', async () => {
    const { cache, kv, keys } = create();
    const stored = keys.cache('T1', 'admin:U1');
    let calls = 0;
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const load = async () => {
      calls++;
      await answered;
      return { admin: true };
    };
    const results = Promise.all([1, 2, 3].map(() => cache.remember('T1', 'admin:U1', 80, load)));
    // The loader answers only once every caller has looked in the store and missed: a read of the same key sent
    // after theirs comes back after theirs (one connection, in order), and they look for a load under way next.
    await kv.get(stored);
    answer();
    expect(await results).toEqual([{ admin: true }, { admin: true }, { admin: true }]);
    expect(await cache.remember('T1', 'admin:U1', 80, load)).toEqual({ admin: true });
    expect(calls).toBe(1);
    await waitFor(async () => (await kv.get(stored)) === null, 'the cached value to expire');
    await cache.remember('T1', 'admin:U1', 80, load);
    expect(calls).toBe(2);
  });

  it('caches false, but not undefined nor a failure', async () => {
    const { cache } = create();
    let calls = 0;
    const no = () => {
      calls++;
      return Promise.resolve(false);
    };
    expect(await cache.remember('T1', 'k:false', 1_000, no)).toBe(false);
    expect(await cache.remember('T1', 'k:false', 1_000, no)).toBe(false);
    expect(calls).toBe(1);

    let unknownCalls = 0;
    const unknown = () => {
      unknownCalls++;
      return Promise.resolve(undefined);
    };
    await cache.remember('T1', 'k:undef', 1_000, unknown);
    await cache.remember('T1', 'k:undef', 1_000, unknown);
    expect(unknownCalls).toBe(2);

    await expect(cache.remember('T1', 'k:fail', 1_000, () => Promise.reject(new Error('slack down')))).rejects.toThrow(
      'slack down',
    );
    expect(await cache.remember('T1', 'k:fail', 1_000, () => Promise.resolve('ok'))).toBe('ok');
  });

  it('stores under the store prefix and forgets on request', async () => {
    const { cache, kv, keys } = create();
    await cache.remember('T1', 'admin:U1', 1_000, () => Promise.resolve('yes'));
    expect(keys.cache('T1', 'admin:U1').startsWith(keys.prefix)).toBe(true);
    expect(await kv.get(keys.cache('T1', 'admin:U1'))).not.toBeNull();
    await cache.forget('T1', 'admin:U1');
    expect(await kv.get(keys.cache('T1', 'admin:U1'))).toBeNull();
  });
});

describe.each(backends)('Dedup ($name)', ({ create }) => {
  it('marks an id once per TTL and scope', async () => {
    const { dedup, kv, keys } = create();
    expect(await dedup.markOnce('T1', 'slack-event', 'Ev1', 80)).toBe(true);
    expect(await dedup.markOnce('T1', 'slack-event', 'Ev1', 80)).toBe(false);
    expect(await dedup.markOnce('T2', 'slack-event', 'Ev1', 80)).toBe(true);
    expect(await dedup.markOnce('T1', 'slack-event', 'Ev2', 80)).toBe(true);
    await waitFor(async () => (await kv.get(keys.dedup('T1', 'slack-event', 'Ev1'))) === null, 'the mark to expire');
    expect(await dedup.markOnce('T1', 'slack-event', 'Ev1', 80)).toBe(true);
  });

  it('lets exactly one of many concurrent marks win', async () => {
    const { dedup } = create();
    const results = await Promise.all(Array.from({ length: 20 }, () => dedup.markOnce('T1', 's', 'same', 5_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe.each(backends)('ChannelOutboxRepo ($name)', ({ create }) => {
  const at = { teamId: 'T1', channelId: 'C1' };

  it('keeps a channel’s waiting work by lane, oldest first, once each, counted in the workspace’s backlog until removed', async () => {
    const { outbox, queue } = create();
    await outbox.add(at, 'routine', { id: '2-0', json: '{"n":2}' });
    await outbox.add(at, 'routine', { id: '10-0', json: '{"n":10}' });
    await outbox.add(at, 'routine', { id: '2-0', json: '{"n":2}' });
    await outbox.add(at, 'bulk', { id: '1-0', json: '{"n":1}' });
    // The same millisecond: the sequence orders them (9 before 10, as numbers).
    await outbox.add(at, 'urgent', { id: '11-10', json: '{"u":10}' });
    await outbox.add(at, 'urgent', { id: '11-9', json: '{"u":9}' });
    expect(await outbox.head(at, 10)).toEqual([
      { id: '11-9', json: '{"u":9}', lane: 'urgent' },
      { id: '11-10', json: '{"u":10}', lane: 'urgent' },
      { id: '2-0', json: '{"n":2}', lane: 'routine' },
      { id: '10-0', json: '{"n":10}', lane: 'routine' },
      { id: '1-0', json: '{"n":1}', lane: 'bulk' },
    ]);
    expect(await outbox.size(at)).toBe(5);
    expect(await outbox.head(at, 1)).toEqual([{ id: '11-9', json: '{"u":9}', lane: 'urgent' }]);
    await outbox.startRollup(at, ['10-0', '7-0'], 60_000);
    expect(await outbox.rollupUnderWay(at)).toEqual([{ id: '10-0', json: '{"n":10}' }]);
    expect(await outbox.channels()).toEqual([at]);
    expect(await queue.usage('T1')).toEqual({ events: 5, bytes: 37 });
    expect(await outbox.remove(at, ['11-9', '11-10', '2-0', '404-0'])).toBe(3);
    expect(await queue.usage('T1')).toEqual({ events: 2, bytes: 15 });
    await outbox.finishRollup(at, ['10-0', '1-0']);
    expect(await outbox.head(at, 10)).toEqual([]);
    expect(await queue.usage('T1')).toEqual({ events: 0, bytes: 0 });
    await outbox.forgetIfEmpty(at);
    expect(await outbox.channels()).toEqual([]);
  });

  it('lists the channels due now, longest due first; a channel due already keeps its time when work is added', async () => {
    const { outbox } = create();
    const b = { teamId: 'T2', channelId: 'C9' };
    await outbox.add(at, 'routine', { id: '1-0', json: '{}' });
    await outbox.add(b, 'urgent', { id: '2-0', json: '{}' });
    const now = Date.now();
    expect(await outbox.due(now + 1_000, 10)).toEqual([at, b]);
    await outbox.dueAt(at, now + 60_000); // waits for Slack
    await outbox.add(at, 'urgent', { id: '3-0', json: '{}' });
    expect(await outbox.due(now + 1_000, 10)).toEqual([b]);
    expect(await outbox.due(now + 1_000, 0)).toEqual([]);
    expect(await outbox.due(now + 61_000, 1)).toEqual([b]);
    await outbox.forgetTeam('T2');
    expect(await outbox.channels()).toEqual([at]);
  });

  it('makes work added while a drain found the channel empty due now, not when the drain’s lease would end', async () => {
    const { outbox } = create();
    const now = Date.now();
    await outbox.dueAt(at, now + 120_000); // a replica drains the channel, due again at its lease's end
    await outbox.add(at, 'routine', { id: '1-0', json: '{}' }); // another replica's call: the due time stays
    expect(await outbox.due(now + 1_000, 10)).toEqual([]);
    await outbox.forgetIfEmpty(at); // the drain read an empty head just before
    expect(await outbox.due(Date.now() + 1, 10)).toEqual([at]);
    expect(await outbox.size(at)).toBe(1);
  });

  it('keeps one copy of an event parked twice (its queue entry was tried again), counted once', async () => {
    const { outbox } = create();
    await outbox.add(at, 'urgent', { id: '5-0', json: '{"first":true}' });
    await outbox.add(at, 'urgent', { id: '5-0', json: '{"first":false}' });
    expect(await outbox.size(at)).toBe(1);
    expect((await outbox.head(at, 5)).map((i) => i.json)).toEqual(['{"first":true}']);
    expect(await outbox.remove(at, ['5-0', '404-0'])).toBe(1);
    expect(await outbox.size(at)).toBe(0);
  });
});
