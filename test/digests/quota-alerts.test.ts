/**
 * `/campaign quota-alert`: checked at once, then every QUOTA_CHECK_S on a fake clock; one post per threshold
 * per month, in memory and on Redis.
 */
import { describe, expect, it } from 'vitest';
import { MEMBER_ID, TEAM_ID, type Harness, harnessesPerTest, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { fireTimers, queueDrained, run } from '../events/support.js';
import { phaseOf } from '../../src/util/spread.js';

const redis = await requireRedis();
const CHANNEL = 'C0QUOTA001';
const timerId = JSON.stringify([TEAM_ID, CHANNEL]);

const started = harnessesPerTest();
let n = 0;
const start = (backend: 'memory' | 'redis', clock: { now: number }) =>
  started({
    ...storeOn(backend, redis, `${redis.prefix}${++n}:`),
    env: { QUOTA_CHECK_S: '600' },
    bot: { now: () => clock.now },
  });

const alerts = (h: Harness) => h.slack.messages(CHANNEL).filter((m) => m.text.includes('Usage crossed'));

/** Sets this month's usage (March 2024 in the seed) to `percent` of its allowance. */
function useQuota(h: Harness, percent: number): void {
  const march = h.platform.state.quota.find((r) => r.RowKey === '2024-03')!;
  const total = BigInt(march.PurchasedMs) + BigInt(march.RolloverMs);
  march.TotalUsageMs = String((total * BigInt(percent)) / 100n);
}

describe.each(['memory', 'redis'] as const)('quota alerts (%s)', (backend) => {
  it('posts a threshold already crossed at once, later crossings at the next check, each once a month', async () => {
    const clock = { now: Date.parse('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);

    // Seeded usage is 61.7 %: 50 and 60 are crossed already, one card for the higher.
    const { text } = await run(h, 'quota-alert 90 50 60 60%', { channelId: CHANNEL });
    expect(text).toContain('Quota alerts set at 50%, 60%, 90%');
    expect(text).toContain('61.7%');
    expect(text).toContain('every 10 minutes');
    expect(text).toContain('It is past 50%, 60% already: the alert is on its way.');
    // Left in the channel's outbox, as a timer's alert: posted in the channel's turn.
    await queueDrained(h);
    expect(alerts(h).map((m) => m.text)).toEqual([expect.stringContaining('Usage crossed 60%')]);
    expect(JSON.stringify(alerts(h)[0]!.blocks)).toContain('████████████░░░░░░░░ 61.7%');
    // The next check within the period, at the workspace's own phase of it (workspaces spread over it).
    const due = (await h.bot.deps.store.timers.dueAt('quota-alert', timerId))!;
    expect(due - clock.now).toBeGreaterThan(0);
    expect(due - clock.now).toBeLessThanOrEqual(600_000);
    expect((due - phaseOf(TEAM_ID, 600_000)) % 600_000).toBe(0);

    clock.now += 600_000;
    await fireTimers(h);
    expect(alerts(h)).toHaveLength(1);
    // Checked, then again one period later.
    expect(await h.bot.deps.store.timers.dueAt('quota-alert', timerId)).toBe(due + 600_000);

    useQuota(h, 95);
    clock.now += 600_000;
    await fireTimers(h);
    expect(alerts(h).map((m) => m.text)).toEqual([
      expect.stringContaining('60%'),
      expect.stringContaining('Usage crossed 90%'),
    ]);

    // Set again the same month: thresholds already told are not told again.
    await run(h, 'quota-alert 90 100', { channelId: CHANNEL });
    clock.now += 600_000;
    await fireTimers(h);
    expect(alerts(h)).toHaveLength(2);

    useQuota(h, 101);
    clock.now += 600_000;
    await fireTimers(h);
    expect(alerts(h).at(-1)!.text).toContain('🚨 Usage crossed 100%');
    expect(alerts(h)).toHaveLength(3);
  });

  it('is for admins; `off` stops the checks; a platform failure sets nothing and says why', async () => {
    const clock = { now: Date.parse('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);

    expect((await run(h, 'quota-alert 80', { channelId: CHANNEL, userId: MEMBER_ID })).text).toContain(
      'Only Slack workspace admins',
    );
    expect((await run(h, 'quota-alert 80 lots', { channelId: CHANNEL })).text).toContain('`lots` is not a percentage');

    h.platform.inject({ path: '/customer-quota', status: 500, code: 'INTERNAL', times: 1 });
    const failed = (await run(h, 'quota-alert 80', { channelId: CHANNEL })).text;
    expect(failed).toContain('INTERNAL');
    expect(await h.bot.deps.store.reports.quotaAlert(TEAM_ID, CHANNEL)).toBeUndefined();

    await run(h, 'quota-alert 80', { channelId: CHANNEL });
    expect(await h.bot.deps.store.reports.quotaAlert(TEAM_ID, CHANNEL)).toMatchObject({ thresholds: [80] });
    expect((await run(h, 'digest', { channelId: CHANNEL, userId: MEMBER_ID })).text).toContain('Quota alerts at 80%');
    expect((await run(h, 'quota-alert off', { channelId: CHANNEL })).text).toContain('Quota alerts are off');
    expect(await h.bot.deps.store.timers.dueAt('quota-alert', timerId)).toBeUndefined();

    useQuota(h, 99);
    const before = h.platform.requests.length;
    clock.now += 3_600_000;
    await fireTimers(h);
    expect(h.platform.requests.length).toBe(before);
    expect(alerts(h)).toHaveLength(0);
  });
});
