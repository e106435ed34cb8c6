/**
 * Posting a report into a channel (from the outbox's bulk lane, where a timer or a person left it, or a setup
 * notice), and what Slack's refusals mean for its schedule, read from src/delivery/slack-errors.ts: the channel
 * refuses the app (the bot was removed…) — the schedule is kept for when it takes posts again; the channel is
 * gone (`isChannelGone`) — the schedule ends.
 */
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import type { MessagePayload } from '../slack/blocks.js';
import { isChannelGone, isChannelRefusal } from '../delivery/slack-errors.js';
import type { OncePost, IdempotentPosts } from '../delivery/idempotent-posts.js';

export type PostOutcome = { posted: true; ts: string } | { posted: false; reason: 'refused' | 'channel_gone' };

/** A timer's report, posted once even when Slack's answer is lost (src/delivery/idempotent-posts.ts). */
export interface ReportOnce {
  posts: IdempotentPosts;
  post: OncePost;
}

export async function postReport(
  client: WebClient,
  channel: string,
  payload: MessagePayload,
  once?: ReportOnce,
): Promise<PostOutcome> {
  try {
    const ts = once
      ? await once.posts.post(client, { channel }, payload, once.post)
      : await postMessage(client, { channel }, payload);
    return { posted: true, ts };
  } catch (err) {
    const code = slackErrorCode(err);
    if (!isChannelRefusal(code)) throw err;
    return { posted: false, reason: isChannelGone(code) ? 'channel_gone' : 'refused' };
  }
}

/** How long a report's once-mark is kept: longer than any retried firing (a month's quota alert included). */
const REPORT_MARK_TTL_MS = 40 * 24 * 60 * 60_000;

/** The once-post of a report named `what` in a channel (a digest's slot, a quota month's threshold). */
export function reportOnce(deps: Deps, to: { teamId: string; channelId: string }, what: string): ReportOnce {
  const id = `${to.channelId}:${what}`;
  return {
    posts: deps.posts,
    post: {
      teamId: to.teamId,
      mark: deps.store.keys.dedup(to.teamId, 'report-post', id),
      key: createHash('sha256').update(id).digest('base64url').slice(0, 22),
      ttlMs: REPORT_MARK_TTL_MS,
    },
  };
}
