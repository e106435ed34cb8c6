/**
 * Channels judged by who is in them. A post in a channel is read by everyone there: a guest, or someone of
 * another organisation in a Slack Connect channel, may not see customer details (`membership.ts` refuses them
 * `/campaign bookings`), so the bot's posts in such a channel mask customers' phone numbers and e-mails — in
 * their fields and in free text (summaries, transcripts, messages) — unless an admin accepted everyone there
 * with `customers:full` (the masking itself: `customer-view.ts`).
 *
 * What the bot knows of a channel is judged from Slack when a route is set up (`/campaign subscribe`) and kept
 * in the store (`ChannelAudienceRepo`, per workspace and channel, shared by every replica): its member list,
 * each member judged by the workspace's roster (`roster.ts`: one read, users.info only for people it does not
 * know). Slack's `member_joined_channel`, `member_left_channel`, `channel_shared` and `channel_unshared` events
 * keep it current; a person's change of standing (user_change…) makes every judgement before it stale. A post
 * reads the store, and judges the channel again first when its judgement is stale: older than 15 minutes (an
 * event may have been missed), older than the roster's last change, or the roster itself is not trusted
 * (app_rate_limited). Not known yet — being judged, or Slack could not say — is masked, and is never told to
 * anyone as guests.
 *
 * - conversations.info (https://docs.slack.dev/reference/methods/conversations.info; fields of the
 *   conversation object: https://docs.slack.dev/reference/objects/conversation-object): `is_ext_shared`
 *   (shared with another organisation), `is_pending_ext_shared` (an invitation out). `is_shared` alone and
 *   `is_org_shared` mean other workspaces of the same Enterprise Grid org, which count as ours.
 * - conversations.members (https://docs.slack.dev/reference/methods/conversations.members, Tier 4, cursor
 *   paginated, `limit` under 1000): user ids — 4 pages for a channel of 3,000.
 * - member_joined_channel (https://docs.slack.dev/reference/events/member_joined_channel): `user`, `channel`;
 *   channel_shared / channel_unshared (https://docs.slack.dev/reference/events/channel_shared,
 *   https://docs.slack.dev/reference/events/channel_unshared): `channel`, `connected_team_id`, `is_ext_shared`.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { SlackPace } from '../delivery/pace.js';
import { isRestricted, showsCustomerData, type ChannelAudience, type RosterMeta, type Store } from '../store/index.js';
import type { AudienceNotices } from './audience-notice.js';
import type { SlackUserFacts, Workspace } from './membership.js';
import type { Roster } from './roster.js';
import { customerView, type CustomerView } from './customer-view.js';

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

/** conversations.members' page size: Slack's largest (`limit` under 1000). */
const MEMBERS_PAGE = 999;
/** A judgement is trusted this long: a member_joined_channel event missed (downtime) is caught within it. */
const AUDIENCE_TTL_MS = 15 * 60_000;
/** A channel Slack could not tell about is asked again after this long, not at every post. */
const UNKNOWN_RETRY_MS = 60_000;

/** How long a post waits for its channel's judgement at most. */
const POST_WAITS_MS = 8_000;

