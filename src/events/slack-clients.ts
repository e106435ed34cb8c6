/**
 * The worker's Slack Web API clients, one per bot token.
 *
 * - `rejectRateLimitedCalls`: a 429 comes back to us as an error instead of WebClient sleeping inside the
 *   handler; `asRetryLater` turns it into the queue's `RetryLaterError`, so the entry waits out Retry-After
 *   in the queue (keeping its place: later events of the same call/conversation wait behind it).
 * - no WebClient-level retries: the queue retries with backoff and dead-letters after its bounded attempts.
 */
import { ErrorCode, WebClient, type WebAPIRateLimitedError } from '@slack/web-api';
import { boltLogger } from '../slack/logger.js';
import type { Logger } from '../logger.js';
import { RetryLaterError } from '../store/index.js';

const REQUEST_TIMEOUT_MS = 30_000;

/** The bot token for a workspace (`botTokenFor` in src/bot/slack-token.ts: the one place that knows). */
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
    private readonly logger: Logger,
  ) {}

  async clientFor(teamId: string): Promise<WebClient> {
    const token = await this.tokenFor(teamId);
    if (!token) throw new NoBotTokenError(teamId);
    let client = this.clients.get(token);
    if (!client) {
      client = new WebClient(token, {
        slackApiUrl: this.slackApiUrl,
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
        timeout: REQUEST_TIMEOUT_MS,
        logger: boltLogger(this.logger, 'slack-worker'),
      });
      this.clients.set(token, client);
    }
    return client;
  }
}

function isRateLimited(err: unknown): err is WebAPIRateLimitedError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === ErrorCode.RateLimitedError;
}

/** A Slack 429 as the queue's "try this entry again after Retry-After"; undefined for any other error. */
export function asRetryLater(err: unknown): RetryLaterError | undefined {
  if (!isRateLimited(err)) return undefined;
  const seconds = Number.isFinite(err.retryAfter) && err.retryAfter >= 0 ? err.retryAfter : 1;
  return new RetryLaterError(seconds * 1000, `Slack rate limit: retry after ${seconds} s`);
}
