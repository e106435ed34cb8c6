/**
 * How many calls a number of replicas get from webhook to Slack when the bot, not Slack, is the limit: `calls`
 * call_completed webhooks, as fast as `concurrency` connections take them (dealt round-robin to the replicas),
 * over the calls channels of every installed workspace — a few per channel, so Slack's one post a second per
 * channel is not what holds them. Calls shown per second from the first webhook to the last call shown, posts
 * accepted per second, and each replica's, each Redis master's and this process's CPU meanwhile.
 */
import { startReplicas } from './fleet-idle.js';
import { callCompleted, deliveryBody, postJson } from './lib/events.js';
import type { FleetWorkspace } from './lib/fleet-seed.js';
import { until } from './lib/net.js';
import { cpuWindow, load, redisWindow, type CpuShare } from './lib/probes.js';
import { SlackLedger } from './lib/slack-ledger.js';
import type { Stack } from './lib/stack.js';
import { percentile } from './lib/stats.js';

export interface ThroughputFigures {
  replicas: number;
  calls: number;
  channels: number;
  /** Calls shown (card or roll-up) ÷ seconds from the first webhook to the last call shown. */
  callsPerS: number;
  /** Webhooks answered 200 ÷ seconds from the first to the last. */
  intakePerS: number;
  /** chat.postMessage accepted per second over the same period, and how many were answered 429. */
  postsPerS: number;
  rateLimited: number;
  shown: number;
  seconds: number;
  /** Seconds from the first webhook until 99 % of the calls were shown (a long tail shows as seconds ≫ this). */
  seconds99: number;
  /** Webhook answered → the call shown (ms). */
  lagP50: number;
  lagP99: number;
  cpu: { replicas: CpuShare[]; redis: CpuShare[]; bench: CpuShare };
  /** Commands per second each Redis (master) ran. */
  redisCommandsPerS: number[];
  load: string;
}

const WAIT_MS = 180_000;

export async function runThroughput(
  stack: Stack,
  fleet: readonly FleetWorkspace[],
  opts: { replicas: number; calls: number; concurrency: number },
): Promise<ThroughputFigures> {
  const bots = await startReplicas(stack, opts.replicas);
  const masters = stack.cluster?.nodes ?? [stack.redis];
  try {
    stack.slack.reset();
    const run = Date.now().toString(36);
    const ledger = new SlackLedger(stack.slack, new RegExp(`flt-${run}-\\d+`));
    const cpu = cpuWindow([...bots.map((b) => b.pid), ...masters.map((m) => m.pid ?? -1), process.pid]);
    const commands = await Promise.all(masters.map((m) => redisWindow(m.client)));
    const started = Date.now();
    let next = 0;
    const acceptedAt = new Map<string, number>();
    // `concurrency` connections, each sending its next webhook as soon as the last one is answered.
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        for (let n = next++; n < opts.calls; n = next++) {
          const w = fleet[n % fleet.length]!;
          const bot = bots[n % bots.length]!;
          const marker = `flt-${run}-${n}`;
          const res = await postJson(`${bot.url}${w.hook}`, deliveryBody(callCompleted(marker)));
          await res.arrayBuffer();
          if (res.status === 200) acceptedAt.set(marker, Date.now());
        }
      }),
    );
    const intakeS = (Date.now() - started) / 1000;
    await until(
      () => {
        ledger.update();
        return ledger.firstShown.size >= acceptedAt.size;
      },
      () => `every call shown (${ledger.firstShown.size} of ${acceptedAt.size})`,
      WAIT_MS,
      250,
    ).catch(() => undefined);
    const shownAt = [...ledger.firstShown.values()].sort((a, b) => a - b);
    const seconds = (shownAt.at(-1)! - started) / 1000;
    const lags = [...acceptedAt].flatMap(([m, at]) => {
      const shown = ledger.firstShown.get(m);
      return shown === undefined ? [] : [shown - at];
    });
    const shares = cpu.stop();
    const redisFigures = await Promise.all(commands.map((c) => c.stop()));
    const posted = [...ledger.postsByChannel.values()].reduce((n, times) => n + times.length, 0);
    return {
      replicas: opts.replicas,
      calls: opts.calls,
      channels: Math.min(fleet.length, opts.calls),
      callsPerS: ledger.firstShown.size / seconds,
      intakePerS: acceptedAt.size / intakeS,
      postsPerS: posted / seconds,
      rateLimited: ledger.postMessages.channel429 + ledger.postMessages.workspace429,
      shown: ledger.firstShown.size,
      seconds,
      seconds99: (percentile(shownAt, 99) - started) / 1000,
      lagP50: percentile(lags, 50),
      lagP99: percentile(lags, 99),
      cpu: {
        replicas: shares.slice(0, bots.length),
        redis: shares.slice(bots.length, bots.length + masters.length),
        bench: shares.at(-1)!,
      },
      redisCommandsPerS: redisFigures.map((r) => r.perSecond),
      load: load(),
    };
  } finally {
    await Promise.all(bots.map((b) => b.stop()));
  }
}
