/**
 * The fleet: what many installed workspaces cost at rest and busy, on one Redis and on a three-master Cluster
 * (`BENCH_ONLY=fleet npm run bench`; `BENCH_QUICK=1` for a smaller run of about a minute). Each figure is printed
 * with the 1-minute load average beside it: the machine has two cores and other work runs on it, and each CPU
 * figure also says how long the process waited, ready, for a core. docs/SCALING.md reads them.
 */
import { MANIFEST_BOT_SCOPES } from '../test/fakes/slack.js';
import { runFleetActive, type ActiveOptions } from './fleet-active.js';
import { runFirstContact } from './fleet-contact.js';
import { runFleetIdle, startReplicas } from './fleet-idle.js';
import { runWaitingMemory, type KindCost } from './fleet-memory.js';
import { slotReport } from './fleet-slots.js';
import { runThroughput, type ThroughputFigures } from './fleet-throughput.js';
import { activate, seedFleet } from './lib/fleet-seed.js';
import type { CpuShare } from './lib/probes.js';
import { startStack, type Stack } from './lib/stack.js';
import { mb } from './lib/stats.js';

type Row = (figure: string, target: string, measured: string, met: boolean | null) => void;

const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const f1 = (n: number) => n.toFixed(1);
const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const cpuOf = (s: CpuShare) => `${pct(s.cpu)} (waited ${pct(s.waited)})`;
/** CPU time of these processes together per event: what sizing multiplies by the event rate. */
const perEvent = (shares: readonly CpuShare[], events: number) =>
  `${(shares.reduce((n, s) => n + s.cpuMs, 0) / events).toFixed(2)} ms CPU`;

function settings(quick: boolean) {
  // A burst faster than Slack's one post a second per channel (so the calls channel falls behind), sized with
  // the customers so that the whole mix stays within what two shared cores can do (see docs/SCALING.md).
  const active: ActiveOptions = {
    active: quick ? 20 : 100,
    spreadS: quick ? 2 : 5,
    replicas: 3,
    calls: 8,
    callsPerSecond: 2,
    customers: 2,
    messagesEach: 2,
    messageGapMs: 4_000,
    workspacePostsPerMinute: 100,
  };
  return {
    idle: {
      counts: quick ? [100, 1_000] : [100, 1_000, 10_000],
      replicas: 3,
      settleS: quick ? 1 : 5,
      windowS: quick ? 3 : 30,
    },
    contact: { known: quick ? 300 : 2_000, slice: quick ? 450 : 1_000 },
    installed: quick ? 200 : 1_000,
    active,
    waiting: { calls: quick ? 100 : 2_000, channels: quick ? 50 : 200, customers: quick ? 50 : 400 },
    // The quick run leaves out the throughput runs and the Cluster: the longest parts, and the least smoke-testing.
    throughput: { replicas: quick ? [] : [1, 2, 4], calls: 3_000, concurrency: 32 },
    cluster: !quick,
  };
}

