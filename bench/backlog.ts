/**
 * What one post costs the store when its channel is 20 posts behind, and when it is 20,000 behind: the steps a
 * channel's drain takes per post (src/delivery/scheduler.ts) — read the channel's head (a roll-up's worth),
 * remove what was posted, push its due time on, renew its lease — through the store (`createStore`), in memory
 * and against the bench's own redis-server. Redis commands from `INFO stats` (minus the INFO itself), Redis CPU
 * from `INFO cpu`, the process's own CPU from `process.cpuUsage`.
 */
import { randomBytes } from 'node:crypto';
import { createStore, type Store } from '../src/store/index.js';
import type { RedisServer } from './lib/redis-server.js';

export interface BacklogCost {
  waiting: number;
  /** The process's CPU per post, µs. */
  cpuUs: number;
  /** Redis commands per post (undefined in memory). */
  commands?: number;
  /** Redis's own CPU per post, µs (undefined in memory). */
  redisCpuUs?: number;
}

const HEAD = 45;
const LEASE_MS = 120_000;

/** A call as the outbox keeps it: about the size of a completed call's event. */
const CALL_JSON = JSON.stringify({
  trigger: 'call_completed',
  data: { callId: 'x'.repeat(24), summary: 's'.repeat(400), customerName: 'Jordan Example' },
  enqueuedAt: 0,
});

async function redisFigures(redis: RedisServer): Promise<{ commands: number; cpuUs: number }> {
  const stats = await redis.client.info('stats');
  const cpu = await redis.client.info('cpu');
  const num = (re: RegExp, text: string) => Number(re.exec(text)?.[1] ?? 0);
  return {
    commands: num(/total_commands_processed:(\d+)/, stats),
    cpuUs: (num(/used_cpu_user:([\d.]+)/, cpu) + num(/used_cpu_sys:([\d.]+)/, cpu)) * 1e6,
  };
}

async function fill(store: Store, at: { teamId: string; channelId: string }, count: number): Promise<void> {
  const batch = 500;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, (_, j) =>
        store.outbox.add(at, 'routine', { id: `${1_700_000_000_000 + i + j}-0`, json: CALL_JSON }),
      ),
    );
  }
}

/** `posts` posts from a channel `waiting` behind (kept that far behind: filled with `waiting + posts`). */
async function measure(
  store: Store,
  waiting: number,
  posts: number,
  redis: RedisServer | undefined,
): Promise<BacklogCost> {
  const at = { teamId: 'T0BENCH', channelId: `C0BACKLOG${waiting}` };
  await fill(store, at, waiting + posts);
  const owner = 'bench-drain';
  await store.leases.take(store.outbox.lease(at), owner, LEASE_MS);
  const redisBefore = redis ? await redisFigures(redis) : undefined;
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < posts; i++) {
    const head = await store.outbox.head(at, HEAD);
    await store.outbox.remove(at, [head[0]!.id]);
    await store.leases.renew(store.outbox.lease(at), owner, LEASE_MS);
    await store.outbox.dueAt(at, Date.now() + LEASE_MS);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const redisAfter = redis ? await redisFigures(redis) : undefined;
  const cost: BacklogCost = { waiting, cpuUs: (cpu.user + cpu.system) / posts };
  if (redisBefore && redisAfter) {
    cost.commands = (redisAfter.commands - redisBefore.commands - 2) / posts; // less the two INFO calls
    cost.redisCpuUs = (redisAfter.cpuUs - redisBefore.cpuUs) / posts;
  }
  return cost;
}

export async function runBacklog(
  redis: RedisServer,
  opts: { posts: number; backlogs: readonly number[] },
): Promise<{ memory: BacklogCost[]; redis: BacklogCost[] }> {
  const memory = createStore({});
  const inRedis = createStore({ redisUrl: redis.url, keyPrefix: 'bench-backlog:', secretsKey: randomBytes(32) });
  try {
    const out = { memory: [] as BacklogCost[], redis: [] as BacklogCost[] };
    // Warmed up first (JIT, connections), so neither size pays for the start.
    await measure(memory, 10, opts.posts, undefined);
    await measure(inRedis, 10, opts.posts, redis);
    for (const waiting of opts.backlogs) {
      out.memory.push(await measure(memory, waiting, opts.posts, undefined));
      out.redis.push(await measure(inRedis, waiting, opts.posts, redis));
    }
    return out;
  } finally {
    await memory.close();
    await inRedis.close();
  }
}
