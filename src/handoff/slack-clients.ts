/**
 * Web API clients for handoff work done outside a listener (an SLA nudge, a customer opening a file link):
 * one per workspace bot token, sending through Slack's pace as a person's request does.
 */
import { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import { botTokenFor } from '../app/slack-token.js';
import type { Logger } from '../logger.js';
import { boltLogger } from '../slack/logger.js';

/** The workspace's client; undefined when the bot has no token for it (uninstalled). */
export type ClientFor = (teamId: string) => Promise<WebClient | undefined>;

export function handoffClients(
  deps: Pick<Deps, 'config' | 'store' | 'pace'>,
  log: Logger,
  options: { name: string; retries: number; timeoutMs: number; rejectRateLimitedCalls?: boolean },
): ClientFor {
  const clients = new Map<string, WebClient>();
  return async (teamId) => {
    const token = await botTokenFor(deps, teamId);
    if (!token) return undefined;
    let client = clients.get(token);
    if (!client)
      clients.set(
        token,
        (client = new WebClient(token, {
          slackApiUrl: deps.config.slack.apiUrl,
          retryConfig: { retries: options.retries },
          timeout: options.timeoutMs,
          rejectRateLimitedCalls: options.rejectRateLimitedCalls ?? false,
          fetch: deps.pace.fetch({ background: false, urgency: 'urgent' }),
          logger: boltLogger(log, options.name),
        })),
      );
    return client;
  };
}
