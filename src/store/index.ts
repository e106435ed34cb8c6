import { pino } from 'pino';
import type { Logger } from 'pino';
import { Cache } from './cache.js';
import { Dedup } from './dedup.js';
import { createKeys } from './keys.js';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { MemoryKeyValueStore } from './memory-kv.js';
import { MemoryQueue } from './memory-queue.js';
import type { EventQueue } from './queue.js';
import { openRedis, openRedisCluster, type ClusterSettings, type RedisClient } from './redis-connection.js';
import { RedisKeyValueStore } from './redis-kv.js';
import { RedisQueue } from './redis-queue.js';
import { VerificationRepo } from './verification.js';
import { OutcomeAlertRepo } from './outcome-alerts.js';
import { RouteRepo } from './routes.js';
import { SecretBox } from './secrets.js';
import { CustomerNames } from './customer-names.js';
import { WorkspaceRepo } from './workspaces.js';
import { InstallationRepo } from './installations.js';
import { AgentLinkRepo, ConversationRepo } from './conversations.js';
import { TimerRepo } from './timers.js';
import { Leases } from './leases.js';
import { ReportRepo } from './reports.js';
import { HandoffSlaRepo } from './handoff-sla.js';
import { ChannelAudienceRepo } from './channel-audiences.js';
import { RosterRepo } from './rosters.js';
import { ShiftRepo } from './shifts.js';
import { ResolutionRepo } from './resolutions.js';
import { SavedReplyRepo } from './saved-replies.js';
import { ChannelOutboxRepo } from './channel-outbox.js';
import { ChannelPauseRepo } from './channel-pauses.js';
import { CatalogRepo } from './catalog.js';
import { UnroutedEventRepo } from './unrouted-events.js';
import { MemoryRateBudget, RedisRateBudget, type RateBudget } from './rate-budget.js';
import { forgetWorkspace, type ForgetOptions, type ForgetReport } from './forget.js';
import { AttachmentRepo } from './attachments.js';

export interface StoreOptions {
  /** Redis mode when set (or when `redis` is given); in-memory otherwise. */
  redisUrl?: string;
  /** A Redis Cluster instead of one Redis (REDIS_CLUSTER_NODES). */
  redisCluster?: ClusterSettings;
  /** An existing ioredis client (or cluster) to use instead of `redisUrl`; not closed by `close()`. */
  redis?: RedisClient;
  /**
   * 32-byte key(s) for stored secrets: a ring seals with its first key and opens with any. Required in Redis
   * mode; in-memory mode uses a per-process key without it.
   */
  secretsKey?: Buffer | readonly Buffer[];
  /** Prefix of every key. Default `campaign:`. */
  keyPrefix?: string;
  /** How long a conversation is kept after its last activity (closing it counts). Default 30 days. */
  conversationRetentionMs?: number;
  logger?: Logger;
  /** The clock expiry decisions are made with (a rotated-out hook token's grace period). Default `Date.now`. */
  now?: () => number;
}

