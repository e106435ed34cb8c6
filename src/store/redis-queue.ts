import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Keys } from './keys.js';
import { LuaScript } from './lua.js';
import { BackendEventQueue } from './queue-consumer.js';
import type { FailResult, QueueBackend, QueueReader, StartResult, StoredEntry } from './queue-backend.js';
import { DEAD_LETTER_CAP } from './queue.js';
import type { DeadLetter, DeadLetters, EnqueueResult, EventQueue, QueueDepth, QueueEvent } from './queue.js';
import { watchErrors } from './redis-connection.js';

/*
 * Every script only touches keys of the queue's `{queue}` hash tag (see keys.ts), passed in KEYS.
 */

/** KEYS: dedup, stream, order. ARGV: ttlMs, teamId, orderKey, payload, enqueuedAt, dedupKey. → id | nil */
const ENQUEUE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local id = redis.call('XADD', KEYS[2], '*', 'teamId', ARGV[2], 'orderKey', ARGV[3], 'payload', ARGV[4],
  'enqueuedAt', ARGV[5], 'dedupKey', ARGV[6])
redis.call('SET', KEYS[1], id, 'PX', ARGV[1])
redis.call('RPUSH', KEYS[3], id)
return id
`);

/** KEYS: stream, order, lease, attempts. ARGV: group, consumer, id, leaseMs. → {'started', n} | {'wait'} | {'gone'} */
const TRY_START = new LuaScript(`
local id = ARGV[3]
local p = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return {'gone'} end
if #redis.call('XRANGE', KEYS[1], id, id) == 0 then
  redis.call('XACK', KEYS[1], ARGV[1], id)
  redis.call('LREM', KEYS[2], 1, id)
  return {'gone'}
end
local head = redis.call('LINDEX', KEYS[2], 0)
-- Self-healing: a head whose entry no longer exists would block its key forever.
while head and head ~= id and #redis.call('XRANGE', KEYS[1], head, head) == 0 do
  redis.call('LPOP', KEYS[2])
  head = redis.call('LINDEX', KEYS[2], 0)
end
if head and head ~= id then return {'wait'} end
local owner = redis.call('GET', KEYS[3])
if owner and owner ~= ARGV[2] then return {'wait'} end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[4])
return {'started', tonumber(redis.call('HGET', KEYS[4], id) or '0')}
`);

/** KEYS: stream, lease…. ARGV: group, consumer, leaseMs, id…. → ids no longer pending for this consumer */
const HEARTBEAT = new LuaScript(`
local lost = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)
  if #p == 0 or p[1][2] ~= ARGV[2] then
    lost[#lost + 1] = id
  else
    -- Resets the idle time (JUSTID: without counting a delivery), so XAUTOCLAIM leaves the entry alone.
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'JUSTID')
  end
end
for i = 2, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[2] then redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
end
return lost
`);

/** KEYS: lease. ARGV: consumer. */
const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`);

const FINISH_LUA = `
local function finish()
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  redis.call('XDEL', KEYS[1], ARGV[3])
  redis.call('LREM', KEYS[2], 1, ARGV[3])
  redis.call('HDEL', KEYS[4], ARGV[3])
  if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
end
`;

/** KEYS: stream, order, lease, attempts. ARGV: group, consumer, id. */
const COMPLETE = new LuaScript(`${FINISH_LUA}
finish()
return 1
`);

/**
 * KEYS: stream, order, lease, attempts, dead, deadCounts.
 * ARGV: group, consumer, id, maxAttempts, dead-letter JSON without its closing brace, cap, teamId.
 * → {attempts, deadLettered (0/1)}
 */
const FAIL = new LuaScript(`${FINISH_LUA}
local n = redis.call('HINCRBY', KEYS[4], ARGV[3], 1)
if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
if n < tonumber(ARGV[4]) then return {n, 0} end
finish()
redis.call('LPUSH', KEYS[5], ARGV[5] .. ',"attempts":' .. n .. '}')
redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[6]) - 1)
redis.call('HINCRBY', KEYS[6], ARGV[7], 1)
redis.call('HINCRBY', KEYS[6], '*', 1)
return {n, 1}
`);

const entryFields = z.object({
  teamId: z.string(),
  orderKey: z.string(),
  payload: z.string(),
  enqueuedAt: z.coerce.number(),
});

/** `[id, [field, value, …] | null]` as XREADGROUP / XAUTOCLAIM return them (null: deleted while pending). */
const rawEntries = z.array(z.tuple([z.string(), z.array(z.string()).nullable()]));
const readGroupReply = z.array(z.tuple([z.string(), rawEntries])).nullable();
const autoClaimReply = z.tuple([z.string(), rawEntries]).rest(z.unknown());
const startReply = z.union([
  z.tuple([z.literal('started'), z.number()]),
  z.tuple([z.literal('wait')]),
  z.tuple([z.literal('gone')]),
]);
const failReply = z.tuple([z.number(), z.number()]);
const deadLetter = z.object({
  id: z.string(),
  teamId: z.string(),
  orderKey: z.string(),
  payload: z.unknown(),
  error: z.string(),
  attempts: z.number(),
  enqueuedAt: z.number(),
  failedAt: z.number(),
});

