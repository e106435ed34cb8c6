/**
 * `/campaign digest` and the digests the channel then gets, driven with signed slash commands against the
 * Slack stand-in and the platform simulator, on a fake clock (timers fired with `runDue`, never waited for; what they make waits in the channel's outbox),
 * in memory and on Redis: the card's figures and changes, a missed slot posted once, DST, one post when two
 * replicas share Redis, and what happens when the bot was removed from the channel.
 */
import { describe, expect, it } from 'vitest';
import { MEMBER_ID, TEAM_ID, type Harness, harnessesPerTest, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { fireTimers, queueDrained, run } from '../events/support.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const CHANNEL = 'C0DIGEST01';
const timerId = JSON.stringify([TEAM_ID, CHANNEL]);
const at = (iso: string) => Date.parse(iso);

const started = harnessesPerTest();
let n = 0;
function start(
  backend: 'memory' | 'redis',
  clock: { now: number },
  extra: { keyPrefix?: string; fakes?: Pick<Harness, 'slack' | 'platform'> } = {},
): Promise<Harness> {
  return started({
    ...storeOn(backend, redis, extra.keyPrefix ?? `${redis.prefix}${++n}:`),
    ...(extra.fakes ? { fakes: extra.fakes } : {}),
    bot: { now: () => clock.now },
  });
}

/** The channel's digest cards (not the notices), as text with their blocks. */
function cards(h: Harness): string[] {
  return h.slack
    .messages(CHANNEL)
    .filter((m) => JSON.stringify(m.blocks ?? []).includes('digest'))
    .filter((m) => m.text.includes('digest for') || m.text.includes('digest could not'))
    .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`);
}

describe.each(['memory', 'redis'] as const)('digests (%s)', (backend) => {
  it('posts the daily card at the admin’s local time, then the change against the previous digest; a missed slot once; across DST', async () => {
    // Friday 8 March 2024, 04:00 in Los Angeles (the admin's Slack time zone); DST starts there on Sunday 10 March.
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    const state = h.platform.state;
    state.bookings['camp-1']!.push(
      { ...state.bookings['camp-1']![0]!, RowKey: 'bk-new1', Timestamp: '2024-03-08T16:00:00.000Z', Status: 'success' },
      {
        ...state.bookings['camp-1']![2]!,
        RowKey: 'bk-new2',
        Timestamp: '2024-03-08T16:30:00.000Z',
        CustomerName: 'Ann <Lee>',
      },
    );

    const { text } = await run(h, 'digest daily camp-1 at 9:00', { channelId: CHANNEL });
    expect(text).toContain('Digest set: daily at 09:00 (America/Los_Angeles) for campaign `camp-1`');
    expect(h.slack.messages(CHANNEL).map((m) => m.text)).toEqual([
      expect.stringContaining('This channel now gets a digest daily at 09:00'),
    ]);
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBe(at('2024-03-08T17:00:00Z'));

    expect(await h.bot.deps.timers.runDue()).toBe(0);
    clock.now = at('2024-03-08T17:00:20Z');
    await fireTimers(h);
    expect(cards(h)).toHaveLength(1);
    const first = cards(h)[0]!;
    expect(first).toContain('Daily digest');
    // Setting the digest up took a snapshot of the totals: the first digest's baseline (nothing changed since).
    expect(first).toContain('0 calls (of 1,284)'); // Outbound
    expect(first).toContain(`Changes since the snapshot of <!date^${at('2024-03-08T12:00:00Z') / 1000}^`);
    expect(first).toContain('✅ 1 made');
    expect(first).toContain('❌ 1 failed');
    expect(first).toContain('Ann &lt;Lee&gt;: The requested slot is no longer available');
    expect(first).toContain('61.7%`'); // the quota bar, as `/campaign quota` shows it
    expect(first).toContain('313 h 11 min used of 507 h 7 min');
    expect(first).toContain('left at the current rate');
    expect(h.platform.requests.filter((r) => r.path === '/campaign/camp-1/bookings')).toHaveLength(1);
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBe(at('2024-03-09T17:00:00Z'));

    // 16 more outbound calls, 12 more minutes; then the bot is down over two slots (one of them after the DST change).
    state.stats.totals.Outbound!.calls += 16;
    state.stats.totals.Outbound!.durationMs += 12 * 60_000;
    clock.now = at('2024-03-10T18:00:00Z');
    await fireTimers(h);
    await fireTimers(h);
    expect(cards(h)).toHaveLength(2);
    const second = cards(h)[1]!;
    expect(second).toContain('16 calls (of 1,300)');
    expect(second).toContain('12 min talk time (of 27 h 38 min)');
    expect(second).toContain('0 calls (of 412)');
    expect(second).toContain('Changes since the previous digest');
    // 09:00 in Los Angeles is 16:00 UTC from now on (PDT).
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBe(at('2024-03-11T16:00:00Z'));

    const figures = await h.bot.deps.store.reports.lastFigures(TEAM_ID, CHANNEL);
    expect(figures).toEqual({
      at: clock.now,
      totals: expect.objectContaining({
        Outbound: { calls: 1300, durationMs: 98_765_432 + 720_000, connected: 806, bookings: 143 },
      }),
    });
  });

  it('lists the schedule for everyone, lets only admins change it, posts on demand, explains bad times and zones', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);

    expect((await run(h, 'digest', { channelId: CHANNEL, userId: MEMBER_ID })).text).toContain(
      'This channel gets no digest',
    );
    expect((await run(h, 'digest weekly', { channelId: CHANNEL, userId: MEMBER_ID })).text).toContain(
      'Only Slack workspace admins',
    );
    expect(await h.bot.deps.store.reports.digest(TEAM_ID, CHANNEL)).toBeUndefined();

    expect((await run(h, 'digest daily * at 25:00', { channelId: CHANNEL })).text).toContain(
      'is not a time of day: write `at HH:MM` in 24-hour form',
    );
    expect((await run(h, 'digest daily * tz Mars/Olympus', { channelId: CHANNEL })).text).toContain(
      'is not a time zone I know: write `tz Area/City`',
    );
    expect((await run(h, 'digest hourly', { channelId: CHANNEL })).text).toContain(
      'use `daily`, `weekly` (Mondays), `off` or `now`',
    );
    expect(h.slack.messages(CHANNEL)).toHaveLength(0);

    await run(h, 'digest weekly * at 08:30 tz Europe/Berlin', { channelId: CHANNEL });
    // Monday 11 March, 08:30 in Berlin (CET).
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBe(at('2024-03-11T07:30:00Z'));
    const listed = (await run(h, 'digest', { channelId: CHANNEL, userId: MEMBER_ID })).text;
    expect(listed).toContain('weekly on Mondays at 08:30 (Europe/Berlin) for every campaign');
    expect(listed).toContain(`<!date^${at('2024-03-11T07:30:00Z') / 1000}^`);

    expect((await run(h, 'digest now', { channelId: CHANNEL })).text).toContain(
      'The digest is on its way to this channel. The scheduled digests go on',
    );
    await queueDrained(h);
    expect(cards(h)).toHaveLength(1);
    expect(cards(h)[0]).toContain('Weekly digest');
    // `*`: bookings of the dashboard's top campaigns (nothing is routed here), named on the card.
    expect(cards(h)[0]).toContain('Counted for the campaigns routed to Slack and the dashboard');
    expect(h.platform.requests.filter((r) => /^\/campaign\/camp-[124]\/bookings$/.test(r.path))).toHaveLength(3);

    // App Home lists the channel's digest beside the routes.
    await h.signer.event({ type: 'app_home_opened', user: MEMBER_ID, tab: 'home', channel: 'D0HOME0001' });
    const home = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[0]);
    expect(home.response.ok).toBe(true);
    expect(JSON.stringify(home.args.view)).toContain(
      `<#${CHANNEL}> 🗞️ digest weekly on Mondays at 08:30 (Europe/Berlin) for every campaign`,
    );

    expect((await run(h, 'digest off', { channelId: CHANNEL })).text).toContain('digest is stopped');
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBeUndefined();
    expect(await h.bot.deps.store.reports.digest(TEAM_ID, CHANNEL)).toBeUndefined();
  });

  it('keeps the schedule when the bot was removed from the channel, and ends it when the channel is archived', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    await run(h, 'digest daily', { channelId: CHANNEL });

    h.slack.addChannel({ id: CHANNEL, name: 'digests', is_member: false });
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    clock.now = at('2024-03-08T17:01:00Z');
    await fireTimers(h);
    expect(cards(h)).toHaveLength(0);
    expect(await h.bot.deps.store.reports.digest(TEAM_ID, CHANNEL)).toBeDefined();
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBe(at('2024-03-09T17:00:00Z'));
    expect(h.logs()).toContain('the schedule is kept');

    h.slack.addChannel({ id: CHANNEL, name: 'digests', is_member: true, is_archived: true });
    h.slack.expectRefusal('chat.postMessage', 'is_archived');
    clock.now = at('2024-03-09T17:01:00Z');
    await fireTimers(h);
    expect(await h.bot.deps.store.reports.digest(TEAM_ID, CHANNEL)).toBeUndefined();
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBeUndefined();
  });

  it('keeps the schedule of a channel closed to apps (read-only), a channel refusal as Slack’s error table says', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    await run(h, 'digest daily', { channelId: CHANNEL });
    h.slack.restrictChannel(CHANNEL, 'read-only');
    clock.now = at('2024-03-08T17:01:00Z');
    await fireTimers(h);
    expect(cards(h)).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage').at(-1)?.response.error).toBe('restricted_action_read_only_channel');
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBe(at('2024-03-09T17:00:00Z'));
    expect(h.logs()).toContain('the schedule is kept');
  });

  it('posts `digest now` from the channel’s outbox: a 429 is waited out, a paused channel holds it until it takes posts', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: 1 });
    expect((await run(h, 'digest now', { channelId: CHANNEL })).text).toContain(
      '🗞️ The digest is on its way to this channel.',
    );
    await queueDrained(h);
    expect(cards(h)).toHaveLength(1);
    const tries = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL);
    expect(tries.map((c) => [c.status, c.response.ok])).toEqual([
      [429, false],
      [200, true],
    ]);

    await h.bot.deps.store.channelPauses.pause(TEAM_ID, CHANNEL, 'not_in_channel');
    const paused = (await run(h, 'digest now', { channelId: CHANNEL })).text;
    expect(paused).toContain('The digest waits: posting here is paused');
    expect(await h.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: CHANNEL })).toBe(1);
    await h.bot.deps.store.channelPauses.resume(TEAM_ID, CHANNEL);
    await queueDrained(h);
    expect(cards(h)).toHaveLength(2);
  });

  it('asks for an invite and schedules nothing when the bot is not in the channel', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    h.slack.addChannel({ id: CHANNEL, name: 'digests', is_member: false });
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    expect((await run(h, 'digest daily', { channelId: CHANNEL })).text).toContain('/invite @Campaign');
    expect(await h.bot.deps.store.reports.digest(TEAM_ID, CHANNEL)).toBeUndefined();
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBeUndefined();
  });
});

