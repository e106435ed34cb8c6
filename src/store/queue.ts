/**
 * The durable event queue between the webhook receiver and the outboxes: intake only.
 *
 * - `enqueueOnce` records the dedup mark and appends the event in one atomic step: queued exactly once, or not at
 *   all (then it throws and the receiver answers 5xx so the platform retries).
 * - Each team's backlog is capped in entries and bytes (`EnqueueOptions`); its channels' outboxes count toward both.
 * - `consume` runs the handler on each entry, at least once, several at a time, teams round robin so one team's
 *   flood never starves another's. The handler hands the event to its channels' outboxes, which keep order,
 *   retries and dead letters (src/delivery/scheduler.ts): the queue only tries a failed handler again after a
 *   pause, and says which entries are not finished yet (`firstUnfinished`) so an outbox posts a team's events in
 *   the order they arrived. Entries held by a crashed consumer are taken over by another.
 *
 * Implementations: `MemoryQueue` (embedded mode) and `RedisQueue` (Redis Streams consumer group),
 * both running the same consumer logic (`queue-consumer.ts`).
 */

export interface QueueEvent {
  teamId: string;
  /** The conversation or call the event belongs to: its channels' outboxes post its events in order. */
  orderKey: string;
  /** Must survive JSON: both backends keep it as its JSON text (whose UTF-8 bytes count toward the byte cap). */
  payload: unknown;
}

export interface QueueEntry extends QueueEvent {
  /** Stream entry id (`<ms>-<seq>`). */
  id: string;
  /** Epoch ms of `enqueueOnce`. */
  enqueuedAt: number;
  /** 1 on the first try; grows by one per failed try of this consumer. */
  attempt: number;
}

/** `full`: at `maxBacklog` entries; `full_bytes`: past `maxBacklogBytes`. Either way nothing was written. */
export type EnqueueResult = 'queued' | 'duplicate' | 'full' | 'full_bytes';

/**
 * A team's backlog: its unfinished entries and what waits in its outboxes, each counted with the UTF-8 bytes of
 * its JSON. Its dead letters and dedup marks count toward `maxBacklogBytes` too (nothing its webhooks leave behind
 * is outside the budget) but give way to a new event: first the marks older than `DEDUP_MARK_GUARD_MS`, then the
 * oldest dead letters. Younger marks never do: a team they fill the budget of is `full_bytes` until they age.
 */
export interface EnqueueOptions {
  maxBacklog?: number;
  maxBacklogBytes?: number;
}

/** `events`: unfinished entries and outbox items; `bytes`: theirs, the dead letters' and the dedup marks'. */
export interface BacklogUsage {
  events: number;
  bytes: number;
}

/** What one dedup mark counts toward its team's byte cap: Redis spends about 130 bytes on one (`MEMORY USAGE`). */
export const DEDUP_MARK_BYTES = 144;

/**
 * A dedup mark younger than this never gives way to make room: a copy of the event arriving within it is always
 * a duplicate, however hard the hook is flooded. Older marks give way (oldest first) before dead letters do, so
 * a flood of new events holds its workspace at 429 for at most this long after it stops.
 */
export const DEDUP_MARK_GUARD_MS = 10 * 60_000;

/** An outbox item as read from the head of its channel's outbox. */
export interface OutboxItem {
  id: string;
  json: string;
  /** Its rank: lower goes out first; equal ranks in id order (the queue's order). */
  rank: number;
}

/**
 * Work waiting in a team's channels' outboxes, kept per (team, channel) as id → JSON. It counts toward the team's
 * backlog (in the same atomic step as the items change): no team gets past its caps by moving work out of the queue.
 */
export interface OutboxItems {
  /** Parks `json` under `id` (an entry id) ranked `rank`; a second put of the id keeps the first. Whether added. */
  put(teamId: string, channelId: string, id: string, json: string, rank: number): Promise<boolean>;
  /** The channel's first `limit` items, lowest rank first, then oldest id: costs the items read, not the channel's size. */
  head(teamId: string, channelId: string, limit: number): Promise<OutboxItem[]>;
  /** These items of the channel, id → JSON (ids not there are left out). */
  get(teamId: string, channelId: string, ids: readonly string[]): Promise<Record<string, string>>;
  count(teamId: string, channelId: string): Promise<number>;
  /** Removes these items (ids not there are skipped); returns how many were removed. */
  remove(teamId: string, channelId: string, ids: readonly string[]): Promise<number>;
}

export type QueueHandler = (entry: QueueEntry) => Promise<void>;

export interface ConsumeOptions {
  /** Unique per process (e.g. hostname + pid): entries are owned by consumer name. */
  consumer: string;
  /** Entries handled at the same time. Default 8. */
  concurrency?: number;
  /** How long one read waits for new entries. Default 5000 ms. */
  blockMs?: number;
  /** Entries of a consumer silent for this long are taken over by others. Default 30 000 ms. */
  claimIdleMs?: number;
  /** Delay before the next try after `attempt` failed tries. Default 1 s doubling, capped at 60 s. */
  retryDelayMs?: (attempt: number) => number;
  /** How many entries one consumer holds at most (read ahead). Default 4 × concurrency. */
  prefetch?: number;
  /** Told each entry this consumer finished (acknowledged): what waited for it may go. */
  onFinished?: (id: string) => void;
}

