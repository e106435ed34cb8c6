/**
 * End to end: webhook in → the call shown in Slack, at the fake Slack. A call shows in its own card while its
 * channel keeps up with Slack's posting limit, and in a roll-up (several calls in one post) once the channel
 * falls behind; both count, by every call id a top-level post holds (lib/shown.ts). Latency is from just
 * before the webhook is sent to the moment the fake Slack receives the post that first shows the call (both
 * clocks are this process's).
 *
 * - Latency: the events spread round-robin over enough channels that none gets more than one call every
 *   three seconds (a card and its transcript reply: two posts, well under Slack's one a second), so every
 *   call should get its own card at once — the unthrottled pipeline.
 * - Then 10 channels each get 20 calls in 2 s against a fake Slack stricter than Slack's docs (one post per
 *   rolling second per channel, no burst): every call must be shown exactly once, cards first and the rest
 *   rolled up, without waiting its turn at one post a second.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotProcess } from './lib/bot-process.js';
import { callCompleted, deliveryBody, postJson } from './lib/events.js';
import { until } from './lib/net.js';
import { lagsMs, postsByCallId, rollups, shownTwice } from './lib/shown.js';
import { percentile } from './lib/stats.js';
import type { Stack } from './lib/stack.js';

const CALL_ID = /e2e-[a-z0-9]+-\d+/;

export interface LatencyFigures {
  events: number;
  rate: number;
  channels: number;
  p50: number;
  p99: number;
  max: number;
  lost: number;
  twice: number;
  /** Calls shown in a roll-up rather than a card of their own (none expected here). */
  rolledUp: number;
  rateLimited: number;
}

export async function runLatency(
  stack: Stack,
  bot: BotProcess,
  opts: { events: number; rate: number; channels: number },
): Promise<LatencyFigures> {
  stack.slack.reset();
  const channels = Array.from({ length: opts.channels }, (_, c) => `C0E2ELAT${String(c).padStart(3, '0')}`);
  const hook = `${bot.url}${await stack.route(channels.map((channelId, c) => ({ campaignId: `camp-e2e-${c}`, triggerName: 'call_completed', channelId })))}`;
  const run = Date.now().toString(36);
  const sentAt = new Map<string, number>();
  const started = Date.now();
  const sends: Array<Promise<unknown>> = [];
  for (let i = 0; i < opts.events; i++) {
    const wait = started + (i * 1000) / opts.rate - Date.now();
    if (wait > 0) await sleep(wait);
    const callId = `e2e-${run}-${i}`;
    sentAt.set(callId, Date.now());
    sends.push(
      postJson(hook, deliveryBody(callCompleted(callId, { campaignId: `camp-e2e-${i % opts.channels}` }))).then((r) =>
        r.arrayBuffer(),
      ),
    );
  }
  await Promise.all(sends);
  await until(
    () => postsByCallId(stack.slack, CALL_ID).size >= opts.events,
    `${opts.events} calls shown`,
    30_000,
  ).catch(() => undefined);
  await sleep(1000); // a call shown twice would come after its first post
  const shown = postsByCallId(stack.slack, CALL_ID);
  const latencies = lagsMs(sentAt, shown);
  return {
    events: opts.events,
    rate: opts.rate,
    channels: opts.channels,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    lost: opts.events - latencies.length,
    twice: shownTwice(shown),
    rolledUp: rollups(shown).calls,
    rateLimited: stack.slack.calls.filter((c) => c.status === 429).length,
  };
}

export interface RateLimitFigures {
  channels: number;
  perChannel: number;
  shown: number;
  lost: number;
  twice: number;
  /** Webhook → the call shown (its card or a roll-up), ms. */
  p50: number;
  max: number;
  /** Accepted top-level posts per channel (mean), and how many of all posts were roll-ups. */
  postsPerChannel: number;
  rollupPosts: number;
  rolledUp: number;
  /** chat.postMessage calls the fake answered 429. */
  rateLimited: number;
  /** From the first webhook until every call was shown. */
  seconds: number;
}

export async function runRateLimited(
  stack: Stack,
  bot: BotProcess,
  opts: { channels: number; perChannel: number },
): Promise<RateLimitFigures> {
  stack.slack.reset();
  const channels = Array.from({ length: opts.channels }, (_, c) => `C0RATE${String(c).padStart(4, '0')}`);
  const hook = `${bot.url}${await stack.route(channels.map((channelId, c) => ({ campaignId: `camp-rate-${c}`, triggerName: 'call_completed', channelId })))}`;
  stack.slack.channelRateLimit(1);
  const run = Date.now().toString(36);
  const started = Date.now();
  const total = opts.channels * opts.perChannel;
  const sentAt = new Map<string, number>();
  // Round robin over the channels, 100 deliveries a second: every channel has a backlog within a second.
  for (let i = 0; i < total; i++) {
    const c = i % opts.channels;
    const wait = started + i * 10 - Date.now();
    if (wait > 0) await sleep(wait);
    const callId = `e2e-${run}-${i}`;
    sentAt.set(callId, Date.now());
    const res = await postJson(
      hook,
      deliveryBody(callCompleted(callId, { campaignId: `camp-rate-${c}`, callTranscript: undefined })),
    );
    if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    await res.arrayBuffer();
  }
  await until(
    () => postsByCallId(stack.slack, CALL_ID).size >= total,
    `${total} calls shown`,
    opts.perChannel * 1000 * 3 + 10_000,
  ).catch(() => undefined);
  const seconds = (Date.now() - started) / 1000;
  await sleep(1500); // a call shown twice would come after its first post
  const shown = postsByCallId(stack.slack, CALL_ID);
  const lags = lagsMs(sentAt, shown);
  const rolled = rollups(shown);
  const posts = new Set([...shown.values()].flat()).size;
  const rateLimited = stack.slack.callsTo('chat.postMessage').filter((c) => c.status === 429).length;
  stack.slack.reset();
  return {
    channels: opts.channels,
    perChannel: opts.perChannel,
    shown: shown.size,
    lost: total - shown.size,
    twice: shownTwice(shown),
    p50: percentile(lags, 50),
    max: Math.max(...lags),
    postsPerChannel: posts / opts.channels,
    rollupPosts: rolled.posts,
    rolledUp: rolled.calls,
    rateLimited,
    seconds,
  };
}
