/**
 * The Lua scripts of the Redis store, defined once per client with ioredis `defineCommand` (EVALSHA, loaded
 * by ioredis on NOSCRIPT; pipelined like any command) and called as the typed commands declared below.
 */
import type { Result } from 'ioredis';
import { DEDUP_MARK_BYTES, DEDUP_MARK_GUARD_MS } from './queue.js';
import type { RedisClient } from './redis-connection.js';

/*
 * Every script touches only the keys passed in KEYS, and those of one call share a hash tag (see keys.ts): one
 * queue group's `{queue:<g>}`, or the one of a workspace's outcome-alert counts.
 *
 * One stream per team, each with the same consumer group: a team's stream length is its backlog, and
 * readers go through the teams' streams side by side (fairness). A group's `teams` lists its teams whose stream
 * may hold entries; the wake-up stream (sent by the queue after an enqueue, outside any group) wakes blocked readers.
 */

/**
 * The team's dedup marks (`{queue}:marks:<team>`, a sorted set: digest → when marked) and what each counts toward
 * its byte cap. `dropMarks` removes up to `upTo` of the oldest marks scored at most `atMost`; returns how many went.
 */
const MARKS_LUA = `
local MARK_BYTES, GUARD_MS = ${DEDUP_MARK_BYTES}, ${DEDUP_MARK_GUARD_MS}
local function dropMarks(marks, atMost, upTo)
  if upTo <= 0 then return 0 end
  local old = redis.call('ZRANGE', marks, '-inf', atMost, 'BYSCORE', 'LIMIT', 0, upTo)
  if #old > 0 then redis.call('ZREMRANGEBYRANK', marks, 0, #old - 1) end
  return #old
end
local function markBytes(marks)
  return redis.call('ZCARD', marks) * MARK_BYTES
end
`;

/**
 * Enqueues one event. KEYS: the group's teams, the team's marks, stream, usage, dead. ARGV: group, ttlMs, teamId,
 * orderKey, payload, enqueuedAt, mark, maxBacklog, maxBacklogBytes (0: none), markedAt (the store's clock).
 * → id | 'duplicate' | 'full' | 'full_bytes'
 *
 * A team's backlog is its stream's length plus what it parked (`usage`: parked, parkedBytes), and the bytes
 * of its stream entries' payloads (`usage`: bytes) plus parkedBytes. Its dedup marks (MARK_BYTES each) and its
 * dead letters' bytes (`usage`: deadBytes) count toward the byte cap too — else what its webhooks leave behind
 * would pile up outside the budget — but they give way to a new event that fits beside the backlog and the young
 * marks: first the marks older than GUARD_MS, then the team's oldest letters (and a bury keeps them under the
 * cap recorded here, `usage` maxBytes). Marks younger than GUARD_MS never give way: then the event is refused.
 * Expired marks go two at a time with each new one, and the set expires a TTL after its newest mark.
 * Every script that adds or removes one of these changes its count in the same step, so no crash or takeover
 * leaves a count wrong; an empty stream counts no bytes, a missing dead list none, whatever was recorded
 * (hand-deleted entries cannot block a team for good, an expired list frees its bytes).
 */