/** The work's result if it comes within `ms`, else undefined (the work goes on). */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Not known yet: members Slack could not tell about just now (or beyond one judgement's questions). */
class NotKnownYet extends Error {
  constructor(readonly people: number) {
    super(`${people} members not known yet`);
  }
}

/** Whether the audience's last settled judgement showed customers in full. */
function wasFull(a: ChannelAudience | undefined): boolean {
  return a !== undefined && a.learnedAt > 0 && showsCustomerData({ ...a, unknown: false });
}

export class ChannelAudiences {
  private readonly learning = new Map<string, Promise<ChannelAudience>>();

  constructor(
    private readonly store: Store,
    private readonly roster: Roster,
    private readonly notices: AudienceNotices,
    private readonly pace: Pick<SlackPace, 'readWhenPaced'>,
    private readonly logger: Logger,
  ) {}

  /** How the channel may see customers now: from the store, judged again first when that is stale. */
  async viewFor(slack: WebClient, ws: Workspace, channelId: string): Promise<CustomerView> {
    const [known, roster] = await Promise.all([
      this.store.channelAudiences.get(ws.teamId, channelId),
      this.roster.trusted(ws.teamId),
    ]);
    if (known && this.fresh(known, roster)) return customerView(showsCustomerData(known));
    // Slack could not say a moment ago: masked, without asking again at every post.
    if (known?.unknown && this.store.now() - (known.triedAt ?? known.learnedAt) < UNKNOWN_RETRY_MS)
      return customerView(false);
    // A post waits a few seconds for the judgement at most; not known by then, it goes out masked.
    const judged = await within(this.learn(slack, ws, channelId), POST_WAITS_MS);
    return judged ? customerView(showsCustomerData(judged)) : customerView(false);
  }

  private fresh(a: ChannelAudience, roster: RosterMeta | undefined): boolean {
    return (
      !a.unknown &&
      roster !== undefined &&
      a.learnedAt >= roster.changedAt &&
      this.store.now() - a.learnedAt < AUDIENCE_TTL_MS
    );
  }

  /** The channel as Slack says it is now (stored; an earlier `customers:full` kept for what it covered). */
  learn(slack: WebClient, ws: Workspace, channelId: string): Promise<ChannelAudience> {
    const key = `${ws.teamId}:${channelId}`;
    const running = this.learning.get(key);
    if (running) return running;
    const work = this.judge(slack, ws, channelId).finally(() => this.learning.delete(key));
    this.learning.set(key, work);
    return work;
  }

  /**
   * The channel judged within `ms` (a person waits: `/campaign subscribe`), or not known yet — masked — while
   * the judgement goes on; once it is known, a channel with guests or another organisation in it is told so.
   */
  async learnWithin(slack: WebClient, ws: Workspace, channelId: string, ms: number): Promise<ChannelAudience> {
    const work = this.learn(slack, ws, channelId);
    const judged = await within(work, ms);
    if (judged) return judged;
    void work.then(
      (a) => {
        if (!a.unknown && !showsCustomerData(a))
          return this.notices.tellMasked(ws, channelId, audienceWords(a), 'found', `found:${a.learnedAt}`);
      },
      () => undefined,
    );
    const stored = await this.store.channelAudiences.get(ws.teamId, channelId);
    return { guests: [], external: [], shared: false, learnedAt: 0, ...stored, unknown: true };
  }

  private async judge(slack: WebClient, ws: Workspace, channelId: string): Promise<ChannelAudience> {
    const before = await this.store.channelAudiences.get(ws.teamId, channelId);
    const startedAt = this.store.now();
    let audience: ChannelAudience;
    try {
      const roster = await this.roster.current(slack, ws);
      const org: Workspace = { teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? roster.enterpriseId };
      const info = await this.pace.readWhenPaced(() => slack.conversations.info({ channel: channelId }));
      const shared = info.channel?.is_ext_shared === true || info.channel?.is_pending_ext_shared === true;
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await this.pace.readWhenPaced(() =>
          slack.conversations.members({ channel: channelId, limit: MEMBERS_PAGE, ...(cursor ? { cursor } : {}) }),
        );
        ids.push(...(page.members ?? []));
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      const { verdicts, unknown } = await this.roster.verdicts(slack, org, ids);
      if (unknown.length > 0) throw new NotKnownYet(unknown.length);
      const guests = ids.filter((u) => verdicts.get(u) === 'g');
      const external = ids.filter((u) => verdicts.get(u) === 'x');
      // As of the later of the judgement's start and the roster it read (listed meanwhile, maybe).
      audience = { guests, external, shared, learnedAt: Math.max(startedAt, roster.changedAt) };
    } catch (err) {
      // Not known yet: masked (and nobody told of guests), the last settled judgement kept for what it said.
      if (err instanceof NotKnownYet)
        this.logger.info(
          { team: ws.teamId, channel: channelId, people: err.people },
          'not known yet who is in a channel: masked meanwhile',
        );
      else
        this.logger.warn({ err, team: ws.teamId, channel: channelId }, 'could not learn who is in a channel: masked');
      audience = {
        guests: before?.guests ?? [],
        external: before?.external ?? [],
        shared: before?.shared ?? false,
        learnedAt: before?.learnedAt ?? 0,
        unknown: true,
        triedAt: this.store.now(),
      };
    }
    // Read again: an admin's `customers:full` may have come while Slack was being asked.
    const confirmed = (await this.store.channelAudiences.get(ws.teamId, channelId))?.confirmed;
    // `customers:full` given before the channel was known covers everyone who was in it then.
    if (confirmed?.whileUnknown && !audience.unknown)
      audience.confirmed = {
        outsiders: [...audience.guests, ...audience.external],
        shared: audience.shared,
        by: confirmed.by,
        at: confirmed.at,
      };
    else if (confirmed) audience.confirmed = confirmed;
    await this.store.channelAudiences.set(ws.teamId, channelId, audience);
    if (audience.unknown) return audience;
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
    // Told beside the post that asked (which goes out masked now), whenever Slack's pace lets the notice go.
    if (wasFull(before) && !showsCustomerData(audience))
      void this.notices.tellMasked(ws, channelId, audienceWords(audience), 'joined', `judged:${audience.learnedAt}`);
    return audience;
  }

  /**
   * Someone joined a channel the bot knows: judged alone (the roster; users.info for someone it does not know),
   * no member list asked for. A channel that showed customers in full until now and masks them from now on is
   * told so, once.
   */
  async memberJoined(
    slack: WebClient,
    ws: Workspace,
    channelId: string,
    userId: string,
    eventTs: string,
  ): Promise<void> {
    const before = await this.store.channelAudiences.get(ws.teamId, channelId);
    if (!before) return; // never routed here: judged when a route is set up
    let verdict;
    try {
      const roster = await this.roster.current(slack, ws);
      const org: Workspace = { teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? roster.enterpriseId };
      verdict = (await this.roster.verdicts(slack, org, [userId])).verdicts.get(userId);
    } catch (err) {
      this.logger.warn({ err, team: ws.teamId, channel: channelId }, 'could not judge who joined a channel');
    }
    const after: ChannelAudience = {
      ...before,
      guests: before.guests.filter((u) => u !== userId),
      external: before.external.filter((u) => u !== userId),
    };
    if (verdict === 'g') after.guests.push(userId);
    else if (verdict === 'x') after.external.push(userId);
    else if (verdict === undefined) {
      // Not known yet: masked until the channel is judged again (a minute at most), and nobody told of a guest.
      after.unknown = true;
      after.triedAt = this.store.now();
    } else return;
    await this.store.channelAudiences.set(ws.teamId, channelId, after);
    if (after.unknown) return;
    this.logger.info(
      { team: ws.teamId, channel: channelId, user: userId },
      'a guest or outside member joined a channel',
    );
    if (showsCustomerData(before) && !showsCustomerData(after))
      await this.notices.tellMasked(ws, channelId, audienceWords(after), 'joined', eventTs);
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

  /** Shared or unshared with another organisation: judged again (who came or went is a whole organisation). */
  async sharingChanged(slack: WebClient, ws: Workspace, channelId: string): Promise<void> {
    if (await this.store.channelAudiences.get(ws.teamId, channelId)) await this.learn(slack, ws, channelId);
  }

  /**
   * Slack's word on one person (team_join, user_change, user_guest_status_changed). When their standing changed
   * (a member made a guest, a guest a member…), every routed channel of the workspace is judged again now, so
   * the next post in theirs is masked or shown in full — and a channel that masks from now on is told so.
   */
  async personChanged(slack: WebClient, ws: Workspace, user: SlackUserFacts & { id: string }): Promise<void> {
    if (!(await this.roster.heard(ws, user))) return;
    // The routed ones now; any other (a digest's) is judged again at its next post, being stale.
    const [judged, routes] = await Promise.all([
      this.store.channelAudiences.channels(ws.teamId),
      this.store.routes.listForTeam(ws.teamId),
    ]);
    const routed = new Set(routes.map((r) => r.channelId));
    for (const channelId of judged) if (routed.has(channelId)) await this.learn(slack, ws, channelId);
  }

  /** Slack held some of the workspace's events back: every channel is judged again before its next post. */
  async eventsMissed(teamId: string): Promise<void> {
    await this.roster.eventsMissed(teamId);
  }

  /** An admin's `customers:full`: everyone in the channel now may see customers in full. */
  async confirmFull(ws: Workspace, channelId: string, audience: ChannelAudience, by: string): Promise<void> {
    // Not known yet when the admin answered: their word covers whoever the judgement finds in the channel now.
    const base = audience.unknown
      ? ((await this.store.channelAudiences.get(ws.teamId, channelId)) ?? audience)
      : audience;
    const outsiders = [...base.guests, ...base.external];
    await this.store.channelAudiences.set(ws.teamId, channelId, {
      ...base,
      confirmed: {
        outsiders,
        shared: base.shared,
        by,
        at: this.store.now(),
        ...(base.unknown ? { whileUnknown: true } : {}),
      },
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
