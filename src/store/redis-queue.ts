import { ReplyError } from 'ioredis';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Keys } from './keys.js';
import { BackendEventQueue } from './queue-consumer.js';
import type { FailResult, QueueBackend, QueueReader, StartResult, StoredEntry } from './queue-backend.js';
import type {
  BacklogUsage,
  ChannelCause,
  DeadLetter,
  DeadLetters,
  EnqueueOptions,
  EnqueueResult,
  EventQueue,
  ParkedWork,
  QueueDepth,
  QueueEvent,
} from './queue.js';
import { Batcher } from './queue-batch.js';
import { blockingConnection, watchErrors, type RedisClient } from './redis-connection.js';
import { withScripts } from './redis-scripts.js';
import { backlogUsage, forgetTeamEntries, redisParkedWork } from './redis-queue-team.js';
import { buryArgs, redisDeadLetters } from './redis-dead-letters.js';

/** Entries per script call at most (keeps each call short: Redis runs nothing else meanwhile). */
const BATCH_MAX = 64;

interface EnqueueInput {
  /** dedup, stream, order, usage, dead */
  keys: [string, string, string, string, string];
  /** ttlMs, teamId, orderKey, payload, enqueuedAt, dedupKey, maxBacklog, maxBacklogBytes */
  args: Array<string | number>;
}

interface StartInput {
  consumer: string;
  entry: StoredEntry;
  leaseMs: number;
}

interface CompleteInput {
  consumer: string;
  entry: StoredEntry;
}

/** Streams one read goes through at most (beyond, the window moves on with every read). */
const MAX_STREAMS_PER_READ = 200;

/** `[id, [field, value, …] | null]` as XREADGROUP / XAUTOCLAIM return them (null: deleted while pending). */
const rawEntries = z.array(z.tuple([z.string(), z.array(z.string()).nullable()]));
const readGroupReply = z.array(z.tuple([z.string(), rawEntries])).nullable();
const autoClaimReply = z.tuple([z.string(), rawEntries]).rest(z.unknown());
const enqueueReply = z.union([
  z.literal('duplicate'),
  z.literal('full'),
  z.literal('full_bytes'),
  z.string().regex(/^\d+-\d+$/),
  z.string().startsWith('error: '),
]);
const enqueueReplies = z.array(enqueueReply);
const startReply = z.union([
  z.tuple([z.literal('started'), z.number()]),
  z.tuple([z.literal('wait')]),
  z.tuple([z.literal('gone')]),
]);
const pairReply = z.tuple([z.number(), z.number()]);
/** A stream entry's fields (teamId, orderKey, payload JSON, enqueuedAt) read by hand: one per event read. */
function toEntry(id: string, flat: readonly string[], source: string): StoredEntry | null {
  let teamId: string | undefined;
  let orderKey: string | undefined;
  let payloadText: string | undefined;
  let enqueuedAt = Number.NaN;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const value = flat[i + 1]!;
    switch (flat[i]) {
      case 'teamId':
        teamId = value;
        break;
      case 'orderKey':
        orderKey = value;
        break;
      case 'payload':
        payloadText = value;
        break;
      case 'enqueuedAt':
        enqueuedAt = Number(value);
        break;
      default:
        break;
    }
  }
  if (teamId === undefined || orderKey === undefined || payloadText === undefined || Number.isNaN(enqueuedAt))
    return null;
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText);
  } catch {
    return null;
  }
  return { id, teamId, orderKey, payload, enqueuedAt, source };
}

/** An error Redis answered (not a lost connection); NOGROUP is handled where groups are. */
function isReplyError(error: unknown): boolean {
  return error instanceof ReplyError && !isError(error, 'NOGROUP');
}

function isError(error: unknown, code: string): boolean {
  return error instanceof Error && error.message.startsWith(code);
}

export interface RedisQueueOptions {
  redis: RedisClient;
  keys: Keys;
  logger?: Logger;
  /** Consumer group name. Default `workers`. */
  group?: string;
}

/**
 * Redis Streams backend: a stream per team and one consumer group name on each; per-orderKey id lists,
 * leases, attempt counters and the dead-letter lists next to them under the same hash tag. Each consumer
 * reads with its own connection, because XREADGROUP BLOCK holds a connection for its whole wait.
 */