export async function runFleet(stack: Stack, opts: { quick: boolean; row: Row }): Promise<void> {
  const { row } = opts;
  const s = settings(opts.quick);

  console.log(
    `\n— fleet at rest: ${s.idle.counts.map(f0).join(', ')} installed workspaces (OAuth mode, each with its platform key, a calls and a chats channel routed, a handoff SLA), ${s.idle.replicas} replicas on one Redis, a ${s.idle.windowS} s window after ${s.idle.settleS} s`,
  );
  const idle = await runFleetIdle(stack, s.idle);
  for (const r of idle) {
    const worst = Math.max(...r.replicas.map((x) => x.cpu));
    row(
      `at rest, ${f0(r.workspaces)} workspaces, ${r.replicas.length} replicas: Redis commands/s, CPU per replica`,
      '≤ 50 commands/s, ≤ 2 % CPU per replica, flat in workspaces',
      `${f1(r.redis.perSecond)} commands/s (${r.redis.top.map((t) => `${t.command} ${f1(t.perSecond)}`).join(', ')}), Redis CPU ${pct(r.redis.cpu)}; replicas ${r.replicas.map(cpuOf).join(', ')}, RSS ${r.replicas.map((x) => mb(x.rssBytes)).join(', ')}; start ${f1(r.startMs / 1000)} s; ${r.load}`,
      r.redis.perSecond <= 50 && worst <= 0.02,
    );
  }
  let previous = { workspaces: 0, bytes: 0 };
  const marginal = idle.map((r) => {
    const bytes = r.bytesPerWorkspace * r.workspaces;
    const per = (bytes - previous.bytes) / (r.workspaces - previous.workspaces);
    previous = { workspaces: r.workspaces, bytes };
    return `${f0(r.workspaces)}: ${kb(per)} (written in ${f1(r.seedS)} s)`;
  });
  row(
    "Redis used_memory per installed workspace (each step's added workspaces)",
    '–',
    `${marginal.join('; ')}; ${idle.at(-1)!.load}`,
    null,
  );

  // The workspaces at rest have sent nothing yet: what a replica pays per webhook by how many it has met.
  const everyone = await seedFleet(stack.store, { from: 0, to: idle.at(-1)!.workspaces }, MANIFEST_BOT_SCOPES);
  console.log(
    `\n— workspaces met: one replica, ${f0(everyone.length)} installed; ${f0(s.contact.known)} webhooks from 100 workspaces, then one from each other workspace, ${f0(s.contact.slice)} at a time (call_started, routed nowhere: no post)`,
  );
  const k = await runFirstContact(stack, everyone, s.contact);
  const last = k.slices.at(-1)!;
  row(
    "bot CPU per webhook by workspaces met (one replica): the same 100 workspaces, then each one's first",
    'flat in workspaces met',
    `100 known: ${k.knownMs.toFixed(2)} ms; first webhooks, by workspaces met before → after: ${k.slices.map((x) => `${f0(x.from)}→${f0(x.to)} ${x.ms.toFixed(2)} ms`).join(', ')}${k.webhookErrors ? `; ${k.webhookErrors} not answered 200` : ''}; ${k.load}`,
    last.ms <= 2 * k.knownMs && k.webhookErrors === 0,
  );

  const a = s.active;
  let fleet = await freshFleet(stack, s.installed);
  await activate(stack.slack, stack.platform, fleet);
  console.log(
    `\n— fleet busy: ${f0(s.installed)} installed, ${a.active} active at once (each starting within ${a.spreadS} s), ${a.replicas} replicas; each active workspace ${a.calls} calls at ${a.callsPerSecond}/s into its calls channel and ${a.customers} customers writing ${a.messagesEach} messages ${a.messageGapMs / 1000} s apart into its chats channel; Slack's stand-in at 1 post/s per channel (bursts of 4) and ${a.workspacePostsPerMinute} posts a minute per workspace`,
  );
  const r = await runFleetActive(stack, fleet, a);
  const c = r.customer;
  row(
    `busy fleet: customer message shown (webhook answered → the stand-in accepted the post with its words)`,
    'p99 ≤ 2 s',
    `p50 ${f0(c.p50)} ms, p99 ${f0(c.p99)} ms, max ${f0(c.max)} ms (${c.n}/${c.sent} shown); ${r.load}`,
    c.n === c.sent && c.p99 <= 2_000,
  );
  row(
    'busy fleet: calls shown (card or roll-up), webhook answered → post',
    'each shown once',
    `p50 ${f1(r.calls.p50 / 1000)} s, p99 ${f1(r.calls.p99 / 1000)} s (${r.calls.n}/${r.calls.sent} shown, ${r.calls.twice} twice); ${f0(r.webhooks)} webhooks in ${f1(r.sendingS)} s, ${r.webhookErrors} not answered 200; all shown ${f1(r.busyS)} s after the first; ${r.load}`,
    r.calls.n === r.calls.sent && r.calls.twice === 0 && r.webhookErrors === 0,
  );
  row(
    'busy fleet: posts per second in each backlogged calls channel (first post → last)',
    '≤ 1.2/s',
    `median ${f1(r.channelPostsPerS.median)}/s (${f1(r.channelPostsPerS.min)}–${f1(r.channelPostsPerS.max)}), busiest 10 s of any ${f1(r.channelPostsPerS.busiest10s)}/s; ${r.load}`,
    r.channelPostsPerS.busiest10s <= 1.2,
  );
  const pm = r.postMessages;
  row(
    'busy fleet: chat.postMessage answered 429',
    '≤ 5 %',
    `${pct((pm.channel429 + pm.workspace429) / pm.all)} (${pm.channel429} per channel + ${pm.workspace429} per workspace of ${f0(pm.all)}); Web API calls ${r.methods.map(([m, n]) => `${m} ${f0(n)}`).join(', ')}; ${r.load}`,
    (pm.channel429 + pm.workspace429) / pm.all <= 0.05,
  );
  row(
    'busy fleet: CPU over the busy period (share of one core; waited = ready, no core free)',
    'the stand-in and load generator not the limit',
    `replicas ${r.cpu.replicas.map(cpuOf).join(', ')} — ${perEvent(r.cpu.replicas, r.webhooks)} per webhook; Redis ${cpuOf(r.cpu.redis)} — ${perEvent([r.cpu.redis], r.webhooks)} and ${f1((r.redisCommandsPerS * r.busyS) / r.webhooks)} commands per webhook (${f0(r.redisCommandsPerS)}/s); bench process (Slack stand-in, platform simulator, load generator) ${cpuOf(r.cpu.bench)}; ${r.load}`,
    null,
  );

  // What the busy run left (marks, posts still going out) would blur what follows: an empty store again.
  fleet = await freshFleet(stack, s.installed);
  console.log(
    `\n— Redis memory per waiting call: Slack down while ${f0(s.waiting.calls)} calls reach ${s.waiting.channels} channels (one replica), then Slack back`,
  );
  const [bot] = await startReplicas(stack, 1);
  try {
    const m = await runWaitingMemory(stack, bot!, fleet, s.waiting);
    const kinds = (list: KindCost[]) =>
      list
        .map(
          (k) =>
            `${k.kind} ${f0(k.bytesEach)} B in ${f1(k.keysEach)} keys${Number.isFinite(k.ttlHours) ? ` for ${f0(k.ttlHours)} h` : ''}`,
        )
        .join(', ');
    row(
      `Redis per workspace once it has had traffic (its first call, shown; ${m.channels} workspaces), by kind of key`,
      '–',
      `${kinds(m.firstTraffic)}; ${m.load}`,
      null,
    );
    row(
      `Redis used_memory per call waiting for Slack (${f0(m.calls)} calls in ${m.channels} channels), and what each leaves once shown`,
      '–',
      `${kb(m.waitingBytesPerCall)} waiting; kept once shown ${kb(m.keptBytesPerCall)}: ${kinds(m.kept)}; all shown ${f1(m.drainS)} s after Slack's return; ${m.load}`,
      null,
    );
    row(
      `Redis per new handoff conversation (${m.customers} customers' first messages, shown), by kind of key`,
      '–',
      `${kinds(m.conversation)}; each later message of it: ${kinds(m.later)}; ${m.load}`,
      null,
    );
  } finally {
    await bot!.stop();
  }

  if (s.throughput.replicas.length > 0)
    console.log(
      `\n— throughput: ${f0(s.throughput.calls)} calls over ${f0(Math.min(fleet.length, s.throughput.calls))} workspaces' calls channels, ${s.throughput.concurrency} connections, one Redis`,
    );
  for (const replicas of s.throughput.replicas) {
    throughputRow(row, 'one Redis', await runThroughput(stack, fleet, { ...s.throughput, replicas }));
  }
  if (s.cluster) await onCluster(row, fleet.length, s.throughput);
}