const ENQUEUE = `${MARKS_LUA}
local teams, marks, stream, usage, dead = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local ttl, mark, markedAt = tonumber(ARGV[2]), ARGV[7], tonumber(ARGV[10])
local seen = redis.call('ZSCORE', marks, mark)
if seen then
  if tonumber(seen) > markedAt - ttl then return 'duplicate' end
  redis.call('ZREM', marks, mark)
end
dropMarks(marks, markedAt - ttl, 2)
local length = redis.call('XLEN', stream)
local u = redis.call('HMGET', usage, 'bytes', 'parked', 'parkedBytes', 'deadBytes')
local bytes = length == 0 and 0 or tonumber(u[1] or '0')
local size = string.len(ARGV[5])
local maxEvents, maxBytes = tonumber(ARGV[8]), tonumber(ARGV[9])
if maxEvents > 0 and length + tonumber(u[2] or '0') >= maxEvents then return 'full' end
if maxBytes > 0 then
  -- The backlog, this event and its mark beside the team's others, and its letters.
  local held = bytes + tonumber(u[3] or '0') + size + markBytes(marks) + MARK_BYTES
  local deadBytes = u[4] and redis.call('EXISTS', dead) == 1 and tonumber(u[4]) or 0
  if held + deadBytes > maxBytes then
    local over = math.ceil((held + deadBytes - maxBytes) / MARK_BYTES)
    held = held - MARK_BYTES * dropMarks(marks, markedAt - GUARD_MS, over)
  end
  if held > maxBytes then return 'full_bytes' end
  -- The cap a bury keeps the letters under (see BURY): the one this workspace's events are taken by.
  redis.call('HSET', usage, 'maxBytes', maxBytes)
  if u[4] then
    while deadBytes > 0 and held + deadBytes > maxBytes do
      local oldest = redis.call('RPOP', dead)
      if not oldest then deadBytes = 0 break end
      deadBytes = deadBytes - string.len(oldest)
    end
    if deadBytes > 0 then redis.call('HSET', usage, 'deadBytes', deadBytes) else redis.call('HDEL', usage, 'deadBytes') end
  end
end
if length == 0 and redis.call('EXISTS', stream) == 0 then
  redis.call('XGROUP', 'CREATE', stream, ARGV[1], '0', 'MKSTREAM')
end
local id = redis.call('XADD', stream, '*', 'teamId', ARGV[3], 'orderKey', ARGV[4], 'payload', ARGV[5],
  'enqueuedAt', ARGV[6])
redis.call('HSET', usage, 'bytes', bytes + size)
redis.call('ZADD', marks, markedAt, mark)
redis.call('PEXPIRE', marks, ttl)
redis.call('SADD', teams, ARGV[3])
return id
`;

/** KEYS: stream. ARGV: group, consumer, id…. → ids no longer pending for this consumer */
const HEARTBEAT = `
local lost = {}
local exists = redis.call('EXISTS', KEYS[1]) == 1
for i = 3, #ARGV do
  local id = ARGV[i]
  local p = exists and redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1) or {}
  if #p == 0 or p[1][2] ~= ARGV[2] then
    lost[#lost + 1] = id
  else
    -- Resets the idle time (JUSTID: without counting a delivery), so XAUTOCLAIM leaves the entry alone.
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'JUSTID')
  end
end
return lost
`;

/** Finishes an entry, its payload's bytes leaving the team's count. KEYS: stream, teams, usage. ARGV: group, id, team. */
const COMPLETE = `
local stream, usage = KEYS[1], KEYS[3]
redis.call('XACK', stream, ARGV[1], ARGV[2])
local entry, size = redis.call('XRANGE', stream, ARGV[2], ARGV[2])[1], 0
local fields = entry and entry[2] or {}
for i = 1, #fields - 1, 2 do
  if fields[i] == 'payload' then size = string.len(fields[i + 1]) break end
end
local deleted = redis.call('XDEL', stream, ARGV[2])
if redis.call('XLEN', stream) == 0 then
  -- A drained team leaves the readers' list; its next enqueue puts it back (and sends a wake-up).
  redis.call('SREM', KEYS[2], ARGV[3])
  redis.call('HDEL', usage, 'bytes')
elseif deleted == 1 and size > 0 and redis.call('HINCRBY', usage, 'bytes', -size) < 0 then
  redis.call('HDEL', usage, 'bytes')
end
return 1
`;

/**
 * Keeps one dead letter in its workspace's list, newest first: one per event — the letter of the same event it
 * replaces (its merge is made by the caller) goes in the same step, and another letter of that event found there
 * (buried meanwhile) makes the caller read again. Keeps the newest \`cap\`, drops from the tail
 * the letters that failed before \`cutoff\` (epoch ms) and the list itself \`maxAgeMs\` after its newest one.
 * The list's bytes are the workspace's \`usage\` deadBytes (see ENQUEUE), changed with every letter in or out; the
 * oldest also go while the backlog, the dedup marks and the letters hold more than the byte cap the last enqueue
 * was checked against (\`usage\` maxBytes) — the newest letter stays.
 * KEYS: the workspace's dead letters, deadCounts, usage, stream, marks. ARGV: letter JSON, cap, teamId, cutoff,
 * maxAgeMs, the letter it replaces as stored ('' for none), 1 to count it among those ever kept.
 * → 0 when the list changed for this event (read again), else 1.
 */
