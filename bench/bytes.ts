/**
 * Bytes: one workspace floods its hook with large deliveries while its calls cannot be posted (the fake Slack
 * answers every chat.postMessage 429 + Retry-After, so they wait for their channel), and another workspace keeps
 * sending small ones. The workspace's byte budget (HOOK_MAX_BACKLOG_MB) must bound what the bot keeps for it:
 * - with Redis: Redis `used_memory` before, at its peak (sampled every 100 ms) and after the flood, how many
 *   deliveries were taken before the first 429, and what the workspace's backlog holds by the bot's count;
 * - in memory mode: the bot process's RSS the same way;
 * - the other workspace's deliveries: every one 2xx;
 * - then Slack recovers: every accepted call is shown and the workspace's backlog is empty again.
 *
 * The weight of each delivery is a field the bot keeps and never renders (`notes`), so the figures are about
 * what is stored, not about rendering large transcripts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotProcess } from './lib/bot-process.js';
import { callCompleted, deliveryBody, postJson } from './lib/events.js';
import { until } from './lib/net.js';
import { postsByCallId } from './lib/shown.js';
import { TEAM_ID, type Stack } from './lib/stack.js';
import { provisionWorkspace } from './lib/workspace.js';

export interface BytesOptions {
  deliveries: number;
  /** Size of each delivery body, in KB. */
  sizeKb: number;
  /** HOOK_MAX_BACKLOG_MB of the bots. */
  budgetMb: number;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** One small delivery to the other workspace per this many of the flood. */
  otherEvery: number;
}

export interface BytesFigures {
  mode: 'redis' | 'memory';
  /** Deliveries answered 200 before the first 429, and in all. */
  acceptedBeforeFirst429: number;
  accepted: number;
  refused429: number;
  /** Answers other than 200 and 429 to the flood. */
  otherStatuses: Record<string, number>;
  /** The workspace's backlog by the bot's own count once the flood is over (Redis mode). */
  backlogBytes?: number;
  /** Redis used_memory (Redis mode) or the bot's RSS (memory mode): before, peak, after the flood. */
  memory: { what: string; before: number; peak: number; after: number };
  /** The other workspace's deliveries and their answers. */
  other: { sent: number; statuses: Record<string, number> };
  /** Once Slack recovered: accepted calls shown, and seconds until the last. */
  shown: number;
  drainedS: number | undefined;
}

const OTHER_TEAM = 'T0BYTESOTH';
const CHANNEL = 'C0BYTES001';
const OTHER_CHANNEL = 'C0BYTES002';
/** What Slack answers while "down": a 429 the bot waits out (time heals it), so nothing is dead-lettered. */
const RETRY_AFTER_S = 5;

