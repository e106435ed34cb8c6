/**
 * Posting a report into a channel outside any Slack request (from a timer), with the workspace's bot token,
 * and what Slack's refusals mean for the schedule: `not_in_channel` — someone removed the bot; the schedule
 * is kept so it resumes once the bot is invited back. `channel_not_found` / `is_archived` — the channel is
 * gone for good; the schedule ends.
 */
import type { WebClient } from '@slack/web-api';
import type { ClientUse } from '../slack/clients.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import type { MessagePayload } from '../slack/blocks.js';

export type PostOutcome = { posted: true; ts: string } | { posted: false; reason: 'not_in_channel' | 'channel_gone' };

export async function postReport(client: WebClient, channel: string, payload: MessagePayload): Promise<PostOutcome> {
  try {
    return { posted: true, ts: await postMessage(client, { channel }, payload) };
  } catch (err) {
    const code = slackErrorCode(err);
    if (code === 'not_in_channel') return { posted: false, reason: 'not_in_channel' };
    if (code === 'channel_not_found' || code === 'is_archived') return { posted: false, reason: 'channel_gone' };
    throw err;
  }
}

/** How a report's post waits for Slack: here, for its budget (a timer holds no queue entry), behind urgent work. */
export const REPORT_POSTS: ClientUse = { background: false, urgency: 'routine' };
