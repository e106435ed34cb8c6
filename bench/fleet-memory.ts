/**
 * What Redis holds for traffic, by kind of key (`MEMORY USAGE` and `PTTL` of every key, before and after):
 * 1. each of `channels` workspaces gets its first call, shown: what a workspace keeps once it has had traffic
 *    (its queue stream and consumer group, the campaigns it has seen, its channels' audiences…), per workspace;
 * 2. Slack's stand-in answers every call 503 (down) while `calls` more call_completed webhooks reach those
 *    workspaces' calls channels; once every one waits in its channel's outbox and none in the queue, Redis
 *    `used_memory` above what it was before, per call;
 * 3. Slack comes back; once every call is shown, what is left of them, per call: the marks that keep a
 *    retried webhook or a retried post from showing twice, each with the time it lives;
 * 4. `customers` customers each write one message into those workspaces' chats channels; once each is shown
 *    (its handoff card and its line in the card's thread), what was added, per conversation; then each writes
 *    again, and what its line in the thread added, per message.
 */
import type { Redis } from 'ioredis';
import type { BotProcess } from './lib/bot-process.js';
import { callCompleted, deliveryBody, messageReceived, postJson } from './lib/events.js';
import type { FleetWorkspace } from './lib/fleet-seed.js';
import { until } from './lib/net.js';
import { load, usedMemory } from './lib/probes.js';
import { SlackLedger } from './lib/slack-ledger.js';
import type { Stack } from './lib/stack.js';

export interface KindCost {
  /** `dedup`, `queue:stream`, … (the key's first part after the prefix; for the queue's keys, the kind after the tag). */
  kind: string;
  keysEach: number;
  bytesEach: number;
  /** Median time to live of the kind's keys, hours (Infinity: kept until uninstalled). */
  ttlHours: number;
}

export interface MemoryFigures {
  calls: number;
  channels: number;
  /** By kind: what a workspace's first call (shown) added, per workspace. */
  firstTraffic: KindCost[];
  /** used_memory above the start while every call waits (bytes per call). */
  waitingBytesPerCall: number;
  /** By kind: what is left per call once every call was shown, and used_memory above the start per call. */
  kept: KindCost[];
  keptBytesPerCall: number;
  customers: number;
  /** By kind: what a new handoff conversation (one customer message, shown) added, per conversation. */
  conversation: KindCost[];
  /** By kind: what a customer's next message in the conversation (shown) added, per message. */
  later: KindCost[];
  /** Seconds from Slack's return until every call was shown. */
  drainS: number;
  load: string;
}

const CONCURRENCY = 32;

interface KindCensus {
  keys: number;
  /** MEMORY USAGE of its keys, summed. */
  bytes: number;
  /** PTTL of each key (-1: none). */
  ttlsMs: number[];
}

/** Every key of the store by kind: how many, their bytes, their TTLs. */
async function census(redis: Redis, prefix: string): Promise<Map<string, KindCensus>> {
  const kinds = new Map<string, KindCensus>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    const facts = await Promise.all(
      keys.map(async (key) => ({ key, bytes: (await redis.memory('USAGE', key)) ?? 0, ttl: await redis.pttl(key) })),
    );
    for (const { key, bytes, ttl } of facts) {
      const parts = key.slice(prefix.length).split(':');
      // `{queue:<g>}:<kind>:…` splits into `{queue`, `<g>}`, `<kind>`: the kind is what counts, not the group.
      const kind = parts[0] === '{queue' ? `queue:${parts[2]}` : parts[0]!;
      const c = kinds.get(kind) ?? { keys: 0, bytes: 0, ttlsMs: [] };
      c.keys++;
      c.bytes += bytes;
      c.ttlsMs.push(ttl);
      kinds.set(kind, c);
    }
  } while (cursor !== '0');
  return kinds;
}