export interface Consumer {
  readonly name: string;
  /** Stops taking work and resolves once every handler already running has finished and been recorded. */
  stop(): Promise<void>;
}

/** Why one channel could not take an event (Slack's error code, or the error's message). */
export interface ChannelCause {
  channel: string;
  error: string;
}

export interface DeadLetter {
  id: string;
  teamId: string;
  orderKey: string;
  payload: unknown;
  /** Message of the last error. */
  error: string;
  /** Per channel, when the event failed in some channels: each one's own cause. */
  causes?: ChannelCause[];
  attempts: number;
  enqueuedAt: number;
  failedAt: number;
  /** Given up again after an admin's Retry: it is the same letter, not counted again among those ever kept. */
  retried?: boolean;
}

export interface DeadLetters {
  /** Dead letters ever recorded (for the team, when given). */
  count: number;
  /** Most recent first; bounded by `limit`, the workspace's cap (`DEAD_LETTER_CAP`) and their age. */
  entries: DeadLetter[];
}

export interface QueueDepth {
  /** Entries not finished yet (waiting + being handled/retried). */
  total: number;
  /** Delivered to a consumer, not finished (in progress, backing off, or held by a dead consumer). */
  pending: number;
  /** Not yet delivered to any consumer. */
  lag: number;
}

export interface EventQueue {
  /**
   * Queues the event unless `dedupKey` was seen (for this team) within `dedupTtlMs` by the store's clock
   * (`duplicate`, checked first) or the team's backlog is full (`full`, `full_bytes`). Throws if it cannot queue.
   */
  enqueueOnce(
    dedupKey: string,
    event: QueueEvent,
    dedupTtlMs: number,
    options?: EnqueueOptions,
  ): Promise<EnqueueResult>;
  consume(handler: QueueHandler, options: ConsumeOptions): Consumer;
  deadLetters(teamId: string, limit?: number): Promise<DeadLetters>;
  /**
   * Keeps a dead letter: one per event (its id). A letter of an event already kept is merged into it — the causes
   * of both, newest per channel — and counted once; a `retried` one is not counted again. Resolves whether it
   * counted the letter (a new one).
   */
  bury(letter: DeadLetter): Promise<boolean>;
  /** Removes and returns one of the team's dead letters (to try it again); undefined when it is gone. */
  takeDeadLetter(teamId: string, id: string): Promise<DeadLetter | undefined>;
  depth(): Promise<QueueDepth>;
  /**
   * The id of the team's oldest entry not finished yet (waiting, running or to be tried again), if any: every
   * entry of the team before it has been handled.
   */
  firstUnfinished(teamId: string): Promise<string | undefined>;
  /**
   * Forgets a workspace (it uninstalled the app): its entries, dead letters and their count; returns how many
   * entries and letters went. An entry a handler is running meanwhile is finished as usual.
   */
  forgetTeam(teamId: string): Promise<number>;
  /** What the team's backlog holds now (what `maxBacklog` and `maxBacklogBytes` are compared with). */
  usage(teamId: string): Promise<BacklogUsage>;
  /** The channels' outboxes: work out of the queue that counts toward its team's backlog. */
  readonly outboxes: OutboxItems;
  /** Stops every consumer started from this queue (waiting for their in-flight handlers) and releases resources. */
  close(): Promise<void>;
}

/** Newest dead letters kept per workspace (older ones are dropped; their count is kept). */
export const DEAD_LETTER_CAP = 500;

/** A dead letter older than this is dropped: two weeks to retry it, then its customer data goes. */
export const DEAD_LETTER_MAX_AGE_MS = 14 * 24 * 3_600_000;

/** What `deadLetters` shows of a workspace's letters as kept (newest first): the young enough, at most `limit`. */
export function shownLetters(count: number, kept: ReadonlyArray<DeadLetter | undefined>, limit = 50): DeadLetters {
  const cutoff = Date.now() - DEAD_LETTER_MAX_AGE_MS;
  const young = kept.filter((letter): letter is DeadLetter => letter !== undefined && letter.failedAt >= cutoff);
  return { count, entries: young.slice(0, limit) };
}

/**
 * One letter of an event given up in more places (each channel its own cause): `newer`'s fields, the causes of
 * both (the newer per channel), counted as the older was.
 */
export function mergeLetters(newer: DeadLetter, older: DeadLetter): DeadLetter {
  const byChannel = new Map<string, ChannelCause>();
  for (const cause of [...(older.causes ?? []), ...(newer.causes ?? [])]) byChannel.set(cause.channel, cause);
  const causes = [...byChannel.values()];
  const { retried: _, ...rest } = newer;
  return {
    ...rest,
    attempts: Math.max(newer.attempts, older.attempts),
    enqueuedAt: Math.min(newer.enqueuedAt, older.enqueuedAt),
    ...(causes.length > 0
      ? { causes, error: `posting failed in ${causes.map((c) => `${c.channel}: ${c.error}`).join('; ')}` }
      : {}),
    ...(older.retried ? { retried: true } : {}),
  };
}