function toEntry(id: string, flat: readonly string[]): StoredEntry | null {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  const parsed = entryFields.safeParse(fields);
  if (!parsed.success) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(parsed.data.payload);
  } catch {
    return null;
  }
  return { id, teamId: parsed.data.teamId, orderKey: parsed.data.orderKey, payload, enqueuedAt: parsed.data.enqueuedAt };
}

function isError(error: unknown, code: string): boolean {
  return error instanceof Error && error.message.startsWith(code);
}

export interface RedisQueueOptions {
  redis: Redis;
  keys: Keys;
  logger?: Logger;
  /** Consumer group name. Default `workers`. */
  group?: string;
}

/**
 * Redis Streams backend: one stream, one consumer group; per-orderKey id lists, leases, attempt counters and
 * the dead-letter list next to it under the same hash tag. Each consumer reads with its own connection,
 * because XREADGROUP BLOCK holds a connection for its whole wait.
 */
export class RedisQueueBackend implements QueueBackend {
  private readonly redis: Redis;
  private readonly keys: Keys;
  private readonly logger: Logger;
  private readonly group: string;
  private readonly stream: string;
  private groupReady: Promise<void> | undefined;
  private readonly readers = new Set<QueueReader>();

  constructor(options: RedisQueueOptions) {
    this.redis = options.redis;
    this.keys = options.keys;
    this.logger = options.logger ?? pino({ enabled: false });
    this.group = options.group ?? 'workers';
    this.stream = this.keys.queueStream();
  }

  async enqueueOnce(dedupKey: string, event: QueueEvent, dedupTtlMs: number): Promise<EnqueueResult> {
    const id = await ENQUEUE.run(
      this.redis,
      [this.keys.queueDedup(event.teamId, dedupKey), this.stream, this.keys.queueOrder(event.orderKey)],
      [dedupTtlMs, event.teamId, event.orderKey, JSON.stringify(event.payload) ?? 'null', Date.now(), dedupKey],
    );
    return id === null ? 'duplicate' : 'queued';
  }

