import { pino } from 'pino';
import type { Logger } from 'pino';
import { DedupMarks } from './dedup-marks.js';
import { ConsumerGroupQueue } from './queue-consumer.js';
import { entryIdOfSortable, sortableEntryId } from './queue-backend.js';
import type { QueueReader, StoredEntry } from './queue-backend.js';
import { SortedMembers } from './memory-sorted.js';
import { DEAD_LETTER_CAP, DEAD_LETTER_MAX_AGE_MS, DEDUP_MARK_BYTES, DEDUP_MARK_GUARD_MS } from './queue.js';
import { mergeLetters, shownLetters } from './queue.js';
import type { BacklogUsage, DeadLetter, DeadLetters, EnqueueOptions, EnqueueResult, EventQueue } from './queue.js';
import type { OutboxItems, QueueDepth, QueueEvent } from './queue.js';

/**
 * An entry as kept: its payload as JSON text, as Redis keeps it — so handlers get a fresh copy on every read
 * (never the object intake still holds), and its size in UTF-8 bytes (what the byte cap counts) comes for free.
 */
interface Kept extends Omit<StoredEntry, 'payload' | 'source'> {
  json: string;
  bytes: number;
}

/** What a consumer gets: the payload read back from its JSON, as the Redis queue hands it out. */
function handedOut({ json, bytes: _, ...kept }: Kept): StoredEntry {
  return { ...kept, payload: JSON.parse(json) as unknown };
}

const NOTHING: Readonly<BacklogUsage> = { events: 0, bytes: 0 };

/**
 * A workspace's dead letters (newest first, with the UTF-8 bytes of their JSON), how many were ever kept, and the
 * byte cap its last event was taken by: what a bury keeps the letters under (see the Redis ENQUEUE).
 */
interface Dead {
  letters: Array<{ letter: DeadLetter; bytes: number }>;
  bytes: number;
  count: number;
  cap: number;
}

const noDead = (): Dead => ({ letters: [], bytes: 0, count: 0, cap: Number.POSITIVE_INFINITY });

/**
 * In-process event queue with the same model as the Redis one (waiting / pending per consumer), so the shared
 * consumer logic behaves identically. Nothing survives the process: this is the embedded single-process mode.
 */
export class MemoryQueue extends ConsumerGroupQueue implements EventQueue {
  /** Unfinished entries; Map order is enqueue order. */
  private readonly entries = new Map<string, Kept>();
  /** Unfinished ids per team, oldest first (Set order): `firstUnfinished`. */
  private readonly unfinished = new Map<string, Set<string>>();
  /** Not yet delivered ids per team, oldest first; Map order is the round-robin order between teams. */
  private readonly waiting = new Map<string, Fifo<string>>();
  /** Per team with a backlog: its unfinished entries and outbox items, and their bytes. */
  private readonly backlog = new Map<string, BacklogUsage>();
  /** Parked items per (team, channelId): id → JSON, and their order (rank, then id). */
  private readonly outboxItems = new Map<string, { items: Map<string, string>; order: SortedMembers }>();
  /** Delivered ids: the consumer each is pending for, and its last delivery or heartbeat (epoch ms). */
  private readonly pending = new Map<string, { consumer: string; seenAt: number }>();
  private readonly dedupMarks = new DedupMarks();
  private readonly dead = new Map<string, Dead>();
  /** The waits of readers with nothing to read: an enqueue ends them. */
  private readonly wakeReaders = new Set<() => void>();
  private lastMs = 0;
  private seq = 0;
  private closed = false;

  /** `now`: the store's clock, by which dedup marks are made and aged. */
  constructor(
    private readonly now: () => number = Date.now,
    logger: Logger = pino({ enabled: false }),
  ) {
    super(logger);
  }

