/**
 * Ingest, for the bot with Redis and the bot in memory mode (two processes of their own, both running, at
 * LOG_LEVEL=info with their output discarded), two figures each:
 * - ack latency at a steady 2,000 req/s (`wrk` with a pause per connection, see lib/wrk.ts; the bare server
 *   too, as the floor the machine and generator set; with the queue drained first, so no backlog left by
 *   another run competes with it);
 * - throughput: `wrk -t1` POSTs real-shaped call_completed deliveries, each with its own callId, as fast as
 *   they are answered, at the bots' `/hooks/<token>` (their workers consuming alongside) and at a bare Node
 *   `http` server that only parses the same JSON — same connections, same duration, in alternating rounds
 *   (bare, Redis, memory, bare, …) so that what else the machine does hits all alike.
 *
 * Latencies under full load are given twice: every answer as wrk timed it, and wrk's own figure, which adds
 * made-up samples for each slow answer (its coordinated-omission correction, see lib/wrk.ts). The slow answers
 * are a round's first ones: a busy Node server takes in one new connection per event-loop turn (libuv,
 * libuv/libuv#3696 "unix: don't accept() connections in a loop"), so the first request of the last of
 * wrk's 50 connections waits some 30 turns, and wrk's correction counts each such answer 20–30 times. The floor
 * for both is the bare server again, this time busy per request exactly as long as the memory-mode bot takes
 * per answer (`SPIN_US`), under the same load.
 *
 * No channel routes these events: the worker takes each one, finds nothing subscribed, and finishes it, so
 * the fake Slack stays out of the measurement. Before each bot round the bot's queue is drained (its
 * `/metrics` queue depth back to 0), so every round starts from the same state; how long that took is the
 * drain figure.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BotProcess } from './lib/bot-process.js';
import { ROOT } from './lib/bot-process.js';
import { freePort, until, waitForOk } from './lib/net.js';
import { ADMIN_ID, type Stack } from './lib/stack.js';
import { ensureWrk, wrk, type WrkResult } from './lib/wrk.js';

export interface IngestOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  /** bare, Redis, memory, bare…: this many of each. */
  rounds: number;
  fixedRate: number;
}

interface FixedFigures {
  rate: number;
  achieved: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

interface ModeFigures {
  mode: 'redis' | 'memory';
  rps: number;
  /** bot / bare of the same rounds. */
  ratio: number;
  rounds: number[];
  statuses: Record<string, number>;
  /** Under full load, the worst round: p99 of the answers as timed, wrk's corrected p99, the slowest answer. */
  loaded: Tail;
  fixed: FixedFigures;
  /** Queue back to empty after a round: the slowest, in seconds. */
  drainS: number;
  /** Right after the last round (its backlog not yet drained). */
  rssEndBytes: number;
  /** CPU per answered delivery over the rounds, intake and worker (until drained), in µs: the bot's, its Redis's. */
  cpuUs: { bot: number; redis: number | null };
}

/** Tail latencies of the worst round under full load, in ms. */
export interface Tail {
  p99: number;
  p99Corrected: number;
  max: number;
}

export interface IngestFigures {
  bareRps: number;
  /** The bare server busy per request as long as the memory-mode bot per answer, under full load. */
  floor: Tail & { spinUs: number; rps: number };
  /** The bare server at the steady rate: what the machine and the generator leave for latency. */
  bareFixed: FixedFigures;
  modes: ModeFigures[];
  wrkArgs: string;
}

/** The bare baseline, in its own process like the bot. */
async function startBare(spinUs = 0): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/bare-server.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), SPIN_US: String(spinUs) },
    stdio: 'ignore',
  });
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  await waitForOk(`http://127.0.0.1:${port}/`, 15_000, 20, () => child.exitCode === null);
  return {
    url: `http://127.0.0.1:${port}/hooks/bare`,
    stop() {
      process.off('exit', reap);
      child.kill('SIGKILL');
    },
  };
}

/** CPU time (user + system) a process has used so far, in ms; NaN where /proc is not there. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}

/** The bot's queue depth as its `/metrics` reports it. */
async function queueDepth(bot: BotProcess): Promise<number> {
  const text = await (await fetch(`${bot.url}/metrics`)).text();
  const value = /^campaign_queue_depth (\d+)/m.exec(text)?.[1];
  if (value === undefined) throw new Error('/metrics has no campaign_queue_depth');
  return Number(value);
}

