/**
 * What installed workspaces cost while nothing happens: 100, 1,000, 10,000 workspaces installed (OAuth mode,
 * bench/lib/fleet-seed.ts), `replicas` bot processes on the stack's one Redis, fresh for each count. After they
 * settle, a window at rest: Redis commands per second by `INFO commandstats` (the bench's INFO calls left out)
 * and Redis's CPU, each replica's CPU from /proc. A cost that grows with the count is a loop over workspaces or
 * channels; the busiest commands name it. Also Redis `used_memory` per installed workspace.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MANIFEST_BOT_SCOPES } from '../test/fakes/slack.js';
import type { BotProcess } from './lib/bot-process.js';
import { seedFleet } from './lib/fleet-seed.js';
import { cpuWindow, load, redisWindow, usedMemory, type CpuShare, type RedisWindow } from './lib/probes.js';
import type { Stack } from './lib/stack.js';

export interface IdleFigures {
  workspaces: number;
  /** Seconds to write the workspaces added for this count. */
  seedS: number;
  /** Redis used_memory above the empty store, per installed workspace (bytes). */
  bytesPerWorkspace: number;
  /** Slowest replica's start → /healthz 200 (ms). */
  startMs: number;
  redis: RedisWindow;
  /** Each replica at rest: CPU and time waiting for a core (shares of one core), RSS (bytes). */
  replicas: Array<CpuShare & { rssBytes: number }>;
  load: string;
}

/** Starts `n` replicas in OAuth mode, every workspace on its own platform key (no operator key). */
export async function startReplicas(stack: Stack, n: number): Promise<BotProcess[]> {
  return Promise.all(
    Array.from({ length: n }, () => stack.startBot({ oauth: true, campaignApiKey: '', discardStdout: true })),
  );
}

export async function runFleetIdle(
  stack: Stack,
  opts: { counts: readonly number[]; replicas: number; settleS: number; windowS: number },
): Promise<IdleFigures[]> {
  const redis = stack.redis.client;
  await redis.flushall();
  const empty = await usedMemory(redis);
  const out: IdleFigures[] = [];
  let seeded = 0;
  for (const count of opts.counts) {
    const seedStarted = performance.now();
    await seedFleet(stack.store, { from: seeded, to: count }, MANIFEST_BOT_SCOPES);
    const seedS = (performance.now() - seedStarted) / 1000;
    seeded = count;
    const bytesPerWorkspace = ((await usedMemory(redis)) - empty) / count;
    const bots = await startReplicas(stack, opts.replicas);
    try {
      // Start-up work (connections, consumer groups, the first scans) is not rest.
      await sleep(opts.settleS * 1000);
      const cpu = cpuWindow(bots.map((b) => b.pid));
      const commands = await redisWindow(redis);
      await sleep(opts.windowS * 1000);
      const redisFigures = await commands.stop();
      const shares = cpu.stop();
      out.push({
        workspaces: count,
        seedS,
        bytesPerWorkspace,
        startMs: Math.max(...bots.map((b) => b.startupMs)),
        redis: redisFigures,
        replicas: bots.map((b, i) => ({ ...shares[i]!, rssBytes: b.rss() })),
        load: load(),
      });
    } finally {
      await Promise.all(bots.map((b) => b.stop()));
    }
  }
  return out;
}