async function usedMemory(stack: Stack): Promise<number> {
  const info = await stack.redis.client.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

export async function runBytes(stack: Stack, mode: 'redis' | 'memory', opts: BytesOptions): Promise<BytesFigures> {
  stack.slack.reset();
  stack.platform.reset();
  const env = { HOOK_MAX_BACKLOG_MB: String(opts.budgetMb), ...(mode === 'memory' ? { REDIS_URL: '' } : {}) };
  const bot = await stack.startBot({ env });
  try {
    const { hook, otherHook } =
      mode === 'redis'
        ? await redisHooks(stack, bot)
        : { hook: `${bot.url}${await stack.subscribe(bot, CHANNEL)}`, otherHook: null };
    stack.slack.rateLimit({
      method: 'chat.postMessage',
      retryAfterSec: RETRY_AFTER_S,
      times: Number.POSITIVE_INFINITY,
    });

    const measure = mode === 'redis' ? () => usedMemory(stack) : () => Promise.resolve(bot.rss());
    const before = await measure();
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await measure());
        await sleep(100);
      }
    })();

    const run = Date.now().toString(36);
    const padding = 'x'.repeat(opts.sizeKb * 1024 - deliveryBody(callCompleted('x')).length - 40);
    const statuses: Record<string, number> = {};
    const otherStatuses: Record<string, number> = {};
    const acceptedIds: string[] = [];
    let firstRefusalAt: number | undefined;
    let sent = 0;
    let otherSent = 0;
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (sent < opts.deliveries) {
          const i = sent++;
          const callId = `bytes-${run}-${i}`;
          const res = await postJson(
            hook,
            deliveryBody(callCompleted(callId, { campaignId: 'camp-2', notes: padding })),
          );
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status === 200) acceptedIds.push(callId);
          if (res.status === 429) firstRefusalAt ??= acceptedIds.length;
          if (otherHook && i % opts.otherEvery === 0) {
            otherSent++;
            const small = await postJson(
              otherHook,
              deliveryBody(callCompleted(`bytes-${run}-other-${i}`, { campaignId: 'camp-2' })),
            );
            await small.arrayBuffer();
            otherStatuses[small.status] = (otherStatuses[small.status] ?? 0) + 1;
          }
        }
      }),
    );
    // What is left once the flood is over (calls being handed to their channel settle first).
    await sleep(1_000);
    sampling = false;
    await sampler;
    const after = await measure();
    const backlog = mode === 'redis' ? await stack.store.queue.usage(TEAM_ID) : undefined;

    // Slack recovers: every accepted call must be shown, after which the workspace holds nothing.
    const recoveredAt = Date.now();
    stack.slack.reset();
    const pattern = new RegExp(`bytes-${run}-\\d+`, 'g');
    let shown = 0;
    let drainedS: number | undefined;
    try {
      await until(
        () => {
          shown = postsByCallId(stack.slack, pattern, CHANNEL).size;
          return shown >= acceptedIds.length;
        },
        'every accepted call shown',
        120_000,
        200,
      );
      drainedS = (Date.now() - recoveredAt) / 1000;
    } catch {
      // reported as what was shown
    }

    const { 200: ok = 0, 429: refused = 0, ...rest } = statuses;
    return {
      mode,
      acceptedBeforeFirst429: firstRefusalAt ?? ok,
      accepted: ok,
      refused429: refused,
      otherStatuses: rest,
      ...(backlog ? { backlogBytes: backlog.bytes } : {}),
      memory: { what: mode === 'redis' ? 'Redis used_memory' : 'bot RSS', before, peak, after },
      other: { sent: otherSent, statuses: otherStatuses },
      shown,
      drainedS,
    };
  } finally {
    await bot.stop();
  }
}

/** Both workspaces' hook URLs on a bot with Redis: routes and hook tokens written through the store. */
async function redisHooks(stack: Stack, bot: BotProcess): Promise<{ hook: string; otherHook: string }> {
  const route = (channelId: string) => [{ campaignId: 'camp-2', triggerName: 'call_completed', channelId }];
  return {
    hook: `${bot.url}${await stack.route(route(CHANNEL))}`,
    otherHook: `${bot.url}/hooks/${await provisionWorkspace(stack.store, OTHER_TEAM, route(OTHER_CHANNEL))}`,
  };
}

export interface DeadLetterWaveOptions {
  /** Waves, and deliveries in each (half of them of a trigger the app does not know). */
  waves: number;
  perWave: number;
  sizeKb: number;
  budgetMb: number;
  concurrency: number;
  /** Channels the flood's calls are routed to (one campaign each): Slack's pace is per channel. */
  channels: number;
}

export interface DeadLetterWaveFigures {
  statuses: Record<string, number>;
  /** Redis used_memory before, at its peak (sampled every 100 ms) and after the waves settled. */
  memory: { before: number; peak: number; after: number };
  /** The workspace's dead letters: recorded in all, kept, and its bytes by the bot's count once settled. */
  dead: { count: number; kept: number };
  usageBytes: number;
  other: { sent: number; statuses: Record<string, number>; keptBefore: number; keptAfter: number };
}

