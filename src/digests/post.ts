/**
 * Posting a report into a channel outside any Slack request (from a timer), with the workspace's bot token,
 * and what Slack's refusals mean for the schedule: `not_in_channel` — someone removed the bot; the schedule
 * is kept so it resumes once the bot is invited back. `channel_not_found` / `is_archived` — the channel is
 * gone for good; the schedule ends.
 */
import { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import { botTokenFor } from '../app/slack-token.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import { boltLogger } from '../slack/logger.js';
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

/** One Web API client per bot token, for posts made by timers. */
export class ReportClients {
  private readonly clients = new Map<string, WebClient>();

  constructor(private readonly deps: Deps) {}

  /** Undefined when the workspace has no bot token (the app was uninstalled). */
  async clientFor(teamId: string): Promise<WebClient | undefined> {
    const token = await botTokenFor(this.deps, teamId);
    if (!token) return undefined;
    let client = this.clients.get(token);
    if (!client) {
      // Few retries: a failed firing is tried again after its lease anyway.
      client = new WebClient(token, {
        slackApiUrl: this.deps.config.slack.apiUrl,
        retryConfig: { retries: 2 },
        timeout: 30_000,
        fetch: this.deps.pace.fetch({ background: false, urgency: 'routine' }),
        logger: boltLogger(this.deps.logger, 'slack-reports'),
      });
      this.clients.set(token, client);
    }
    return client;
  }
}