export interface Store {
  backend: 'memory' | 'redis';
  /** See `StoreOptions.now`. */
  now: () => number;
  keys: Keys;
  kv: KeyValueStore;
  secrets: SecretBox;
  workspaces: WorkspaceRepo;
  /** Slack installations (OAuth mode); also Bolt's InstallationStore. */
  installations: InstallationRepo;
  /** Handoff conversations ↔ Slack threads ↔ platform sessions. */
  conversations: ConversationRepo;
  /** Slack user → platform agent id. */
  agentLinks: AgentLinkRepo;
  /** Per channel: the handoff SLA, the user group nudged and how new conversations are assigned. */
  handoffSla: HandoffSlaRepo;
  /** Per channel: who can read it (guests, other organisations) and an admin's `customers:full`. */
  channelAudiences: ChannelAudienceRepo;
  rosters: RosterRepo;
  /** Per workspace: who is on shift (taking chats), and the round-robin turn. */
  shifts: ShiftRepo;
  /** Handoff threads marked done (Resolve), and reopened. */
  resolutions: ResolutionRepo;
  /** Per workspace: the saved replies of the handoff cards' Quick reply. */
  savedReplies: SavedReplyRepo;
  routes: RouteRepo;
  /** Leases renewed and released only by their owner (channel drains, timer firings). */
  leases: Leases;
  /** Timers that survive restarts and fire on one replica (digests, quota checks, handoff SLAs). */
  timers: TimerRepo;
  /** Channel digests and quota alerts: schedules, previous figures, "posted" marks. */
  reports: ReportRepo;
  cache: Cache;
  dedup: Dedup;
  queue: EventQueue;
  /** What waits for a channel's turn at Slack, by lane (customers, calls, bulk), and which channels are due. */
  outbox: ChannelOutboxRepo;
  /** Channels the bot cannot post in until someone acts, and who subscribed each channel. */
  channelPauses: ChannelPauseRepo;
  /** Slack call budgets shared by every replica (how the bot stays inside Slack's rate limits). */
  budgets: RateBudget;
  /** The last business-verification submission of each workspace. */
  verification: VerificationRepo;
  /** Deletes everything kept of a workspace that uninstalled the app (see `forget.ts`). */
  forgetWorkspace(teamId: string, options?: ForgetOptions): Promise<ForgetReport>;
  /** Outcome alerts: each channel's alert per campaign, its open incident, its window's counts. */
  outcomeAlerts: OutcomeAlertRepo;
  /** The campaigns, agents and phone numbers the bot has seen, per workspace (names → ids, suggestions). */
  catalog: CatalogRepo;
  /** Events that arrived for no channel in the last 7 days (`/campaign subscriptions`). */
  unroutedEvents: UnroutedEventRepo;
  /** Links to files agents sent customers (token hash → Slack file), expiring. */
  attachments: AttachmentRepo;
  /** Resolves when the backend answers (for /readyz); rejects otherwise. */
  ping(): Promise<void>;
  /** Stops queue consumers (waiting for in-flight handlers), then closes connections this store opened. */
  close(): Promise<void>;
}

export function createStore(options: StoreOptions = {}): Store {
  const logger = options.logger ?? pino({ enabled: false });
  const now = options.now ?? Date.now;
  const useRedis = options.redis !== undefined || options.redisUrl !== undefined || options.redisCluster !== undefined;

  const ring =
    options.secretsKey === undefined
      ? []
      : Buffer.isBuffer(options.secretsKey)
        ? [options.secretsKey]
        : options.secretsKey;
  if (useRedis && ring.length === 0) {
    // Secrets stored in a shared, persistent Redis must be readable after a restart: no ephemeral key.
    throw new Error('SECRETS_KEY is required when Redis is used');
  }
  const secrets = ring.length > 0 ? new SecretBox(ring) : SecretBox.ephemeral();
  const keys = createKeys(options.keyPrefix);

  let kv: KeyValueStore;
  let queue: EventQueue;
  let budgets: RateBudget;
  let ownedClient: RedisClient | undefined;
  if (useRedis) {
    const redis =
      options.redis ??
      (options.redisCluster ? openRedisCluster(options.redisCluster, logger) : openRedis(options.redisUrl!, logger));
    if (!options.redis) ownedClient = redis;
    kv = new RedisKeyValueStore({ redis });
    queue = new RedisQueue({ redis, keys, logger, now });
    budgets = new RedisRateBudget(redis, keys, now);
  } else {
    kv = new MemoryKeyValueStore();
    queue = new MemoryQueue(now, logger);
    // Real time, not `now`: a test's frozen clock would never let a budget refill (long holds end on `now`).
    budgets = new MemoryRateBudget(Date.now, now);
  }

  let closing: Promise<void> | undefined;
  const workspaces = new WorkspaceRepo(kv, keys, secrets, now);
  const leases = new Leases(kv);
  const timers = new TimerRepo(kv, keys, leases);
  const outbox = new ChannelOutboxRepo(kv, keys, queue.outboxes);
  const attachments = new AttachmentRepo(kv, keys, now);
  const channelAudiences = new ChannelAudienceRepo(kv, keys);
  return {
    backend: useRedis ? 'redis' : 'memory',
    now,
    keys,
    kv,
    secrets,
    workspaces,
    installations: new InstallationRepo(kv, keys, secrets),
    conversations: new ConversationRepo(
      kv,
      keys,
      new CustomerNames(kv, keys, secrets),
      channelAudiences,
      options.conversationRetentionMs,
    ),
    agentLinks: new AgentLinkRepo(kv, keys),
    handoffSla: new HandoffSlaRepo(kv, keys),
    channelAudiences,
    rosters: new RosterRepo(kv, keys),
    shifts: new ShiftRepo(kv, keys, now),
    resolutions: new ResolutionRepo(kv, keys),
    savedReplies: new SavedReplyRepo(kv, keys),
    routes: new RouteRepo(kv, keys),
    leases,
    timers,
    reports: new ReportRepo(kv, keys),
    cache: new Cache(kv, keys),
    dedup: new Dedup(kv, keys),
    queue,
    outbox,
    channelPauses: new ChannelPauseRepo(kv, keys),
    budgets,
    verification: new VerificationRepo(kv, keys),
    forgetWorkspace: (teamId, forgetOptions) =>
      forgetWorkspace({ kv, keys, workspaces, queue, outbox, timers, attachments }, teamId, forgetOptions),
    outcomeAlerts: new OutcomeAlertRepo(kv, keys),
    catalog: new CatalogRepo(kv, keys, now),
    unroutedEvents: new UnroutedEventRepo(kv, keys, now),
    attachments,
    ping: () => kv.ping(),
    close: () =>
      (closing ??= (async () => {
        await queue.close();
        await kv.close();
        if (ownedClient) await ownedClient.quit().catch(() => ownedClient?.disconnect());
      })()),
  };
}