/**
 * An empty Redis with `count` workspaces installed (no replica running). Their bot tokens and platform keys,
 * once granted by the stand-in and the simulator (`activate`), stay valid across these.
 */
async function freshFleet(stack: Stack, count: number) {
  await stack.redis.client.flushall();
  return seedFleet(stack.store, { from: 0, to: count }, MANIFEST_BOT_SCOPES);
}

function throughputRow(row: Row, where: string, t: ThroughputFigures): void {
  row(
    `throughput, ${t.replicas} replica(s), ${where}: calls shown per second (webhook → card or roll-up)`,
    '–',
    `${f0(t.callsPerS)} calls/s (${t.shown}/${t.calls} in ${f1(t.seconds)} s, 99 % in ${f1(t.seconds99)} s; lag p50 ${f1(t.lagP50 / 1000)} s, p99 ${f1(t.lagP99 / 1000)} s; intake ${f0(t.intakePerS)}/s), ${f0(t.postsPerS)} posts/s, ${t.rateLimited} × 429; replicas ${t.cpu.replicas.map(cpuOf).join(', ')} — ${perEvent(t.cpu.replicas, t.shown)} per call; Redis ${t.cpu.redis.map(cpuOf).join(', ')} — ${perEvent(t.cpu.redis, t.shown)} per call, at ${t.redisCommandsPerS.map(f0).join(' / ')} commands/s; bench process ${cpuOf(t.cpu.bench)}; ${t.load}`,
    t.shown === t.calls,
  );
}

/** Throughput on a three-master Cluster, then where the fleet's keys went. */
async function onCluster(
  row: Row,
  installed: number,
  throughput: { calls: number; concurrency: number },
): Promise<void> {
  console.log(
    `\n— the same on a three-master Redis Cluster: ${f0(installed)} workspaces, ${f0(throughput.calls)} calls with 2 replicas, then the slots of their keys`,
  );
  const stack = await startStack({ entry: 'dist', cluster: true });
  try {
    const fleet = await seedFleet(stack.store, { from: 0, to: installed }, MANIFEST_BOT_SCOPES);
    await activate(stack.slack, stack.platform, fleet);
    const t = await runThroughput(stack, fleet, { ...throughput, replicas: 2 });
    throughputRow(row, 'a 3-master Cluster (commands/s per master)', t);
    const slots = await slotReport(stack.cluster!, stack.store.keys.prefix);
    const g = slots.groupKeys;
    row(
      `Cluster slots: the queue's ${g.length} groups after ${f0(installed)} workspaces and ${f0(throughput.calls)} calls`,
      '–',
      `keys per group: fewest ${f0(g[0]!)}, median ${f0(g[Math.floor(g.length / 2)]!)}, most ${f0(g[g.length - 1]!)} (${slots.queueKinds.map(([k, n]) => `${k} ${f0(n)}`).join(', ')}); every other key (${f0(slots.otherKeys)}) over ${f0(slots.otherSlots)} slots`,
      null,
    );
    row(
      'Cluster masters: keys, used_memory, slots, queue groups and their keys',
      '–',
      slots.masters
        .map(
          (m) =>
            `:${m.port} ${f0(m.keys)} keys, ${mb(m.usedBytes)}, ${f0(m.slots)} slots, ${f0(m.queueGroups)} groups (${f0(m.queueKeys)} keys)`,
        )
        .join('; '),
      null,
    );
  } finally {
    await stack.close();
  }
}
