/**
 * Channels judged by who is in them. A post in a channel is read by everyone there: a guest, or someone of
 * another organisation in a Slack Connect channel, may not see customer details (`membership.ts` refuses them
 * `/campaign bookings`), so the bot's posts in such a channel mask customers' phone numbers and e-mails — in
 * their fields and in free text (summaries, transcripts, messages) — unless an admin accepted everyone there
 * with `customers:full` (the masking itself: `customer-view.ts`).
 *
 * What the bot knows of a channel is learned from Slack when a route is set up (`/campaign subscribe`) and
 * kept in the store (`ChannelAudienceRepo`, per workspace and channel, shared by every replica); Slack's
 * `member_joined_channel`, `member_left_channel`, `channel_shared` and `channel_unshared` events keep it
 * current. A post reads the store — never Slack — except for a channel the bot has never learned (routes made
 * before this existed), which is learned once at its first post.
 *
 * - conversations.info (https://docs.slack.dev/reference/methods/conversations.info; fields of the
 *   conversation object: https://docs.slack.dev/reference/objects/conversation-object): `is_ext_shared`
 *   (shared with another organisation), `is_pending_ext_shared` (an invitation out). `is_shared` alone and
 *   `is_org_shared` mean other workspaces of the same Enterprise Grid org, which count as ours.
 * - conversations.members (https://docs.slack.dev/reference/methods/conversations.members, Tier 4, cursor
 *   paginated, `limit` under 1000): user ids, each judged by `Membership.standing` (users.info, cached).
 * - member_joined_channel (https://docs.slack.dev/reference/events/member_joined_channel): `user`, `channel`;
 *   channel_shared / channel_unshared (https://docs.slack.dev/reference/events/channel_shared,
 *   https://docs.slack.dev/reference/events/channel_unshared): `channel`, `connected_team_id`, `is_ext_shared`.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { onceMoreAfterRateLimit } from '../slack/post.js';
import { isRestricted, showsCustomerData, type ChannelAudience, type Store } from '../store/index.js';
import { customerView, type CustomerView } from './customer-view.js';
import type { Membership, Workspace } from './membership.js';

/** Who can read a restricted channel, in words (counts, never names: a notice must not page anyone). */
export function audienceWords(a: ChannelAudience): string {
  const parts: string[] = [];
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  if (a.unknown) return 'people Slack could not tell the bot about';
  if (a.guests.length > 0) parts.push(n(a.guests.length, 'guest', 'guests'));
  if (a.external.length > 0) parts.push(n(a.external.length, 'person', 'people') + ' of another organisation');
  if (a.shared && a.external.length === 0) parts.push('another organisation (it is a Slack Connect channel)');
  else if (a.shared) parts[parts.length - 1] += ' (it is a Slack Connect channel)';
  return parts.join(' and ');
}

/** Members judged per conversations.members page, at once (users.info, Tier 4, mostly cached). */
const JUDGED_AT_ONCE = 5;
/** conversations.members' page size: Slack recommends no more than 200. */
const MEMBERS_PAGE = 200;
/** A channel Slack could not tell about is asked again after this long, not at every post. */
const UNKNOWN_RETRY_MS = 5 * 60_000;

export class ChannelAudiences {
  private readonly learning = new Map<string, Promise<ChannelAudience>>();

  constructor(
    private readonly store: Store,
    private readonly members: Membership,
    private readonly logger: Logger,
  ) {}

  /** How the channel may see customers now: from the store, learned from Slack only the first time. */
  async viewFor(slack: WebClient, ws: Workspace, channelId: string): Promise<CustomerView> {
    let known = await this.store.channelAudiences.get(ws.teamId, channelId);
    if (!known || (known.unknown && this.store.now() - known.learnedAt > UNKNOWN_RETRY_MS))
      known = await this.learn(slack, ws, channelId);
    return customerView(showsCustomerData(known));
  }

  /** The channel as Slack says it is now (stored; an earlier `customers:full` kept for what it covered). */
  learn(slack: WebClient, ws: Workspace, channelId: string): Promise<ChannelAudience> {
    const key = `${ws.teamId}:${channelId}`;
    const running = this.learning.get(key);
    if (running) return running;
    const work = this.ask(slack, ws, channelId).finally(() => this.learning.delete(key));
    this.learning.set(key, work);
    return work;
  }

