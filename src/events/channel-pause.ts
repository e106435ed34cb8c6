/**
 * A channel Slack will take no post in until someone acts — the bot was removed (`not_in_channel`), the
 * channel is gone or archived — is paused: events routed there become dead letters at once, without a call to
 * Slack (no retry storm), other channels carry on, and the admin who subscribed the channel is told once, in a
 * direct message. Retry in `/campaign failed`, or subscribing the channel again, lifts the pause.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { message, section } from '../slack/blocks.js';
import { postMessage } from '../slack/post.js';
import type { Store } from '../store/index.js';

/** Slack's answers after which a channel takes no post until someone acts. */
const CHANNEL_GONE = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);

export function isChannelGone(code: string | undefined): code is string {
  return code !== undefined && CHANNEL_GONE.has(code);
}

/** What to do about a paused channel, in one sentence. */
export function pauseAdvice(channelId: string, reason: string): string {
  return reason === 'is_archived'
    ? `<#${channelId}> is archived — unarchive it, or run \`/campaign unsubscribe\` there`
    : `the bot is not in <#${channelId}> — \`/invite @Campaign\` there (or \`/campaign unsubscribe\` there)`;
}

export class ChannelPauses {
  constructor(
    private readonly store: Store,
    /** The workspace's client for queue work (`workerSlack` in posting-kit.ts). */
    private readonly slack: (teamId: string) => Promise<WebClient>,
    private readonly logger: Logger,
  ) {}

  /** Why the channel is paused, or undefined when it takes posts. */
  async reasonFor(teamId: string, channelId: string): Promise<string | undefined> {
    return (await this.store.channelPauses.get(teamId, channelId))?.reason;
  }

  /** Slack refused a post with `code` (see `isChannelGone`): pause the channel and tell its subscriber, once. */
  async pause(teamId: string, channelId: string, code: string): Promise<void> {
    if (!(await this.store.channelPauses.pause(teamId, channelId, code))) return;
    const user = await this.store.channelPauses.subscriber(teamId, channelId);
    this.logger.warn(
      { team: teamId, channel: channelId, slackError: code, told: Boolean(user) },
      'channel paused: Slack takes no post there until someone acts',
    );
    if (!user) return;
    const text = `⏸️ Campaign stopped posting in <#${channelId}>: ${pauseAdvice(channelId, code)}. Events meant for it are kept as failed events — once that is done, post them with *Retry* in \`/campaign failed\`.`;
    try {
      // A user id as the channel: the app's direct message with that person.
      await postMessage(
        await this.slack(teamId),
        { channel: user },
        message(`Campaign stopped posting in a channel`, [section(text)]),
      );
    } catch (err) {
      this.logger.warn({ err, team: teamId, channel: channelId }, 'could not tell the admin that a channel is paused');
    }
  }
}