  openReader(consumer: string): QueueReader {
    // Blocking reads get their own connection; pipelining them with other commands would stall those.
    const connection = this.redis.duplicate({ enableAutoPipelining: false });
    watchErrors(connection, this.logger);
    let closed = false;
    const reader: QueueReader = {
      readNew: async (count, blockMs) => {
        await this.ensureGroup();
        const reply = await this.withGroup(() =>
          connection.call('XREADGROUP', 'GROUP', this.group, consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.stream, '>'),
        );
        return this.entriesOf(readGroupReply.parse(reply)?.[0]?.[1] ?? []);
      },
      readOwnPending: async () => {
        await this.ensureGroup();
        const own: StoredEntry[] = [];
        let after = '0';
        for (;;) {
          const reply = await this.withGroup(() =>
            this.redis.call('XREADGROUP', 'GROUP', this.group, consumer, 'COUNT', 100, 'STREAMS', this.stream, after),
          );
          const batch = readGroupReply.parse(reply)?.[0]?.[1] ?? [];
          if (batch.length === 0) return own;
          own.push(...(await this.entriesOf(batch)));
          after = batch[batch.length - 1]![0];
        }
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
    await this.ensureGroup();
    const claimed: StoredEntry[] = [];
    let cursor = '0-0';
    do {
      const reply = await this.withGroup(() =>
        this.redis.call('XAUTOCLAIM', this.stream, this.group, consumer, minIdleMs, cursor, 'COUNT', count - claimed.length),
      );
      const [next, batch] = autoClaimReply.parse(reply);
      claimed.push(...(await this.entriesOf(batch)));
      cursor = next;
    } while (cursor !== '0-0' && claimed.length < count);
    return claimed;
  }

  async heartbeat(consumer: string, ids: readonly string[], orderKeys: readonly string[], leaseMs: number): Promise<string[]> {
    const lost: string[] = [];
    const leases = orderKeys.map((k) => this.keys.queueLease(k));
    // Chunked to keep single scripts short; leases ride along with the first chunk.
    for (let i = 0; i < Math.max(ids.length, 1); i += 200) {
      const reply = await HEARTBEAT.run(
        this.redis,
        [this.stream, ...(i === 0 ? leases : [])],
        [this.group, consumer, leaseMs, ...ids.slice(i, i + 200)],
      );
      lost.push(...z.array(z.string()).parse(reply));
    }
    return lost;
  }

  async tryStart(consumer: string, entry: StoredEntry, leaseMs: number): Promise<StartResult> {
    const reply = startReply.parse(
      await this.withGroup(() =>
        TRY_START.run(this.redis, this.entryKeys(entry), [this.group, consumer, entry.id, leaseMs]),
      ),
    );
    return reply[0] === 'started' ? { status: 'started', failedAttempts: reply[1] } : { status: reply[0] };
  }

  async release(consumer: string, entry: StoredEntry): Promise<void> {
    await RELEASE.run(this.redis, [this.keys.queueLease(entry.orderKey)], [consumer]);
  }

  async complete(consumer: string, entry: StoredEntry): Promise<void> {
    await COMPLETE.run(this.redis, this.entryKeys(entry), [this.group, consumer, entry.id]);
  }

  async fail(consumer: string, entry: StoredEntry, error: string, maxAttempts: number): Promise<FailResult> {
    const record = JSON.stringify({
      id: entry.id,
      teamId: entry.teamId,
      orderKey: entry.orderKey,
      payload: entry.payload,
      error,
      enqueuedAt: entry.enqueuedAt,
      failedAt: Date.now(),
    });
    const [attempts, dead] = failReply.parse(
      await FAIL.run(
        this.redis,
        [...this.entryKeys(entry), this.keys.queueDead(), this.keys.queueDeadCounts()],
        [this.group, consumer, entry.id, maxAttempts, record.slice(0, -1), DEAD_LETTER_CAP, entry.teamId],
      ),
    );
    return { attempts, deadLettered: dead === 1 };
  }

  async deadLetters(teamId: string | undefined, limit: number): Promise<DeadLetters> {
    const [count, raw] = await Promise.all([
      this.redis.hget(this.keys.queueDeadCounts(), teamId ?? '*'),
      this.redis.lrange(this.keys.queueDead(), 0, DEAD_LETTER_CAP - 1),
    ]);
    const entries: DeadLetter[] = [];
    for (const item of raw) {
      if (entries.length >= limit) break;
      let value: unknown;
      try {
        value = JSON.parse(item);
      } catch {
        continue;
      }
      const parsed = deadLetter.safeParse(value);
      if (parsed.success && (teamId === undefined || parsed.data.teamId === teamId)) entries.push(parsed.data);
    }
    return { count: Number(count ?? 0), entries };
  }

  async depth(): Promise<QueueDepth> {
    const [total, summary] = await Promise.all([
      this.redis.xlen(this.stream),
      this.redis.call('XPENDING', this.stream, this.group).catch((error: unknown) => {
        if (isError(error, 'NOGROUP')) return [0];
        throw error;
      }),
    ]);
    const pending = Number(z.array(z.unknown()).parse(summary)[0] ?? 0);
    return { total, pending, lag: Math.max(0, total - pending) };
  }

  close(): Promise<void> {
    for (const reader of [...this.readers]) reader.close();
    return Promise.resolve();
  }

  private entryKeys(entry: StoredEntry): string[] {
    return [
      this.stream,
      this.keys.queueOrder(entry.orderKey),
      this.keys.queueLease(entry.orderKey),
      this.keys.queueAttempts(),
    ];
  }

  /**
   * Entries from a read/claim reply. Ones deleted while pending, or unreadable, are acknowledged so that they
   * do not sit in the pending list forever.
   */
  private async entriesOf(batch: z.infer<typeof rawEntries>): Promise<StoredEntry[]> {
    const entries: StoredEntry[] = [];
    const broken: string[] = [];
    for (const [id, fields] of batch) {
      const entry = fields === null ? null : toEntry(id, fields);
      if (entry) entries.push(entry);
      else broken.push(id);
    }
    if (broken.length > 0) {
      this.logger.warn({ ids: broken }, 'queue: dropping deleted or unreadable stream entries');
      await this.redis.xack(this.stream, this.group, ...broken);
    }
    return entries;
  }

  /** Creates the consumer group once (from the start of the stream, so entries queued before it are read). */
  private ensureGroup(): Promise<void> {
    this.groupReady ??= this.redis
      .xgroup('CREATE', this.stream, this.group, '0', 'MKSTREAM')
      .then(
        () => undefined,
        (error: unknown) => {
          if (isError(error, 'BUSYGROUP')) return;
          this.groupReady = undefined;
          throw error;
        },
      );
    return this.groupReady;
  }

  /** Runs a group command; when the group vanished (stream deleted), forgets it so the next call re-creates it. */
  private async withGroup<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (isError(error, 'NOGROUP')) this.groupReady = undefined;
      throw error;
    }
  }
}

export function createRedisQueue(options: RedisQueueOptions): EventQueue {
  return new BackendEventQueue(new RedisQueueBackend(options), options.logger ?? pino({ enabled: false }));
}
