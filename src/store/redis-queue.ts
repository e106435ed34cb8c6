import { pino } from 'pino';
import type { Logger } from 'pino';
import { z } from 'zod';
import { QUEUE_GROUPS, queueGroup, type Keys } from './keys.js';
import { ConsumerGroupQueue, errorMessage } from './queue-consumer.js';
import type { QueueReader, StoredEntry } from './queue-backend.js';
import type { BacklogUsage, DeadLetter, EnqueueOptions, EnqueueResult, EventQueue } from './queue.js';
import type { OutboxItems, QueueDepth, QueueEvent } from './queue.js';
import { blockingConnection, watchErrors, type RedisClient } from './redis-connection.js';
import { withScripts } from './redis-scripts.js';
import { autoClaimReply, enqueueReply, isError, pairReply } from './redis-queue-replies.js';
import { readGroupReply, toEntry, type RawEntries } from './redis-queue-replies.js';
import { redisOutboxItems } from './redis-queue-outbox.js';
import { redisDeadLetters } from './redis-dead-letters.js';

/** Streams of one queue group one read goes through at most (beyond, the window moves on with every read). */
const MAX_STREAMS_PER_READ = 200;
/** Wake-ups a blocked reader takes at once (each names a group that got work). */
const WAKEUPS_PER_READ = 100;
const ALL_GROUPS: readonly number[] = Array.from({ length: QUEUE_GROUPS }, (_, g) => g);
const GROUP = 'workers';

export interface RedisQueueOptions {
  redis: RedisClient;
  keys: Keys;
  logger?: Logger;
  /** The store's clock: when dedup marks are made and how old they are. Default `Date.now`. */
  now?: () => number;
}

/**
 * Redis Streams queue: a stream per team, each with the consumer group `workers`, its keys under the hash tag of the
 * team's queue group (`queueGroup`): every script call touches one group's keys, and a Cluster spreads the groups
 * over its masters. A reader reads each group's streams with a command of their own and, with nothing to read, waits
 * for a wake-up, rung after every enqueue, on a connection of its own (XREADGROUP BLOCK holds it for the wait).
 */
export class RedisQueue extends ConsumerGroupQueue implements EventQueue {
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly now: () => number;
  private readonly wakeups: string;
  private wakeupsReady: Promise<void> | undefined;
  readonly outboxes: OutboxItems;
  private readonly dead: ReturnType<typeof redisDeadLetters>;

  constructor({ redis, keys, logger, now }: RedisQueueOptions) {
    super(logger ?? pino({ enabled: false }));
    this.redis = withScripts(redis);
    this.keys = keys;
    this.now = now ?? Date.now;
    this.wakeups = keys.queueWakeups();
    this.outboxes = redisOutboxItems(this.redis, keys);
    this.dead = redisDeadLetters(this.redis, keys);
  }

  protected async enqueueMarked(
    mark: string,
    event: QueueEvent,
    dedupTtlMs: number,
    options: EnqueueOptions,
  ): Promise<EnqueueResult> {
    const { teamId } = event;
    const payload = JSON.stringify(event.payload) ?? 'null';
    const group = queueGroup(teamId);
    const reply = await this.redis.campaignQueueEnqueue(
      this.keys.queueTeams(group),
      this.keys.queueMarks(teamId),
      this.keys.queueTeamStream(teamId),
      this.keys.queueUsage(teamId),
      this.keys.queueDead(teamId),
      GROUP,
      dedupTtlMs,
      teamId,
      event.orderKey,
      payload,
      Date.now(),
      mark,
      options.maxBacklog ?? 0,
      options.maxBacklogBytes ?? 0,
      this.now(),
    );
    const result = enqueueReply.parse(reply);
    // Not waited for: the webhook's answer needs the event queued, not the readers woken.
    if (result === 'queued') void this.wakeUp(group);
    return result;
  }

