/**
 * A throwaway `redis-server` on its own port, owned by the caller: the benchmarks and the fault suite run
 * against it (never against the shared Redis at 6379), so they can stop it, kill it and start it again
 * without touching anyone else's data, and the bot processes can use the default key prefix.
 *
 * With `durable`, every write is appended and fsynced before Redis answers (`appendfsync always`), so a
 * stop/kill and restart keeps everything Redis acknowledged — the outage fault needs exactly that.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './net.js';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The server process, while it runs. */
  readonly pid: number | undefined;
  /** A client for inspecting what is stored (reconnects by itself across restarts). */
  readonly client: Redis;
  /** Stops the server (SIGTERM by default; SIGKILL for a crash) and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops it and deletes its data directory. */
  close(): Promise<void>;
}

export async function startRedisServer(opts: { durable?: boolean; extraArgs?: string[] } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'campaign-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    opts.durable ? 'yes' : 'no',
    ...(opts.durable ? ['--appendfsync', 'always'] : []),
    ...(opts.extraArgs ?? []),
  ];
  let child: ChildProcess | undefined;
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => 100,
  });
  client.on('error', () => undefined); // surfaced through the failing command

  const start = async () => {
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let spawnError: Error | undefined;
    proc.on('error', (err) => (spawnError = err));
    child = proc;
    // Never outlive the process that started it.
    const reap = () => proc.kill('SIGKILL');
    process.once('exit', reap);
    proc.once('exit', () => process.off('exit', reap));
    const probe = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    try {
      for (let i = 0; i < 200; i++) {
        if (spawnError) throw new Error(`redis-server could not be started (is it installed?): ${spawnError.message}`);
        if (proc.exitCode !== null) throw new Error(`redis-server exited with code ${proc.exitCode}`);
        try {
          await probe.connect();
          // Loading the AOF after a restart answers LOADING for a moment: wait until PING works.
          if ((await probe.ping()) === 'PONG') return;
        } catch {
          probe.disconnect();
        }
        await sleep(25);
      }
      throw new Error(`redis-server on port ${port} did not answer PING`);
    } finally {
      probe.disconnect();
    }
  };

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill(signal);
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    client,
    stop,
    start,
    async close() {
      client.disconnect();
      await stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
