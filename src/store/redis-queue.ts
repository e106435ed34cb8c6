import { pino } from 'pino';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Keys } from './keys.js';
import { LuaScript } from './lua.js';
import { BackendEventQueue } from './queue-consumer.js';
import type { FailResult, QueueBackend, QueueReader, StartResult, StoredEntry } from './queue-backend.js';
import { DEAD_LETTER_CAP } from './queue.js';
import type { DeadLetter, DeadLetters, EnqueueOptions, EnqueueResult, EventQueue, QueueDepth, QueueEvent } from './queue.js';
import { duplicateConnection, watchErrors, type RedisClient } from './redis-connection.js';

/*
 * Every script only touches keys of the queue's `{queue}` hash tag (see keys.ts), passed in KEYS.
 *
 * One stream per team, each with the same consumer group: a team's stream length is its backlog, and
 * readers go through the teams' streams side by side (fairness). `teams` lists the teams whose stream may
 * hold entries; the bell wakes readers blocked on the other streams when a team's stream gets work again.
 */

/**
 * KEYS: dedup, stream, order, teams, bell. ARGV: ttlMs, teamId, orderKey, payload, enqueuedAt, dedupKey,
 * maxBacklog (0: none), group. → id | 'duplicate' | 'full'
 */
const ENQUEUE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'duplicate' end
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[2], ARGV[8], '0', 'MKSTREAM')
elseif tonumber(ARGV[7]) > 0 and redis.call('XLEN', KEYS[2]) >= tonumber(ARGV[7]) then
  return 'full'
end
local id = redis.call('XADD', KEYS[2], '*', 'teamId', ARGV[2], 'orderKey', ARGV[3], 'payload', ARGV[4],
  'enqueuedAt', ARGV[5], 'dedupKey', ARGV[6])
redis.call('SET', KEYS[1], id, 'PX', ARGV[1])
redis.call('RPUSH', KEYS[3], id)
if redis.call('SADD', KEYS[4], ARGV[2]) == 1 then
  redis.call('XADD', KEYS[5], 'MAXLEN', '100', '*', 'teamId', ARGV[2])
end
return id
`);

/**
 * KEYS: stream, order, lease, attempts, the other stream the orderKey's ids may be in (old single stream ↔
 * team stream). ARGV: group, consumer, id, leaseMs. → {'started', n} | {'wait'} | {'gone'}
 */
const TRY_START = new LuaScript(`
local id = ARGV[3]
local p = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return {'gone'} end
if #redis.call('XRANGE', KEYS[1], id, id) == 0 then
  redis.call('XACK', KEYS[1], ARGV[1], id)
  redis.call('LREM', KEYS[2], 1, id)
  return {'gone'}
end
local function exists(e)
  return #redis.call('XRANGE', KEYS[1], e, e) > 0 or #redis.call('XRANGE', KEYS[5], e, e) > 0
end
local head = redis.call('LINDEX', KEYS[2], 0)
-- Self-healing: a head whose entry no longer exists would block its key forever.
while head and head ~= id and not exists(head) do
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

/** KEYS: stream, order, lease, attempts, teams. ARGV: group, consumer, id, team ('' for the old single stream). */
const FINISH_LUA = `
local function finish()
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  redis.call('XDEL', KEYS[1], ARGV[3])
  redis.call('LREM', KEYS[2], 1, ARGV[3])
  redis.call('HDEL', KEYS[4], ARGV[3])
  if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
  -- A drained team leaves the readers' list; its next enqueue puts it back (and rings the bell).
  if ARGV[4] ~= '' and redis.call('XLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[5], ARGV[4]) end
end
`;

/** KEYS and ARGV: those of FINISH_LUA. */
const COMPLETE = new LuaScript(`${FINISH_LUA}
finish()
return 1
`);

/**
 * KEYS: those of FINISH_LUA, dead, deadCounts.
 * ARGV: those of FINISH_LUA, maxAttempts, dead-letter JSON without its closing brace, cap, teamId.
 * → {attempts, deadLettered (0/1)}
 */
