/**
 * Per workspace: who its people are, as Slack last said — one letter per user id (never a user object: no
 * names, e-mails or profiles) — and when the roster was listed. What channels are judged by
 * (`app/roster.ts`): a 3,000-person channel is judged by one read of this hash, not 3,000 questions to Slack.
 * One hash per workspace (field: user id; field `#`: the roster's own facts), shared by every replica.
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

/** `m` a full member (or a bot), `g` a guest, `x` someone of another organisation, `d` deactivated. */
export type Verdict = 'm' | 'g' | 'x' | 'd';
const VERDICTS = new Set<string>(['m', 'g', 'x', 'd']);

const metaSchema = z.object({
  /** Epoch ms the workspace's people were last listed whole (users.list). */
  listedAt: z.number(),
  /** Epoch ms someone's verdict last changed (a listing, or Slack's word on one person): audiences judged before are stale. */
  changedAt: z.number(),
  /** The workspace's Enterprise Grid org, when it is in one: its people count as ours. */
  enterpriseId: z.string().optional(),
  /** Slack may have held events back since then (app_rate_limited): listed again before it is trusted. */
  staleSince: z.number().optional(),
});
export type RosterMeta = z.infer<typeof metaSchema>;

const META = '#';
/** Fields per HSET / HMGET: a 10,000-person workspace in ten round trips, none of them huge. */
const CHUNK = 1_000;

export class RosterRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  async meta(teamId: string): Promise<RosterMeta | undefined> {
    const raw = await this.kv.hashGet(this.keys.roster(teamId), META);
    if (raw === null) return undefined;
    try {
      const parsed = metaSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async setMeta(teamId: string, meta: RosterMeta): Promise<void> {
    await this.kv.hashSet(this.keys.roster(teamId), { [META]: JSON.stringify(meta) });
  }

  /** Each user's verdict, in order; undefined for someone the roster does not know. */
  async verdicts(teamId: string, userIds: readonly string[]): Promise<(Verdict | undefined)[]> {
    const out: (Verdict | undefined)[] = [];
    for (let i = 0; i < userIds.length; i += CHUNK) {
      const values = await this.kv.hashGetMany(this.keys.roster(teamId), userIds.slice(i, i + CHUNK));
      for (const v of values) out.push(v !== null && VERDICTS.has(v) ? (v as Verdict) : undefined);
    }
    return out;
  }

  /** One person's verdict; answers the one it replaced. */
  async set(teamId: string, userId: string, verdict: Verdict): Promise<Verdict | undefined> {
    const key = this.keys.roster(teamId);
    const before = await this.kv.hashGet(key, userId);
    await this.kv.hashSet(key, { [userId]: verdict });
    return before !== null && VERDICTS.has(before) ? (before as Verdict) : undefined;
  }

  /** The whole roster as listed now: everyone in `verdicts`, nobody else (people met elsewhere are asked again). */
  async replace(teamId: string, verdicts: ReadonlyMap<string, Verdict>, meta: RosterMeta): Promise<void> {
    const key = this.keys.roster(teamId);
    const entries = [...verdicts];
    for (let i = 0; i < entries.length; i += CHUNK)
      await this.kv.hashSet(key, Object.fromEntries(entries.slice(i, i + CHUNK)));
    const gone = (await this.kv.hashFields(key)).filter((f) => f !== META && !verdicts.has(f));
    for (let i = 0; i < gone.length; i += CHUNK) await this.kv.hashDel(key, ...gone.slice(i, i + CHUNK));
    await this.setMeta(teamId, meta);
  }
}
