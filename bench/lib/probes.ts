/**
 * What a process and a Redis cost over a window, read from outside them: a process's CPU time from
 * /proc (the bot replicas, redis-server), and a Redis's `INFO commandstats`, `INFO cpu` and
 * `INFO memory`. A window's figures are the difference of two readings; the INFO commands the bench sends
 * itself are taken out of the command counts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Redis } from 'ioredis';

/**
 * CPU time the process has run so far and time it was ready to run but waited for a core, in ms, from
 * each thread's /proc/<pid>/task/<tid>/schedstat (nanoseconds); NaN when /proc cannot tell (not Linux, or the process is gone). On a
 * machine shared with other work the wait says how much of a process's slowness was the machine's.
 */
function processCpuMs(pid: number): { runMs: number; waitMs: number } {
  try {
    // Every thread of it (V8's and libuv's helpers too), not only the main one.
    let run = 0;
    let wait = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const fields = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').trim().split(' ').map(Number);
      run += fields[0]!;
      wait += fields[1]!;
    }
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return { runMs: Number.NaN, waitMs: Number.NaN };
  }
}

/** Shares of one core (0…1): how much a process ran, and how much it was ready to run but waited for a core. */
export interface CpuShare {
  cpu: number;
  waited: number;
  /** CPU time used over the window, ms. */
  cpuMs: number;
}

/** Each process's `CpuShare` over a window ended by `stop()`. */
export function cpuWindow(pids: readonly number[]): { stop(): CpuShare[] } {
  const started = performance.now();
  const before = pids.map(processCpuMs);
  return {
    stop() {
      const wallMs = performance.now() - started;
      return pids.map((pid, i) => {
        const now = processCpuMs(pid);
        const cpuMs = now.runMs - before[i]!.runMs;
        return { cpu: cpuMs / wallMs, waited: (now.waitMs - before[i]!.waitMs) / wallMs, cpuMs };
      });
    },
  };
}

function infoNumber(text: string, field: string): number {
  return Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
}

interface RedisReading {
  at: number;
  /** calls per command name (lower case). */
  calls: Map<string, number>;
  cpuMs: number;
}

async function readRedis(client: Redis): Promise<RedisReading> {
  const [stats, cpu] = [await client.info('commandstats'), await client.info('cpu')];
  const calls = new Map<string, number>();
  for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  return {
    at: performance.now(),
    calls,
    cpuMs: (infoNumber(cpu, 'used_cpu_user') + infoNumber(cpu, 'used_cpu_sys')) * 1000,
  };
}

export interface RedisWindow {
  seconds: number;
  /** Commands per second, the bench's own INFO calls left out. */
  perSecond: number;
  /** The busiest commands, per second, most first. */
  top: Array<{ command: string; perSecond: number }>;
  /** Redis's own CPU, share of one core. */
  cpu: number;
}

/** Commands and CPU of one Redis over a window: `stop()` reads them again and gives the difference. */
export async function redisWindow(client: Redis): Promise<{ stop(): Promise<RedisWindow> }> {
  const before = await readRedis(client);
  return {
    async stop() {
      const after = await readRedis(client);
      const seconds = (after.at - before.at) / 1000;
      const deltas: Array<{ command: string; perSecond: number }> = [];
      let total = 0;
      for (const [command, calls] of after.calls) {
        // The two INFO calls of each reading are the bench's, not the bot's.
        const n = calls - (before.calls.get(command) ?? 0) - (command === 'info' ? 2 : 0);
        if (n <= 0) continue;
        total += n;
        deltas.push({ command, perSecond: n / seconds });
      }
      deltas.sort((a, b) => b.perSecond - a.perSecond);
      return {
        seconds,
        perSecond: total / seconds,
        top: deltas.slice(0, 6),
        cpu: (after.cpuMs - before.cpuMs) / (after.at - before.at),
      };
    },
  };
}

/** `used_memory` of a Redis, in bytes. */
export async function usedMemory(client: Redis): Promise<number> {
  return infoNumber(await client.info('memory'), 'used_memory');
}

/** `load 1.23` — the 1-minute load average now, printed beside every figure on a shared machine. */
export function load(): string {
  return `load ${loadavg()[0]!.toFixed(2)}`;
}