const FAIL = new LuaScript(`${FINISH_LUA}
local n = redis.call('HINCRBY', KEYS[4], ARGV[3], 1)
if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
if n < tonumber(ARGV[5]) then return {n, 0} end
finish()
redis.call('LPUSH', KEYS[6], ARGV[6] .. ',"attempts":' .. n .. '}')
redis.call('LTRIM', KEYS[6], 0, tonumber(ARGV[7]) - 1)
redis.call('HINCRBY', KEYS[7], ARGV[8], 1)
redis.call('HINCRBY', KEYS[7], '*', 1)
return {n, 1}
`);

/** KEYS: streams. ARGV: group. → {entries, pending} summed over the streams */
const DEPTH = new LuaScript(`
local total, pending = 0, 0
for i = 1, #KEYS do
  total = total + redis.call('XLEN', KEYS[i])
  local summary = redis.pcall('XPENDING', KEYS[i], ARGV[1])
  if type(summary) == 'table' and summary.err == nil then pending = pending + tonumber(summary[1]) end
end
return {total, pending}
`);

/** Streams one read goes through at most (beyond, the window moves on with every read). */
const MAX_STREAMS_PER_READ = 200;

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
const enqueueReply = z.union([z.literal('duplicate'), z.literal('full'), z.string().regex(/^\d+-\d+$/)]);
const startReply = z.union([
  z.tuple([z.literal('started'), z.number()]),
  z.tuple([z.literal('wait')]),
  z.tuple([z.literal('gone')]),
]);
const pairReply = z.tuple([z.number(), z.number()]);
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

