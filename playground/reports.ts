/** Days of dashboard snapshots the playground starts with: the digest chart's 14 days. */
const HISTORY_DAYS = 14;
/** As the bot bounds its own series (src/digests/snapshots.ts): 45 days, 400 snapshots at most. */
const SNAPSHOT_BOUNDS = { keepMs: 45 * 86_400_000, max: 400 };

/**
 * The Simulate panel's report buttons: fire the channels' scheduled digests now, and move this month's usage
 * on the platform and run the quota-alert checks at once. Both go through the bot's own store-kept timers
 * (made due now, then one tick), so what the page shows is exactly what a scheduled firing posts.
 */
import type { Bot } from '../src/bot/compose.js';
import { DIGEST_TIMER, QUOTA_TIMER, timerId } from '../src/digests/index.js';
import type { DashboardStats } from '../src/api/dashboard.js';
import { figuresOf } from '../src/digests/period.js';
import { currentQuotaRow, dashboardHistory, type FakePlatform } from '../fakes/platform/index.js';
import type { Outcome } from './page-api.js';

export class PlaygroundReports {
  constructor(
    private readonly bot: Bot,
    private readonly platform: FakePlatform,
    private readonly teamId: string,
  ) {}

  /**
   * The snapshots a bot running for the last two weeks would hold (one each local midnight), so the first
   * digest shows its period and a full chart rather than "no baseline yet".
   */
  async seedHistory(today: Date): Promise<void> {
    for (const day of dashboardHistory(this.platform.state, today, HISTORY_DAYS)) {
      // The simulator's rows are the wire format the client reads (its schema also takes unknown fields).
      const figures = figuresOf({ totals: day.totals } as DashboardStats, day.at);
      await this.bot.deps.store.reports.addSnapshot(this.teamId, figures, SNAPSHOT_BOUNDS);
    }
  }

  async fireDigests(): Promise<Outcome> {
    const channels = (await this.bot.deps.store.reports.digests(this.teamId)).map((d) => d.channelId);
    if (channels.length === 0) {
      return {
        ok: false,
        error: 'No channel has a digest yet: run `/campaign digest daily` in a channel first (e.g. #general).',
      };
    }
    await this.fireNow(DIGEST_TIMER, channels);
    return { ok: true };
  }

  /** Sets this month's usage to `percent` of its allowance; channels with quota alerts are checked at once. */
  async setUsage(percent: number): Promise<Outcome> {
    const month = currentQuotaRow(this.platform.state);
    if (!month) return { ok: false, error: 'The simulator has no quota on record.' };
    const plan = /^\d+$/.test(month.PlanQuota) ? BigInt(month.PlanQuota) : 0n;
    const total = plan + BigInt(month.PurchasedMs) + BigInt(month.RolloverMs);
    // Rounded up, so the bar (which rounds down) shows the percentage asked for.
    month.TotalUsageMs = String((total * BigInt(Math.round(percent * 100)) + 9_999n) / 10_000n);
    month.Timestamp = new Date().toISOString();
    const channels = (await this.bot.deps.store.reports.quotaAlerts(this.teamId)).map((a) => a.channelId);
    if (channels.length > 0) await this.fireNow(QUOTA_TIMER, channels);
    return { ok: true };
  }

  private async fireNow(kind: string, channels: readonly string[]): Promise<void> {
    const now = this.bot.deps.store.now();
    for (const channel of channels) await this.bot.deps.store.timers.set(kind, timerId(this.teamId, channel), now);
    await this.bot.deps.timers.runDue();
  }
}
