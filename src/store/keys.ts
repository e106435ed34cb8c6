/**
 * The one place Redis key names are built. Every stored key starts with the configured prefix, and every
 * free-form part (team ids, campaign ids, dedup keys…; never a customer's number or email: `customer-names.ts`) goes through `segment()` so that a
 * value containing `:` cannot collide with another key and a value containing `{`/`}` cannot change a key's
 * Redis Cluster hash slot.
 *
 * Keys touched together by one Lua script share a hash tag, so the scripts stay valid on Redis Cluster: the
 * event queue's keys carry their workspace's queue group, `{queue:<g>.<n>}` (`queueGroup`), so that the queue spreads
 * over `QUEUE_GROUPS` slots — over every master of a Cluster — and every script touches one group's keys. The tag
 * must be the first `{…}` in the key, which is why the prefix may not contain braces.
 *
 * A key that belongs to one workspace is built by a *workspace kind* (`kinds.add`): the team id is a part of
 * its own at a known place, so `workspaceOf(key)` names the workspace of any stored key, and uninstalling
 * finds every key of a workspace with one scan (`forgetWorkspace`). A new per-workspace key is declared
 * the same way; a builder that takes a team id any other way must be listed in the key tests' shared keys,
 * with what removes the workspace's part of it.
 */

import calculateSlot from 'cluster-key-slot';

export const DEFAULT_KEY_PREFIX = 'campaign:';

/**
 * How many groups the event queue is split into: each group's keys share one hash tag, so on a Cluster the queue
 * spreads over up to this many masters. Changing it moves every workspace's queue keys (drain the queue first).
 */
export const QUEUE_GROUPS = 16;

/** The queue group of a workspace: FNV-1a of its team id, so every replica agrees without asking the store. */
export function queueGroup(teamId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < teamId.length; i++) {
    hash ^= teamId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % QUEUE_GROUPS;
}

const SLOTS = 16_384;

/**
 * The hash tags of the queue groups, `queue:<g>.<n>`: `n` is the first number that puts group g's slot in the g-th
 * of QUEUE_GROUPS equal ranges of slots. Clusters give each master a range of slots (equal ones by default), so the
 * groups spread over the masters as evenly as the ranges do; 16 tags hashed as they come put 8 of them on one of
 * three masters.
 */
const QUEUE_TAGS: readonly string[] = Array.from({ length: QUEUE_GROUPS }, (_, group) => {
  const range = SLOTS / QUEUE_GROUPS;
  for (let n = 0; ; n++) {
    const tag = `queue:${group}.${n}`;
    if (Math.floor(calculateSlot(tag) / range) === group) return tag;
  }
});

/** The hash tag of one queue group's keys. */
function queueTag(group: number): string {
  return `{${QUEUE_TAGS[group]!}}`;
}