  protected enqueueMarked(
    mark: string,
    event: QueueEvent,
    dedupTtlMs: number,
    options: EnqueueOptions,
  ): Promise<EnqueueResult> {
    if (this.closed) return Promise.reject(new Error('queue is closed'));
    const now = Date.now();
    const json = JSON.stringify(event.payload) ?? 'null';
    // Marks and their bytes, as the Redis ENQUEUE keeps them (see there); everything up to the append is
    // synchronous: atomic within this process.
    const team = event.teamId;
    const marks = this.dedupMarks;
    const markedAt = this.now();
    if (marks.holds(team, mark, markedAt, dedupTtlMs)) return Promise.resolve('duplicate');
    marks.remove(team, mark);
    marks.drop(team, markedAt - dedupTtlMs, 2, markedAt);
    const bytes = Buffer.byteLength(json);
    const usage = this.backlog.get(team) ?? NOTHING;
    if (options.maxBacklog !== undefined && usage.events >= options.maxBacklog) return Promise.resolve('full');
    const cap = options.maxBacklogBytes;
    if (cap !== undefined) {
      // The backlog, this event and its mark beside the team's others; marks past the guard give way first.
      let held = usage.bytes + bytes + (marks.count(team, markedAt) + 1) * DEDUP_MARK_BYTES;
      const dead = getOrAdd(this.dead, team, noDead);
      if (held + dead.bytes > cap) {
        const upTo = Math.ceil((held + dead.bytes - cap) / DEDUP_MARK_BYTES);
        held -= DEDUP_MARK_BYTES * marks.drop(team, markedAt - DEDUP_MARK_GUARD_MS, upTo, markedAt);
      }
      if (held > cap) return Promise.resolve('full_bytes');
      // Dead letters count toward the byte cap but give way to a new event: the oldest go until it fits.
      dead.cap = cap;
      dropDead(dead, () => held + dead.bytes > cap);
    }
    marks.add(team, mark, markedAt, dedupTtlMs);
    const id = this.nextId(now);
    this.entries.set(id, { id, teamId: event.teamId, orderKey: event.orderKey, json, bytes, enqueuedAt: now });
    this.count(team, 1, bytes);
    getOrAdd(this.waiting, team, () => new Fifo<string>()).push(id);
    getOrAdd(this.unfinished, team, () => new Set<string>()).add(id);
    for (const wake of this.wakeReaders) wake();
    return Promise.resolve('queued');
  }

  openReader(consumer: string): QueueReader {
    let closed = false;
    let wake: (() => void) | undefined;
    // One entry per team in turn; a team that got one goes to the back (re-added, so this loop meets it again).
    const take = (count: number): StoredEntry[] => {
      const now = Date.now();
      const taken: StoredEntry[] = [];
      for (const [team, ids] of this.waiting) {
        if (taken.length >= count) break;
        const id = ids.shift();
        this.waiting.delete(team);
        if (ids.size > 0) this.waiting.set(team, ids);
        const entry = id === undefined ? undefined : this.entries.get(id);
        if (!entry) continue;
        this.pending.set(entry.id, { consumer, seenAt: now });
        taken.push(handedOut(entry));
      }
      return taken;
    };
    return {
      readNew: async (count, blockMs) => {
        if (closed || this.closed) return [];
        const ready = take(count);
        if (ready.length > 0) return ready;
        // A plain timer and resolver, not an AbortSignal: readers wait after nearly every entry, and an abort
        // builds an error with its stack each time (a quarter of memory mode's throughput).
        await new Promise<void>((resolve) => {
          const timer = setTimeout((wake = () => (clearTimeout(timer), resolve())), blockMs);
          this.wakeReaders.add(wake);
        });
        this.wakeReaders.delete(wake!);
        return closed || this.closed ? [] : take(count);
      },
      readOwnPending: () =>
        Promise.resolve(
          [...this.pending].flatMap(([id, p]) => {
            const entry = this.entries.get(id);
            return p.consumer === consumer && entry ? [handedOut(entry)] : [];
          }),
        ),
      close: () => {
        closed = true;
        wake?.();
      },
    };
  }

  claimStale(consumer: string, minIdleMs: number, count: number): Promise<StoredEntry[]> {
    const now = Date.now();
    const claimed: StoredEntry[] = [];
    for (const [id, p] of this.pending) {
      if (claimed.length >= count) break;
      const entry = this.entries.get(id);
      if (!entry || now - p.seenAt < minIdleMs) continue;
      this.pending.set(id, { consumer, seenAt: now });
      claimed.push(handedOut(entry));
    }
    return Promise.resolve(claimed);
  }

