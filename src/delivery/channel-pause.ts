/**
 * A channel Slack takes no post in until someone acts (the `channel` class of src/delivery/slack-errors.ts) is
 * paused after the first refusal and who set it up is told once. Its posts wait in its outbox (up to a day) until
 * `/campaign subscribe` there again, Resume in `/campaign failed`, or a probe every `PROBE_EVERY_MS` that Slack takes.
 */
import type { Logger } from '../logger.js';
import type { ChannelPause, Store } from '../store/index.js';
import type { BulkPosts } from './bulk-posts.js';

/** A paused channel is tried again with one post this often (an admin may have fixed it without telling us). */
export const PROBE_EVERY_MS = 5 * 60_000;

/** What to do about a paused channel, in one sentence. */
export function pauseAdvice(channelId: string, reason: string): string {
  switch (reason) {
    case 'is_archived':
      return `<#${channelId}> is archived — unarchive it, or run \`/campaign unsubscribe\` there`;
    case 'restricted_action_read_only_channel':
      return `<#${channelId}> lets only some people post — allow the Campaign app to post there, or run \`/campaign unsubscribe\` there`;
    case 'restricted_action_thread_only_channel':
      return `<#${channelId}> takes only thread replies — allow new posts there, or route the events to another channel`;
    case 'no_permission':
      return `the Campaign app may not read or post in <#${channelId}> — invite it there again, or run \`/campaign unsubscribe\` there`;
    case 'restricted_action':
    case 'ekm_access_denied':
      return `a workspace setting stops apps posting in <#${channelId}> — ask a Slack admin to allow the Campaign app, or run \`/campaign unsubscribe\` there`;
    default:
      return `the bot is not in <#${channelId}> — \`/invite @Campaign\` there (or \`/campaign unsubscribe\` there)`;
  }
}

export class ChannelPauses {
  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /** The channel's pause (why, since when), if it is paused. */
  get(teamId: string, channelId: string): Promise<ChannelPause | undefined> {
    return this.store.channelPauses.get(teamId, channelId);
  }

  /** A probe was refused again: the next one in `PROBE_EVERY_MS` (the admin is not told again). */
  async probed(teamId: string, channelId: string, code: string): Promise<void> {
    await this.store.channelPauses.renew(teamId, channelId, code);
  }

  /** Slack took a post in a paused channel (a probe): it takes posts again. */
  async lifted(teamId: string, channelId: string): Promise<void> {
    if (await this.store.channelPauses.resume(teamId, channelId))
      this.logger.info({ team: teamId, channel: channelId }, 'channel takes posts again: pause lifted');
  }

  /** Where the notices to people wait for their turn (the bulk lane, set once the lanes are made). */
  private notices: Pick<BulkPosts, 'notify'> | undefined;

  noticesIn(notices: Pick<BulkPosts, 'notify'>): void {
    this.notices = notices;
  }

  /**
   * `message_limit_exceeded`: whoever set up the channel is told once per hold (the notice, a post too, waits
   * for the hold under one id: a second refusal meanwhile leaves nothing more).
   */
  async overMessageLimit(teamId: string, channelId: string): Promise<void> {
    const user = await this.store.channelPauses.subscriber(teamId, channelId);
    this.logger.error(
      { team: teamId, channel: channelId, told: Boolean(user) },
      'the workspace is over its Slack message limit: every post of it waits minutes',
    );
    if (user && this.notices)
      await this.notices.notify(
        { teamId, channelId: user },
        { key: 'message-limit', order: 0 },
        {
          title: 'Campaign posts waited',
          text: '⏳ Slack held Campaign’s messages in this workspace for a few minutes: the workspace is over its plan’s message limit. Call notifications and customer messages waited and go out now; nothing was lost. A paid Slack plan lifts the limit.',
        },
      );
  }

  /** Slack refused a post with `code` (see `isChannelRefusal`): pause the channel and tell its subscriber, once. */
  async pause(teamId: string, channelId: string, code: string): Promise<void> {
    if (!(await this.store.channelPauses.pause(teamId, channelId, code))) return;
    const user = await this.store.channelPauses.subscriber(teamId, channelId);
    this.logger.warn(
      { team: teamId, channel: channelId, slackError: code, told: Boolean(user) },
      'channel paused: Slack takes no post there until someone acts',
    );
    if (!user || !this.notices) return;
    await this.notices.notify(
      { teamId, channelId: user },
      { key: `pause:${channelId}`, order: Date.now() },
      {
        title: 'Campaign stopped posting in a channel',
        text: `⏸️ Campaign stopped posting in <#${channelId}>: ${pauseAdvice(channelId, code)}. Call notifications and customer messages wait and go out once it takes posts again — checked every few minutes, or at once when you press *Resume* in \`/campaign failed\` (or run \`/campaign subscribe\` there again).`,
      },
    );
  }
}