function toEntry(id: string, flat: readonly string[], source: string): StoredEntry | null {
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
  return { id, teamId: parsed.data.teamId, orderKey: parsed.data.orderKey, payload, enqueuedAt: parsed.data.enqueuedAt, source };
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
 * leases, attempt counters and the dead-letter list next to them under the same hash tag. Each consumer
 * reads with its own connection, because XREADGROUP BLOCK holds a connection for its whole wait.
 */
export class RedisQueueBackend implements QueueBackend {
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly logger: Logger;
  private readonly group: string;
  /** The single stream of earlier versions: drained (read and finished), never written. */
  private readonly oldStream: string;
  private readonly bell: string;
  private bellReady: Promise<void> | undefined;
  private readonly readers = new Set<QueueReader>();

  constructor(options: RedisQueueOptions) {
    this.redis = options.redis;
    this.keys = options.keys;
    this.logger = options.logger ?? pino({ enabled: false });
    this.group = options.group ?? 'workers';
    this.oldStream = this.keys.queueStream();
    this.bell = this.keys.queueBell();
  }

  async enqueueOnce(dedupKey: string, event: QueueEvent, dedupTtlMs: number, options: EnqueueOptions): Promise<EnqueueResult> {
    const reply = await ENQUEUE.run(
      this.redis,
      [
        this.keys.queueDedup(event.teamId, dedupKey),
        this.keys.queueTeamStream(event.teamId),
        this.keys.queueOrder(event.orderKey),
        this.keys.queueTeams(),
        this.bell,
      ],
      [dedupTtlMs, event.teamId, event.orderKey, JSON.stringify(event.payload) ?? 'null', Date.now(), dedupKey, options.maxBacklog ?? 0, this.group],
    );
    const result = enqueueReply.parse(reply);
    return result === 'duplicate' || result === 'full' ? result : 'queued';
  }

  openReader(consumer: string): QueueReader {
    // Blocking reads get their own connection; pipelining them with other commands would stall those.
    const connection = duplicateConnection(this.redis);
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
          connection.call('XREADGROUP', 'GROUP', this.group, consumer, 'COUNT', each, 'BLOCK', blockMs, 'STREAMS', ...keys, ...keys.map(() => '>')),
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
          this.redis.call('XAUTOCLAIM', stream, this.group, consumer, minIdleMs, cursor, 'COUNT', count - claimed.length),
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

  async heartbeat(consumer: string, entries: readonly StoredEntry[], orderKeys: readonly string[], leaseMs: number): Promise<StoredEntry[]> {
    const byStream = new Map<string, Map<string, StoredEntry>>();
    for (const entry of entries) {
      const stream = this.streamOf(entry);
      const ids = byStream.get(stream) ?? new Map<string, StoredEntry>();
      ids.set(entry.id, entry);
      byStream.set(stream, ids);
    }
    if (byStream.size === 0) byStream.set(this.oldStream, new Map());
    let leases = orderKeys.map((k) => this.keys.queueLease(k));
    const lost: StoredEntry[] = [];
    for (const [stream, ids] of byStream) {
      const list = [...ids.keys()];
      // Chunked to keep single scripts short; leases ride along with the first one.
      for (let i = 0; i < Math.max(list.length, 1); i += 200) {
        const reply = await HEARTBEAT.run(this.redis, [stream, ...leases], [this.group, consumer, leaseMs, ...list.slice(i, i + 200)]);
        leases = [];
        for (const id of z.array(z.string()).parse(reply)) {
          const entry = ids.get(id);
          if (entry) lost.push(entry);
        }
      }
    }
    return lost;
  }

  async tryStart(consumer: string, entry: StoredEntry, leaseMs: number): Promise<StartResult> {
    const stream = this.streamOf(entry);
    const other = stream === this.oldStream ? this.keys.queueTeamStream(entry.teamId) : this.oldStream;
    const keys = [stream, this.keys.queueOrder(entry.orderKey), this.keys.queueLease(entry.orderKey), this.keys.queueAttempts(), other];
    const reply = startReply.parse(await this.withGroups([stream], () => TRY_START.run(this.redis, keys, [this.group, consumer, entry.id, leaseMs])));
    return reply[0] === 'started' ? { status: 'started', failedAttempts: reply[1] } : { status: reply[0] };
  }

  async release(consumer: string, entry: StoredEntry): Promise<void> {
    await RELEASE.run(this.redis, [this.keys.queueLease(entry.orderKey)], [consumer]);
  }

  async complete(consumer: string, entry: StoredEntry): Promise<void> {
    await COMPLETE.run(this.redis, this.finishKeys(entry), this.finishArgs(consumer, entry));
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
    const [attempts, dead] = pairReply.parse(
      await FAIL.run(
        this.redis,
        [...this.finishKeys(entry), this.keys.queueDead(), this.keys.queueDeadCounts()],
        [...this.finishArgs(consumer, entry), maxAttempts, record.slice(0, -1), DEAD_LETTER_CAP, entry.teamId],
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
    const streams = await this.dataStreams(0, Number.POSITIVE_INFINITY);
    const [total, pending] = pairReply.parse(await DEPTH.run(this.redis, streams, [this.group]));
    return { total, pending, lag: Math.max(0, total - pending) };
  }

  close(): Promise<void> {
    for (const reader of [...this.readers]) reader.close();
    return Promise.resolve();
  }

  private streamOf(entry: StoredEntry): string {
    return entry.source ?? this.keys.queueTeamStream(entry.teamId);
  }

  private finishKeys(entry: StoredEntry): string[] {
    return [
      this.streamOf(entry),
      this.keys.queueOrder(entry.orderKey),
      this.keys.queueLease(entry.orderKey),
      this.keys.queueAttempts(),
      this.keys.queueTeams(),
    ];
  }

  private finishArgs(consumer: string, entry: StoredEntry): string[] {
    return [this.group, consumer, entry.id, this.streamOf(entry) === this.oldStream ? '' : entry.teamId];
  }

  /**
   * The streams that may hold entries: those of the teams with a backlog — at most `limit`, starting at
   * `turn` (so that beyond the limit every team gets its turn) — and the old single stream until it is empty.
   */
  private async dataStreams(turn: number, limit = MAX_STREAMS_PER_READ): Promise<string[]> {
    const [teams, oldLength] = await Promise.all([this.redis.smembers(this.keys.queueTeams()), this.redis.xlen(this.oldStream)]);
    const start = teams.length > limit ? turn % teams.length : 0;
    const window = [...teams.slice(start), ...teams.slice(0, start)].slice(0, limit);
    const streams = window.map((team) => this.keys.queueTeamStream(team));
    if (oldLength > 0) streams.push(this.oldStream);
    return streams;
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
