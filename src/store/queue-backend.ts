import type {
  BacklogUsage,
  DeadLetter,
  DeadLetters,
  EnqueueOptions,
  EnqueueResult,
  QueueDepth,
  OutboxItems,
  QueueEvent,
} from './queue.js';

/**
 * The primitives a queue backend provides; the consumer logic (retries, takeover) is written once on top of
 * them in `queue-consumer.ts`.
 *
 * Model (that of a Redis Streams consumer group): every entry is either waiting or pending for exactly one
 * consumer until it is completed. Waiting entries are kept per team and handed out round robin between teams.
 */
export interface StoredEntry {
  id: string;
  teamId: string;
  orderKey: string;
  payload: unknown;
  enqueuedAt: number;
  /** Where the backend keeps the entry when ids are only unique within it (Redis: the stream key). */
  source?: string;
}

/** Identifies an entry among all of a backend's: its id, qualified by its source when it has one. */
export function entryRef(entry: StoredEntry): string {
  return entry.source === undefined ? entry.id : `${entry.source}\u0000${entry.id}`;
}

export interface QueueReader {
  /**
   * Delivers waiting entries to this consumer — about `count`, shared round robin between the teams that have
   * some — waiting up to `blockMs` for some to arrive.
   */
  readNew(count: number, blockMs: number): Promise<StoredEntry[]>;
  /** Entries already pending for this consumer name (from before a restart). */
  readOwnPending(): Promise<StoredEntry[]>;
  /** Interrupts a waiting `readNew` and releases the reader's resources. */
  close(): void;
}

export interface QueueBackend {
  /** `mark`: the `shortDigest` of the event's dedup key. */
  enqueueOnce(mark: string, event: QueueEvent, dedupTtlMs: number, options: EnqueueOptions): Promise<EnqueueResult>;
  openReader(consumer: string): QueueReader;
  /** Takes over up to `count` entries pending (for any consumer) without a heartbeat for `minIdleMs`. */
  claimStale(consumer: string, minIdleMs: number, count: number): Promise<StoredEntry[]>;
  /** Keeps `entries` from being claimed by others. Returns those that no longer belong to this consumer. */
  heartbeat(consumer: string, entries: readonly StoredEntry[]): Promise<StoredEntry[]>;
  /** Finishes the entry: acknowledged, removed. */
  complete(consumer: string, entry: StoredEntry): Promise<void>;
  /** See `EventQueue.firstUnfinished`. */
  firstUnfinished(teamId: string): Promise<string | undefined>;
  deadLetters(teamId: string, limit: number): Promise<DeadLetters>;
  bury(letter: DeadLetter): Promise<boolean>;
  takeDeadLetter(teamId: string, id: string): Promise<DeadLetter | undefined>;
  depth(): Promise<QueueDepth>;
  forgetTeam(teamId: string): Promise<number>;
  usage(teamId: string): Promise<BacklogUsage>;
  readonly outboxes: OutboxItems;
  close(): Promise<void>;
}

/** Orders stream ids `<ms>-<seq>` numerically. */
export function compareEntryIds(a: string, b: string): number {
  const [aMs = 0n, aSeq = 0n] = a.split('-').map((part) => BigInt(part));
  const [bMs = 0n, bSeq = 0n] = b.split('-').map((part) => BigInt(part));
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  if (aSeq !== bSeq) return aSeq < bSeq ? -1 : 1;
  return 0;
}

/**
 * An entry id as a string that sorts like `compareEntryIds` (digits padded): the member of a sorted set whose
 * equal scores Redis orders by member bytes.
 */
export function sortableEntryId(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  return `${ms.padStart(16, '0')}-${seq.padStart(10, '0')}`;
}

/** The entry id a `sortableEntryId` stands for. */
export function entryIdOfSortable(member: string): string {
  const [ms = '0', seq = '0'] = member.split('-');
  return `${BigInt(ms)}-${BigInt(seq)}`;
}
