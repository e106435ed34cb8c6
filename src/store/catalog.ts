/**
 * What the bot has seen of a workspace's platform things — campaigns (id, name, type), agents (id, name,
 * campaign) and phone numbers (id, campaign) — so people can name a campaign instead of quoting its id, and
 * forms can offer the ids. The platform lists none of them; the bot learns them from what passes through it
 * (webhook events, stats, bookings, routes, linked numbers). The platform stays the source of truth: an id
 * missing here may still exist there.
 *
 * One hash per workspace and kind, id → JSON. Bounded: at most `CATALOG_LIMITS` entries of a kind per
 * workspace; a new one beyond that drops the least recently seen tenth (one read of the hash per tenth, not
 * per entry). Cheap on the event path: this process remembers what it wrote, so an event that brings nothing
 * new costs no store call; an entry seen again is written again at most once an hour (its "last seen").
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { parseStored } from './stored-json.js';

export type CatalogKind = 'campaigns' | 'agents' | 'numbers';

/** The most entries of each kind kept per workspace. */
export const CATALOG_LIMITS: Readonly<Record<CatalogKind, number>> = { campaigns: 500, agents: 1_000, numbers: 1_000 };

/** A known entry seen again is written again (its `seenAt`) at most this often. */
const REFRESH_MS = 60 * 60_000;
/** Entries this process remembers having written (oldest forgotten first). */
const MEMO_MAX = 20_000;
/** Ids and names longer than this are not ids or names (campaign ids are path segments of at most 200). */
const MAX_ID = 200;
const MAX_TEXT = 200;

const storedSchema = z.object({
  n: z.string().optional(),
  t: z.string().optional(),
  c: z.string().optional(),
  s: z.number(),
});
type Stored = z.infer<typeof storedSchema>;

export interface CatalogEntry {
  id: string;
  /** The campaign's or agent's name, as the platform last sent it. */
  name?: string;
  /** A campaign's type (`outbound`, `inbound`, `web`, `messages`). */
  type?: string;
  /** The campaign an agent or a phone number belongs to. */
  campaignId?: string;
  /** When the bot last saw it (epoch ms; refreshed at most hourly). */
  seenAt: number;
}

/** What one sighting says about a thing; absent fields keep what was known. */
export interface CatalogFacts {
  id: string;
  name?: string | undefined;
  type?: string | undefined;
  campaignId?: string | undefined;
}

/** The fields every platform event carries about its campaign and agent. */
export interface Sighting {
  campaignId?: string | undefined;
  campaignName?: string | undefined;
  campaignType?: string | undefined;
  agentId?: string | undefined;
  agentName?: string | undefined;
}

export class CatalogRepo {
  /** `<kind>\0<team>\0<id>` → what this process last wrote (or read) there. Insertion order = age. */
  private readonly written = new Map<string, Stored>();

  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the campaign and agent an event names. */
  async noteSighting(teamId: string, s: Sighting): Promise<void> {
    if (s.campaignId)
      await this.note(teamId, 'campaigns', { id: s.campaignId, name: s.campaignName, type: s.campaignType });
    if (s.agentId) await this.note(teamId, 'agents', { id: s.agentId, name: s.agentName, campaignId: s.campaignId });
  }

  /** Records one sighting of a campaign, agent or number: new facts are merged in, known ones cost nothing. */
  async note(teamId: string, kind: CatalogKind, facts: CatalogFacts): Promise<void> {
    const id = clean(facts.id, MAX_ID);
    if (!id) return;
    const n = clean(facts.name, MAX_TEXT);
    const t = clean(facts.type, MAX_TEXT);
    const c = clean(facts.campaignId, MAX_ID);
    const memoKey = `${kind}\u0000${teamId}\u0000${id}`;
    const now = this.now();
    const known = this.written.get(memoKey);
    // The event path: nothing new and written within the hour → no store call, no allocation.
    if (known && now - known.s < REFRESH_MS && same(known.n, n) && same(known.t, t) && same(known.c, c)) return;
    const fresh: Partial<Stored> = {
      ...(n !== undefined ? { n } : {}),
      ...(t !== undefined ? { t } : {}),
      ...(c !== undefined ? { c } : {}),
    };

    const key = this.keys.catalog(teamId, kind);
    const before = known ?? parseStored(storedSchema, await this.kv.hashGet(key, id));
    const entry: Stored = { ...before, ...fresh, s: now };
    await this.kv.hashSet(key, { [id]: JSON.stringify(entry) });
    this.remember(memoKey, entry);
    if ((await this.kv.hashLen(key)) > CATALOG_LIMITS[kind]) await this.trim(teamId, kind);
  }

