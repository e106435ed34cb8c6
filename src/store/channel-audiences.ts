/**
 * Per channel: who can read the bot's posts there, as the bot last learned it — the guests and the people of
 * another organisation among its members, whether it is shared with another organisation (Slack Connect) — and
 * what an admin accepted with `customers:full`. One hash per workspace (field: channel id), shared by every
 * replica; written when a route is set up and when Slack reports a change, read by every post.
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

const confirmedSchema = z.object({
  /** The guests and outside members the admin saw named when confirming. */
  outsiders: z.array(z.string()),
  /** Whether the channel was shared with another organisation then. */
  shared: z.boolean(),
  by: z.string(),
  at: z.number(),
  /** Given before the bot knew who was in the channel: it covers whoever the judgement then found there. */
  whileUnknown: z.boolean().optional(),
});

const audienceSchema = z.object({
  /** Members who are guests (multi- or single-channel), by user id. */
  guests: z.array(z.string()),
  /** Members of another organisation (Slack Connect), by user id. */
  external: z.array(z.string()),
  /** The channel is shared with another organisation (conversations.info `is_ext_shared`, or pending). */
  shared: z.boolean(),
  /** Epoch ms it was last judged whole from Slack (0: never yet). */
  learnedAt: z.number(),
  /** Not known yet (being judged, or Slack could not say): treated as restricted until it is. */
  unknown: z.boolean().optional(),
  /** Epoch ms of the last judgement that could not finish (asked again a minute later). */
  triedAt: z.number().optional(),
  /** An admin's `customers:full` for the channel as it was then (absent: never, or withdrawn). */
  confirmed: confirmedSchema.optional(),
});
export type ChannelAudience = z.infer<typeof audienceSchema>;

/** Whether anyone outside the workspace's full members can read the channel (or the bot cannot tell). */
export function isRestricted(a: ChannelAudience): boolean {
  return a.unknown === true || a.shared || a.guests.length > 0 || a.external.length > 0;
}

/**
 * Whether the channel's posts may show customers' numbers, e-mails and words in full: its audience is the
 * workspace's full members, or an admin's `customers:full` covers everyone in it now (a guest or organisation
 * added since asks for a new confirmation). An unknown channel shows nothing in full.
 */
export function showsCustomerData(a: ChannelAudience | undefined): boolean {
  if (!a || a.unknown) return false;
  if (!isRestricted(a)) return true;
  const ok = a.confirmed;
  if (!ok) return false;
  const accepted = new Set(ok.outsiders);
  return (!a.shared || ok.shared) && [...a.guests, ...a.external].every((u) => accepted.has(u));
}

export class ChannelAudienceRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  async get(teamId: string, channelId: string): Promise<ChannelAudience | undefined> {
    const raw = await this.kv.hashGet(this.keys.channelAudiences(teamId), channelId);
    if (raw === null) return undefined;
    try {
      const parsed = audienceSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** The channels the workspace has an audience for (its routed channels). */
  channels(teamId: string): Promise<string[]> {
    return this.kv.hashFields(this.keys.channelAudiences(teamId));
  }

  async set(teamId: string, channelId: string, audience: ChannelAudience): Promise<void> {
    await this.kv.hashSet(this.keys.channelAudiences(teamId), { [channelId]: JSON.stringify(audience) });
  }
}