/** What grew from `before` to `after`, by kind, divided by `per`; kinds that grew by less than a byte each left out. */
function growth(before: Map<string, KindCensus>, after: Map<string, KindCensus>, per: number): KindCost[] {
  return [...after]
    .map(([kind, now]) => {
      const was = before.get(kind) ?? { keys: 0, bytes: 0, ttlsMs: [] };
      const ttls = now.ttlsMs.filter((t) => t >= 0).sort((a, b) => a - b);
      return {
        kind,
        keysEach: (now.keys - was.keys) / per,
        bytesEach: (now.bytes - was.bytes) / per,
        ttlHours: ttls.length === 0 ? Number.POSITIVE_INFINITY : ttls[Math.floor(ttls.length / 2)]! / 3_600_000,
      };
    })
    .filter((k) => k.bytesEach >= 1)
    .sort((a, b) => b.bytesEach - a.bytesEach);
}

export async function runWaitingMemory(
  stack: Stack,
  bot: BotProcess,
  fleet: readonly FleetWorkspace[],
  opts: { calls: number; channels: number; customers: number },
): Promise<MemoryFigures> {
  const targets = fleet.slice(0, opts.channels);
  const redis = stack.redis.client;
  const prefix = stack.store.keys.prefix;
  const run = Date.now().toString(36);
  const ledger = new SlackLedger(stack.slack, new RegExp(`flw-${run}-\\d+`));
  let sent = 0;
  /** The index of each customer's first message: its workspace and number follow from it. */
  const firsts: number[] = [];
  /**
   * `count` calls, or customers' first messages, dealt over the targets; or (`again`) one more message of each
   * customer who wrote already. `CONCURRENCY` at a time.
   */
  const send = async (count: number, what: 'call' | 'customer' | 'again' = 'call') => {
    for (let i = 0; i < count; i += CONCURRENCY) {
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, count - i) }, async (_, j) => {
          const n = sent++;
          const customer = what === 'again' ? firsts[i + j]! : n;
          if (what === 'customer') firsts.push(n);
          const w = targets[customer % targets.length]!;
          const marker = `flw-${run}-${n}`;
          const number = `+1415${String(customer).padStart(7, '0')}`;
          const event =
            what === 'call'
              ? callCompleted(marker)
              : messageReceived(number, `Hi, ${marker} here`, new Date().toISOString());
          const res = await postJson(`${bot.url}${w.hook}`, deliveryBody(event));
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`a webhook was answered ${res.status}`);
        }),
      );
    }
  };
  const allShown = (what: string) =>
    until(
      () => {
        ledger.update();
        return ledger.firstShown.size >= sent;
      },
      () => `${what} (${ledger.firstShown.size} of ${sent} shown)`,
      120_000,
      250,
    );

  stack.slack.reset();
  const empty = await census(redis, prefix);
  await send(targets.length);
  await allShown('every workspace’s first call');
  const warm = await census(redis, prefix);
  const before = await usedMemory(redis);

  stack.slack.setDown(true);
  let waitingBytes: number;
  try {
    await send(opts.calls);
    let parked = 0;
    await until(
      async () => {
        parked = 0;
        for (const w of targets)
          parked += await stack.store.outbox.size({ teamId: w.teamId, channelId: w.callsChannel });
        return parked === opts.calls && (await stack.store.queue.depth()).total === 0;
      },
      () => `every call waiting in its channel (${parked} of ${opts.calls})`,
      60_000,
      200,
    );
    waitingBytes = (await usedMemory(redis)) - before;
  } finally {
    stack.slack.setDown(false);
  }
  const back = Date.now();
  await allShown('every waiting call');
  const drainS = (Date.now() - back) / 1000;
  const keptBytes = (await usedMemory(redis)) - before;
  const shown = await census(redis, prefix);
  await send(opts.customers, 'customer');
  await allShown('every customer’s message');
  const opened = await census(redis, prefix);
  await send(opts.customers, 'again');
  await allShown('every customer’s second message');
  return {
    calls: opts.calls,
    channels: targets.length,
    firstTraffic: growth(empty, warm, targets.length),
    waitingBytesPerCall: waitingBytes / opts.calls,
    kept: growth(warm, shown, opts.calls),
    keptBytesPerCall: keptBytes / opts.calls,
    customers: opts.customers,
    conversation: growth(shown, opened, opts.customers),
    later: growth(opened, await census(redis, prefix), opts.customers),
    drainS,
    load: load(),
  };
}