/** Seconds until the bot's queue is empty. */
export async function drain(bot: BotProcess): Promise<number> {
  const started = performance.now();
  await until(async () => (await queueDepth(bot)) === 0, 'the queue drained', 300_000, 100);
  return (performance.now() - started) / 1000;
}

/**
 * A memory-mode bot's hook path: its store lives in its process, so the workspace gets its hook token the way
 * an admin gives it one — a signed `/campaign subscribe` (of another campaign: the bench's events stay
 * unrouted) — and the token is read from the hook URL the bot registered at the platform.
 */
async function memoryHookPath(stack: Stack, bot: BotProcess): Promise<string> {
  const channel = 'C0BENCHMEM';
  stack.slack.addChannel({ id: channel, name: 'bench-memory' });
  const res = await stack
    .signer(bot)
    .command({ text: 'subscribe camp-elsewhere call_started', userId: ADMIN_ID, channelId: channel });
  if (res.status !== 200) throw new Error(`subscribe answered ${res.status}`);
  const hookUrl = await until(
    () => {
      for (const r of stack.platform.requests) {
        const body = r.body as { hookUrl?: unknown } | undefined;
        if (r.path === '/events-gateway/trigger/subscribe' && typeof body?.hookUrl === 'string' && r.headers['api-key'])
          return body.hookUrl;
      }
      return undefined;
    },
    'the memory-mode bot’s platform subscription',
    10_000,
  );
  return new URL(hookUrl).pathname;
}

function tail(runs: WrkResult[]): Tail {
  return {
    p99: Math.max(...runs.map((r) => r.timed.p99)),
    p99Corrected: Math.max(...runs.map((r) => r.p99)),
    max: Math.max(...runs.map((r) => r.max)),
  };
}

function sum(into: Record<string, number>, from: Record<string, number>): void {
  for (const [code, n] of Object.entries(from)) into[code] = (into[code] ?? 0) + n;
}

