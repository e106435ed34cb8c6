/**
 * A busy hour across a fleet: installed workspaces (OAuth mode), `active` of them busy at once, against Slack's
 * stand-in at its per-channel limit (a burst of 4, then 1 post a second) and a per-workspace posting limit. Each
 * active workspace, from a moment of its own within the first `spreadS` seconds: a burst of calls into its calls channel
 * (faster than Slack takes posts there, so the channel falls behind and its calls are rolled up) and customers
 * writing into its chats channel, a few messages each. Webhooks go round-robin to the replicas, as a load
 * balancer deals them.
 *
 * Figures, from what the stand-in accepted (this process's clock): each customer message, webhook answered 200 →
 * the first accepted post showing its words; each call, webhook answered → the first post showing it (card or
 * roll-up); posts per second in each calls channel (every accepted post there, thread replies too); the share
 * of chat.postMessage answered 429. CPU over the busy period (first webhook → everything shown) of each replica,
 * of Redis, and of this process — Slack's stand-in, the platform simulator and the load generator — to show
 * which of them is the limit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startReplicas } from './fleet-idle.js';
import { callCompleted, deliveryBody, messageReceived, postJson } from './lib/events.js';
import type { FleetWorkspace } from './lib/fleet-seed.js';
import { until } from './lib/net.js';
import { cpuWindow, load, redisWindow, type CpuShare } from './lib/probes.js';
import { busiestRate, SlackLedger } from './lib/slack-ledger.js';
import type { Stack } from './lib/stack.js';
import { percentile } from './lib/stats.js';

export interface ActiveOptions {
  active: number;
  /** Each active workspace starts at a moment of its own within this many seconds. */
  spreadS: number;
  replicas: number;
  /** Calls per active workspace, sent at `callsPerSecond` into its calls channel. */
  calls: number;
  callsPerSecond: number;
  /** Customers per active workspace, each writing `messagesEach` messages `messageGapMs` apart. */
  customers: number;
  messagesEach: number;
  messageGapMs: number;
  /** The stand-in's per-workspace limit on posts, every channel together, in a rolling minute. */
  workspacePostsPerMinute: number;
}