const BURY = `${MARKS_LUA}
local list, usage, json = KEYS[1], KEYS[3], ARGV[1]
-- Letters are stored id first: the one of the same event starts as this one does up to its id.
local head = string.sub(json, 1, string.find(json, '",', 1, true) + 1)
for _, kept in ipairs(redis.call('LRANGE', list, 0, -1)) do
  if string.sub(kept, 1, string.len(head)) == head and kept ~= ARGV[6] then return 0 end
end
if ARGV[6] ~= '' then
  if redis.call('LREM', list, 1, ARGV[6]) == 0 then return 0 end
  if redis.call('HINCRBY', usage, 'deadBytes', -string.len(ARGV[6])) <= 0 then redis.call('HDEL', usage, 'deadBytes') end
end
-- A list that expired took its letters with it: so do their bytes.
if redis.call('EXISTS', list) == 0 then redis.call('HDEL', usage, 'deadBytes') end
redis.call('LPUSH', list, json)
local u = redis.call('HMGET', usage, 'deadBytes', 'bytes', 'parkedBytes', 'maxBytes')
local deadBytes = tonumber(u[1] or '0') + string.len(json)
local maxBytes = tonumber(u[4] or '0')
local live = (redis.call('XLEN', KEYS[4]) == 0 and 0 or tonumber(u[2] or '0')) + tonumber(u[3] or '0') + markBytes(KEYS[5])
local kept = redis.call('LLEN', list)
while kept > 0 do
  local last = redis.call('LINDEX', list, -1)
  local drop = kept > tonumber(ARGV[2]) or (kept > 1 and maxBytes > 0 and live + deadBytes > maxBytes)
  if not drop then
    local ok, letter = pcall(cjson.decode, last)
    drop = not (ok and type(letter) == 'table' and tonumber(letter.failedAt) and tonumber(letter.failedAt) >= tonumber(ARGV[4]))
  end
  if not drop then break end
  redis.call('RPOP', list)
  kept = kept - 1
  deadBytes = deadBytes - string.len(last)
end
if deadBytes > 0 then redis.call('HSET', usage, 'deadBytes', deadBytes) else redis.call('HDEL', usage, 'deadBytes') end
redis.call('PEXPIRE', list, ARGV[5])
if ARGV[7] == '1' then redis.call('HINCRBY', KEYS[2], ARGV[3], 1) end
return 1
`;

/** Takes one dead letter out (to retry it), its bytes with it. KEYS: dead, usage. ARGV: the letter as stored. → 1 taken, 0 gone */
const TAKE_DEAD = `
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then return 0 end
if redis.call('HINCRBY', KEYS[2], 'deadBytes', -string.len(ARGV[1])) <= 0 then redis.call('HDEL', KEYS[2], 'deadBytes') end
return 1
`;

/**
 * Parks one item. KEYS: parked, usage, order. ARGV: id, json, score, order member (the id, sortable). → 1 when
 * parked now, 0 when it was already (its place in the order kept too).
 */
const PARK = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
redis.call('HINCRBY', KEYS[2], 'parked', 1)
redis.call('HINCRBY', KEYS[2], 'parkedBytes', string.len(ARGV[2]))
return 1
`;

/** Removes parked items. KEYS: parked, usage, order. ARGV: the ids, then their order members. → how many were there */
const UNPARK = `
local n, bytes, half = 0, 0, #ARGV / 2
for i = 1, half do
  local json = redis.call('HGET', KEYS[1], ARGV[i])
  if json then
    redis.call('HDEL', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[3], ARGV[half + i])
    n, bytes = n + 1, bytes + string.len(json)
  end
end
if n > 0 then
  local left = redis.call('HINCRBY', KEYS[2], 'parked', -n)
  redis.call('HINCRBY', KEYS[2], 'parkedBytes', -bytes)
  if left <= 0 then redis.call('HDEL', KEYS[2], 'parked', 'parkedBytes') end
end
return n
`;

/** KEYS: stream, usage, dead, marks. → {events, bytes} of the team's backlog, bytes with its dead letters' and marks' (see ENQUEUE) */
const USAGE = `${MARKS_LUA}
local length = redis.call('XLEN', KEYS[1])
local u = redis.call('HMGET', KEYS[2], 'bytes', 'parked', 'parkedBytes', 'deadBytes')
local bytes = length == 0 and 0 or tonumber(u[1] or '0')
local deadBytes = redis.call('EXISTS', KEYS[3]) == 1 and tonumber(u[4] or '0') or 0
return {length + tonumber(u[2] or '0'), bytes + tonumber(u[3] or '0') + deadBytes + markBytes(KEYS[4])}
`;

/** KEYS: streams. ARGV: group. → {entries, pending} summed over the streams */
const DEPTH = `
local total, pending = 0, 0
for i = 1, #KEYS do
  total = total + redis.call('XLEN', KEYS[i])
  local summary = redis.pcall('XPENDING', KEYS[i], ARGV[1])
  if type(summary) == 'table' and summary.err == nil then pending = pending + tonumber(summary[1]) end
