/**
 * Outcome alerts (`/campaign alert`): per workspace, each channel's alert per campaign (or `*`), its open
 * incident, and the counts of its window.
 *
 * Counts are kept per time bucket (a minute for windows up to an hour, so a window has at most 60 buckets) in
 * one hash per alert: `<bucket>:calls` and `<bucket>:matched`. A completed call is counted once for all the
 * workspace's alerts by one atomic step (`countOnce`: the calls lately counted, one capped set per workspace,
 * then the buckets), so a retried event never counts twice and every replica counts into the same window. Reading a window drops the buckets it has
 * left behind; the hashes and marks expire on their own once nothing is counted.
 */
import { z } from 'zod';
import { shortDigest } from './digest.js';
import type { Keys } from './keys.js';
import type { HashCount, KeyValueStore } from './kv.js';
import { routeFiltersSchema } from './routes.js';
import { parseStored } from './stored-json.js';

const outcomeAlertSchema = z.object({
  /** A campaign id, or '*' for every campaign. */
  campaignId: z.string().min(1),
  channelId: z.string().min(1),
  /** Which calls count as matching (never empty). */
  filters: routeFiltersSchema,
  /** The incident opens when at least this percentage of the window's calls match. */
  abovePercent: z.number().positive().max(100),
  windowMs: z.number().int().positive(),
  /** No incident opens (nor resolves) with fewer calls than this in the window. */
  minCalls: z.number().int().positive(),
  /** Slack users (`U…`/`W…`) and user groups (`S…`) the alert's post mentions. */
  notify: z.array(z.string()).optional(),
  /** The name Slack gave each of `notify`'s ids (`@sales`, `ada`): how the alert is listed without a mention. */
  notifyNames: z.record(z.string(), z.string()).optional(),
  setBy: z.string(),
  setAt: z.number(),
});
export type OutcomeAlert = z.infer<typeof outcomeAlertSchema>;

const figuresSchema = z.object({ calls: z.number().int().nonnegative(), matched: z.number().int().nonnegative() });
export type WindowFigures = z.infer<typeof figuresSchema>;

export const INCIDENT_ENDS = ['resolved', 'quiet', 'removed'] as const;
/** How an incident ended: the share fell under the threshold, the calls stopped, or the alert was removed. */
export type IncidentEnd = (typeof INCIDENT_ENDS)[number];

const incidentSchema = z.object({
  /** The alert's terms as the post shows them (kept here too: an incident outlives an alert removed meanwhile). */
  alert: outcomeAlertSchema,
  /** The incident's top-level post, once Slack took it (until then the opening waits in the channel's outbox). */
  ts: z.string().min(1).optional(),
  openedAt: z.number(),
  /** What the post shows now, and when it was last changed. */
  shown: figuresSchema,
  updatedAt: z.number(),
  /** The `updatedAt` of what the post shows: behind `updatedAt` while an update waits for the channel. */
  postedAt: z.number().optional(),
  /** The highest share of matching calls seen (percent). */
  peakPercent: z.number(),
  /**
   * Set once the incident is over: how, the figures that ended it (a retry posts the same), when, who removed
   * the alert (`removed`), and the reply that said so in the thread once it is posted.
   */
  ending: z
    .object({
      end: z.enum(INCIDENT_ENDS),
      figures: figuresSchema,
      at: z.number(),
      by: z.string().optional(),
      replyTs: z.string().optional(),
    })
    .optional(),
});
export type AlertIncident = z.infer<typeof incidentSchema>;

/** Where an alert lives: one per channel and campaign. */
export interface AlertRef {
  channelId: string;
  campaignId: string;
}

/** How long a bucket is for a window: a minute, or a sixtieth of windows longer than an hour (whole minutes). */
function bucketMs(windowMs: number): number {
  return Math.max(60_000, Math.ceil(windowMs / 60 / 60_000) * 60_000);
}

/** Counts and marks outlive their window by this much (a window read late still finds them). */
const KEEP_AFTER_WINDOW_MS = 3_600_000;
/** Calls kept in the workspace's counted set: a retried event runs again within minutes, not 1,000 calls later. */
const COUNTED_KEPT = 1_000;