  /** Every known entry of a kind, most recently seen first. */
  async list(teamId: string, kind: CatalogKind): Promise<CatalogEntry[]> {
    return (await this.read(teamId, kind)).sort((a, b) => b.seenAt - a.seenAt || a.id.localeCompare(b.id));
  }

  /** Forgets one entry (e.g. an agent the platform deleted). */
  async forget(teamId: string, kind: CatalogKind, id: string): Promise<void> {
    this.written.delete(`${kind}\u0000${teamId}\u0000${id}`);
    await this.kv.hashDel(this.keys.catalog(teamId, kind), id);
  }

  /** Forgets the whole workspace (uninstall). */
  async clear(teamId: string): Promise<void> {
    for (const kind of Object.keys(CATALOG_LIMITS) as CatalogKind[]) {
      await this.kv.del(this.keys.catalog(teamId, kind));
      for (const memoKey of this.written.keys()) {
        if (memoKey.startsWith(`${kind}\u0000${teamId}\u0000`)) this.written.delete(memoKey);
      }
    }
  }

  private async read(teamId: string, kind: CatalogKind): Promise<CatalogEntry[]> {
    const all = await this.kv.hashGetAll(this.keys.catalog(teamId, kind));
    return Object.entries(all).flatMap(([id, raw]) => {
      const s = parseStored(storedSchema, raw);
      if (!s) return [];
      return [
        {
          id,
          ...(s.n !== undefined ? { name: s.n } : {}),
          ...(s.t !== undefined ? { type: s.t } : {}),
          ...(s.c !== undefined ? { campaignId: s.c } : {}),
          seenAt: s.s,
        },
      ];
    });
  }

  /** Drops the least recently seen tenth, so the next 10 % of new entries write without reading the hash. */
  private async trim(teamId: string, kind: CatalogKind): Promise<void> {
    const limit = CATALOG_LIMITS[kind];
    const entries = (await this.read(teamId, kind)).sort((a, b) => a.seenAt - b.seenAt);
    const drop = entries.slice(0, Math.max(0, entries.length - (limit - Math.floor(limit / 10))));
    if (drop.length === 0) return;
    await this.kv.hashDel(this.keys.catalog(teamId, kind), ...drop.map((e) => e.id));
    for (const e of drop) this.written.delete(`${kind}\u0000${teamId}\u0000${e.id}`);
  }

  private remember(memoKey: string, entry: Stored): void {
    this.written.delete(memoKey);
    this.written.set(memoKey, entry);
    if (this.written.size > MEMO_MAX) {
      const oldest = this.written.keys().next();
      if (!oldest.done) this.written.delete(oldest.value);
    }
  }
}

// eslint-disable-next-line no-control-regex
const UNCLEAN = /^\s|\s$|[\x00-\x1f\x7f]/;

/** Trimmed, without control characters; undefined when empty or longer than `max`. */
function clean(value: string | undefined, max: number): string | undefined {
  // eslint-disable-next-line no-control-regex
  const v = value !== undefined && UNCLEAN.test(value) ? value.replace(/[\x00-\x1f\x7f]/g, ' ').trim() : value;
  return v && v.length <= max ? v : undefined;
}

/** A fact this sighting does not give leaves the known one as it is. */
function same(known: string | undefined, fresh: string | undefined): boolean {
  return fresh === undefined || known === fresh;
}
