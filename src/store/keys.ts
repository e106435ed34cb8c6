/**
 * The one place Redis key names are built. Every stored key starts with the configured prefix, and every
 * free-form part (team ids, campaign ids, phone numbers, dedup keys…) goes through `segment()` so that a
 * value containing `:` cannot collide with another key and a value containing `{`/`}` cannot change a key's
 * Redis Cluster hash slot.
 *
 * Keys touched together by one Lua script (the event queue) share the `{queue}` hash tag, so the scripts
 * stay valid on Redis Cluster. The tag must be the first `{…}` in the key, which is why the prefix may not
 * contain braces.
 */

export const DEFAULT_KEY_PREFIX = 'campaign:';

/** Hash tag shared by every key the queue scripts touch in one call. */
const QUEUE_TAG = '{queue}';

export interface Keys {
  readonly prefix: string;
  /** Hash: encrypted API key, connection metadata, hook token (encrypted) and its hash. */
  workspace(teamId: string): string;
  /** String: SHA-256 (hex) of a hook token → team id. */
  hookToken(tokenHash: string): string;
  /** Set: the team's event routes. */
  routes(teamId: string): string;
  /** Slack installation (OAuth multi-workspace mode). */
  installation(teamId: string, enterpriseId?: string): string;
  /** String with TTL: "seen once" marks, e.g. Slack event retries. */
  dedup(scope: string, id: string): string;
  /** String with TTL: cached JSON values (see `Cache`, which passes its logical key as `name`). */
  cache(name: string, id?: string): string;
  /** A handoff conversation (workspace, campaign, customer number). */
  conversation(teamId: string, campaignId: string, customerNumber: string): string;
  /** A Slack thread → its conversation / session. */
  thread(teamId: string, channelId: string, threadTs: string): string;
  /** Hash: Slack user id → platform agent id (`/campaign agent-link`). */
  agentLinks(teamId: string): string;
  /** String: the Slack user who claimed a handoff thread (`''` once unclaimed). */
  threadOwner(teamId: string, channelId: string, threadTs: string): string;
  /** Set: the workspace's open handoff threads (`<channelId> <threadTs>`), for `/campaign handoffs` and App Home. */
  openThreads(teamId: string): string;
  /** Hash: channel id → that channel's handoff SLA and who is nudged (`/campaign handoff-sla`). */
  handoffSla(teamId: string): string;
  /** Hash: timer id → when it is due (epoch ms), one hash per kind of timer (see `TimerRepo`). */
  timers(kind: string): string;
  /** String with TTL: which replica is running one firing of a timer. */
  timerLease(kind: string, id: string, dueAt: number): string;
  /** Hash: channel id → that channel's digest schedule (JSON). */
  digests(teamId: string): string;
  /** Hash: channel id → the figures of the channel's previous digest (JSON), for the next one's changes. */
  digestFigures(teamId: string): string;
  /** Hash: channel id → that channel's quota-alert thresholds (JSON). */
  quotaAlerts(teamId: string): string;
  /** String with TTL: "posted" mark of one report (a digest slot, a quota threshold of a month) in one channel. */
  reportMark(kind: string, teamId: string, channelId: string, period: string): string;
  /** Hash: queue entry id → a call notification waiting for its channel (see `CallOutboxRepo`). */
  callOutbox(teamId: string, channelId: string): string;
  /** Set: `<team>:<channel>` of the channels that may hold waiting call notifications. */
  callOutboxChannels(): string;
  /** String with TTL: which replica is posting a channel's waiting calls. */
  callOutboxLease(teamId: string, channelId: string): string;
  /** String with TTL: the entry ids (JSON) of the roll-up under way in a channel. */
  callRollup(teamId: string, channelId: string): string;
  /** String with TTL: one Slack call budget's next free slot (see `RateBudget`). */
  rateBudget(id: string): string;
  /** Hash: channel id → why the bot cannot post there and since when (see `ChannelPauseRepo`). */
  channelPauses(teamId: string): string;
  /** Hash: channel id → the Slack user who subscribed it (told when it is paused). */
  channelSubscribers(teamId: string): string;
  /** String: the workspace's last business-verification submission (see `VerificationRepo`). */
  verification(teamId: string): string;
  /** Hash: id → what the bot has seen of one kind of platform thing (campaigns, agents, numbers; `CatalogRepo`). */
  catalog(teamId: string, kind: string): string;
  /** What every `workspace()` / `installation()` key starts with (full scans: `npm run rekey`). */
  kindPrefix(kind: 'workspace' | 'installation'): string;