end
return {total, pending}
`;

/*
 * Rate budgets (rate-budget.ts): KEYS[1] holds the budget's theoretical arrival time (epoch ms on the Redis
 * clock) of its next call. TAKE — KEYS[2]: the end of a long hold (`holdLong`, on the store's clock); ARGV:
 * intervalMs, toleranceMs, the store's now → 0 (taken) or ms to wait (nothing taken).
 * HOLD — ARGV: ms from now before which nothing is taken → 0.
 */
const REDIS_NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const TAKE_BUDGET = `local held = tonumber(redis.call('GET', KEYS[2]) or '0') - tonumber(ARGV[3])
if held > 0 then return math.ceil(held) end
${REDIS_NOW_MS}
local due = tonumber(redis.call('GET', KEYS[1]) or '0')
if due < now then due = now end
local wait = due - now - tonumber(ARGV[2])
if wait > 0 then return math.ceil(wait) end
due = due + tonumber(ARGV[1])
redis.call('SET', KEYS[1], tostring(due), 'PX', math.max(1, due - now))
return 0`;
const HOLD_BUDGET = `${REDIS_NOW_MS}
local due = tonumber(redis.call('GET', KEYS[1]) or '0')
local upto = now + tonumber(ARGV[1])
if upto > due then due = upto end
if due > now then redis.call('SET', KEYS[1], tostring(due), 'PX', math.max(1, due - now)) end
return 0`;

// Compare-and-set, so a maintenance rewrite never overwrites a value a request changed in between.
const SET_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0`;
const HSET_IF_EQUAL = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) return 1 end return 0`;
const HDEL_IF_EQUAL = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) return 1 end return 0`;
// Scores compared as numbers (ZSCORE answers a double's text): a timer moved on only while it holds the time that fired.
const ZSET_IF_SCORE = `local s = redis.call('ZSCORE', KEYS[1], ARGV[1]) if s and tonumber(s) == tonumber(ARGV[2]) then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) return 1 end return 0`;
const ZREM_IF_SCORE = `local s = redis.call('ZSCORE', KEYS[1], ARGV[1]) if s and tonumber(s) == tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) return 1 end return 0`;
/** A lease renewed (PEXPIRE) or released (DEL) only by its owner: the owner check and the write in one step. */
const PEXPIRE_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const DEL_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Counts one thing once (kv.ts `countOnce`). KEYS: the marks (a sorted set), then one hash per count. ARGV: the
 * thing's member, now, the marks' TTL, how many marks to keep, then per count: field, by, the hash's TTL.
 * → 1 counted, 0 counted before (a member scored within the TTL; one past it only holds a place until the cap
 * pushes it out).
 */
const COUNT_ONCE = `
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
if seen and tonumber(seen) > now - ttl then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[4]) - 1)
redis.call('PEXPIRE', KEYS[1], ttl)
for i = 2, #KEYS do
  local a = (i - 2) * 3 + 5
  redis.call('HINCRBY', KEYS[i], ARGV[a], ARGV[a + 1])
  redis.call('PEXPIRE', KEYS[i], ARGV[a + 2])
end
return 1`;