export interface Keys {
  readonly prefix: string;
  /** Hash: encrypted API key, connection metadata, hook token (encrypted) and its hash. */
  workspace(teamId: string): string;
  /** String: SHA-256 (hex) of a hook token → team id. */
  hookToken(tokenHash: string): string;
  /** String: the store's schema version (`schema-version.ts`), shared by every workspace. */
  schemaVersion(): string;
  /** Set: the team's event routes. */
  routes(teamId: string): string;
  /** Slack installation (OAuth multi-workspace mode). */
  installation(teamId: string, enterpriseId?: string): string;
  /** String: the Enterprise Grid org a workspace belongs to, as Slack's requests from it said. */
  workspaceOrg(teamId: string): string;
  /** String with TTL: the lease of the one replica refreshing a rotating token (`installationKey`: its installation). */
  tokenRefresh(installationKey: string): string;
  /** String with TTL: a workspace's "seen once" marks and short locks, e.g. Slack event retries. */
  dedup(teamId: string, scope: string, id?: string): string;
  /** String with TTL: a workspace's cached JSON values (see `Cache`, which passes its logical key as `name`). */
  cache(teamId: string, name: string): string;
  /** A handoff conversation (workspace, campaign, customer): `customer` is its keyed hash (`CustomerNames`), never a number or email. */
  conversation(teamId: string, campaignId: string, customer: string): string;
  /** String: the HMAC key customers' key-name parts are made with, sealed (`CustomerNames`). */
  customerNameKey(): string;
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
  /** Hash: channel id → who can read the channel and what an admin accepted (JSON; `ChannelAudienceRepo`). */
  channelAudiences(teamId: string): string;
  /**
   * Hash: the workspace's roster — Slack user id → one letter for who they are (member, guest, another
   * organisation, deactivated), and field `#` → when it was listed (JSON; `RosterRepo`).
   */
  roster(teamId: string): string;
  /** Hash: Slack user id → since when (epoch ms) they are on shift, taking chats (`/campaign shift`). */
  shift(teamId: string): string;
  /** String: the workspace's round-robin turn counter (INCR), shared by every replica. */
  assignTurn(teamId: string): string;
  /** Hash: name → one of the workspace's saved replies (JSON; `/campaign replies`, the card's Quick reply). */
  savedReplies(teamId: string): string;
  /** Sorted set: timer ids scored by when each is due (epoch ms), one per kind of timer (see `TimerRepo`). */
  timers(kind: string): string;
  /** Set: the workspace's timers, each as `<kind>\n<id>` (uninstalling reads these, not every timer). */
  timerIndex(teamId: string): string;
  /** String with TTL: which replica is running one firing of a timer. */
  timerLease(kind: string, id: string, dueAt: number): string;
  /** Hash: channel id → that channel's digest schedule (JSON). */
  digests(teamId: string): string;
  /** Hash: channel id → the figures of the channel's previous digest (JSON), for the next one's changes. */
  digestFigures(teamId: string): string;
  /** Hash: snapshot time (epoch ms) → the dashboard's totals then (JSON), bounded (see `ReportRepo.addSnapshot`). */
  digestSnapshots(teamId: string): string;
  /** Hash: channel id → that channel's quota-alert thresholds (JSON). */
  quotaAlerts(teamId: string): string;
  /** String with TTL: "posted" mark of one report (a digest slot, a quota threshold of a month) in one channel. */
  reportMark(kind: string, teamId: string, channelId: string, period: string): string;
  /** Sorted set: `<team>:<channel>` of the channels with waiting posts, scored by when each is next due (epoch ms). */
  outboxDue(): string;
  /** String with TTL: which replica is posting a channel's waiting posts. */
  outboxLease(teamId: string, channelId: string): string;
  /** String with TTL: the entry ids (JSON) of the roll-up under way in a channel. */
  callRollup(teamId: string, channelId: string): string;
  /** String with TTL: one Slack call budget's next free slot (see `RateBudget`). */
  rateBudget(id: string): string;
  /** String with TTL: the end of the budget's long hold; its hash tag is the budget's key (one Cluster slot). */
  rateHold(id: string): string;
  /** Hash: channel id → why the bot cannot post there and since when (see `ChannelPauseRepo`). */
  channelPauses(teamId: string): string;
  /** Hash: channel id → the Slack user who subscribed it (told when it is paused). */
  channelSubscribers(teamId: string): string;
  /** String: the workspace's last business-verification submission (see `VerificationRepo`). */
  verification(teamId: string): string;
  // Outcome alerts (`/campaign alert`). An alert is a field `JSON [channelId, campaignId]` of its workspace.
  /** Hash: alert field → the channel's alert for that campaign (JSON). */
  outcomeAlerts(teamId: string): string;
  /** Hash: alert field → the alert's open incident: its post and the figures it shows (JSON). */
  alertIncidents(teamId: string): string;
  /** Hash with TTL, the workspace's count tag: `<bucket>:calls` / `<bucket>:matched` → calls counted in one alert. */
  alertWindow(teamId: string, alertField: string): string;
  /** Sorted set with TTL, the workspace's count tag: the calls lately counted for its alerts (capped; `countOnce`). */
  alertCounted(teamId: string): string;
  // Events that arrived for no channel (`UnroutedEventRepo`), under the workspace's hash tag `{unrouted:<team>}`.
  /** Hash with TTL: hour (epoch hours) → events that arrived for no channel then. */
  unroutedCounts(teamId: string): string;
  /** Sorted set with TTL: the events lately counted as arriving for no channel (capped; `countOnce`). */
  unroutedCounted(teamId: string): string;
  /** Sorted set with TTL: the newest events that arrived for no channel (JSON, with their event key), by arrival. */
  unroutedRecent(teamId: string): string;
  /** What every `workspace()` / `installation()` key starts with (full scans, e.g. `npm run rekey`). */
  kindPrefix(kind: 'workspace' | 'installation'): string;
  /** The workspace a key built here belongs to, or undefined for a key shared by every workspace (or not ours). */
  workspaceOf(key: string): string | undefined;
  /** Hash: id → what the bot has seen of one kind of platform thing (campaigns, agents, numbers; `CatalogRepo`). */
  catalog(teamId: string, kind: string): string;
  /** String with TTL: the file behind one attachment link an agent sent a customer (JSON; `AttachmentRepo`). */
  attachment(teamId: string, tokenHash: string): string;
  /** String with TTL: SHA-256 (hex) of an attachment link's token → its workspace (the link names no workspace). */
  attachmentToken(tokenHash: string): string;