  // Event queue. All of these share one hash tag.
  /** Stream of one workspace's events (consumer group `workers`); its length is the workspace's backlog. */
  queueTeamStream(teamId: string): string;
  /** Set: team ids whose stream may hold entries (what workers read, round robin). */
  queueTeams(): string;
  /** Stream: one short entry whenever a workspace's stream gets work again, to wake blocked readers. */
  queueBell(): string;
  /** The single stream of earlier versions: read until it is drained, never written. */
  queueStream(): string;
  queueDedup(teamId: string, dedupKey: string): string;
  /** List: ids of the not-yet-finished entries of one orderKey, oldest first. */
  queueOrder(orderKey: string): string;
  /** String with TTL: which consumer is running the head entry of one orderKey. */
  queueLease(orderKey: string): string;
  /** Hash: entry id → failed attempts so far. */
  queueAttempts(): string;
  /** List: dead letters, most recent first, capped. */
  queueDead(): string;
  /** Hash: team id → dead letters ever (plus the `*` field for all teams). */
  queueDeadCounts(): string;
}

/**
 * Escapes the characters that carry meaning in a key (`:` separates parts, `{}` select the hash slot,
 * `%` is the escape itself, whitespace/control characters make keys unreadable). Injective, so two different
 * values never produce the same segment.
 */
export function segment(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[%:{}\s\x00-\x1f\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The value `segment()` was given. */
export function unsegment(text: string): string {
  return text.replace(/%([0-9a-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export function createKeys(prefix: string = DEFAULT_KEY_PREFIX): Keys {
  if (/[{}]/.test(prefix)) {
    // A brace in the prefix would become the hash tag of every key and defeat the queue's own tag.
    throw new Error('key prefix must not contain "{" or "}"');
  }
  const p = prefix;
  const q = `${p}${QUEUE_TAG}:`;
  return {
    prefix: p,
    workspace: (teamId) => `${p}workspace:${segment(teamId)}`,
    hookToken: (tokenHash) => `${p}hook-token:${segment(tokenHash)}`,
    routes: (teamId) => `${p}routes:${segment(teamId)}`,
    installation: (teamId, enterpriseId) => `${p}installation:${segment(enterpriseId ?? '-')}:${segment(teamId)}`,
    dedup: (scope, id) => `${p}dedup:${segment(scope)}:${segment(id)}`,
    cache: (name, id) => `${p}cache:${segment(name)}${id === undefined ? '' : `:${segment(id)}`}`,
    conversation: (teamId, campaignId, customerNumber) =>
      `${p}conversation:${segment(teamId)}:${segment(campaignId)}:${segment(customerNumber)}`,
    thread: (teamId, channelId, threadTs) => `${p}thread:${segment(teamId)}:${segment(channelId)}:${segment(threadTs)}`,
    agentLinks: (teamId) => `${p}agent-links:${segment(teamId)}`,
    threadOwner: (teamId, channelId, threadTs) =>
      `${p}thread-owner:${segment(teamId)}:${segment(channelId)}:${segment(threadTs)}`,
    openThreads: (teamId) => `${p}open-threads:${segment(teamId)}`,
    handoffSla: (teamId) => `${p}handoff-sla:${segment(teamId)}`,
    timers: (kind) => `${p}timers:${segment(kind)}`,
    timerLease: (kind, id, dueAt) => `${p}timer-lease:${segment(kind)}:${segment(id)}:${dueAt}`,
    digests: (teamId) => `${p}digests:${segment(teamId)}`,
    digestFigures: (teamId) => `${p}digest-figures:${segment(teamId)}`,
    quotaAlerts: (teamId) => `${p}quota-alerts:${segment(teamId)}`,
    reportMark: (kind, teamId, channelId, period) =>
      `${p}report-mark:${segment(kind)}:${segment(teamId)}:${segment(channelId)}:${segment(period)}`,
    callOutbox: (teamId, channelId) => `${p}call-outbox:${segment(teamId)}:${segment(channelId)}`,
    callOutboxChannels: () => `${p}call-outbox-channels`,
    callOutboxLease: (teamId, channelId) => `${p}call-outbox-lease:${segment(teamId)}:${segment(channelId)}`,
    callRollup: (teamId, channelId) => `${p}call-rollup:${segment(teamId)}:${segment(channelId)}`,
    rateBudget: (id) => `${p}rate-budget:${segment(id)}`,
    channelPauses: (teamId) => `${p}channel-pauses:${segment(teamId)}`,
    channelSubscribers: (teamId) => `${p}channel-subscribers:${segment(teamId)}`,
    verification: (teamId) => `${p}verification:${segment(teamId)}`,
    catalog: (teamId, kind) => `${p}catalog:${segment(teamId)}:${segment(kind)}`,
    kindPrefix: (kind) => `${p}${kind}:`,
    queueTeamStream: (teamId) => `${q}stream:${segment(teamId)}`,
    queueTeams: () => `${q}teams`,
    queueBell: () => `${q}bell`,
    queueStream: () => `${q}stream`,
    queueDedup: (teamId, dedupKey) => `${q}dedup:${segment(teamId)}:${segment(dedupKey)}`,
    queueOrder: (orderKey) => `${q}order:${segment(orderKey)}`,
    queueLease: (orderKey) => `${q}lease:${segment(orderKey)}`,
    queueAttempts: () => `${q}attempts`,
    queueDead: () => `${q}dead`,
    queueDeadCounts: () => `${q}dead-counts`,
  };
}