export class OutcomeAlertRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  async list(teamId: string): Promise<OutcomeAlert[]> {
    const all = await this.kv.hashGetAll(this.keys.outcomeAlerts(teamId));
    return Object.values(all)
      .flatMap((raw) => parseStored(outcomeAlertSchema, raw) ?? [])
      .sort((a, b) => a.channelId.localeCompare(b.channelId) || a.campaignId.localeCompare(b.campaignId));
  }

  /** The platform subscriptions the workspace's alerts need: `call_completed` of each campaign (or `*`) alerted on. */
  async hooks(teamId: string): Promise<Array<{ campaignId: string; triggerName: 'call_completed' }>> {
    const campaigns = new Set((await this.list(teamId)).map((a) => a.campaignId));
    return [...campaigns].map((campaignId) => ({ campaignId, triggerName: 'call_completed' as const }));
  }

  async get(teamId: string, at: AlertRef): Promise<OutcomeAlert | undefined> {
    return parseStored(outcomeAlertSchema, await this.kv.hashGet(this.keys.outcomeAlerts(teamId), field(at)));
  }

  /** Stores the alert, replacing the channel's alert for the campaign; counts made under other terms start afresh. */
  async set(teamId: string, alert: OutcomeAlert): Promise<void> {
    const before = await this.get(teamId, alert);
    await this.kv.hashSet(this.keys.outcomeAlerts(teamId), { [field(alert)]: JSON.stringify(alert) });
    if (
      before &&
      (before.windowMs !== alert.windowMs || JSON.stringify(before.filters) !== JSON.stringify(alert.filters))
    )
      await this.kv.del(this.keys.alertWindow(teamId, field(alert)));
  }

  /** Returns whether there was one. Its counts go too; its incident is the caller's (`endIncident`). */
  async remove(teamId: string, at: AlertRef): Promise<boolean> {
    await this.kv.del(this.keys.alertWindow(teamId, field(at)));
    return (await this.kv.hashDel(this.keys.outcomeAlerts(teamId), field(at))) > 0;
  }

  /**
   * Counts one completed call (`callKey`: the same for every retry of its event) in these alerts' windows at
   * `now`: `matched` says which it matched. False when the call was counted before.
   */
  async count(
    teamId: string,
    callKey: string,
    alerts: ReadonlyArray<{ alert: OutcomeAlert; matched: boolean }>,
    now: number,
  ): Promise<boolean> {
    if (alerts.length === 0) return false;
    const counts: HashCount[] = alerts.flatMap(({ alert, matched }) => {
      const key = this.keys.alertWindow(teamId, field(alert));
      const bucket = Math.floor(now / bucketMs(alert.windowMs));
      const ttlMs = alert.windowMs + bucketMs(alert.windowMs) + KEEP_AFTER_WINDOW_MS;
      return [
        { key, field: `${bucket}:calls`, by: 1, ttlMs },
        ...(matched ? [{ key, field: `${bucket}:matched`, by: 1, ttlMs }] : []),
      ];
    });
    const ttlMs = Math.max(...alerts.map((a) => a.alert.windowMs)) + KEEP_AFTER_WINDOW_MS;
    const counted = { key: this.keys.alertCounted(teamId), member: shortDigest(callKey), ttlMs, keep: COUNTED_KEPT };
    return this.kv.countOnce(counted, now, counts);
  }

  /** The calls counted in the alert's window ending at `now`; buckets older than the window are dropped. */
  async window(teamId: string, alert: OutcomeAlert, now: number): Promise<WindowFigures> {
    const key = this.keys.alertWindow(teamId, field(alert));
    const size = bucketMs(alert.windowMs);
    const current = Math.floor(now / size);
    const oldest = current - Math.ceil(alert.windowMs / size) + 1;
    const figures = { calls: 0, matched: 0 };
    const stale: string[] = [];
    for (const [name, value] of Object.entries(await this.kv.hashGetAll(key))) {
      const [bucket, what] = name.split(':');
      const n = Number(value);
      if (bucket === undefined || (what !== 'calls' && what !== 'matched') || !Number.isSafeInteger(n)) continue;
      if (Number(bucket) < oldest) stale.push(name);
      else if (Number(bucket) <= current) figures[what] += n;
    }
    if (stale.length > 0) await this.kv.hashDel(key, ...stale);
    return figures;
  }

  async incident(teamId: string, at: AlertRef): Promise<AlertIncident | undefined> {
    return parseStored(incidentSchema, await this.kv.hashGet(this.keys.alertIncidents(teamId), field(at)));
  }

  async setIncident(teamId: string, at: AlertRef, incident: AlertIncident): Promise<void> {
    await this.kv.hashSet(this.keys.alertIncidents(teamId), { [field(at)]: JSON.stringify(incident) });
  }

  async endIncident(teamId: string, at: AlertRef): Promise<void> {
    await this.kv.hashDel(this.keys.alertIncidents(teamId), field(at));
  }
}

/** An alert's field in its workspace's hashes (JSON: unambiguous whatever the ids hold). */
function field(at: AlertRef): string {
  return JSON.stringify([at.channelId, at.campaignId]);
}