describe('uninstalling the app', () => {
  it('ends the workspace’s digests and quota alerts', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start('memory', clock);
    await run(h, 'digest weekly', { channelId: CHANNEL });
    await run(h, 'quota-alert 99', { channelId: CHANNEL });
    expect((await h.signer.event({ type: 'app_uninstalled' })).status).toBe(200);
    // The uninstall runs after Slack's event is acknowledged; it says when it is done.
    await waitFor(() => h.logs().includes('workspace uninstalled: everything kept for it is deleted'), 'the uninstall');
    expect(await h.bot.deps.store.reports.digests(TEAM_ID)).toEqual([]);
    expect(await h.bot.deps.store.reports.quotaAlerts(TEAM_ID)).toEqual([]);
    expect(await h.bot.deps.store.timers.dueAt('digest', timerId)).toBeUndefined();
    expect(await h.bot.deps.store.timers.dueAt('quota-alert', timerId)).toBeUndefined();
    expect(await h.bot.deps.store.timers.dueAt('digest-snapshot', JSON.stringify([TEAM_ID]))).toBeUndefined();
    expect(await h.bot.deps.store.reports.snapshots(TEAM_ID)).toEqual([]);
  });
});

describe('digests on two replicas sharing Redis', () => {
  it('posts each slot once, even when a firing is retried after it posted', async () => {
    const clock = { now: at('2024-03-08T08:00:00Z') };
    const keyPrefix = `${redis.prefix}shared:`;
    const a = await start('redis', clock, { keyPrefix });
    const b = await start('redis', clock, { keyPrefix, fakes: a });
    await run(a, 'digest daily * at 09:00 tz UTC', { channelId: CHANNEL });

    clock.now = at('2024-03-08T09:00:05Z');
    const fired = await Promise.all([a.bot.deps.timers.runDue(), b.bot.deps.timers.runDue()]);
    expect(fired.reduce((x, y) => x + y)).toBe(1);
    await queueDrained(a);
    expect(cards(a)).toHaveLength(1);

    // As if the replica that posted had died before moving the timer on: the slot is due again, its lease gone.
    const slot = at('2024-03-08T09:00:00Z');
    await a.bot.deps.store.timers.set('digest', timerId, slot);
    await a.bot.deps.store.kv.del(a.bot.deps.store.keys.timerLease('digest', timerId, slot));
    await Promise.all([b.bot.deps.timers.runDue(), a.bot.deps.timers.runDue()]);
    await queueDrained(a);
    expect(cards(a)).toHaveLength(1);
    expect(await b.bot.deps.store.timers.dueAt('digest', timerId)).toBe(at('2024-03-09T09:00:00Z'));
  });
});

describe('a workspace that is not connected', () => {
  it('is told when it sets a digest, and a scheduled one says so in the channel instead of failing silently', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await started({ defaultApiKey: false, bot: { now: () => clock.now } });
    expect((await run(h, 'digest daily', { channelId: CHANNEL })).text).toContain(
      'not connected to the campaign platform',
    );
    expect(await h.bot.deps.store.reports.digest(TEAM_ID, CHANNEL)).toBeUndefined();

    // A schedule made while it was connected, its key gone since.
    const schedule = {
      cadence: 'daily' as const,
      campaignId: '*',
      time: '09:00',
      timeZone: 'UTC',
      setBy: MEMBER_ID,
      setAt: clock.now,
    };
    await h.bot.deps.store.reports.setDigest(TEAM_ID, CHANNEL, schedule);
    await h.bot.deps.store.timers.set('digest', timerId, clock.now);
    await fireTimers(h);
    expect(cards(h)).toEqual([
      expect.stringContaining('This digest could not be made: This workspace is not connected'),
    ]);
    expect(await h.bot.deps.store.reports.lastFigures(TEAM_ID, CHANNEL)).toBeUndefined();
  });
});
