/**
 * What the parts that post queued events share — the worker, the lanes, recordings and outcome alerts — and the
 * workspace's background client they post with (src/delivery/clients.ts): it refuses a call over its budget, or
 * made while Slack is down, before it leaves.
 */
import type { WebClient } from '@slack/web-api';
import type { SlackClients } from './clients.js';
import type { SlackPace, Urgency } from './pace.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../app/metrics.js';
import type { ChannelAudiences } from '../app/channel-audience.js';
import type { Store } from '../store/index.js';
import type { ChannelPauses } from './channel-pause.js';

/** How long an event waits for a Slack that is down, over its limits or refusing, before its failures count. */
export const RETENTION_MS = 24 * 60 * 60_000;

/**
 * The clock delivery's waits end on: the store's (tests move it past a hold), never behind the machine's (budgets
 * refill in real time: a test's frozen clock must not keep posts waiting).
 */
export function waitClock(store: Pick<Store, 'now'>): () => number {
  return () => Math.max(Date.now(), store.now());
}

/** The workspace's client for queue work; throws while it has no bot token (the entry is retried, then kept). */
export type WorkerSlack = (teamId: string, urgency?: Urgency) => Promise<WebClient>;

class NoBotTokenError extends Error {
  override readonly name = 'NoBotTokenError';
  constructor(readonly teamId: string) {
    super(`no Slack bot token for team ${teamId}`);
  }
}

export function installedIn(store: Store, clients: SlackClients): PostContext['installed'] {
  return async (teamId) =>
    (await store.workspaces.exists(teamId)) || (await clients.forTeam(teamId, 'routine')) !== undefined;
}

export function workerSlack(clients: SlackClients): WorkerSlack {
  return async (teamId, urgency = 'urgent') => {
    const client = await clients.forTeam(teamId, urgency);
    if (!client) throw new NoBotTokenError(teamId);
    return client;
  };
}

export interface PostContext {
  store: Store;
  slack: WorkerSlack;
  /** Whether the app is still installed (the store knows the workspace, or Slack gave the bot a token there). */
  installed(teamId: string): Promise<boolean>;
  pace: SlackPace;
  pauses: ChannelPauses;
  logger: Logger;
  metrics: Metrics | undefined;
  /** Whether a channel's posts show customers in full or masked (`CustomerView`), decided per post from the store. */
  audiences: ChannelAudiences;
}
