/**
 * Channel reports: digest schedules, the figures each digest was built from (the next one shows the change
 * against them), quota-alert thresholds, and "posted" marks that make each scheduled report post once even
 * when two replicas (or a retried firing) try. One hash per workspace and kind, keyed by channel id; values
 * are JSON checked on the way out, so a damaged value reads as absent instead of breaking a timer.
 *
 * Beside them, per workspace, a bounded series of snapshots of the dashboard's totals (taken at each digest
 * and daily): the baselines of a channel's first digest and the daily figures of the digest's chart.
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { parseStored } from './stored-json.js';

export const DIGEST_CADENCES = ['daily', 'weekly'] as const;
export type DigestCadence = (typeof DIGEST_CADENCES)[number];
export const CALL_CATEGORIES = ['Outbound', 'Inbound', 'Web'] as const;

const digestScheduleSchema = z.object({
  cadence: z.enum(DIGEST_CADENCES),
  /** A campaign id, or '*' for every campaign. */
  campaignId: z.string().min(1),
  /** Local wall-clock time, `HH:MM` (24 h). */
  time: z.string().regex(/^\d{2}:\d{2}$/),
  /** IANA time zone, e.g. `Europe/Berlin`. */
  timeZone: z.string().min(1),
  setBy: z.string(),
  setAt: z.number(),
});
export type DigestSchedule = z.infer<typeof digestScheduleSchema>;

const categoryFiguresSchema = z.object({
  calls: z.number(),
  durationMs: z.number(),
  /** Connected calls (the dashboard's connection rate × calls); absent when the dashboard did not give it. */
  connected: z.number().optional(),
  /** Bookings made (the dashboard's lifetime count); absent when the dashboard did not give it. */
  bookings: z.number().optional(),
});
const digestFiguresSchema = z.object({
  /** When the figures were read (epoch ms): for a digest's, the start of the next one's period. */
  at: z.number(),
  totals: z.partialRecord(z.enum(CALL_CATEGORIES), categoryFiguresSchema),
});
export type DigestFigures = z.infer<typeof digestFiguresSchema>;

const quotaAlertSchema = z.object({
  /** Percentages of the month's allowance, ascending, each posted once per month. */
  thresholds: z.array(z.number().int().positive()).min(1),
  setBy: z.string(),
  setAt: z.number(),
});
export type QuotaAlertSetting = z.infer<typeof quotaAlertSchema>;

/** How long and how many dashboard snapshots a workspace keeps (daily ones, plus one per digest posted). */
export interface SnapshotBounds {
  keepMs: number;
  max: number;
}

export class ReportRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  async digest(teamId: string, channelId: string): Promise<DigestSchedule | undefined> {
    return parseStored(digestScheduleSchema, await this.kv.hashGet(this.keys.digests(teamId), channelId));
  }

  async setDigest(teamId: string, channelId: string, schedule: DigestSchedule): Promise<void> {
    await this.kv.hashSet(this.keys.digests(teamId), { [channelId]: JSON.stringify(schedule) });
  }

  /** Returns whether the channel had a schedule. Its previous figures go too: a new schedule starts afresh. */
  async removeDigest(teamId: string, channelId: string): Promise<boolean> {
    await this.kv.hashDel(this.keys.digestFigures(teamId), channelId);
    return (await this.kv.hashDel(this.keys.digests(teamId), channelId)) > 0;
  }

  /** Every channel's digest schedule in the workspace, by channel id. */
  async digests(teamId: string): Promise<Array<{ channelId: string; schedule: DigestSchedule }>> {
    return entries(digestScheduleSchema, await this.kv.hashGetAll(this.keys.digests(teamId))).map(
      ([channelId, schedule]) => ({ channelId, schedule }),
    );
  }

  async lastFigures(teamId: string, channelId: string): Promise<DigestFigures | undefined> {
    return parseStored(digestFiguresSchema, await this.kv.hashGet(this.keys.digestFigures(teamId), channelId));
  }

  async setLastFigures(teamId: string, channelId: string, figures: DigestFigures): Promise<void> {
    await this.kv.hashSet(this.keys.digestFigures(teamId), { [channelId]: JSON.stringify(figures) });
  }

  /**
   * Adds a snapshot of the dashboard's totals to the workspace's series, then drops those older than
   * `keepMs` and the oldest beyond `max`. The series expires `keepMs` after its last write, so a workspace
   * whose digests stopped forgets it by itself.
   */
  async addSnapshot(teamId: string, snapshot: DigestFigures, bounds: SnapshotBounds): Promise<void> {
    const key = this.keys.digestSnapshots(teamId);
    await this.kv.hashSet(key, { [String(Math.trunc(snapshot.at))]: JSON.stringify(snapshot) });
    const times = (await this.kv.hashFields(key)).sort((a, b) => Number(b) - Number(a));
    const stale = times.filter((t, i) => i >= bounds.max || !(Number(t) >= snapshot.at - bounds.keepMs));
    if (stale.length > 0) await this.kv.hashDel(key, ...stale);
    await this.kv.expire(key, bounds.keepMs);
  }

  /** The workspace's snapshots, oldest first. */
  async snapshots(teamId: string): Promise<DigestFigures[]> {
    return entries(digestFiguresSchema, await this.kv.hashGetAll(this.keys.digestSnapshots(teamId)))
      .map(([, figures]) => figures)
      .sort((a, b) => a.at - b.at);
  }

  async quotaAlert(teamId: string, channelId: string): Promise<QuotaAlertSetting | undefined> {
    return parseStored(quotaAlertSchema, await this.kv.hashGet(this.keys.quotaAlerts(teamId), channelId));
  }

  async setQuotaAlert(teamId: string, channelId: string, setting: QuotaAlertSetting): Promise<void> {
    await this.kv.hashSet(this.keys.quotaAlerts(teamId), { [channelId]: JSON.stringify(setting) });
  }

  async removeQuotaAlert(teamId: string, channelId: string): Promise<boolean> {
    return (await this.kv.hashDel(this.keys.quotaAlerts(teamId), channelId)) > 0;
  }

  async quotaAlerts(teamId: string): Promise<Array<{ channelId: string; setting: QuotaAlertSetting }>> {
    return entries(quotaAlertSchema, await this.kv.hashGetAll(this.keys.quotaAlerts(teamId))).map(
      ([channelId, setting]) => ({ channelId, setting }),
    );
  }

  /** Marks one report of a period as posted; false when it already was (by this or another replica). */
  mark(kind: string, teamId: string, channelId: string, period: string, ttlMs: number): Promise<boolean> {
    return this.kv.set(this.keys.reportMark(kind, teamId, channelId, period), String(Date.now()), {
      onlyIfAbsent: true,
      ttlMs,
    });
  }

  /** Takes a mark back after the post failed, so the retried firing may post. */
  async unmark(kind: string, teamId: string, channelId: string, period: string): Promise<void> {
    await this.kv.del(this.keys.reportMark(kind, teamId, channelId, period));
  }
}

function entries<T>(schema: z.ZodType<T>, all: Record<string, string>): Array<[string, T]> {
  return Object.entries(all)
    .flatMap(([channelId, raw]): Array<[string, T]> => {
      const value = parseStored(schema, raw);
      return value === undefined ? [] : [[channelId, value]];
    })
    .sort(([a], [b]) => a.localeCompare(b));
}