class RedisQueueBackend implements QueueBackend {
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly logger: Logger;
  private readonly group: string;
  private readonly bell: string;
  private bellReady: Promise<void> | undefined;
  private readonly readers = new Set<QueueReader>();
  readonly parked: ParkedWork;
  private readonly dead: ReturnType<typeof redisDeadLetters>;
  // An error reply is one entry's doing (a key of the wrong type…): its batch is retried entry by entry.
  private readonly enqueues = new Batcher<EnqueueInput, EnqueueResult>(
    (batch) => this.enqueueBatch(batch),
    BATCH_MAX,
    isReplyError,
  );
  private readonly starts = new Batcher<StartInput, StartResult>(
    (batch) => this.startBatch(batch),
    BATCH_MAX,
    isReplyError,
  );
  private readonly completions = new Batcher<CompleteInput, true>(
    (batch) => this.completeBatch(batch),
    BATCH_MAX,
    isReplyError,
  );

  constructor(options: RedisQueueOptions) {
    this.redis = withScripts(options.redis);
    this.keys = options.keys;
    this.logger = options.logger ?? pino({ enabled: false });
    this.group = options.group ?? 'workers';
    this.bell = this.keys.queueBell();
    this.parked = redisParkedWork(this.redis, this.keys);
    this.dead = redisDeadLetters(this.redis, this.keys);
  }