  heartbeat(consumer: string, entries: readonly StoredEntry[]): Promise<StoredEntry[]> {
    const now = Date.now();
    const lost: StoredEntry[] = [];
    for (const entry of entries) {
      const p = this.pending.get(entry.id);
      if (p?.consumer === consumer) p.seenAt = now;
      else lost.push(entry);
    }
    return Promise.resolve(lost);
  }

  complete(entry: StoredEntry): Promise<void> {
    const kept = this.entries.get(entry.id);
    if (kept) {
      this.entries.delete(entry.id);
      this.count(kept.teamId, -1, -kept.bytes);
      const unfinished = this.unfinished.get(kept.teamId);
      unfinished?.delete(entry.id);
      if (unfinished?.size === 0) this.unfinished.delete(kept.teamId);
    }
    this.pending.delete(entry.id);
    return Promise.resolve();
  }

  firstUnfinished(teamId: string): Promise<string | undefined> {
    return Promise.resolve(this.unfinished.get(teamId)?.values().next().value);
  }

  takeDeadLetter(teamId: string, id: string): Promise<DeadLetter | undefined> {
    const dead = this.dead.get(teamId);
    const at = dead?.letters.findIndex((d) => d.letter.id === id) ?? -1;
    if (!dead || at < 0) return Promise.resolve(undefined);
    const [taken] = dead.letters.splice(at, 1);
    dead.bytes -= taken!.bytes;
    return Promise.resolve(taken!.letter);
  }

  /** See `EventQueue.bury`: the twin of the letter goes, both merged come first. */
  bury(given: DeadLetter): Promise<boolean> {
    const dead = getOrAdd(this.dead, given.teamId, noDead);
    const twin = dead.letters.findIndex((d) => d.letter.id === given.id);
    const [older] = twin < 0 ? [] : dead.letters.splice(twin, 1);
    const letter = older ? mergeLetters(given, older.letter) : given;
    const bytes = Buffer.byteLength(JSON.stringify(letter));
    dead.letters.unshift({ letter, bytes });
    dead.bytes += bytes - (older?.bytes ?? 0);
    const cutoff = Date.now() - DEAD_LETTER_MAX_AGE_MS;
    const live = this.liveBytes(given.teamId);
    // The newest letter stays; older ones go past the count cap, past the byte cap, or once too old.
    dropDead(
      dead,
      (oldest, count) =>
        count > DEAD_LETTER_CAP || (count > 1 && live + dead.bytes > dead.cap) || oldest.failedAt < cutoff,
    );
    if (older || given.retried) return Promise.resolve(false);
    dead.count++;
    return Promise.resolve(true);
  }

  deadLetters(teamId: string, limit?: number): Promise<DeadLetters> {
    const dead = this.dead.get(teamId);
    return Promise.resolve(shownLetters(dead?.count ?? 0, dead?.letters.map((d) => d.letter) ?? [], limit));
  }

  depth(): Promise<QueueDepth> {
    const { size: total } = this.entries;
    return Promise.resolve({ total, pending: this.pending.size, lag: total - this.pending.size });
  }

  forgetTeam(teamId: string): Promise<number> {
    const ids = this.unfinished.get(teamId) ?? new Set<string>();
    for (const id of ids) {
      this.entries.delete(id);
      this.pending.delete(id);
    }
    this.unfinished.delete(teamId);
    this.waiting.delete(teamId);
    this.backlog.delete(teamId);
    for (const key of this.outboxItems.keys()) if (key.startsWith(outboxKey(teamId, ''))) this.outboxItems.delete(key);
    const removed = ids.size + (this.dead.get(teamId)?.letters.length ?? 0);
    this.dead.delete(teamId);
    this.dedupMarks.forgetTeam(teamId);
    return Promise.resolve(removed);
  }

  override async close(): Promise<void> {
    await super.close();
    this.closed = true;
    for (const wake of this.wakeReaders) wake();
  }