export {
  createKeys,
  DEFAULT_KEY_PREFIX,
  timerId as workspaceTimerId,
  timerParts as workspaceTimerParts,
  timerTeam as workspaceTimerTeam,
} from './keys.js';
export { SecretBox, SecretBoxError, decodeSecretsKey } from './secrets.js';
export { rekeyStore } from './rekey.js';
export { isStoreUnavailable } from './redis-connection.js';
export { claimSchemaVersion, STORE_SCHEMA_VERSION } from './schema-version.js';
export type {
  Answerer,
  CardFacts,
  Assignment,
  ClaimResult,
  ConversationRef,
  ConversationState,
  ThreadInfo,
} from './conversations.js';
export type { Connection } from './workspaces.js';
export type { ForgetReport } from './forget.js';
export { ALL_CAMPAIGNS, canonicalFilters } from './routes.js';
export type { Route, RouteFilters } from './routes.js';
export type { DueTimer } from './timers.js';
export { LEASE_MS } from './leases.js';
export type { KeptLease } from './leases.js';
export { CALL_CATEGORIES, DIGEST_CADENCES } from './reports.js';
export type { DigestCadence, DigestFigures, DigestSchedule, QuotaAlertSetting, SnapshotBounds } from './reports.js';
export type { ChannelCause, Consumer, DeadLetter, EnqueueOptions, EventQueue, QueueEntry } from './queue.js';
export type { PaceRule, RateBudget } from './rate-budget.js';
export type { KeyValueStore } from './kv.js';
export type { ChannelRef, Lane, WaitingItem, WaitingWork } from './channel-outbox.js';
export type { ChannelPause } from './channel-pauses.js';
export type { VerificationSubmission } from './verification.js';
export type { AlertIncident, AlertRef, IncidentEnd, OutcomeAlert, WindowFigures } from './outcome-alerts.js';
export { SAVED_REPLIES_MAX } from './saved-replies.js';
export type { SavedReply } from './saved-replies.js';
export { CATALOG_LIMITS } from './catalog.js';
export type { CatalogEntry, CatalogKind } from './catalog.js';
export type { Attachment, AttachmentFile } from './attachments.js';
export type { UnroutedEvent, UnroutedSummary } from './unrouted-events.js';
export { isRestricted, showsCustomerData } from './channel-audiences.js';
export type { ChannelAudience } from './channel-audiences.js';
export type { RosterMeta, Verdict } from './rosters.js';
export { ASSIGN_MODES, PAGE_WHEN, pagedOnArrival, pagedWhenLate } from './handoff-sla.js';
export type { AssignMode, ChannelSla, PageWhen } from './handoff-sla.js';
export type { OnShift } from './shifts.js';
