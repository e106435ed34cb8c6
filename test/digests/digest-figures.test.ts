/**
 * A digest's period figures and its charts, driven through `/campaign digest` and the store's timers (fake
 * clock, fired with `runDue`) against the Slack stand-in and the platform simulator, in memory and on Redis:
 * the period's calls, connection rate and bookings as the difference between two snapshots of the dashboard's
 * totals (totals beside), a first digest without a baseline, the charts Slack draws from the card's own
 * blocks (what the stand-in checks against Slack's limits), a figure no account could make charted as a gap,
 * daily snapshots at midnight building the chart's days, and bounded snapshots.
 */
import { describe, expect, it } from 'vitest';
import { TEAM_ID, type Harness, harnessesPerTest, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { fireTimers, queueDrained, run } from '../events/support.js';
import { waitFor } from '../support/wait.js';
import type { DigestFigures } from '../../src/store/index.js';
import { phaseOf } from '../../src/util/spread.js';

const redis = await requireRedis();
const CHANNEL = 'C0DIGEST02';
const SNAPSHOT_TIMER_ID = JSON.stringify([TEAM_ID]);
const at = (iso: string) => Date.parse(iso);
/** The workspace's minute after midnight for its daily snapshot: fixed, within the first half hour. */
const phase = phaseOf(TEAM_ID, 30 * 60_000);
const snapshotDue = (h: Harness) => h.bot.deps.store.timers.dueAt('digest-snapshot', SNAPSHOT_TIMER_ID);

const started = harnessesPerTest();
let n = 0;
const start = (backend: 'memory' | 'redis', clock: { now: number }) =>
  started({ ...storeOn(backend, redis, `${redis.prefix}fig${++n}:`), bot: { now: () => clock.now } });

/** The platform's dashboard: outbound calls only, with an unrounded connection rate (connected ÷ calls). */
function setTotals(h: Harness, t: { calls: number; connected: number; bookings: number; minutes: number }): void {
  h.platform.state.stats.totals = {
    Outbound: {
      calls: t.calls,
      durationMs: t.minutes * 60_000,
      connectionRate: t.connected / t.calls,
      successCalls: t.connected,
      bookingsMade: t.bookings,
      transfersMade: 0,
      lastCallDate: '2024-03-08T07:00:00.000Z',
    },
  };
}

function cards(h: Harness): string[] {
  return h.slack
    .messages(CHANNEL)
    .filter((m) => m.text.includes('digest for'))
    .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`);
}

interface Chart {
  type: 'data_visualization';
  title: string;
  chart: {
    type: string;
    segments?: Array<{ label: string; value: number }>;
    axis_config?: { categories: string[]; x_label?: string; y_label?: string };
    series?: Array<{ name: string; data: Array<{ label: string; value: number }> }>;
  };
}

/** The charts of the channel's digest cards Slack accepted and holds, card by card. */
function charts(h: Harness): Chart[][] {
  return h.slack
    .messages(CHANNEL)
    .filter((m) => m.text.includes('digest for'))
    .map((m) => (m.blocks as Array<{ type: string }>).filter((b): b is Chart => b.type === 'data_visualization'));
}

/** Slack was asked for one post per card, and for no file: the card carries its charts. */
function expectOneCallPerCard(h: Harness): void {
  const posts = h.slack
    .callsTo('chat.postMessage')
    .filter((c) => c.args.channel === CHANNEL && String(c.args.text).includes('digest for'));
  expect(posts.map((c) => c.response.ok)).toEqual(cards(h).map(() => true));
  expect(h.slack.calls.filter((c) => c.method.startsWith('files.'))).toEqual([]);
}

/** A series of the chart as `label value` pairs. */
const pointsOf = (chart: Chart, name: string) =>
  chart.chart.series?.find((s) => s.name === name)?.data.map((p) => `${p.label} ${p.value}`);

describe.each(['memory', 'redis'] as const)('digest figures and chart (%s)', (backend) => {
  it('shows the period’s calls, connection rate and bookings as the change between two snapshots, totals beside, with their outcomes charted in the card', async () => {
    const clock = { now: at('2024-03-08T08:00:00Z') };
    const h = await start(backend, clock);
    setTotals(h, { calls: 1_000, connected: 500, bookings: 100, minutes: 60 });

    await run(h, 'digest daily * at 09:00 tz UTC', { channelId: CHANNEL });
    // Setting the digest up took the first snapshot, and set the daily one for just after midnight (UTC here).
    expect((await h.bot.deps.store.reports.snapshots(TEAM_ID)).map((s) => s.at)).toEqual([clock.now]);
    expect(await snapshotDue(h)).toBe(at('2024-03-09T00:00:00Z') + phase);

    setTotals(h, { calls: 1_100, connected: 560, bookings: 110, minutes: 90 });
    clock.now = at('2024-03-08T09:00:10Z');
    await fireTimers(h);

    expect(cards(h)).toHaveLength(1);
    const first = cards(h)[0]!;
    // The message's text states the figures: what a notification shows and a screen reader reads.
    expect(h.slack.messages(CHANNEL).at(-1)?.text).toBe(
      'Daily digest for every campaign: 100 calls in this period, 60% connected, 10 bookings made',
    );
    expect(first).toContain(
      '*Outbound*\\n100 calls (of 1,100)\\n60% connected (51% overall)\\n10 bookings (of 110)\\n30 min talk time (of 1 h 30 min)',
    );
    expect(first).toContain(`Changes since the snapshot of <!date^${at('2024-03-08T08:00:00Z') / 1000}^`);

    // The period's calls by outcome, a pie Slack draws in the card; no calls per day yet (no midnight snapshot).
    expect(charts(h)[0]).toEqual([
      {
        type: 'data_visualization',
        title: 'Calls in this period by outcome',
        chart: {
          type: 'pie',
          segments: [
            { label: 'Booked', value: 10 },
            { label: 'Connected, unbooked', value: 50 },
            { label: 'Not connected', value: 40 },
          ],
        },
      },
    ]);

    // The next day: the change since this digest (the channel's previous one).
    setTotals(h, { calls: 1_150, connected: 590, bookings: 111, minutes: 100 });
    clock.now = at('2024-03-09T09:00:05Z');
    await fireTimers(h);
    expect(cards(h)).toHaveLength(2);
    const second = cards(h)[1]!;
    expect(second).toContain('50 calls (of 1,150)\\n60% connected (51% overall)\\n1 booking (of 111)');
    expect(second).toContain(`Changes since the previous digest (<!date^${at('2024-03-08T09:00:10Z') / 1000}^`);
    expect(charts(h)[1]?.[0]?.chart.segments?.map((s) => s.value)).toEqual([1, 29, 20]);
    expectOneCallPerCard(h);
    // The setup's, the first digest's, and the second digest's (the late midnight one, taken in the same
    // tick, is the same instant: one snapshot).
    expect((await h.bot.deps.store.reports.snapshots(TEAM_ID)).map((s) => s.at)).toEqual([
      at('2024-03-08T08:00:00Z'),
      at('2024-03-08T09:00:10Z'),
      at('2024-03-09T09:00:05Z'),
    ]);
  });

  it('says plainly that the first digest has no baseline, and shows the totals so far', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    const { text } = await run(h, 'digest now', { channelId: CHANNEL });
    expect(text).toContain('🗞️ The digest is on its way to this channel.');
    await queueDrained(h);
    const [card] = cards(h);
    expect(card).toContain('Campaign digest for every campaign: no baseline yet, 1,792 calls in total');
    expect(card).toContain('*Calls:* no baseline yet. This is the first digest here');
    expect(card).toContain('*Outbound*\\n1,284 calls in total\\n62% connected\\n143 bookings made');
    // Nothing to chart without a period or daily figures.
    expect(charts(h)).toEqual([[]]);
    expectOneCallPerCard(h);
    // Its snapshot is the next digest's baseline.
    expect((await h.bot.deps.store.reports.lastFigures(TEAM_ID, CHANNEL))?.at).toBe(clock.now);
  });

  it('says how long the allowance lasts at this month’s rate in days, then hours, then under an hour', async () => {
    // 8 March, noon: 7.5 days of the month gone. The allowance is 507 h 7 min (seeded).
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    const march = h.platform.state.quota.at(-1)!;
    const allowance = Number(march.PurchasedMs) + Number(march.RolloverMs);
    const lastsFor = async (usedShare: number) => {
      march.TotalUsageMs = String(Math.round(allowance * usedShare));
      await run(h, 'digest now', { channelId: CHANNEL });
      await queueDrained(h);
      return cards(h).at(-1)!;
    };
    expect(await lastsFor(0.7)).toContain('about *3 days* left at the current rate'); // 0.3 / 0.7 × 7.5 days
    expect(await lastsFor(0.97)).toContain('about *5 hours* left at the current rate'); // 0.03 / 0.97 × 180 h
    expect(await lastsFor(0.999)).toContain('*less than an hour* left at the current rate');
  });

  it('charts a day no account could make as a gap, and Slack accepts the card', async () => {
    const clock = { now: at('2024-03-16T10:00:00Z') };
    const h = await start(backend, clock);
    // Midnight snapshots from 2 to 16 March, 100 calls a day; the one of 12 March read a total of 1.7e308.
    const bounds = { keepMs: 45 * 86_400_000, max: 400 };
    for (let day = 2; day <= 16; day++) {
      const calls = day === 12 ? 1.7e308 : 1_000 + 100 * day;
      const totals = { Outbound: { calls, durationMs: 0, connected: Math.round(calls / 2) } };
      await h.bot.deps.store.reports.addSnapshot(TEAM_ID, { at: Date.UTC(2024, 2, day), totals }, bounds);
    }
    await run(h, 'digest now', { channelId: CHANNEL });
    await queueDrained(h);
    const [bars] = charts(h)[0]!;
    expect(bars?.title).toBe('Calls per day');
    expect(bars?.chart.axis_config).toEqual({
      categories: [
        'Sat, Mar 9',
        'Sun, Mar 10',
        'Mon, Mar 11',
        'Tue, Mar 12',
        'Wed, Mar 13',
        'Thu, Mar 14',
        'Fri, Mar 15',
      ],
      x_label: 'Day (UTC)',
      y_label: 'Calls',
    });
    // 11 March (up to the bad total) and 12 March (down from it) are gaps, not bars.
    expect(pointsOf(bars!, 'Last 7 days')).toEqual([
      'Sat, Mar 9 100',
      'Sun, Mar 10 100',
      'Wed, Mar 13 100',
      'Thu, Mar 14 100',
      'Fri, Mar 15 100',
    ]);
    expect(pointsOf(bars!, 'Week before')).toHaveLength(7);
    expect(h.slack.messages(CHANNEL).at(-1)?.text).toContain(
      'Calls per day, last 7 days (UTC), 500 in all (week before: 700): Sat, Mar 9: 100, Sun, Mar 10: 100, Mon, Mar 11: no figure, Tue, Mar 12: no figure, Wed, Mar 13: 100',
    );
    expectOneCallPerCard(h);
  });
});

describe('daily snapshots', () => {
  it('are taken at local midnight while the workspace has digests, and give the chart its days (a missed midnight is a gap)', async () => {
    // Friday 1 March 2024; weekly digests on Mondays.
    const clock = { now: at('2024-03-01T08:00:00Z') };
    const h = await start('redis', clock);
    let calls = 1_000;
    setTotals(h, { calls, connected: 500, bookings: 100, minutes: 60 });
    await run(h, 'digest weekly * at 09:00 tz UTC', { channelId: CHANNEL });

    const perDay = new Map<string, number>();
    for (let day = 2; day <= 16; day++) {
      const midnight = Date.UTC(2024, 2, day);
      // The bot is down over the night to 9 March: that snapshot is taken at 05:00, too far from midnight.
      clock.now = day === 9 ? midnight + 5 * 3_600_000 : midnight + phase + 5_000;
      await fireTimers(h);
      expect(await snapshotDue(h)).toBe(Date.UTC(2024, 2, day + 1) + phase);
      // The calls of the day that starts now.
      const made = 10 * day;
      perDay.set(`Mar ${day}`, made);
      calls += made;
      setTotals(h, { calls, connected: Math.round(calls / 2), bookings: 100, minutes: 60 + day });
    }
    // The Monday digests of 4 and 11 March went out (late, at the next midnight) with their charts.
    expect(cards(h)).toHaveLength(2);
    expect(charts(h)[1]?.map((c) => c.title)).toContain('Calls per day');

    clock.now = at('2024-03-16T10:00:00Z');
    await run(h, 'digest now', { channelId: CHANNEL });
    await queueDrained(h);
    const bars = charts(h)
      .at(-1)!
      .find((c) => c.title === 'Calls per day')!;
    // Days 9 to 15 March against 2 to 8 March, weekday by weekday; 8 and 9 March lack their midnight snapshot.
    const days = (from: number) => [0, 1, 2, 3, 4, 5, 6].map((i) => from + i);
    const label = (d: number) =>
      new Date(Date.UTC(2024, 2, d)).toLocaleDateString('en-US', {
        timeZone: 'UTC',
        weekday: 'short',
        month: 'short',
        day: 'numeric',
      });
    expect(bars.chart.axis_config?.categories).toEqual(days(9).map(label));
    expect(pointsOf(bars, 'Last 7 days')).toEqual(
      days(10)
        .slice(0, 6)
        .map((d) => `${label(d)} ${perDay.get(`Mar ${d}`)}`),
    );
    expect(pointsOf(bars, 'Week before')).toEqual(
      days(2)
        .slice(0, 6)
        .map((d) => `${label(d + 7)} ${perDay.get(`Mar ${d}`)}`),
    );
    expectOneCallPerCard(h);

    // Without digests, no more daily snapshots; an uninstall forgets the series.
    await run(h, 'digest off', { channelId: CHANNEL });
    expect(await h.bot.deps.store.timers.dueAt('digest-snapshot', SNAPSHOT_TIMER_ID)).toBeUndefined();
    expect((await h.bot.deps.store.reports.snapshots(TEAM_ID)).length).toBeGreaterThan(0);
    expect((await h.signer.event({ type: 'app_uninstalled' })).status).toBe(200);
    // The uninstall runs after Slack's event is acknowledged.
    await waitFor(async () => (await h.bot.deps.store.reports.snapshots(TEAM_ID)).length === 0, 'the uninstall');
    expect(await h.bot.deps.store.reports.snapshots(TEAM_ID)).toEqual([]);
  });

  it('are bounded per workspace: the newest within the keeping time, at most the maximum, expiring when unused', async () => {
    for (const backend of ['memory', 'redis'] as const) {
      const clock = { now: at('2024-03-20T00:00:00Z') };
      const h = await start(backend, clock);
      const reports = h.bot.deps.store.reports;
      const snap = (day: number): DigestFigures => ({
        at: Date.UTC(2024, 2, day),
        totals: { Outbound: { calls: day, durationMs: 0 } },
      });
      const bounds = { keepMs: 10 * 86_400_000, max: 5 };
      for (const day of [1, 5, 11, 12, 13, 14, 15, 16, 17]) await reports.addSnapshot(TEAM_ID, snap(day), bounds);
      expect((await reports.snapshots(TEAM_ID)).map((s) => s.totals.Outbound?.calls)).toEqual([13, 14, 15, 16, 17]);
      await reports.addSnapshot(TEAM_ID, snap(30), bounds);
      expect((await reports.snapshots(TEAM_ID)).map((s) => s.totals.Outbound?.calls)).toEqual([30]);
      if (backend === 'redis') {
        const ttl = await redis.redis.pttl(h.bot.deps.store.keys.digestSnapshots(TEAM_ID));
        expect(ttl).toBeGreaterThan(bounds.keepMs - 60_000);
        expect(ttl).toBeLessThanOrEqual(bounds.keepMs);
      }
    }
  });
});
