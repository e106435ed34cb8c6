/**
 * What listeners receive from the composition root. One object, built once in `compose.ts`.
 */
import type { WebClient } from '@slack/web-api';
import type { Config } from '../config.js';
import type { Logger, Redactor } from '../logger.js';
import type { Store } from '../store/index.js';
import type { SlackPace } from '../delivery/pace.js';
import type { SlackClients } from '../delivery/clients.js';
import type { IdempotentPosts } from '../delivery/idempotent-posts.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import type { PlatformAccess } from './platform-access.js';
import type { AdminGate } from './admin-gate.js';
import type { Membership } from './membership.js';
import type { ChannelAudiences } from './channel-audience.js';
import type { Metrics } from './metrics.js';
import type { Lifecycle } from './lifecycle.js';
import type { Timers } from './timers.js';
import type { SlackTokens } from './slack-token.js';

export interface Deps {
  config: Config;
  logger: Logger;
  redactor: Redactor;
  store: Store;
  platform: PlatformAccess;
  /** Who is a full member of the workspace (guests, other organisations and deactivated users are not). */
  members: Membership;
  admins: AdminGate;
  /** Who can read each routed channel (guests, other organisations), and so whether its posts mask customers. */
  audiences: ChannelAudiences;
  metrics: Metrics;
  /** Slack's rate limits: every Web API client sends through `pace.fetch(…)` (src/delivery/pace.ts). */
  pace: SlackPace;
  /** The bot token acting for a workspace outside a Slack request (refreshed when it rotates). */
  tokens: SlackTokens;
  /** Web API clients for work outside a Slack request (queue, timers): one per workspace and urgency. */
  slack: SlackClients;
  /** Posts that cannot show twice (idempotency key in message metadata): timers' posts go through it. */
  posts: IdempotentPosts;
  /** The outbox's bulk lane: what the app posts on its own and can wait (a report, a notice) is left there. */
  bulk: BulkPosts;
  lifecycle: Lifecycle;
  /** Store-kept timers that fire on one replica (register a kind with `timers.on`). */
  timers: Timers;
  /** What one surface offers another, wired by the composition root: features never import each other. */
  surfaces: Surfaces;
  /** Per-file cap (bytes) on audio samples downloaded from Slack for voice cloning; clone-voice's default when absent. */
  voiceSampleMaxBytes?: number;
  /** How long a slash command's answer may take before the user is told the platform is slow; dispatch's default when absent. */
  slowNoticeMs?: number;
}

export interface Surfaces {
  /** Republishes a user's App Home (after the workspace changed, e.g. connected from Home). */
  publishHome(client: WebClient, teamId: string, userId: string): Promise<void>;
  /** Opens the connect modal from App Home's button. */
  openConnectForm(client: WebClient, triggerId: string, teamId: string): Promise<void>;
  /**
   * Posts a dead letter again (`/campaign failed` › Retry). `gone`: retried already; `full`: the workspace's
   * backlog is full; `unreadable`: the event cannot be posted by this version of the app.
   */
  retryDeadLetter(teamId: string, id: string): Promise<'queued' | 'gone' | 'full' | 'unreadable'>;
}