  // Event queue. A workspace's keys carry its group's hash tag (`queueGroup`); so do the group's shared ones.
  /** Stream of one workspace's events (consumer group `workers`); its length is the workspace's backlog. */
  queueTeamStream(teamId: string): string;
  /** Set: the group's team ids whose stream may hold entries (what workers read, round robin). */
  queueTeams(group: number): string;
  /**
   * Stream: one short entry (the group) whenever events were queued, to wake blocked readers. Shared by every
   * group, so it carries no hash tag: it is written and read on its own.
   */
  queueWakeups(): string;
  /**
   * Sorted set: the workspace's dedup marks — a fixed-size digest of each event's dedup key, scored by when it was
   * marked. One key per workspace, its bytes counted toward the byte cap (`ENQUEUE`).
   */
  queueMarks(teamId: string): string;
  /** List: one workspace's dead letters, most recent first, capped (`redis-dead-letters.ts`). */
  queueDead(teamId: string): string;
  /** Hash: team id → dead letters ever, for the group's workspaces. */
  queueDeadCounts(group: number): string;
  /**
   * Hash: what one workspace's backlog holds besides its stream's length — `bytes` of its stream entries'
   * payloads, the items of its channels' outboxes (`parked`) with their `parkedBytes`,
   * and the `deadBytes` of its dead letters (they count toward the byte cap too).
   */
  queueUsage(teamId: string): string;
  /** Hash: entry id → JSON of one channel's outbox (its waiting posts). */
  queueOutbox(teamId: string, channelId: string): string;
  /** Sorted set: the same items' ids (made sortable), scored by their lane: what goes out first, read from the head. */
  queueOutboxOrder(teamId: string, channelId: string): string;
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
  const kinds = new WorkspaceKinds();
  const workspace = kinds.add(p, 'workspace');
  const routes = kinds.add(p, 'routes');
  // Laid out before workspace kinds existed: the enterprise (or `-`) comes first.
  const installation = kinds.add(p, 'installation', 1);
  const workspaceOrg = kinds.add(p, 'workspace-org');
  const dedup = kinds.add(p, 'dedup');
  const cache = kinds.add(p, 'cache');
  const conversation = kinds.add(p, 'conversation');
  const thread = kinds.add(p, 'thread');
  const agentLinks = kinds.add(p, 'agent-links');
  const threadOwner = kinds.add(p, 'thread-owner');
  const openThreads = kinds.add(p, 'open-threads');
  const handoffSla = kinds.add(p, 'handoff-sla');
  const channelAudiences = kinds.add(p, 'channel-audiences');
  const roster = kinds.add(p, 'roster');
  const shift = kinds.add(p, 'shift');
  const assignTurn = kinds.add(p, 'assign-turn');
  const digests = kinds.add(p, 'digests');
  const digestFigures = kinds.add(p, 'digest-figures');
  const digestSnapshots = kinds.add(p, 'digest-snapshots');
  const quotaAlerts = kinds.add(p, 'quota-alerts');
  // The report's kind comes first, as it always has.
  const reportMark = kinds.add(p, 'report-mark', 1);
  const outboxLease = kinds.add(p, 'outbox-lease');
  const callRollup = kinds.add(p, 'call-rollup');
  const channelPauses = kinds.add(p, 'channel-pauses');
  const channelSubscribers = kinds.add(p, 'channel-subscribers');
  const verification = kinds.add(p, 'verification');
  const savedReplies = kinds.add(p, 'saved-replies');
  const timerIndex = kinds.add(p, 'timer-index');
  const catalog = kinds.add(p, 'catalog');
  const attachment = kinds.add(p, 'attachment');
  const outcomeAlerts = kinds.add(p, 'outcome-alerts');
  const alertIncidents = kinds.add(p, 'alert-incidents');
  // Alert counts carry their workspace in their hash tag: `{alert-counts:<team>}` (a segment holds no brace).
  kinds.addDerived(p, '{alert-counts', (parts) =>
    parts[0]?.endsWith('}') ? unsegment(parts[0].slice(0, -1)) : undefined,
  );
  kinds.addDerived(p, '{unrouted', (parts) => (parts[0]?.endsWith('}') ? unsegment(parts[0].slice(0, -1)) : undefined));
  // A workspace's queue keys: `{queue:<g>.<n>}:<kind>:<team>:…` (the group is the team's: it names nothing more).
  const queueKinds = new Set(['stream', 'marks', 'usage', 'parked', 'parked-order', 'dead']);
  kinds.addDerived(p, '{queue', (parts) =>
    parts[0]?.endsWith('}') && queueKinds.has(parts[1] ?? '') && parts[2] !== undefined
      ? unsegment(parts[2])
      : undefined,
  );
  const q = (group: number) => `${p}${queueTag(group)}:`;
  const queueOwn = (kind: string, teamId: string, ...parts: string[]) =>
    `${q(queueGroup(teamId))}${kind}:${[teamId, ...parts].map(segment).join(':')}`;
  // A timer's lease names its timer, whose id names the workspace (`timerId`).
  kinds.addDerived(p, 'timer-lease', (parts) => (parts[1] === undefined ? undefined : timerTeam(unsegment(parts[1]))));
  return {
    prefix: p,
    workspace: (teamId) => workspace(teamId),
    hookToken: (tokenHash) => `${p}hook-token:${segment(tokenHash)}`,
    schemaVersion: () => `${p}schema-version`,
    routes: (teamId) => routes(teamId),
    installation: (teamId, enterpriseId) => installation(teamId, enterpriseId ?? '-'),
    workspaceOrg: (teamId) => workspaceOrg(teamId),
    tokenRefresh: (installationKey) => `${p}token-refresh:${segment(installationKey)}`,
    dedup: (teamId, scope, id) => (id === undefined ? dedup(teamId, scope) : dedup(teamId, scope, id)),
    cache: (teamId, name) => cache(teamId, name),
    conversation: (teamId, campaignId, customer) => conversation(teamId, campaignId, customer),
    customerNameKey: () => `${p}customer-name-key`,
    thread: (teamId, channelId, threadTs) => thread(teamId, channelId, threadTs),
    agentLinks: (teamId) => agentLinks(teamId),
    threadOwner: (teamId, channelId, threadTs) => threadOwner(teamId, channelId, threadTs),
    openThreads: (teamId) => openThreads(teamId),
    handoffSla: (teamId) => handoffSla(teamId),
    channelAudiences: (teamId) => channelAudiences(teamId),
    roster: (teamId) => roster(teamId),
    shift: (teamId) => shift(teamId),
    assignTurn: (teamId) => assignTurn(teamId),
    savedReplies: (teamId) => savedReplies(teamId),
    timers: (kind) => `${p}timers:${segment(kind)}`,
    timerIndex: (teamId) => timerIndex(teamId),
    timerLease: (kind, id, dueAt) => `${p}timer-lease:${segment(kind)}:${segment(id)}:${dueAt}`,
    digests: (teamId) => digests(teamId),
    digestFigures: (teamId) => digestFigures(teamId),
    digestSnapshots: (teamId) => digestSnapshots(teamId),
    quotaAlerts: (teamId) => quotaAlerts(teamId),
    reportMark: (kind, teamId, channelId, period) => reportMark(teamId, kind, channelId, period),
    outboxDue: () => `${p}outbox-due`,
    outboxLease: (teamId, channelId) => outboxLease(teamId, channelId),
    callRollup: (teamId, channelId) => callRollup(teamId, channelId),
    rateBudget: (id) => `${p}rate-budget:${segment(id)}`,
    rateHold: (id) => `${p}rate-hold:{${p}rate-budget:${segment(id)}}`,
    verification: (teamId) => verification(teamId),
    channelPauses: (teamId) => channelPauses(teamId),
    channelSubscribers: (teamId) => channelSubscribers(teamId),
    outcomeAlerts: (teamId) => outcomeAlerts(teamId),
    alertIncidents: (teamId) => alertIncidents(teamId),
    // One hash tag per workspace: a call is counted in all of its alerts by one script (Redis Cluster: one slot).
    alertWindow: (teamId, alertField) => `${p}{alert-counts:${segment(teamId)}}:window:${segment(alertField)}`,
    alertCounted: (teamId) => `${p}{alert-counts:${segment(teamId)}}:counted`,
    // One hash tag per workspace: an event's mark and its count are written by one script (one Cluster slot).
    unroutedCounts: (teamId) => `${p}{unrouted:${segment(teamId)}}:counts`,
    unroutedCounted: (teamId) => `${p}{unrouted:${segment(teamId)}}:counted`,
    unroutedRecent: (teamId) => `${p}{unrouted:${segment(teamId)}}:recent`,
    catalog: (teamId, kind) => catalog(teamId, kind),
    attachment: (teamId, tokenHash) => attachment(teamId, tokenHash),
    attachmentToken: (tokenHash) => `${p}attachment-token:${segment(tokenHash)}`,
    kindPrefix: (kind) => `${p}${kind}:`,
    workspaceOf: (key) => kinds.teamOf(key),
    queueTeamStream: (teamId) => queueOwn('stream', teamId),
    queueTeams: (group) => `${q(group)}teams`,
    queueWakeups: () => `${p}queue-wakeups`,
    queueMarks: (teamId) => queueOwn('marks', teamId),
    queueDead: (teamId) => queueOwn('dead', teamId),
    queueDeadCounts: (group) => `${q(group)}dead-counts`,
    queueUsage: (teamId) => queueOwn('usage', teamId),
    queueOutbox: (teamId, channelId) => queueOwn('parked', teamId, channelId),
    queueOutboxOrder: (teamId, channelId) => queueOwn('parked-order', teamId, channelId),
  };
}

