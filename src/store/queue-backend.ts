import type { QueueEvent } from './queue.js';

/**
 * An entry as a queue keeps it (the model of a Redis Streams consumer group: waiting, or pending for exactly one
 * consumer until completed), before a consumer hands it to its handler.
 */
export interface StoredEntry extends QueueEvent {
  id: string;
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

export function entryIdOfSortable(member: string): string {
  const [ms = '0', seq = '0'] = member.split('-');
  return `${BigInt(ms)}-${BigInt(seq)}`;
}
