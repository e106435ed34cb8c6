import { describe, expect, it, vi } from 'vitest';
import { createKeys, DEFAULT_KEY_PREFIX } from '../../src/store/index.js';
import calculateSlot from 'cluster-key-slot';
import { QUEUE_GROUPS, queueGroup, segment, timerId, timerTeam, type Keys } from '../../src/store/keys.js';
import { MemoryKeyValueStore } from '../../src/store/memory-kv.js';

describe('keys', () => {
  it('prefixes every key, `campaign:` by default', () => {
    const keys = createKeys();
    expect(DEFAULT_KEY_PREFIX).toBe('campaign:');
    expect(keys.workspace('T1')).toBe('campaign:workspace:T1');
    expect(createKeys('x:').routes('T1')).toBe('x:routes:T1');
  });

  it('keeps parts containing separators from colliding', () => {
    const keys = createKeys();
    expect(keys.conversation('T1', 'a:b', 'c')).not.toBe(keys.conversation('T1', 'a', 'b:c'));
    expect(keys.dedup('s', 'a%3ab')).not.toBe(keys.dedup('s', 'a:b'));
    expect(segment('+1 555:{x}%')).toBe('+1%20555%3a%7bx%7d%25');
  });

  it('gives every queue key of a workspace its queue group’s hash tag, which user input cannot displace', () => {
    const keys = createKeys('p:');
    const firstTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    const tags = new Set<string>();
    for (const team of ['T{1}', 'T2', 'T:3']) {
      const tag = firstTag(keys.queueTeams(queueGroup(team)))!;
      expect(tag.startsWith(`queue:${queueGroup(team)}.`)).toBe(true);
      tags.add(tag);
      for (const key of [
        keys.queueTeamStream(team),
        keys.queueMarks(team),
        keys.queueUsage(team),
        keys.queueDead(team),
        keys.queueOutbox(team, 'C{1}'),
        keys.queueTeams(queueGroup(team)),
        keys.queueDeadCounts(queueGroup(team)),
      ]) {
        expect(firstTag(key)).toBe(tag);
        expect(key.match(/[{}]/g)).toEqual(['{', '}']);
      }
    }
    expect(tags.size).toBe(new Set(['T{1}', 'T2', 'T:3'].map(queueGroup)).size);
  });

  it('puts the queue groups’ slots in equal ranges, so masters owning equal ranges own as many groups', () => {
    const keys = createKeys('p:');
    const range = 16_384 / QUEUE_GROUPS;
    for (let group = 0; group < QUEUE_GROUPS; group++) {
      expect(Math.floor(calculateSlot(keys.queueTeams(group)) / range)).toBe(group);
    }
  });

  it('spreads workspaces over every queue group', () => {
    const counts = new Array<number>(QUEUE_GROUPS).fill(0);
    for (let i = 0; i < 1_600; i++) counts[queueGroup(`T${i.toString(36).toUpperCase().padStart(8, '0')}`)]! += 1;
    // 100 a group on average: none is empty or holds twice its share.
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(200);
  });

  it('names the workspace of every key that belongs to one, whatever its ids hold', () => {
    const keys = createKeys('p:');
    for (const team of ['T1', 'T:2', 'T{3}', 'T 4%', 'T*5?[x]']) {
      const own = [
        keys.workspace(team),
        keys.routes(team),
        keys.installation(team),
        keys.installation(team, 'E1'),
        keys.dedup(team, 'slack-event', 'Ev1'),
        keys.dedup(team, 'hook-token-create'),
        keys.cache(team, 'admin:U1'),
        keys.conversation(team, 'camp:1', '+1 555'),
        keys.thread(team, 'C1', '1.2'),
        keys.agentLinks(team),
        keys.threadOwner(team, 'C1', '1.2'),
        keys.openThreads(team),
        keys.handoffSla(team),
        keys.digests(team),
        keys.digestFigures(team),
        keys.quotaAlerts(team),
        keys.reportMark('digest', team, 'C1', '2024-03'),
        keys.outcomeAlerts(team),
        keys.savedReplies(team),
        keys.shift(team),
        keys.assignTurn(team),
        keys.catalog(team, 'campaigns'),
        keys.attachment(team, 'ab12'),
        keys.verification(team),
        keys.alertIncidents(team),
        keys.alertWindow(team, '["C1","*"]'),
        keys.alertCounted(team),
        keys.unroutedCounts(team),
        keys.unroutedCounted(team),
        keys.unroutedRecent(team),
        keys.outboxLease(team, 'C1'),
        keys.callRollup(team, 'C1'),
        keys.channelPauses(team),
        keys.channelSubscribers(team),
        keys.timerLease('digest', timerId(team, 'C1'), 1700000000000),
        keys.queueTeamStream(team),
        keys.queueMarks(team),
      ];
      for (const key of own) expect([key, keys.workspaceOf(key)]).toEqual([key, team]);
    }
    // Another workspace's keys, shared keys and other prefixes' keys are nobody's.
    expect(keys.workspaceOf(keys.conversation('T2', 'T1', 'T1'))).toBe('T2');
    for (const key of [keys.queueWakeups(), keys.queueTeams(0), keys.outboxDue(), keys.timers('digest')])
      expect(keys.workspaceOf(key)).toBeUndefined();
    expect(keys.workspaceOf(createKeys('other:').workspace('T1'))).toBeUndefined();
    expect(timerTeam(timerId('T1', 'C1'))).toBe('T1');
    expect(timerTeam('T1/C1/1.2')).toBeUndefined();
  });

  it('has no builder that takes a workspace’s id without the key being that workspace’s, unless it is shared on purpose', () => {
    // What removes a workspace's part of each shared key at uninstall (src/store/forget.ts), or why nothing must.
    const SHARED: Partial<Record<keyof Keys, string>> = {
      hookToken: 'keyed by the token hash; WorkspaceRepo.clear deletes the workspace’s',
      attachmentToken: 'keyed by the token hash; forgetWorkspace deletes it with the workspace’s attachment key',
      timers: 'one sorted set per kind; TimerRepo.forgetTeam removes the workspace’s, read from its timer index',
      timerLease: 'its timer id names the workspace when made by timerId (above)',
      rateBudget: 'a workspace’s Slack budgets; each expires within seconds',
      rateHold: 'a workspace’s message-limit hold; expires an hour after it ends',
      tokenRefresh: 'keyed by installation (a workspace or an org); a 30 s lease while one replica refreshes its token',
      queueTeams: 'one set per queue group (a number, not a team id); EventQueue.forgetTeam removes the workspace',
      queueDeadCounts: 'one hash per queue group; EventQueue.forgetTeam removes the workspace’s field',
      kindPrefix: 'not a key',
    };
    const SENTINEL = 'TSENTINEL0';
    const keys = createKeys('p:');
    const unaccounted: string[] = [];
    for (const [name, build] of Object.entries(keys)) {
      if (typeof build !== 'function' || name === 'workspaceOf') continue;
      const key = (build as (...args: string[]) => string)(...Array<string>(build.length).fill(SENTINEL));
      if (!key.includes(SENTINEL) || keys.workspaceOf(key) === SENTINEL) continue;
      if (!(name in SHARED)) unaccounted.push(name);
    }
    expect(unaccounted).toEqual([]);
  });

  it('gives a workspace’s alert counts one hash tag of their own, which ids cannot displace', () => {
    const keys = createKeys('p:');
    const firstTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    const window = keys.alertWindow('T{1}', '["C{1}","*"]');
    const counted = keys.alertCounted('T{1}');
    expect(firstTag(window)).toBe('alert-counts:T%7b1%7d');
    expect(firstTag(counted)).toBe(firstTag(window));
    expect(firstTag(keys.alertCounted('T2'))).not.toBe(firstTag(window));
    for (const key of [window, counted]) expect(key.match(/[{}]/g)).toEqual(['{', '}']);
  });

  it('refuses a prefix with braces', () => {
    expect(() => createKeys('{app}:')).toThrow(/must not contain/);
  });
});

describe('MemoryKeyValueStore', () => {
  it('sweeps expired keys even when nobody reads them', async () => {
    // A fake clock and fake interval timers: the sweep runs when the test moves time on.
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const kv = new MemoryKeyValueStore({ sweepIntervalMs: 20 });
    try {
      await kv.set('a', '1', { ttlMs: 30 });
      await kv.set('b', '1');
      // `size` sweeps too, so look at what the timer left behind through a private view.
      const items = (kv as unknown as { items: Map<string, unknown> }).items;
      vi.advanceTimersByTime(20);
      expect(items.size).toBe(2);
      vi.advanceTimersByTime(20);
      expect(items.size).toBe(1);
    } finally {
      await kv.close();
      vi.useRealTimers();
    }
  });

  it('refuses work after close', async () => {
    const kv = new MemoryKeyValueStore();
    await kv.close();
    await expect(kv.get('a')).rejects.toThrow(/closed/);
  });
});