/**
 * The id of a workspace's timer: `["<team>", …parts]` (JSON: unambiguous whatever the ids hold), so the
 * workspace of every timer is known (`timerTeam`) and uninstalling removes its timers from the shared hashes.
 */
export function timerId(teamId: string, ...parts: string[]): string {
  return JSON.stringify([teamId, ...parts]);
}

/** The parts of a timer id made by `timerId` (the workspace first); undefined for any other id. */
function timerIdParts(id: string): string[] | undefined {
  if (!id.startsWith('[')) return undefined;
  try {
    const parts: unknown = JSON.parse(id);
    return Array.isArray(parts) && parts.every((p) => typeof p === 'string') ? parts : undefined;
  } catch {
    return undefined;
  }
}

/** The workspace of a timer id made by `timerId`; undefined for any other id. */
export function timerTeam(id: string): string | undefined {
  return timerIdParts(id)?.[0];
}

/** The `count` parts of a timer id made by `timerId` (the workspace first); undefined for any other id. */
export function timerParts(id: string, count: number): string[] | undefined {
  const parts = timerIdParts(id);
  return parts?.length === count ? parts : undefined;
}

/**
 * The kinds of key that belong to one workspace: `<base><kind>:<part>:…`, every part `segment()`ed, the team
 * id one of the parts (the first, unless an older layout says otherwise).
 */
class WorkspaceKinds {
  private readonly kinds: Array<{ start: string; teamOf: (parts: string[]) => string | undefined }> = [];

  /** A builder `(teamId, ...parts)` of the kind; the team id goes at `teamAt` among the parts. */
  add(base: string, kind: string, teamAt = 0): (teamId: string, ...parts: string[]) => string {
    const start = `${base}${kind}:`;
    this.kinds.push({ start, teamOf: (parts) => (parts[teamAt] === undefined ? undefined : unsegment(parts[teamAt])) });
    return (teamId, ...parts) => {
      const all = [...parts.slice(0, teamAt), teamId, ...parts.slice(teamAt)];
      return `${start}${all.map(segment).join(':')}`;
    };
  }

  /** A kind whose workspace is read from its parts (still `segment()`ed) by `teamOf`. */
  addDerived(base: string, kind: string, teamOf: (parts: string[]) => string | undefined): void {
    this.kinds.push({ start: `${base}${kind}:`, teamOf });
  }

  teamOf(key: string): string | undefined {
    for (const { start, teamOf } of this.kinds) {
      if (key.startsWith(start)) return teamOf(key.slice(start.length).split(':'));
    }
    return undefined;
  }
}
