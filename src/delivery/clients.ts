/**
 * The Web API clients for work outside a Slack request (the worker's and the scheduler's lanes), all sending
 * through `SlackPace` as background work. One client per workspace and urgency: a WebClient pauses its whole
 * queue on a 429, so a shared one would let one workspace's limit hold every other's calls. At most
 * `MAX_CLIENTS` are kept (least recently used let go; a changed token makes a new one).
 */
import { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { boltLogger } from '../slack/logger.js';
import type { SlackPace, Urgency } from './pace.js';

/** Two urgencies for each of a few hundred busy workspaces. */
const MAX_CLIENTS = 1_000;

/**
 * Every WebClient of the bot, Bolt's included: no retries (a retried post whose answer was lost shows twice) and
 * no pause of its queue on a 429 (it would hold `views.open` past its trigger's 3 s): `SlackPace` holds the budget.
 */
export const SLACK_CLIENT_RULES = {
  timeout: 30_000,
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
} as const;

export interface SlackClientsOptions {
  apiUrl: string;
  pace: SlackPace;
  /** The bot token for a workspace (`SlackTokens` in src/app/slack-token.ts: the one place that knows). */
  tokenFor: (teamId: string) => Promise<string | undefined>;
  logger: Logger;
  /** Clients kept at once (`MAX_CLIENTS`; tests use a small one). */
  maxClients?: number;
}

export class SlackClients {
  /** Workspace and urgency → its client and the token it was made with; least recently used first. */
  private readonly clients = new Map<string, { token: string; client: WebClient }>();
  private readonly logger: ReturnType<typeof boltLogger>;

  constructor(private readonly options: SlackClientsOptions) {
    this.logger = boltLogger(options.logger, 'slack-worker');
  }

  /** The workspace's client for work of `urgency`; undefined while the workspace has no bot token (uninstalled). */
  async forTeam(teamId: string, urgency: Urgency): Promise<WebClient | undefined> {
    const token = await this.options.tokenFor(teamId);
    const id = `${teamId}:${urgency}`;
    const kept = this.clients.get(id);
    this.clients.delete(id);
    if (!token) return undefined;
    // Budgeted by the workspace it acts for: an org-wide token is shared by every workspace of the org.
    const client =
      kept?.token === token ? kept.client : this.make(token, { background: true, urgency, team: teamId }, this.logger);
    this.clients.set(id, { token, client }); // most recently used now
    // One added at a time: the least recently used one goes.
    if (this.clients.size > (this.options.maxClients ?? MAX_CLIENTS))
      this.clients.delete(this.clients.keys().next().value!);
    return client;
  }

  /** Lets the workspace's clients go (it uninstalled the app); another replica's go when pushed out. */
  forget(teamId: string): void {
    for (const id of [...this.clients.keys()]) if (id.startsWith(`${teamId}:`)) this.clients.delete(id);
  }

  /** Clients kept now (at most `maxClients`). */
  get size(): number {
    return this.clients.size;
  }

  /** The client of a person's requests for one bot token (a single-workspace install), paced like Bolt's own. */
  forPeople(token: string): WebClient {
    return this.make(token, { background: false, urgency: 'urgent' }, boltLogger(this.options.logger));
  }

  private make(token: string, mode: Parameters<SlackPace['fetch']>[0], logger: ReturnType<typeof boltLogger>) {
    const fetch = this.options.pace.fetch(mode);
    return new WebClient(token, { slackApiUrl: this.options.apiUrl, fetch, ...SLACK_CLIENT_RULES, logger });
  }
}
