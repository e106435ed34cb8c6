/**
 * Ingest, two figures:
 * - ack latency at a steady 2,000 req/s (paced, see lib/paced.ts; first, with the queue drained, so no backlog
 *   left by the other runs competes with it);
 * - throughput: autocannon POSTs real-shaped call_completed deliveries, each with its own callId, as fast as
 *   they are answered, at the bot's `/hooks/<token>` (Redis behind it, its worker consuming alongside) and at a
 *   bare Node `http` server that only parses the same JSON — same connections, same duration, in alternating
 *   rounds (bare, bot, bare, bot…) so that what else the machine does hits both alike.
 *
 * No channel routes these events: the worker takes each one, finds nothing subscribed, and finishes it, so
 * the fake Slack (in this process, beside the load generator) stays out of the measurement.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { BotProcess } from './lib/bot-process.js';
import { ROOT } from './lib/bot-process.js';
import { distinctCallBodies } from './lib/events.js';
import { load, type LoadResult } from './lib/load.js';
import { paced } from './lib/paced.js';
import { freePort, waitForOk } from './lib/net.js';
import { percentile } from './lib/stats.js';

export interface IngestOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  /** bare, bot, bare, bot…: this many of each. */
  rounds: number;
  fixedRate: number;
}

export interface IngestFigures {
  bareRps: number;
  botRps: number;
  ratio: number;
  /** bot / bare of each round. */
  rounds: number[];
  botStatuses: Record<string, number>;
  fixed: { rate: number; achieved: number; p50: number; p99: number; statuses: Record<string, number> };
  rssEndBytes: number;
}

function only2xx(r: LoadResult): boolean {
  return Object.keys(r.statuses).every((code) => code.startsWith('2')) && r.errors === 0;
}

/** The bare baseline, in its own process like the bot. */
async function startBare(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/bare-server.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
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

/** `drained()` resolves once the bot's queue is empty again. */
export async function runIngest(bot: BotProcess, hookPath: string, opts: IngestOptions, drained: () => Promise<void>): Promise<IngestFigures> {
  const url = `${bot.url}${hookPath}`;
  const bareBody = distinctCallBodies(`bare-${Date.now()}`);
  const botBody = distinctCallBodies(`ingest-${Date.now()}`);

  await paced({ url, body: botBody, connections: opts.connections, durationS: opts.warmupS, rate: opts.fixedRate / 2 });
  await drained();
  const fixed = await paced({ url, body: botBody, connections: opts.connections, durationS: opts.durationS, rate: opts.fixedRate });
  await drained();

  const bare = await startBare();
  const bareRuns: LoadResult[] = [];
  const botRuns: LoadResult[] = [];
  try {
    await load({ url: bare.url, body: bareBody, connections: opts.connections, durationS: opts.warmupS });
    await load({ url, body: botBody, connections: opts.connections, durationS: opts.warmupS });
    // Alternating rounds, so that a change in what else the machine is doing hits both sides alike.
    for (let round = 0; round < opts.rounds; round++) {
      bareRuns.push(await load({ url: bare.url, body: bareBody, connections: opts.connections, durationS: opts.durationS }));
      botRuns.push(await load({ url, body: botBody, connections: opts.connections, durationS: opts.durationS }));
    }
  } finally {
    bare.stop();
  }
  for (const run of bareRuns) if (!only2xx(run)) throw new Error(`bare server answered ${JSON.stringify(run.statuses)} (errors ${run.errors})`);
  const mean = (runs: LoadResult[]) => runs.reduce((a, r) => a + r.rps, 0) / runs.length;
  const statuses: Record<string, number> = {};
  for (const run of botRuns) {
    for (const [code, n] of Object.entries(run.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
    if (run.errors) statuses.errors = (statuses.errors ?? 0) + run.errors;
  }
  return {
    bareRps: mean(bareRuns),
    botRps: mean(botRuns),
    ratio: mean(botRuns) / mean(bareRuns),
    rounds: botRuns.map((r, i) => r.rps / bareRuns[i]!.rps),
    botStatuses: statuses,
    fixed: {
      rate: opts.fixedRate,
      achieved: fixed.achieved,
      p50: percentile(fixed.latencies, 50),
      p99: percentile(fixed.latencies, 99),
      statuses: { ...fixed.statuses, ...(fixed.errors ? { errors: fixed.errors } : {}) },
    },
    rssEndBytes: bot.rss(),
  };
}
