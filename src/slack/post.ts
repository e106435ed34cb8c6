/**
 * The Slack Web API calls every surface makes the same way: a message post that never unfurls platform
 * URLs, and reading Slack's error code from a failed call.
 */
import { ErrorCode, type WebClient } from '@slack/web-api';
import type { MessagePayload } from './blocks.js';

/** The Slack error code of a failed Web API call (`not_in_channel`…), if it is one. */
export function slackErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const data = (err as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/**
 * A person's call that Slack answered 429: tried once more. Not blind — Slack said when (Retry-After), and the
 * pace (src/delivery/pace.ts) holds that method's budget until then, so the second try waits there (a few seconds
 * at most) while every other method goes on. Clients never retry on their own (`SLACK_CLIENT_RULES`).
 */
export async function onceMoreAfterRateLimit<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if ((err as { code?: unknown }).code !== ErrorCode.RateLimitedError) throw err;
    return call();
  }
}

/** Slack message metadata (https://docs.slack.dev/messaging/message-metadata): the post's idempotency key. */
export interface PostMetadata {
  event_type: string;
  event_payload: Record<string, string>;
}

/** A message's text, with its blocks (a plain notice has none). */
type Content = Pick<MessagePayload, 'text'> & Partial<Pick<MessagePayload, 'blocks'>>;

/**
 * chat.postMessage (in a thread when `threadTs` is given); resolves with the message ts. Background posts go
 * through `IdempotentPosts` (src/delivery/idempotent-posts.ts), which adds their idempotency key as `metadata`;
 * a person's command may post its notice straight.
 */
export async function postMessage(
  slack: WebClient,
  to: { channel: string; threadTs?: string | undefined },
  payload: Content,
  metadata?: PostMetadata,
): Promise<string> {
  const res = await slack.chat.postMessage({
    channel: to.channel,
    ...(to.threadTs ? { thread_ts: to.threadTs } : {}),
    text: payload.text,
    ...(payload.blocks ? { blocks: payload.blocks } : {}),
    // Platform text may contain URLs: never unfurl them into the channel.
    unfurl_links: false,
    unfurl_media: false,
    ...(metadata ? { metadata } : {}),
  });
  if (!res.ts) throw new Error('chat.postMessage answered without a ts');
  return res.ts;
}

/** chat.update of a message the app posted: its text and blocks replaced (https://docs.slack.dev/reference/methods/chat.update). */
export async function updateMessage(
  slack: WebClient,
  at: { channel: string; ts: string },
  payload: Content,
): Promise<void> {
  await slack.chat.update({
    channel: at.channel,
    ts: at.ts,
    text: payload.text,
    ...(payload.blocks ? { blocks: payload.blocks } : {}),
  });
}

/** chat.delete of a message the app posted (https://docs.slack.dev/reference/methods/chat.delete). */
export async function deleteMessage(slack: WebClient, at: { channel: string; ts: string }): Promise<void> {
  await slack.chat.delete({ channel: at.channel, ts: at.ts });
}