  private async ask(slack: WebClient, ws: Workspace, channelId: string): Promise<ChannelAudience> {
    const before = await this.store.channelAudiences.get(ws.teamId, channelId);
    const learnedAt = this.store.now();
    let audience: ChannelAudience;
    try {
      const info = await onceMoreAfterRateLimit(() => slack.conversations.info({ channel: channelId }));
      const shared = info.channel?.is_ext_shared === true || info.channel?.is_pending_ext_shared === true;
      const guests: string[] = [];
      const external: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await onceMoreAfterRateLimit(() =>
          slack.conversations.members({ channel: channelId, limit: MEMBERS_PAGE, ...(cursor ? { cursor } : {}) }),
        );
        const ids = page.members ?? [];
        for (let i = 0; i < ids.length; i += JUDGED_AT_ONCE) {
          const batch = ids.slice(i, i + JUDGED_AT_ONCE);
          const standings = await Promise.all(batch.map((u) => this.members.standing(slack, ws, u)));
          standings.forEach((s, j) => {
            const user = batch[j]!;
            // Slack could not say who they are: counted as a guest (masked) rather than trusted.
            if (!s || s.kind === 'guest') guests.push(user);
            else if (s.kind === 'external') external.push(user);
          });
        }
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      audience = { guests, external, shared, learnedAt };
    } catch (err) {
      this.logger.warn({ err, team: ws.teamId, channel: channelId }, 'could not learn who is in a channel: masked');
      audience = { guests: [], external: [], shared: false, learnedAt, unknown: true };
    }
    if (before?.confirmed) audience.confirmed = before.confirmed;
    await this.store.channelAudiences.set(ws.teamId, channelId, audience);
    this.logger.info(
      {
        team: ws.teamId,
        channel: channelId,
        guests: audience.guests.length,
        external: audience.external.length,
        shared: audience.shared,
      },
      'learned who is in a channel',
    );
    return audience;
  }

  /** Stored, or learned now (a channel about to get routes). */
  async current(slack: WebClient, ws: Workspace, channelId: string): Promise<ChannelAudience> {
    return (await this.store.channelAudiences.get(ws.teamId, channelId)) ?? this.learn(slack, ws, channelId);
  }

  /**
   * Someone joined a channel the bot knows: judged alone (users.info, cached), no member list asked for. True
   * when the channel showed customers in full until now and masks them from now on.
   */
  async memberJoined(slack: WebClient, ws: Workspace, channelId: string, userId: string): Promise<boolean> {
    const before = await this.store.channelAudiences.get(ws.teamId, channelId);
    if (!before) return false; // never routed here: learned when a route is set up
    const standing = await this.members.standing(slack, ws, userId);
    const after: ChannelAudience = {
      ...before,
      guests: before.guests.filter((u) => u !== userId),
      external: before.external.filter((u) => u !== userId),
    };
    if (!standing || standing.kind === 'guest') after.guests.push(userId);
    else if (standing.kind === 'external') after.external.push(userId);
    else return false;
    await this.store.channelAudiences.set(ws.teamId, channelId, after);
    this.logger.info(
      { team: ws.teamId, channel: channelId, user: userId },
      'a guest or outside member joined a channel',
    );
    return showsCustomerData(before) && !showsCustomerData(after);
  }

  /** Someone left: one outsider fewer (a channel they were the last of shows customers in full again). */
  async memberLeft(ws: Workspace, channelId: string, userId: string): Promise<void> {
    const before = await this.store.channelAudiences.get(ws.teamId, channelId);
    if (!before || ![...before.guests, ...before.external].includes(userId)) return;
    await this.store.channelAudiences.set(ws.teamId, channelId, {
      ...before,
      guests: before.guests.filter((u) => u !== userId),
      external: before.external.filter((u) => u !== userId),
    });
  }

  /** Shared or unshared with another organisation: learned again (who came or went is a whole organisation). */
  async sharingChanged(slack: WebClient, ws: Workspace, channelId: string): Promise<boolean> {
    const before = await this.store.channelAudiences.get(ws.teamId, channelId);
    if (!before) return false;
    const after = await this.learn(slack, ws, channelId);
    return showsCustomerData(before) && !showsCustomerData(after);
  }

  /** An admin's `customers:full`: everyone in the channel now may see customers in full. */
  async confirmFull(ws: Workspace, channelId: string, audience: ChannelAudience, by: string): Promise<void> {
    const outsiders = [...audience.guests, ...audience.external];
    await this.store.channelAudiences.set(ws.teamId, channelId, {
      ...audience,
      confirmed: { outsiders, shared: audience.shared, by, at: this.store.now() },
    });
    this.logger.info(
      { team: ws.teamId, channel: channelId, user: by, restricted: isRestricted(audience) },
      'customers:full: customer details shown in full in a channel',
    );
  }

  /** The channel's last `customers:full` route went: it masks again whenever it is restricted. */
  async withdrawFull(ws: Workspace, channelId: string): Promise<void> {
    const before = await this.store.channelAudiences.get(ws.teamId, channelId);
    if (!before?.confirmed) return;
    const { confirmed: _gone, ...rest } = before;
    await this.store.channelAudiences.set(ws.teamId, channelId, rest);
    this.logger.info({ team: ws.teamId, channel: channelId }, 'customers:full withdrawn from a channel');
  }
}
