/**
 * Background Slack Web API clients, one per bot token and urgency, all sending through `SlackPace`
 * (src/slack/pace.ts): a call over its budget, or made while Slack is down, is refused before it leaves, and a
 * 429 comes back as an error instead of WebClient sleeping inside the handler. The queue then waits the entry
 * out (keeping its place) without holding a worker. No WebClient-level retries: the queue retries.
 */
import { WebClient } from '@slack/web-api';
import { boltLogger } from '../slack/logger.js';
import type { SlackPace, Urgency } from '../slack/pace.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../app/metrics.js';
import type { Store } from '../store/index.js';
import type { ChannelPauses } from './channel-pause.js';

const REQUEST_TIMEOUT_MS = 30_000;

/** The bot token for a workspace (`botTokenFor` in src/app/slack-token.ts: the one place that knows). */
export type TokenFor = (teamId: string) => Promise<string | undefined>;

/** No bot token for the workspace: retried, then dead-lettered (kept) until the workspace is installed. */
class NoBotTokenError extends Error {
  override readonly name = 'NoBotTokenError';
  constructor(readonly teamId: string) {
    super(`no Slack bot token for team ${teamId}`);
  }
}

export class WorkerSlack {
  private readonly clients = new Map<string, WebClient>();

  constructor(
    private readonly slackApiUrl: string,
    private readonly tokenFor: TokenFor,
    private readonly pace: SlackPace,
    private readonly logger: Logger,
  ) {}

  async clientFor(teamId: string, urgency: Urgency = 'urgent'): Promise<WebClient> {
    const token = await this.tokenFor(teamId);
    if (!token) throw new NoBotTokenError(teamId);
    const id = `${urgency}:${token}`;
    let client = this.clients.get(id);
    if (!client) {
      client = new WebClient(token, {
        slackApiUrl: this.slackApiUrl,
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
        timeout: REQUEST_TIMEOUT_MS,
        fetch: this.pace.fetch({ background: true, urgency }),
        logger: boltLogger(this.logger, 'slack-worker'),
      });
      this.clients.set(id, client);
    }
    return client;
  }
}

/** What the parts that post queued events share: the worker (conversations) and the call outbox. */
export interface PostingKit {
  store: Store;
  slack: WorkerSlack;
  pace: SlackPace;
  pauses: ChannelPauses;
  logger: Logger;
  metrics: Metrics | undefined;
}
