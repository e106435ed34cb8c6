/**
 * Posting a report into a channel outside any Slack request (from the outbox's bulk lane, where a timer left
 * it), with the workspace's bot token,
 * and what Slack's refusals mean for the schedule: `not_in_channel` — someone removed the bot; the schedule
 * is kept so it resumes once the bot is invited back. `channel_not_found` / `is_archived` — the channel is
 * gone for good; the schedule ends.
 */
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import type { MessagePayload } from '../slack/blocks.js';
import type { OncePost, PostLedger } from '../delivery/post-ledger.js';

export type PostOutcome = { posted: true; ts: string } | { posted: false; reason: 'not_in_channel' | 'channel_gone' };

/** A timer's report, posted once even when Slack's answer is lost (src/delivery/post-ledger.ts). */
export interface ReportOnce {
  ledger: PostLedger;
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
      ? await once.ledger.post(client, { channel }, payload, once.post)
      : await postMessage(client, { channel }, payload);
    return { posted: true, ts };
  } catch (err) {
    const code = slackErrorCode(err);
    if (code === 'not_in_channel') return { posted: false, reason: 'not_in_channel' };
    if (code === 'channel_not_found' || code === 'is_archived') return { posted: false, reason: 'channel_gone' };
    throw err;
  }
}

/** How long a report's once-mark is kept: longer than any retried firing (a month's quota alert included). */
const REPORT_MARK_TTL_MS = 40 * 24 * 60 * 60_000;

/** The once-post of a report named `what` in a channel (a digest's slot, a quota month's threshold). */
export function reportOnce(deps: Deps, to: { teamId: string; channelId: string }, what: string): ReportOnce {
  const id = `${to.channelId}:${what}`;
  return {
    ledger: deps.posts,
    post: {
      teamId: to.teamId,
      mark: deps.store.keys.dedup(to.teamId, 'report-post', id),
      key: createHash('sha256').update(id).digest('base64url').slice(0, 22),
      ttlMs: REPORT_MARK_TTL_MS,
    },
  };
}
