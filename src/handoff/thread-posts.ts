/**
 * The Slack writes about a reply in a handoff thread, each of which may fail without failing the reply: a
 * notice in the thread, a private one to one person there (`chat.postEphemeral` with `thread_ts`: what only
 * they need — https://docs.slack.dev/reference/methods/chat.postEphemeral), an update of a notice, and the
 * receipt reactions. Failures are logged, never thrown.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { MessagePayload } from '../slack/blocks.js';
import { onceMoreAfterRateLimit, postMessage, slackErrorCode } from '../slack/post.js';
import type { ReplyAddress } from './notices.js';

/** A notice everyone in the thread sees; its ts, or undefined when Slack did not take it. */
export async function postInThread(
  client: WebClient,
  address: Pick<ReplyAddress, 'channel' | 'threadTs'>,
  payload: MessagePayload,
  log: Logger,
): Promise<string | undefined> {
  try {
    return await postMessage(client, { channel: address.channel, threadTs: address.threadTs }, payload);
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not post a notice in a handoff thread');
    return undefined;
  }
}

/**
 * A notice only `user` sees, in the thread. Ephemeral messages are not kept across reloads, so whatever it
 * says must be safe to miss: the reply's reaction stays as the lasting sign.
 */
export async function postPrivately(
  client: WebClient,
  address: Pick<ReplyAddress, 'channel' | 'threadTs'>,
  user: string,
  payload: MessagePayload,
  log: Logger,
): Promise<boolean> {
  try {
    await client.chat.postEphemeral({
      channel: address.channel,
      thread_ts: address.threadTs,
      user,
      text: payload.text,
      blocks: payload.blocks,
    });
    return true;
  } catch (err) {
    log.info({ err, slackError: slackErrorCode(err) }, 'could not tell one person privately about a handoff reply');
    return false;
  }
}

export async function updateMessage(
  client: WebClient,
  channel: string,
  ts: string,
  payload: MessagePayload,
  log: Logger,
): Promise<boolean> {
  try {
    await client.chat.update({ channel, ts, text: payload.text, blocks: payload.blocks });
    return true;
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not update a notice in a handoff thread');
    return false;
  }
}

export async function react(client: WebClient, address: ReplyAddress, name: string, log: Logger): Promise<void> {
  try {
    await onceMoreAfterRateLimit(() =>
      client.reactions.add({ channel: address.channel, timestamp: address.replyTs, name }),
    );
  } catch (err) {
    if (slackErrorCode(err) !== 'already_reacted')
      log.warn({ err, slackError: slackErrorCode(err), reaction: name }, 'could not react to a handoff reply');
  }
}

export async function unreact(client: WebClient, address: ReplyAddress, name: string, log: Logger): Promise<void> {
  try {
    await client.reactions.remove({ channel: address.channel, timestamp: address.replyTs, name });
  } catch (err) {
    if (slackErrorCode(err) !== 'no_reaction')
      log.warn(
        { err, slackError: slackErrorCode(err), reaction: name },
        'could not remove a reaction from a handoff reply',
      );
  }
}
