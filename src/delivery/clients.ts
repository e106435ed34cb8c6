/**
 * The bot's Slack Web API clients outside a Slack request — the queue worker and the scheduler's lanes (calls,
 * recordings, outcome alerts, digests, quota alerts, SLA nudges, notices): one place, every client sending
 * through `SlackPace` (src/delivery/pace.ts) as background work — a call over its budget, or made while Slack is
 * down, is refused before it leaves and waits in its channel's outbox; a 429 comes back as an error, never slept
 * out inside the client. Listeners use the client Bolt hands them (Bolt's own, with the same `pace.fetch`).
 *
 * One client per workspace and urgency, not one WebClient for all with a `token` per call: a WebClient
 * queues its calls (at most 100 at once) and, when Slack answers 429, pauses that queue — one shared client
 * would let one workspace's limit hold every other's calls.
 *
 * Bounded: a workspace whose token changed (reinstalled) gets a new client and the old one is let go, as are an
 * uninstalled workspace's (`forget`, or its next use finding no token); beyond `MAX_CLIENTS` the least recently
 * used is let go. A client let go while a call is under way finishes that call; the next call makes a new one.
 */
import { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { boltLogger } from '../slack/logger.js';
import type { SlackPace, Urgency } from './pace.js';

/** Clients kept at once: two urgencies for each of a few hundred busy workspaces. */
const MAX_CLIENTS = 1_000;

/**
 * Every WebClient of the bot, Bolt's included: no retries of its own (a retried post whose answer was lost
 * shows twice) and no pause of its whole queue on a 429 (one method's limit would hold every other call,
 * `views.open` included, past its trigger's 3 s): a 429 comes back as an error, and `SlackPace` holds only that
 * method's (or channel's) budget.
 */
export const SLACK_CLIENT_RULES = {
  timeout: 30_000,
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
} as const;

/** The bot token for a workspace (`SlackTokens` in src/app/slack-token.ts: the one place that knows). */
export type TokenFor = (teamId: string) => Promise<string | undefined>;

export interface SlackClientsOptions {
  apiUrl: string;
  pace: SlackPace;
  tokenFor: TokenFor;
  logger: Logger;
  /** Clients kept at once (`MAX_CLIENTS`; tests use a small one). */
  maxClients?: number;
}

export class SlackClients {
  /** Workspace and use → its client and the token it was made with; least recently used first. */
  private readonly clients = new Map<string, { token: string; client: WebClient }>();
  private readonly logger: ReturnType<typeof boltLogger>;
  private readonly peopleLogger: ReturnType<typeof boltLogger>;

  constructor(private readonly options: SlackClientsOptions) {
    this.logger = boltLogger(options.logger, 'slack-worker');
    this.peopleLogger = boltLogger(options.logger);
  }

  /** The workspace's client for work of `urgency`; undefined while the workspace has no bot token (uninstalled). */
  async forTeam(teamId: string, urgency: Urgency): Promise<WebClient | undefined> {
    const token = await this.options.tokenFor(teamId);
    const id = `${teamId}:${urgency}`;
    const kept = this.clients.get(id);
    this.clients.delete(id);
    if (!token) return undefined;
    if (kept?.token === token) {
      this.clients.set(id, kept); // most recently used now
      return kept.client;
    }
    const client = this.create(teamId, token, urgency);
    this.clients.set(id, { token, client });
    const max = this.options.maxClients ?? MAX_CLIENTS;
    for (const oldest of this.clients.keys()) {
      if (this.clients.size <= max) break;
      this.clients.delete(oldest);
    }
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

  /**
   * The client of a person's requests for one bot token (a single-workspace install: Bolt authorizes with it and
   * /readyz asks Slack about it), paced like Bolt's own.
   */
  forPeople(token: string): WebClient {
    return this.make(token, this.options.pace.fetch({ background: false, urgency: 'urgent' }), this.peopleLogger);
  }

  private create(teamId: string, token: string, urgency: Urgency): WebClient {
    // Budgeted by the workspace it acts for: an org-wide token is shared by every workspace of the org.
    return this.make(token, this.options.pace.fetch({ background: true, urgency, team: teamId }), this.logger);
  }

  private make(token: string, fetch: ReturnType<SlackPace['fetch']>, logger: ReturnType<typeof boltLogger>) {
    return new WebClient(token, { slackApiUrl: this.options.apiUrl, fetch, ...SLACK_CLIENT_RULES, logger });
  }
}