type Arg = string | number;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** See ENQUEUE. */
    campaignQueueEnqueue(
      teams: string,
      marks: string,
      stream: string,
      usage: string,
      dead: string,
      ...args: Arg[]
    ): Result<unknown, Context>;
    /** See HEARTBEAT: the number of keys first. */
    campaignQueueHeartbeat(numKeys: number, ...keysThenArgs: Arg[]): Result<unknown, Context>;
    /** See COMPLETE. */
    campaignQueueComplete(
      stream: string,
      teams: string,
      usage: string,
      group: string,
      id: string,
      team: string,
    ): Result<unknown, Context>;
    /** See BURY. */
    campaignQueueBury(
      dead: string,
      deadCounts: string,
      usage: string,
      stream: string,
      marks: string,
      ...args: Arg[]
    ): Result<unknown, Context>;
    /** See TAKE_DEAD. */
    campaignQueueTakeDead(dead: string, usage: string, letter: string): Result<number, Context>;
    /** See PARK. */
    campaignQueuePark(
      parked: string,
      usage: string,
      order: string,
      id: string,
      json: string,
      score: number,
      member: string,
    ): Result<number, Context>;
    /** See UNPARK: the ids, then their order members. */
    campaignQueueUnpark(
      parked: string,
      usage: string,
      order: string,
      ...idsThenMembers: string[]
    ): Result<number, Context>;
    /** See USAGE. */
    campaignQueueUsage(stream: string, usage: string, dead: string, marks: string): Result<unknown, Context>;
    /** See DEPTH: the number of keys first. */
    campaignQueueDepth(numKeys: number, ...keysThenArgs: Arg[]): Result<unknown, Context>;
    campaignSetIfEqual(key: string, expected: string, value: string): Result<unknown, Context>;
    /** See TAKE_BUDGET. */
    campaignTakeBudget(
      key: string,
      holdKey: string,
      intervalMs: number,
      toleranceMs: number,
      now: number,
    ): Result<number, Context>;
    /** See HOLD_BUDGET. */
    campaignHoldBudget(key: string, ms: number): Result<number, Context>;
    campaignHashSetIfEqual(key: string, field: string, expected: string, value: string): Result<unknown, Context>;
    campaignHashDelIfEqual(key: string, field: string, expected: string): Result<unknown, Context>;
    campaignSortedSetIfScore(key: string, member: string, expected: number, score: number): Result<unknown, Context>;
    campaignSortedRemoveIfScore(key: string, member: string, expected: number): Result<unknown, Context>;
    campaignExpireIfEqual(key: string, expected: string, ttlMs: number): Result<unknown, Context>;
    campaignDelIfEqual(key: string, expected: string): Result<unknown, Context>;
    /** See COUNT_ONCE: the number of keys first. */
    campaignCountOnce(numKeys: number, ...keysThenArgs: Arg[]): Result<number, Context>;
  }
}

const SCRIPTS: Record<string, { lua: string; numberOfKeys?: number }> = {
  campaignQueueEnqueue: { lua: ENQUEUE, numberOfKeys: 5 },
  campaignQueueHeartbeat: { lua: HEARTBEAT },
  campaignQueueComplete: { lua: COMPLETE, numberOfKeys: 3 },
  campaignQueueBury: { lua: BURY, numberOfKeys: 5 },
  campaignQueueTakeDead: { lua: TAKE_DEAD, numberOfKeys: 2 },
  campaignQueuePark: { lua: PARK, numberOfKeys: 3 },
  campaignQueueUnpark: { lua: UNPARK, numberOfKeys: 3 },
  campaignQueueUsage: { lua: USAGE, numberOfKeys: 4 },
  campaignQueueDepth: { lua: DEPTH },
  campaignSetIfEqual: { lua: SET_IF_EQUAL, numberOfKeys: 1 },
  campaignTakeBudget: { lua: TAKE_BUDGET, numberOfKeys: 2 },
  campaignHoldBudget: { lua: HOLD_BUDGET, numberOfKeys: 1 },
  campaignHashSetIfEqual: { lua: HSET_IF_EQUAL, numberOfKeys: 1 },
  campaignHashDelIfEqual: { lua: HDEL_IF_EQUAL, numberOfKeys: 1 },
  campaignSortedSetIfScore: { lua: ZSET_IF_SCORE, numberOfKeys: 1 },
  campaignSortedRemoveIfScore: { lua: ZREM_IF_SCORE, numberOfKeys: 1 },
  campaignExpireIfEqual: { lua: PEXPIRE_IF_EQUAL, numberOfKeys: 1 },
  campaignDelIfEqual: { lua: DEL_IF_EQUAL, numberOfKeys: 1 },
  campaignCountOnce: { lua: COUNT_ONCE },
};

const defined = new WeakSet<RedisClient>();

/** Defines the scripts on `redis` (once per client; the store's parts share one). Returns the client. */
export function withScripts<C extends RedisClient>(redis: C): C {
  if (defined.has(redis)) return redis;
  for (const [name, definition] of Object.entries(SCRIPTS)) redis.defineCommand(name, definition);
  defined.add(redis);
  return redis;
}
