/**
 * A digest's period figures and its chart, driven through `/campaign digest` and the store's timers (fake
 * clock, fired with `runDue`) against the Slack stand-in and the platform simulator, in memory and on Redis:
 * the period's calls, connection rate and bookings as the difference between two snapshots of the dashboard's
 * totals (totals beside), a first digest without a baseline, the chart PNG shared in the channel (and what a
 * failed upload does), daily snapshots at midnight building the chart's days, and bounded snapshots.
 */
import { describe, expect, it } from 'vitest';
import { TEAM_ID, type Harness, harnessesPerTest, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { fireTimers, run } from '../events/support.js';
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
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

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

function chartUploads(h: Harness) {
  return h.slack.uploads.filter((u) => u.channel_id === CHANNEL && u.filename.endsWith('.png'));
}

/** Width and height from a PNG's IHDR chunk, after checking its signature. */
function pngSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
  expect(data.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

describe.each(['memory', 'redis'] as const)('digest figures and chart (%s)', (backend) => {
  it('shows the period’s calls, connection rate and bookings as the change between two snapshots, totals beside, with the chart below', async () => {
    const clock = { now: at('2024-03-08T08:00:00Z') };
    const h = await start(backend, clock);
    setTotals(h, { calls: 1_000, connected: 500, bookings: 100, minutes: 60 });

    await run(h, 'digest daily * at 09:00 tz UTC', { channelId: CHANNEL });
    // Setting the digest up took the first snapshot, and set the daily one for just after midnight (UTC here).
    expect((await h.bot.deps.store.reports.snapshots(TEAM_ID)).map((s) => s.at)).toEqual([clock.now]);
    expect(await snapshotDue(h)).toBe(at('2024-03-09T00:00:00Z') + phase);

    setTotals(h, { calls: 1_100, connected: 560, bookings: 110, minutes: 90 });
    clock.now = at('2024-03-08T09:00:10Z');
    const rssBefore = process.memoryUsage().rss;
    await fireTimers(h);
    const rssAfter = process.memoryUsage().rss;

    expect(cards(h)).toHaveLength(1);
    const first = cards(h)[0]!;
    expect(first).toContain('Daily digest for every campaign: 100 calls in this period, 60% connected');
    expect(first).toContain(
      '*Outbound*\\n100 calls (of 1,100)\\n60% connected (51% overall)\\n10 bookings (of 110)\\n30 min talk time (of 1 h 30 min)',
    );
    expect(first).toContain(`Changes since the snapshot of <!date^${at('2024-03-08T08:00:00Z') / 1000}^`);

    // The chart: a PNG shared into the channel right below the card, accepted by Slack.
    const [upload] = chartUploads(h);
    expect(upload).toBeDefined();
    expect(pngSize(upload!.data)).toEqual({ width: 1600, height: 800 });
    expect(upload!.filename).toBe('digest-2024-03-08.png');
    expect(upload!.initial_comment).toContain('📈 Daily digest: calls and connected share per day');
    const completed = h.slack.callsTo('files.completeUploadExternal');
    expect(completed.map((c) => c.response.ok)).toEqual([true]);
    const posts = h.slack.messages(CHANNEL);
    expect(posts.at(-1)?.files?.map((f) => [f.id, f.mimetype])).toEqual([[upload!.file_id, 'image/png']]);
    expect(posts.at(-2)?.text).toContain('Daily digest for every campaign');
    // No daily figures yet (one day old); this month's and earlier months' quota are on it.
    expect(h.slack.file(upload!.file_id)?.file.alt_txt).toContain('no daily figures yet');
    expect(h.slack.file(upload!.file_id)?.file.alt_txt).toContain('Quota used per month: Mar 2024 313 h of 507 h');
    const rendered = /"renderMs":(\d+)/.exec(h.logs());
    console.info(
      `[digest chart] render ${rendered?.[1] ?? '?'} ms, RSS ${((rssAfter - rssBefore) / 1024 / 1024).toFixed(1)} MB more across the first digest (${backend})`,
    );

    // The next day: the change since this digest (the channel's previous one).
    setTotals(h, { calls: 1_150, connected: 590, bookings: 111, minutes: 100 });
    clock.now = at('2024-03-09T09:00:05Z');
    await fireTimers(h);
    expect(cards(h)).toHaveLength(2);
    const second = cards(h)[1]!;
    expect(second).toContain('50 calls (of 1,150)\\n60% connected (51% overall)\\n1 booking (of 111)');
    expect(second).toContain(`Changes since the previous digest (<!date^${at('2024-03-08T09:00:10Z') / 1000}^`);
    expect(chartUploads(h)).toHaveLength(2);
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
    expect(text).toContain('✅ Posted.');
    const [card] = cards(h);
    expect(card).toContain('Campaign digest for every campaign: no baseline yet, 1,792 calls in total');
    expect(card).toContain('*Calls:* no baseline yet. This is the first digest here');
    expect(card).toContain('*Outbound*\\n1,284 calls in total\\n62% connected\\n143 bookings made');
    expect(chartUploads(h)).toHaveLength(1);
    // Its snapshot is the next digest's baseline.
    expect((await h.bot.deps.store.reports.lastFigures(TEAM_ID, CHANNEL))?.at).toBe(clock.now);
  });

  it('still posts the card when the chart cannot be shared, and says so in its thread', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    h.slack.failMethod('files.getUploadURLExternal', 'internal_error', 1);
    h.slack.expectRefusal('files.getUploadURLExternal', 'internal_error');

    const { text } = await run(h, 'digest now', { channelId: CHANNEL });
    expect(text).toContain('✅ Posted. Its chart could not be attached this time.');
    const card = h.slack.messages(CHANNEL).find((m) => m.text.includes('digest for'));
    expect(card).toBeDefined();
    expect(h.slack.thread(CHANNEL, card!.ts).map((m) => m.text)).toEqual([
      card!.text,
      'The chart could not be attached to this digest this time; the next digest tries again.',
    ]);
    expect(chartUploads(h)).toHaveLength(0);
    expect(h.logs()).toContain('digest chart could not be shared');
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

    clock.now = at('2024-03-16T10:00:00Z');
    await run(h, 'digest now', { channelId: CHANNEL });
    const last = chartUploads(h).at(-1)!;
    // Days 2 to 15 March; 8 and 9 March lack their midnight snapshot.
    const known = [2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15].map((d) => perDay.get(`Mar ${d}`)!);
    expect(h.slack.file(last.file_id)?.file.alt_txt).toContain(
      `Calls per day, Mar 2 to Mar 15 (UTC): ${known.reduce((a, b) => a + b, 0)} calls over the 12 days with figures.`,
    );

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