/**
 * The security review's case: waves of 250 KB webhooks that can never be posted, against a workspace's byte
 * budget. Half are of a trigger the app does not know (refused at the webhook, 422); the other half are calls
 * Slack refuses as malformed (`invalid_blocks`: dead letters at once). Dead letters count toward
 * HOOK_MAX_BACKLOG_MB, so Redis must stay near the budget however many waves come; the other workspace's
 * letters stay.
 */
export async function runDeadLetterWaves(stack: Stack, opts: DeadLetterWaveOptions): Promise<DeadLetterWaveFigures> {
  stack.slack.reset();
  stack.platform.reset();
  const bot = await stack.startBot({ env: { HOOK_MAX_BACKLOG_MB: String(opts.budgetMb) } });
  try {
    const channels = Array.from({ length: opts.channels }, (_, i) => `C0DEAD${String(i).padStart(4, '0')}`);
    for (const channel of [...channels, OTHER_CHANNEL])
      stack.slack.addChannel({ id: channel, name: channel.toLowerCase() });
    const hook = `${bot.url}${await stack.route(
      channels.map((channelId, i) => ({ campaignId: `camp-dead-${i}`, triggerName: 'call_completed', channelId })),
    )}`;
    const otherHook = `${bot.url}/hooks/${await provisionWorkspace(stack.store, OTHER_TEAM, [
      { campaignId: 'camp-2', triggerName: 'call_completed', channelId: OTHER_CHANNEL },
    ])}`;
    stack.slack.failMethod('chat.postMessage', 'invalid_blocks', Number.POSITIVE_INFINITY);
    const run = Date.now().toString(36);
    const otherStatuses: Record<string, number> = {};
    const deliverOther = async (i: number) => {
      const res = await postJson(
        otherHook,
        deliveryBody(callCompleted(`dead-${run}-other-${i}`, { campaignId: 'camp-2' })),
      );
      await res.arrayBuffer();
      otherStatuses[res.status] = (otherStatuses[res.status] ?? 0) + 1;
    };
    await deliverOther(0);
    await settled(stack);
    const keptBefore = (await stack.store.queue.deadLetters(OTHER_TEAM)).entries.length;

    const before = await usedMemory(stack);
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await usedMemory(stack));
        await sleep(100);
      }
    })();
    const padding = 'x'.repeat(opts.sizeKb * 1024 - deliveryBody(callCompleted('x')).length - 80);
    const statuses: Record<string, number> = {};
    let otherSent = 1;
    for (let wave = 0; wave < opts.waves; wave++) {
      let sent = 0;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          while (sent < opts.perWave) {
            const i = sent++;
            const n = wave * opts.perWave + i;
            const event = callCompleted(`dead-${run}-${n}`, {
              campaignId: `camp-dead-${n % opts.channels}`,
              notes: padding,
            });
            // Every other one names a trigger the app does not know: refused at the webhook.
            const res = await postJson(
              hook,
              deliveryBody(n % 2 === 0 ? event : { ...event, triggerName: 'call_transferred' }),
            );
            await res.arrayBuffer();
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          }
        }),
      );
      await deliverOther(otherSent++);
      await settled(stack);
    }
    sampling = false;
    await sampler;
    const after = await usedMemory(stack);
    const dead = await stack.store.queue.deadLetters(TEAM_ID, 500);
    return {
      statuses,
      memory: { before, peak, after },
      dead: { count: dead.count, kept: dead.entries.length },
      usageBytes: (await stack.store.queue.usage(TEAM_ID)).bytes,
      other: {
        sent: otherSent,
        statuses: otherStatuses,
        keptBefore,
        keptAfter: (await stack.store.queue.deadLetters(OTHER_TEAM)).entries.length,
      },
    };
  } finally {
    await bot.stop();
  }
}

/** Until nothing is queued or waiting for a channel: every accepted event posted or given up. */
async function settled(stack: Stack): Promise<void> {
  await until(
    async () => (await stack.store.queue.depth()).total === 0 && (await stack.store.outbox.channels()).length === 0,
    'the queue and the outboxes to empty',
    300_000,
    200,
  );
}