  enqueueOnce(
    dedupKey: string,
    event: QueueEvent,
    dedupTtlMs: number,
    options: EnqueueOptions,
  ): Promise<EnqueueResult> {
    let payload: string;
    try {
      payload = JSON.stringify(event.payload) ?? 'null';
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.enqueues.call({
      keys: [
        this.keys.queueDedup(event.teamId, dedupKey),
        this.keys.queueTeamStream(event.teamId),
        this.keys.queueOrder(event.orderKey),
        this.keys.queueUsage(event.teamId),
        this.keys.queueDead(event.teamId),
      ],
      args: [
        dedupTtlMs,
        event.teamId,
        event.orderKey,
        payload,
        Date.now(),
        dedupKey,
        options.maxBacklog ?? 0,
        options.maxBacklogBytes ?? 0,
      ],
    });
  }

  /** One ENQUEUE call for a batch of events. */
  private async enqueueBatch(batch: EnqueueInput[]): Promise<Array<EnqueueResult | Error>> {
    const keys = [this.keys.queueTeams(), this.bell, ...batch.flatMap((e) => e.keys)];
    const reply = await this.redis.campaignQueueEnqueue(
      keys.length,
      ...keys,
      this.group,
      ...batch.flatMap((e) => e.args),
    );
    const results = enqueueReplies.parse(reply);
    if (results.length !== batch.length)
      throw new Error(`enqueue answered ${results.length} results for ${batch.length} events`);
    return results.map((result) =>
      result.startsWith('error: ')
        ? new Error(result.slice(7))
        : result === 'duplicate' || result === 'full' || result === 'full_bytes'
          ? result
          : 'queued',
    );
  }

  openReader(consumer: string): QueueReader {
    // Blocking reads get their own connection; pipelining them with other commands would stall those.
    const connection = blockingConnection(this.redis);
    watchErrors(connection, this.logger);
    let closed = false;
    let turn = 0;
    const reader: QueueReader = {
      readNew: async (count, blockMs) => {
        await this.ensureBell();
        const streams = await this.dataStreams(turn++);
        const keys = [...streams, this.bell];
        // COUNT applies per stream: every team with waiting entries gets its share of this read.
        const each = Math.max(1, Math.ceil(count / Math.max(1, streams.length)));
        const reply = await this.withGroups(keys, () =>
          connection.call(
            'XREADGROUP',
            'GROUP',
            this.group,
            consumer,
            'COUNT',
            each,
            'BLOCK',
            blockMs,
            'STREAMS',
            ...keys,
            ...keys.map(() => '>'),
          ),
        );
        const entries: StoredEntry[] = [];
        const rung: string[] = [];
        for (const [stream, batch] of readGroupReply.parse(reply) ?? []) {
          if (stream === this.bell) rung.push(...batch.map(([id]) => id));
          else entries.push(...(await this.entriesOf(batch, stream)));
        }
        if (rung.length > 0) await this.redis.xack(this.bell, this.group, ...rung);
        return entries;
      },
      readOwnPending: async () => {
        const own: StoredEntry[] = [];
        for (const stream of await this.dataStreams(0, Number.POSITIVE_INFINITY)) {
          let after = '0';
          for (;;) {
            const reply = await this.withGroups([stream], () =>
              this.redis.call('XREADGROUP', 'GROUP', this.group, consumer, 'COUNT', 100, 'STREAMS', stream, after),
            );
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
        this.readers.delete(reader);
        connection.disconnect();
      },
    };
    this.readers.add(reader);
    return reader;
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<StoredEntry[]> {
    const claimed: StoredEntry[] = [];
    for (const stream of await this.dataStreams(0, Number.POSITIVE_INFINITY)) {
      let cursor = '0-0';
      while (claimed.length < count) {
        const reply = await this.withGroups([stream], () =>
          this.redis.call(
            'XAUTOCLAIM',
            stream,
            this.group,
            consumer,
            minIdleMs,
            cursor,
            'COUNT',
            count - claimed.length,
          ),
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

  async heartbeat(
    consumer: string,
    entries: readonly StoredEntry[],
    orderKeys: readonly string[],
    leaseMs: number,
  ): Promise<StoredEntry[]> {
    const byStream = new Map<string, Map<string, StoredEntry>>();
    for (const entry of entries) {
      const stream = this.streamOf(entry);
      const ids = byStream.get(stream) ?? new Map<string, StoredEntry>();
      ids.set(entry.id, entry);
      byStream.set(stream, ids);
    }
    // No entries, only leases to renew: the script still takes a stream first (any of the tag will do).
    if (byStream.size === 0) byStream.set(this.bell, new Map());
    let leases = orderKeys.map((k) => this.keys.queueLease(k));
    const lost: StoredEntry[] = [];
    for (const [stream, ids] of byStream) {
      const list = [...ids.keys()];
      // Chunked to keep single scripts short; leases ride along with the first one.
      for (let i = 0; i < Math.max(list.length, 1); i += 200) {
        const keys = [stream, ...leases];
        const reply = await this.redis.campaignQueueHeartbeat(
          keys.length,
          ...keys,
          this.group,
          consumer,
          leaseMs,
          ...list.slice(i, i + 200),
        );
        leases = [];
        for (const id of z.array(z.string()).parse(reply)) {
          const entry = ids.get(id);
          if (entry) lost.push(entry);
        }
      }
    }
    return lost;
  }

  async orderAfter(orderKey: string, id: string, count: number): Promise<string[]> {
    // Finished ids may still lead the list (they are dropped when the next entry starts): read a little more.
    const ids = await this.redis.lrange(this.keys.queueOrder(orderKey), 0, count + 16);
    const at = ids.indexOf(id);
    return at < 0 ? [] : ids.slice(at + 1, at + 1 + count);
  }

  tryStart(consumer: string, entry: StoredEntry, leaseMs: number): Promise<StartResult> {
    return this.starts.call({ consumer, entry, leaseMs });
  }

  /** One TRY_START call for a batch of entries (from any consumer of this process). */
  private async startBatch(batch: StartInput[]): Promise<StartResult[]> {
    const keys: string[] = [];
    const args: Array<string | number> = [];
    for (const { consumer, entry, leaseMs } of batch) {
      keys.push(
        this.streamOf(entry),
        this.keys.queueOrder(entry.orderKey),
        this.keys.queueLease(entry.orderKey),
        this.keys.queueAttempts(),
      );
      args.push(consumer, entry.id, leaseMs);
    }
    const streams = [...new Set(batch.map(({ entry }) => this.streamOf(entry)))];
    const reply = await this.withGroups(streams, () =>
      this.redis.campaignQueueTryStart(keys.length, ...keys, this.group, ...args),
    );
    return z
      .array(startReply)
      .length(batch.length)
      .parse(reply)
      .map((r) => (r[0] === 'started' ? { status: 'started', failedAttempts: r[1] } : { status: r[0] }));
  }

  async release(consumer: string, entry: StoredEntry): Promise<void> {
    await this.redis.campaignQueueRelease(this.keys.queueLease(entry.orderKey), consumer);
  }

  async complete(consumer: string, entry: StoredEntry): Promise<void> {
    await this.completions.call({ consumer, entry });
  }

  /** One COMPLETE call for a batch of entries. */
  private async completeBatch(batch: CompleteInput[]): Promise<true[]> {
    const keys = batch.flatMap(({ entry }) => this.finishKeys(entry));
    const args = batch.flatMap(({ consumer, entry }) => this.finishArgs(consumer, entry).slice(1));
    await this.redis.campaignQueueComplete(keys.length, ...keys, this.group, ...args);
    return batch.map(() => true);
  }

  async fail(
    consumer: string,
    entry: StoredEntry,
    error: string,
    maxAttempts: number,
    causes?: ChannelCause[],
  ): Promise<FailResult> {
    const record = JSON.stringify({
      id: entry.id,
      teamId: entry.teamId,
      orderKey: entry.orderKey,
      payload: entry.payload,
      error,
      ...(causes ? { causes } : {}),
      enqueuedAt: entry.enqueuedAt,
      failedAt: Date.now(),
    });
    const [attempts, dead] = pairReply.parse(
      await this.redis.campaignQueueFail(
        ...this.finishKeys(entry),
        this.keys.queueDead(entry.teamId),
        this.keys.queueDeadCounts(),
        ...this.finishArgs(consumer, entry),
        maxAttempts,
        record.slice(0, -1),
        ...buryArgs(entry.teamId),
      ),
    );
    return { attempts, deadLettered: dead === 1 };
  }

  bury(letter: DeadLetter): Promise<void> {
    return this.dead.bury(letter);
  }

  takeDeadLetter(teamId: string, id: string): Promise<DeadLetter | undefined> {
    return this.dead.take(teamId, id);
  }

  deadLetters(teamId: string, limit: number): Promise<DeadLetters> {
    return this.dead.list(teamId, limit);
  }

  async depth(): Promise<QueueDepth> {
    const streams = await this.dataStreams(0, Number.POSITIVE_INFINITY);
    const [total, pending] = pairReply.parse(
      await this.redis.campaignQueueDepth(streams.length, ...streams, this.group),
    );
    return { total, pending, lag: Math.max(0, total - pending) };
  }

  forgetTeam(teamId: string): Promise<number> {
    return forgetTeamEntries(this.redis, this.keys, teamId, this.dead);
  }

  usage(teamId: string): Promise<BacklogUsage> {
    return backlogUsage(this.redis, this.keys, teamId);
  }

  close(): Promise<void> {
    for (const reader of [...this.readers]) reader.close();
    return Promise.resolve();
  }

  private streamOf(entry: StoredEntry): string {
    return entry.source ?? this.keys.queueTeamStream(entry.teamId);
  }

  private finishKeys(
    entry: StoredEntry,
  ): [stream: string, order: string, lease: string, attempts: string, teams: string, usage: string] {
    return [
      this.streamOf(entry),
      this.keys.queueOrder(entry.orderKey),
      this.keys.queueLease(entry.orderKey),
      this.keys.queueAttempts(),
      this.keys.queueTeams(),
      this.keys.queueUsage(entry.teamId),
    ];
  }

  private finishArgs(consumer: string, entry: StoredEntry): string[] {
    return [this.group, consumer, entry.id, entry.teamId];
  }

  /**
   * The streams that may hold entries: those of the teams with a backlog — at most `limit`, starting at
   * `turn` (so that beyond the limit every team gets its turn).
   */
  private async dataStreams(turn: number, limit = MAX_STREAMS_PER_READ): Promise<string[]> {
    const teams = await this.redis.smembers(this.keys.queueTeams());
    const start = teams.length > limit ? turn % teams.length : 0;
    const window = [...teams.slice(start), ...teams.slice(0, start)].slice(0, limit);
    return window.map((team) => this.keys.queueTeamStream(team));
  }

  /**
   * Entries from a read/claim reply. Ones deleted while pending, or unreadable, are acknowledged (and
   * removed, so they do not count as backlog) so that they do not sit in the pending list forever.
   */
  private async entriesOf(batch: z.infer<typeof rawEntries>, stream: string): Promise<StoredEntry[]> {
    const entries: StoredEntry[] = [];
    const broken: string[] = [];
    for (const [id, fields] of batch) {
      const entry = fields === null ? null : toEntry(id, fields, stream);
      if (entry) entries.push(entry);
      else broken.push(id);
    }
    if (broken.length > 0) {
      this.logger.warn({ ids: broken }, 'queue: dropping deleted or unreadable stream entries');
      await this.redis.xack(stream, this.group, ...broken);
      await this.redis.xdel(stream, ...broken);
    }
    return entries;
  }

  /** The bell's consumer group, created once (team streams get theirs with their first entry). */
  private ensureBell(): Promise<void> {
    this.bellReady ??= this.createGroups([this.bell]).catch((error: unknown) => {
      this.bellReady = undefined;
      throw error;
    });
    return this.bellReady;
  }

  /** Creates the group on each stream that lacks it (from the start of the stream, so nothing queued is skipped). */
  private async createGroups(streams: readonly string[]): Promise<void> {
    await Promise.all(
      streams.map((stream) =>
        this.redis.xgroup('CREATE', stream, this.group, '0', 'MKSTREAM').catch((error: unknown) => {
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
      if (streams.includes(this.bell)) this.bellReady = undefined;
      await this.createGroups(streams);
      return command();
    }
  }
}

export function createRedisQueue(options: RedisQueueOptions): EventQueue {
  return new BackendEventQueue(new RedisQueueBackend(options), options.logger ?? pino({ enabled: false }));
}
