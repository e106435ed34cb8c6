/**
 * The real bot as a child process: the production entry point, configured only through its environment
 * (README › Configuration), talking to the fakes that run in the calling process.
 *
 * `entry: 'dist'` runs `node dist/bot/main.js` (what `npm start` runs; `npm run build` first) — the benchmarks
 * use it, and it is the one startup is measured with. `entry: 'npm-start'` runs `npm start` itself (its build
 * check, then the same entry point), for a restart's figure. `entry: 'source'` runs `node --import tsx
 * src/bot/main.ts`, so the fault suite needs no build step and always tests the checkout as it is.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitForOk } from './net.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SIGNING_SECRET = 'bench-signing-secret-0123456789abcdef';
/** OAuth mode's app credentials (the stand-in takes any client; the state secret needs 32+ characters). */
const OAUTH_ENV = {
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'bench-client-secret-abcdef',
  SLACK_STATE_SECRET: 'bench-state-secret-0123456789abcdef',
};

export interface BotProcessOptions {
  slackApiUrl: string;
  botToken: string;
  /** OAuth multi-workspace mode (client id/secret, state secret) instead of `botToken`; workspaces install at /slack/install. */
  oauth?: boolean;
  campaignApiUrl: string;
  campaignApiKey?: string;
  /** One Redis (REDIS_URL), or a cluster's `host:port,…` (REDIS_CLUSTER_NODES). */
  redisUrl?: string;
  redisClusterNodes?: string;
  /** base64, 32 bytes; the same one the store was provisioned with. */
  secretsKey: string;
  adminUserIds?: string[];
  entry?: 'dist' | 'npm-start' | 'source';
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** More variables (or overrides). */
  env?: Record<string, string>;
  /** Flags for node itself (e.g. `--cpu-prof` while tuning). */
  nodeArgs?: string[];
  /** stdout (the log lines) goes nowhere: for load runs at LOG_LEVEL=info, where reading it would cost the bench. */
  discardStdout?: boolean;
  /** How long to wait for /healthz. */
  startTimeoutMs?: number;
}

export interface BotProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly child: ChildProcess;
  /** From spawn() to the first 200 from GET /healthz, in ms. */
  readonly startupMs: number;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string>;
  alive(): boolean;
  /** Resident set size now, in bytes. */
  rss(): number;
  /** What the process wrote to stdout/stderr (the last 256 KB). */
  output(): string;
  /** Sends `signal` and waits for the exit (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

const OUTPUT_CAP = 256 * 1024;

export async function startBotProcess(opts: BotProcessOptions): Promise<BotProcess> {
  const entry = opts.entry ?? 'source';
  const port = await freePort();
  const env: Record<string, string> = {
    // Nothing else is inherited: the bot sees exactly the configuration below.
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...(opts.oauth ? OAUTH_ENV : { SLACK_BOT_TOKEN: opts.botToken }),
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: opts.slackApiUrl,
    CAMPAIGN_API_URL: opts.campaignApiUrl,
    ...(opts.campaignApiKey ? { CAMPAIGN_API_KEY: opts.campaignApiKey } : {}),
    ...(opts.redisClusterNodes ? { REDIS_CLUSTER_NODES: opts.redisClusterNodes } : { REDIS_URL: opts.redisUrl ?? '' }),
    SECRETS_KEY: opts.secretsKey,
    PORT: String(port),
    PUBLIC_URL: 'https://bench.invalid',
    LOG_LEVEL: opts.logLevel ?? 'warn',
    ...(opts.adminUserIds?.length ? { ADMIN_USER_IDS: opts.adminUserIds.join(',') } : {}),
    // The events' recording URLs name a host that does not exist: recordings are measured on their own
    // (bench/recordings.ts lists its host), and nothing here looks names up on the internet.
    RECORDING_HOSTS: 'off',
    ...opts.env,
  };
  const main = entry === 'source' ? join(ROOT, 'src/bot/main.ts') : join(ROOT, 'dist/bot/main.js');
  if (entry === 'dist' && !existsSync(main)) throw new Error('dist/bot/main.js is missing: run `npm run build` first');
  const args = [...(opts.nodeArgs ?? []), ...(entry === 'dist' ? [] : ['--import', 'tsx']), main];
  // npm runs the script through a shell: the bot is signalled as a process group (`detached`), shell and all.
  const npm = entry === 'npm-start';

  const started = performance.now();
  const child = npm
    ? spawn('npm', ['start', '--silent'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, args, {
        cwd: ROOT,
        env,
        stdio: ['ignore', opts.discardStdout ? 'ignore' : 'pipe', 'pipe'],
      });
  const signal = (name: NodeJS.Signals) => (npm ? process.kill(-child.pid!, name) : child.kill(name));
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > OUTPUT_CAP) output = output.slice(-OUTPUT_CAP);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  // Never outlive the process that started it (a benchmark or test that dies half-way).
  const reap = () => signal('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  const alive = () => child.exitCode === null && child.signalCode === null;

  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(`${url}/healthz`, opts.startTimeoutMs ?? 20_000, 5, alive);
  } catch (err) {
    signal('SIGKILL');
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- bot output ---\n${output}`);
  }
  const startupMs = performance.now() - started;

  return {
    url,
    port,
    pid: child.pid!,
    child,
    startupMs,
    exited,
    alive,
    rss: () => rssOf(child.pid!),
    output: () => output,
    async stop(name = 'SIGTERM', graceMs = 12_000) {
      if (!alive()) return;
      signal(name);
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** RSS of a process in bytes: /proc on Linux, `ps` elsewhere. */
function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // not Linux, or the process is gone
  }
  const kb = execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  return Number(kb) * 1024;
}
