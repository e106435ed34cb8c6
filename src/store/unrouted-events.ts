/**
 * Events that arrived for no channel: the platform sent them, and no route of the workspace took them (nobody
 * subscribed that campaign's event, or the route went). `/campaign subscriptions` tells how many in the last
 * 7 days and which, so an event nobody sees is never dropped without a trace.
 *
 * Per workspace: a count per hour over 7 days, and the newest 20 events (trigger, campaign, when). Each event is
 * counted once however often its queue entry runs (`countOnce`: the entries counted lately, one capped set — an
 * entry runs again within minutes, never after a day, so a flood of events leaves no key per event); the keys
 * share the workspace's hash tag (one Redis Cluster slot) and expire once nothing arrives for 7 days.
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { parseStored } from './stored-json.js';

const UNROUTED_KEEP_MS = 7 * 24 * 3_600_000;
const HOUR_MS = 3_600_000;
/** The newest events kept with their details; the count covers every one. */
const RECENT_KEPT = 20;
/** The entries lately counted, kept to count each once: how many, and for how long (a queue entry waits a day). */
const COUNTED_KEPT = 1_000;
const COUNTED_TTL_MS = 24 * HOUR_MS;

const unroutedEventSchema = z.object({
  trigger: z.string(),
  campaignId: z.string().optional(),
  /** When it arrived (epoch ms). */
  at: z.number(),
});
export type UnroutedEvent = z.infer<typeof unroutedEventSchema>;

export interface UnroutedSummary {
  /** Events that arrived for no channel in the last 7 days. */
  count: number;
  /** The newest of them, newest first (at most 20). */
  recent: UnroutedEvent[];
}

export class UnroutedEventRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly now: () => number,
  ) {}

  /** Records one event (`eventKey`: the same for every run of its queue entry). False when it was recorded before. */
  async record(teamId: string, eventKey: string, event: UnroutedEvent): Promise<boolean> {
    // Counted in the hour it arrived.
    const counted = await this.kv.countOnce(
      { key: this.keys.unroutedCounted(teamId), member: eventKey, ttlMs: COUNTED_TTL_MS, keep: COUNTED_KEPT },
      this.now(),
      [
        {
          key: this.keys.unroutedCounts(teamId),
          field: String(Math.floor(event.at / HOUR_MS)),
          by: 1,
          ttlMs: UNROUTED_KEEP_MS + HOUR_MS,
        },
      ],
    );
    if (!counted) return false;
    // The newest RECENT_KEPT by arrival: added, then the oldest beyond them dropped (none read but those).
    const key = this.keys.unroutedRecent(teamId);
    const member = JSON.stringify({ ...unroutedEventSchema.parse(event), key: eventKey });
    await this.kv.sortedAdd(key, [{ member, score: event.at }]);
    await this.kv.expire(key, UNROUTED_KEEP_MS);
    const beyond = (await this.kv.sortedCount(key)) - RECENT_KEPT;
    if (beyond > 0) await this.kv.sortedRemove(key, ...(await this.kv.sortedFirst(key, beyond)).map((e) => e.member));
    return true;
  }

  /** What arrived for no channel in the last 7 days; older hours and events are dropped as they are read. */
  async summary(teamId: string): Promise<UnroutedSummary> {
    const since = this.now() - UNROUTED_KEEP_MS;
    const countsKey = this.keys.unroutedCounts(teamId);
    let count = 0;
    const stale: string[] = [];
    for (const [hour, value] of Object.entries(await this.kv.hashGetAll(countsKey))) {
      // An hour still overlapping the 7 days counts whole.
      if ((Number(hour) + 1) * HOUR_MS <= since) stale.push(hour);
      else count += Number(value) || 0;
    }
    if (stale.length > 0) await this.kv.hashDel(countsKey, ...stale);
    const recentKey = this.keys.unroutedRecent(teamId);
    const stored = await this.kv.sortedFirst(recentKey, RECENT_KEPT + 1);
    const old = stored.filter((e) => e.score <= since).map((e) => e.member);
    if (old.length > 0) await this.kv.sortedRemove(recentKey, ...old);
    const recent = stored
      .filter((e) => e.score > since)
      .flatMap((e) => parseStored(unroutedEventSchema, e.member) ?? [])
      .sort((a, b) => b.at - a.at);
    return { count: Math.max(count, recent.length), recent };
  }
}