  /** Adds to a team's backlog counts; a team with nothing left is forgotten. */
  private count(teamId: string, events: number, bytes: number): void {
    const usage = this.backlog.get(teamId) ?? NOTHING;
    if (usage.events + events > 0)
      this.backlog.set(teamId, { events: usage.events + events, bytes: usage.bytes + bytes });
    else this.backlog.delete(teamId);
  }

  usage(teamId: string): Promise<BacklogUsage> {
    const events = this.backlog.get(teamId)?.events ?? 0;
    return Promise.resolve({ events, bytes: this.liveBytes(teamId) + (this.dead.get(teamId)?.bytes ?? 0) });
  }

  /** The bytes of the team's backlog and its dedup marks: what its dead letters give way to. */
  private liveBytes(teamId: string): number {
    return (this.backlog.get(teamId)?.bytes ?? 0) + this.dedupMarks.count(teamId, this.now()) * DEDUP_MARK_BYTES;
  }

  readonly outboxes: OutboxItems = {
    put: (teamId, channelId, id, json, rank) => {
      const key = outboxKey(teamId, channelId);
      const channel = getOrAdd(this.outboxItems, key, () => ({
        items: new Map<string, string>(),
        order: new SortedMembers(),
      }));
      if (channel.items.has(id)) return Promise.resolve(false);
      channel.items.set(id, json);
      channel.order.add(sortableEntryId(id), rank);
      this.count(teamId, 1, Buffer.byteLength(json));
      return Promise.resolve(true);
    },
    head: (teamId, channelId, limit) => {
      const channel = this.outboxItems.get(outboxKey(teamId, channelId));
      return Promise.resolve(
        (channel?.order.first(limit) ?? []).flatMap(({ member, score }) => {
          const id = entryIdOfSortable(member);
          const json = channel?.items.get(id);
          return json === undefined ? [] : [{ id, json, rank: score }];
        }),
      );
    },
    get: (teamId, channelId, ids) => {
      const items = this.outboxItems.get(outboxKey(teamId, channelId))?.items;
      return Promise.resolve(Object.fromEntries(ids.flatMap((id) => (items?.has(id) ? [[id, items.get(id)!]] : []))));
    },
    count: (teamId, channelId) => Promise.resolve(this.outboxItems.get(outboxKey(teamId, channelId))?.items.size ?? 0),
    remove: (teamId, channelId, ids) => {
      const key = outboxKey(teamId, channelId);
      const channel = this.outboxItems.get(key);
      let removed = 0;
      for (const id of ids) {
        const json = channel?.items.get(id);
        if (json === undefined) continue;
        channel!.items.delete(id);
        channel!.order.remove(sortableEntryId(id));
        removed++;
        this.count(teamId, -1, -Buffer.byteLength(json));
      }
      if (channel?.items.size === 0) this.outboxItems.delete(key);
      return Promise.resolve(removed);
    },
  };

  /** Stream-like ids (`<ms>-<seq>`), growing even when the clock does not. */
  private nextId(now: number): string {
    this.seq = now > this.lastMs ? 0 : this.seq + 1;
    this.lastMs = Math.max(this.lastMs, now);
    return `${this.lastMs}-${this.seq}`;
  }
}

/** Drops the oldest dead letters while `more(the oldest, how many are kept)` says so. */
function dropDead(dead: Dead, more: (oldest: DeadLetter, count: number) => boolean): void {
  while (dead.letters.length > 0 && more(dead.letters[dead.letters.length - 1]!.letter, dead.letters.length)) {
    dead.bytes -= dead.letters.pop()!.bytes;
  }
}

/** The map's value at `key`, made (and kept there) when it has none. */
function getOrAdd<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const value = map.get(key) ?? make();
  map.set(key, value);
  return value;
}

function outboxKey(teamId: string, channelId: string): string {
  return `${teamId}\u0000${channelId}`;
}

/**
 * First in, first out, each end O(1): `Array#shift` copies the whole array once it is large (a backlog of
 * tens of thousands of ids made every take cost more than the delivery itself).
 */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Taken slots are dropped once they are most of the array (amortised O(1) per item).
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