export interface Spread {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

export interface ActiveFigures {
  webhooks: number;
  webhookErrors: number;
  /** Seconds from the first webhook to the last one sent. */
  sendingS: number;
  /** Seconds from the first webhook until every message and call was shown (or the wait gave up). */
  busyS: number;
  /** Customer messages: webhook answered → first accepted post showing them (ms); how many of how many. */
  customer: Spread & { sent: number };
  /** Calls: webhook answered → first post showing them (ms). */
  calls: Spread & { sent: number; twice: number };
  /** Per calls channel: accepted posts ÷ seconds from its first to its last; the busiest 10 s of any. */
  channelPostsPerS: { median: number; min: number; max: number; busiest10s: number };
  postMessages: { all: number; channel429: number; workspace429: number };
  /** Shares of one core over the busy period: CPU used, and time waiting ready for a core. */
  cpu: { replicas: CpuShare[]; redis: CpuShare; bench: CpuShare };
  redisCommandsPerS: number;
  /** Web API methods called, most first. */
  methods: Array<[string, number]>;
  load: string;
}

interface Send {
  at: number;
  hook: string;
  body: string;
  /** The marker the stand-in's posts show it by; customer messages are the figure, calls the others. */
  marker: string;
  kind: 'customer' | 'call';
}

const WAIT_AFTER_MS = 120_000;

function schedule(run: string, workspaces: readonly FleetWorkspace[], o: ActiveOptions): Send[] {
  const sends: Send[] = [];
  workspaces.forEach((w, k) => {
    const start = Math.floor(Math.random() * o.spreadS * 1000);
    for (let i = 0; i < o.calls; i++) {
      const marker = `flc-${run}-${k}-${i}`;
      const body = deliveryBody(callCompleted(marker, { campaignId: 'camp-2' }));
      sends.push({ at: start + (i * 1000) / o.callsPerSecond, hook: w.hook, body, marker, kind: 'call' });
    }
    for (let c = 0; c < o.customers; c++) {
      const number = `+1415${String(k).padStart(4, '0')}${String(c).padStart(3, '0')}`;
      for (let m = 0; m < o.messagesEach; m++) {
        const marker = `flm-${run}-${k}-${c}-${m}`;
        const at = start + 300 + c * 1_100 + m * o.messageGapMs;
        const body = deliveryBody(messageReceived(number, `Hello, ${marker} here`, new Date().toISOString(), 'camp-3'));
        sends.push({ at, hook: w.hook, body, marker, kind: 'customer' });
      }
    }
  });
  return sends.sort((a, b) => a.at - b.at);
}

function spread(ms: readonly number[]): Spread {
  return {
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.length ? Math.max(...ms) : Number.NaN,
    n: ms.length,
  };
}

/** `fleet`: the installed workspaces (`seedFleet`), able to post (`activate`); the first `o.active` are busy. */
export async function runFleetActive(
  stack: Stack,
  fleet: readonly FleetWorkspace[],
  o: ActiveOptions,
): Promise<ActiveFigures> {
  const busy = fleet.slice(0, o.active);
  stack.platform.reset();
  stack.slack.reset();
  stack.slack.workspacePostLimit(o.workspacePostsPerMinute);
  const bots = await startReplicas(stack, o.replicas);
  try {
    const run = Date.now().toString(36);
    const ledger = new SlackLedger(stack.slack, new RegExp(`fl[cm]-${run}-\\d+-\\d+(?:-\\d+)?`));
    const sends = schedule(run, busy, o);
    const accepted = new Map<string, number>();
    let webhookErrors = 0;
    const answers: Array<Promise<void>> = [];

    // The replicas, Redis, and this process: Slack's stand-in, the platform simulator, the load generator.
    const cpu = cpuWindow([...bots.map((b) => b.pid), stack.redis.pid ?? -1, process.pid]);
    const commands = await redisWindow(stack.redis.client);
    const started = Date.now();
    let rr = 0;
    for (const s of sends) {
      const wait = started + s.at - Date.now();
      if (wait > 0) await sleep(wait);
      const bot = bots[rr++ % bots.length]!;
      answers.push(
        postJson(`${bot.url}${s.hook}`, s.body).then(
          async (res) => {
            await res.arrayBuffer();
            if (res.status === 200) accepted.set(s.marker, Date.now());
            else webhookErrors++;
          },
          () => void webhookErrors++,
        ),
      );
    }
    const sendingS = (Date.now() - started) / 1000;
    await Promise.all(answers);
    await until(
      () => {
        ledger.update();
        return [...accepted.keys()].every((m) => ledger.firstShown.has(m));
      },
      'every message and call shown',
      WAIT_AFTER_MS,
      250,
    ).catch(() => undefined);
    const busyS = (Date.now() - started) / 1000;
    const [redisFigures, shares] = [await commands.stop(), cpu.stop()];
    const lag = (kind: Send['kind']) =>
      sends.flatMap((s) => {
        const from = accepted.get(s.marker);
        const to = ledger.firstShown.get(s.marker);
        return s.kind === kind && from !== undefined && to !== undefined ? [to - from] : [];
      });
    const rates = busy.flatMap((w) => {
      const times = ledger.postsByChannel.get(w.callsChannel) ?? [];
      if (times.length < 2) return [];
      return [{ rate: (times.length - 1) / ((Math.max(...times) - Math.min(...times)) / 1000), times }];
    });
    const sorted = rates.map((r) => r.rate).sort((a, b) => a - b);
    const callMarkers = sends.filter((s) => s.kind === 'call').map((s) => s.marker);
    return {
      webhooks: sends.length,
      webhookErrors,
      sendingS,
      busyS,
      customer: { ...spread(lag('customer')), sent: sends.length - callMarkers.length },
      calls: {
        ...spread(lag('call')),
        sent: callMarkers.length,
        twice: callMarkers.reduce((n, m) => n + Math.max(0, (ledger.topLevelPosts.get(m) ?? 0) - 1), 0),
      },
      channelPostsPerS: {
        median: percentile(sorted, 50),
        min: sorted[0] ?? Number.NaN,
        max: sorted.at(-1) ?? Number.NaN,
        busiest10s: Math.max(0, ...rates.map((r) => busiestRate(r.times, 10_000))),
      },
      postMessages: { ...ledger.postMessages },
      cpu: { replicas: shares.slice(0, bots.length), redis: shares[bots.length]!, bench: shares[bots.length + 1]! },
      redisCommandsPerS: redisFigures.perSecond,
      methods: [...ledger.methods].sort((a, b) => b[1] - a[1]),
      load: load(),
    };
  } finally {
    await Promise.all(bots.map((b) => b.stop()));
    stack.slack.reset();
  }
}