export async function runIngest(stack: Stack, opts: IngestOptions): Promise<IngestFigures> {
  ensureWrk();
  // As deployed by default (LOG_LEVEL=info: a line per event), the lines going nowhere — but with the backlog
  // caps out of reach: one workspace sending as fast as it is answered for 20 s outruns its worker, and this
  // measures intake, not the 429s of HOOK_MAX_BACKLOG (the bytes section measures those).
  const quiet = { entry: 'dist', logLevel: 'info', discardStdout: true } as const;
  const uncapped = { HOOK_MAX_BACKLOG: '10000000', HOOK_MAX_BACKLOG_MB: '10000' };
  const redisBot = await stack.startBot({ ...quiet, env: uncapped });
  const memoryBot = await stack.startBot({ ...quiet, env: { ...uncapped, REDIS_URL: '' } });
  const targets = [
    { mode: 'redis' as const, bot: redisBot, url: `${redisBot.url}${await stack.route([])}` },
    { mode: 'memory' as const, bot: memoryBot, url: `${memoryBot.url}${await memoryHookPath(stack, memoryBot)}` },
  ];
  const tag = Date.now().toString(36);
  try {
    const bare = await startBare();
    const steady = async (url: string, prefix: string) => {
      const r = await wrk({
        url,
        prefix,
        connections: opts.connections,
        durationS: opts.durationS,
        rate: opts.fixedRate,
      });
      return {
        rate: opts.fixedRate,
        achieved: r.rps,
        p50: r.p50,
        p99: r.p99,
        statuses: { ...r.statuses, ...(r.errors ? { errors: r.errors } : {}) },
      };
    };
    const fixed = new Map<string, FixedFigures>();
    try {
      fixed.set('bare', await steady(bare.url, `steady-bare-${tag}-`));
      for (const t of targets) {
        await wrk({
          url: t.url,
          prefix: `warm-steady-${t.mode}-${tag}-`,
          connections: opts.connections,
          durationS: opts.warmupS,
          rate: opts.fixedRate / 2,
        });
        await drain(t.bot);
        fixed.set(t.mode, await steady(t.url, `steady-${t.mode}-${tag}-`));
        await drain(t.bot);
      }
    } catch (error) {
      bare.stop();
      throw error;
    }

    const bareRuns: WrkResult[] = [];
    const runs = new Map<string, WrkResult[]>(targets.map((t) => [t.mode, []]));
    const drains = new Map<string, number[]>(targets.map((t) => [t.mode, []]));
    const rssEnd = new Map<string, number>();
    const cpu = new Map<string, { bot: number; redis: number; answered: number }>(
      targets.map((t) => [t.mode, { bot: 0, redis: 0, answered: 0 }]),
    );
    const shape = { connections: opts.connections, durationS: opts.durationS };
    try {
      await wrk({ url: bare.url, prefix: `warm-bare-${tag}-`, ...shape, durationS: opts.warmupS });
      for (const t of targets) {
        await wrk({ url: t.url, prefix: `warm-${t.mode}-${tag}-`, ...shape, durationS: opts.warmupS });
        await drain(t.bot);
      }
      for (let round = 0; round < opts.rounds; round++) {
        bareRuns.push(await wrk({ url: bare.url, prefix: `bare-${tag}-${round}-`, ...shape }));
        for (const t of targets) {
          const bot0 = cpuMs(t.bot.pid);
          const redis0 = cpuMs(stack.redis.pid);
          const run = await wrk({ url: t.url, prefix: `${t.mode}-${tag}-${round}-`, ...shape });
          runs.get(t.mode)!.push(run);
          rssEnd.set(t.mode, t.bot.rss());
          drains.get(t.mode)!.push(await drain(t.bot));
          const used = cpu.get(t.mode)!;
          used.bot += cpuMs(t.bot.pid) - bot0;
          used.redis += cpuMs(stack.redis.pid) - redis0;
          used.answered += run.total;
        }
      }
    } finally {
      bare.stop();
    }
    for (const run of bareRuns) {
      if (run.errors > 0 || Object.keys(run.statuses).some((c) => !c.startsWith('2')))
        throw new Error(`bare server answered ${JSON.stringify(run.statuses)} (errors ${run.errors})`);
    }
    const mean = (xs: WrkResult[]) => xs.reduce((a, r) => a + r.rps, 0) / xs.length;
    const bareRps = mean(bareRuns);
    // The bot's one thread is full under this load: 1 s / its answers a second is what an answer costs it.
    const spinUs = Math.max(0, Math.round(1e6 / mean(runs.get('memory')!) - 1e6 / bareRps));
    const floorRuns: WrkResult[] = [];
    const floor = await startBare(spinUs);
    try {
      await wrk({ url: floor.url, prefix: `warm-floor-${tag}-`, ...shape, durationS: opts.warmupS });
      for (let round = 0; round < opts.rounds; round++) {
        floorRuns.push(await wrk({ url: floor.url, prefix: `floor-${tag}-${round}-`, ...shape }));
      }
    } finally {
      floor.stop();
    }
    return {
      bareRps,
      floor: { ...tail(floorRuns), spinUs, rps: mean(floorRuns) },
      bareFixed: fixed.get('bare')!,
      wrkArgs: `wrk -t1 -c${opts.connections} -d${opts.durationS}s`,
      modes: targets.map((t) => {
        const mine = runs.get(t.mode)!;
        const statuses: Record<string, number> = {};
        for (const r of mine) {
          sum(statuses, r.statuses);
          if (r.errors) sum(statuses, { errors: r.errors });
        }
        return {
          mode: t.mode,
          rps: mean(mine),
          ratio: mean(mine) / bareRps,
          rounds: mine.map((r, i) => r.rps / bareRuns[i]!.rps),
          statuses,
          loaded: tail(mine),
          fixed: fixed.get(t.mode)!,
          drainS: Math.max(...drains.get(t.mode)!),
          rssEndBytes: rssEnd.get(t.mode)!,
          cpuUs: (({ bot, redis, answered }) => ({
            bot: (bot * 1000) / answered,
            redis: t.mode === 'redis' ? (redis * 1000) / answered : null,
          }))(cpu.get(t.mode)!),
        };
      }),
    };
  } finally {
    await Promise.all([redisBot.stop('SIGKILL'), memoryBot.stop('SIGKILL')]);
  }
}