  /**
   * Wakes one blocked reader to read the group. The events are queued whatever happens here: a wake-up that is lost
   * (Redis went away in between) only delays them until a reader's wait ends and it looks into every group.
   */
  private async wakeUp(group: number): Promise<void> {
    try {
      await this.redis.xadd(this.wakeups, 'MAXLEN', '~', WAKEUPS_PER_READ, '*', 'g', String(group));
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'queue: sending a wake-up failed');
    }
  }

  openReader(consumer: string): QueueReader {
    // Blocking reads get their own connection; pipelining them with other commands would stall those.
    const connection = blockingConnection(this.redis);
    watchErrors(connection, this.logger);
    let closed = false;
    let turn = 0;
    // The groups this reader looks into: every group after a wait that no wake-up ended (a wake-up may have been lost,
    // or gone to another reader), then only those that still have teams or were rung.
    let groups = new Set(ALL_GROUPS);
    // Closing settles a read under way at once: a Cluster connection closed while it connects may never answer it.
    const underWay = new Set<() => void>();
    const readNew = async (count: number, blockMs: number): Promise<StoredEntry[]> => {
      await this.ensureWakeups();
      const streams = await this.streamsOf([...groups], turn++);
      for (const [group, list] of streams) if (list.length === 0) groups.delete(group);
      // COUNT applies per stream: every team with waiting entries gets its share of this read.
      const each = Math.max(1, Math.ceil(count / [...streams.values()].reduce((n, list) => n + list.length, 0)));
      // One command per group: its streams share its slot.
      const entries = await Promise.all(
        [...streams]
          .filter(([, list]) => list.length > 0)
          .map(async ([group, list]) => {
            const batches = readGroupReply.parse(await this.readGroup(connection, consumer, each, list)) ?? [];
            // A stream that gave all asked of it may hold more: a wake-up again lets another waiting reader share it.
            if (batches.some(([, batch]) => batch.length >= each)) void this.wakeUp(group);
            return (await Promise.all(batches.map(([stream, batch]) => this.entriesOf(batch, stream)))).flat();
          }),
      );
      if (entries.flat().length > 0) return entries.flat();
      // Nothing to read: wait for a wake-up (one entry each: `g <group>`). NOACK: it is only a signal.
      const wait = ['BLOCK', blockMs, 'NOACK'];
      const reply = await this.readGroup(connection, consumer, WAKEUPS_PER_READ, [this.wakeups], wait);
      const wakeups = readGroupReply.parse(reply)?.[0]?.[1] ?? [];
      if (wakeups.length === 0) groups = new Set(ALL_GROUPS);
      for (const [, fields] of wakeups) {
        const group = Number(fields?.[fields.indexOf('g') + 1]);
        if (Number.isInteger(group) && group >= 0 && group < QUEUE_GROUPS) groups.add(group);
      }
      return [];
    };
    return {
      readNew: (count, blockMs) => {
        if (closed) return Promise.resolve([]);
        return new Promise((resolve, reject) => {
          const abandon = () => resolve([]);
          underWay.add(abandon);
          readNew(count, blockMs)
            .then(resolve, reject)
            .finally(() => underWay.delete(abandon));
        });
      },
      readOwnPending: async () => {
        const own: StoredEntry[] = [];
        for (const stream of await this.allStreams()) {
          let after = '0';
          for (;;) {
            const reply = await this.readGroup(this.redis, consumer, 100, [stream], [], after);
            const batch = readGroupReply.parse(reply)?.[0]?.[1] ?? [];
            if (batch.length === 0) break;
            own.push(...(await this.entriesOf(batch, stream)));
            after = batch[batch.length - 1]![0];
          }
        }
        return own;
      },
      close: () => {
        if (closed) return;
        closed = true;
        for (const abandon of underWay) abandon();
        connection.disconnect();
      },
    };
  }

  /**
   * XREADGROUP of `streams`, `count` a stream: the entries not yet delivered to the group, or with `after` those
   * pending for this consumer after that id; `wait`: BLOCK, NOACK.
   */
  private readGroup(
    connection: RedisClient,
    consumer: string,
    count: number,
    streams: readonly string[],
    wait: Array<string | number> = [],
    after = '>',
  ): Promise<unknown> {
    return this.withGroups(streams, () =>
      connection.call(
        'XREADGROUP',
        'GROUP',
        GROUP,
        consumer,
        'COUNT',
        count,
        ...wait,
        'STREAMS',
        ...streams,
        ...streams.map(() => after),
      ),
    );
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<StoredEntry[]> {
    const claimed: StoredEntry[] = [];
    for (const stream of await this.allStreams()) {
      let cursor = '0-0';
      while (claimed.length < count) {
        const reply = await this.withGroups([stream], () =>
          this.redis.call('XAUTOCLAIM', stream, GROUP, consumer, minIdleMs, cursor, 'COUNT', count - claimed.length),
        );
        const [next, batch] = autoClaimReply.parse(reply);
        claimed.push(...(await this.entriesOf(batch, stream)));
        cursor = next;
        if (cursor === '0-0') break;
      }
      if (claimed.length >= count) break;
    }
    return claimed;
  }

  async heartbeat(consumer: string, entries: readonly StoredEntry[]): Promise<StoredEntry[]> {
    // One script call per stream, chunked to keep single scripts short.
    const byStream = new Map<string, StoredEntry[]>();
    for (const entry of entries) {
      const stream = this.streamOf(entry);
      byStream
        .set(stream, byStream.get(stream) ?? [])
        .get(stream)!
        .push(entry);
    }
    const lost: StoredEntry[] = [];
    for (const [stream, held] of byStream) {
      for (let i = 0; i < held.length; i += 200) {
        const chunk = held.slice(i, i + 200);
        const reply = await this.redis.campaignQueueHeartbeat(1, stream, GROUP, consumer, ...chunk.map((e) => e.id));
        const gone = new Set(z.array(z.string()).parse(reply));
        lost.push(...chunk.filter((entry) => gone.has(entry.id)));
      }
    }
    return lost;
  }

  async complete(entry: StoredEntry): Promise<void> {
    await this.redis.campaignQueueComplete(
      this.streamOf(entry),
      this.keys.queueTeams(queueGroup(entry.teamId)),
      this.keys.queueUsage(entry.teamId),
      GROUP,
      entry.id,
      entry.teamId,
    );
  }

  /** Finished entries leave the stream (COMPLETE): its first entry is the oldest not finished. */
  async firstUnfinished(teamId: string): Promise<string | undefined> {
    const [first] = await this.redis.xrange(this.keys.queueTeamStream(teamId), '-', '+', 'COUNT', 1);
    return first?.[0];
  }

  readonly bury = (letter: DeadLetter): Promise<boolean> => this.dead.bury(letter);
  readonly takeDeadLetter = (teamId: string, id: string) => this.dead.take(teamId, id);
  readonly deadLetters = (teamId: string, limit?: number) => this.dead.list(teamId, limit);

  async depth(): Promise<QueueDepth> {
    const streams = await this.streamsOf(ALL_GROUPS, 0, Number.POSITIVE_INFINITY);
    const sums = await Promise.all(
      [...streams.values()]
        .filter((list) => list.length > 0)
        .map(async (list) => pairReply.parse(await this.redis.campaignQueueDepth(list.length, ...list, GROUP))),
    );
    const [total, pending] = sums.reduce(([t, p], [dt, dp]) => [t + dt, p + dp], [0, 0]);
    return { total, pending, lag: Math.max(0, total - pending) };
  }

  async forgetTeam(teamId: string): Promise<number> {
    // Off the readers' list first, so that no reader takes one of its entries while they go.
    await this.redis.srem(this.keys.queueTeams(queueGroup(teamId)), teamId);
    const stream = this.keys.queueTeamStream(teamId);
    const entries = await this.redis.xlen(stream);
    // Every key here carries the team's queue group's hash tag: one MULTI on a Cluster too. The group's delivery
    // records go with the stream; no other key holds the team's entries.
    const tx = this.redis.multi();
    const dead = await this.dead.forget(tx, teamId);
    tx.del(stream, this.keys.queueMarks(teamId));
    await tx.exec();
    return entries + dead;
  }

  async usage(teamId: string): Promise<BacklogUsage> {
    const { keys } = this;
    const [events, bytes] = pairReply.parse(
      await this.redis.campaignQueueUsage(
        keys.queueTeamStream(teamId),
        keys.queueUsage(teamId),
        keys.queueDead(teamId),
        keys.queueMarks(teamId),
      ),
    );
    return { events, bytes };
  }

  private streamOf(entry: StoredEntry): string {
    return entry.source ?? this.keys.queueTeamStream(entry.teamId);
  }

  /**
   * The streams that may hold entries, per queue group: those of the group's teams with a backlog — at most `limit`
   * a group, starting at `turn` (so that beyond the limit every team gets its turn).
   */
  private async streamsOf(
    groups: readonly number[],
    turn: number,
    limit = MAX_STREAMS_PER_READ,
  ): Promise<Map<number, string[]>> {
    const teams = await Promise.all(groups.map((group) => this.redis.smembers(this.keys.queueTeams(group))));
    return new Map(
      groups.map((group, i) => {
        const members = teams[i]!;
        const start = members.length > limit ? turn % members.length : 0;
        const window = [...members.slice(start), ...members.slice(0, start)].slice(0, limit);
        return [group, window.map((team) => this.keys.queueTeamStream(team))];
      }),
    );
  }

  /** Every stream that may hold entries, whatever its group. */
  private async allStreams(): Promise<string[]> {
    return [...(await this.streamsOf(ALL_GROUPS, 0, Number.POSITIVE_INFINITY)).values()].flat();
  }

  /**
   * Entries from a read/claim reply. Ones deleted while pending, or unreadable, are acknowledged (and
   * removed, so they do not count as backlog) so that they do not sit in the pending list forever.
   */
  private async entriesOf(batch: RawEntries, stream: string): Promise<StoredEntry[]> {
    const entries: StoredEntry[] = [];
    const broken: string[] = [];
    for (const [id, fields] of batch) {
      const entry = fields === null ? null : toEntry(id, fields, stream);
      if (entry) entries.push(entry);
      else broken.push(id);
    }
    if (broken.length > 0) {
      this.logger.warn({ ids: broken }, 'queue: dropping deleted or unreadable stream entries');
      await this.redis.xack(stream, GROUP, ...broken);
      await this.redis.xdel(stream, ...broken);
    }
    return entries;
  }

  /** The wake-up stream's consumer group, created once (team streams get theirs with their first entry). */
  private ensureWakeups(): Promise<void> {
    this.wakeupsReady ??= this.createGroups([this.wakeups]).catch((error: unknown) => {
      this.wakeupsReady = undefined;
      throw error;
    });
    return this.wakeupsReady;
  }

  /** Creates the group on each stream that lacks it (from the start of the stream, so nothing queued is skipped). */
  private async createGroups(streams: readonly string[]): Promise<void> {
    await Promise.all(
      streams.map((stream) =>
        this.redis.xgroup('CREATE', stream, GROUP, '0', 'MKSTREAM').catch((error: unknown) => {
          if (!isError(error, 'BUSYGROUP')) throw error;
        }),
      ),
    );
  }

  /** Runs a group command; when a group is missing (stream deleted or written by hand), creates it and tries once more. */
  private async withGroups<T>(streams: readonly string[], command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (!isError(error, 'NOGROUP')) throw error;
      if (streams.includes(this.wakeups)) this.wakeupsReady = undefined;
      await this.createGroups(streams);
      return command();
    }
  }
}
