/**
 * End to end: webhook in → card posted with chat.postMessage at the fake Slack. Latency is from just before
 * the webhook is sent to the moment the fake Slack receives the card's chat.postMessage (both clocks are this
 * process's). Then the same pipeline against a fake Slack limiting chat.postMessage to 1 message per second
 * per channel (429 + Retry-After beyond it), over 10 channels: the achieved rate per channel, and whether
 * every event was posted exactly once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeSlack, SlackCall } from '../test/fakes/slack.js';
import type { BotProcess } from './lib/bot-process.js';
import { callCompleted, deliveryBody, postJson } from './lib/events.js';
import { until } from './lib/net.js';
import { percentile } from './lib/stats.js';
import type { Stack } from './lib/stack.js';

const CALL_ID = /e2e-[a-z0-9]+-\d+/;

/** Top-level cards posted so far (status 200), by the call id they show. */
function cardsByCallId(slack: FakeSlack): Map<string, SlackCall[]> {
  const cards = new Map<string, SlackCall[]>();
  for (const call of slack.callsTo('chat.postMessage')) {
    if (call.status !== 200 || call.args.thread_ts !== undefined) continue;
    const id = CALL_ID.exec(JSON.stringify(call.args.blocks ?? call.args.text ?? ''))?.[0];
    if (!id) continue;
    const list = cards.get(id) ?? [];
    list.push(call);
    cards.set(id, list);
  }
  return cards;
}

export interface LatencyFigures {
  events: number;
  rate: number;
  p50: number;
  p99: number;
  max: number;
  lost: number;
}

export async function runLatency(
  stack: Stack,
  bot: BotProcess,
  opts: { events: number; rate: number },
): Promise<LatencyFigures> {
  stack.slack.reset();
  const hook = `${bot.url}${await stack.route([{ campaignId: 'camp-e2e', triggerName: 'call_completed', channelId: 'C0E2ELATEN' }])}`;
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
      postJson(hook, deliveryBody(callCompleted(callId, { campaignId: 'camp-e2e' }))).then((r) => r.arrayBuffer()),
    );
  }
  await Promise.all(sends);
  const cards = await until(
    () => {
      const found = cardsByCallId(stack.slack);
      return found.size >= opts.events ? found : undefined;
    },
    `${opts.events} cards`,
    30_000,
  ).catch(() => cardsByCallId(stack.slack));
  const latencies = [...sentAt].flatMap(([id, at]) => {
    const card = cards.get(id)?.[0];
    return card ? [card.at - at] : [];
  });
  return {
    events: opts.events,
    rate: opts.rate,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    lost: opts.events - latencies.length,
  };
}

export interface RateLimitFigures {
  channels: number;
  perChannel: number;
  limitPerSecond: number;
  /** Mean over channels of (posts − 1) / (last post − first post). */
  achievedPerChannel: number;
  slowestChannel: number;
  ratio: number;
  posted: number;
  lost: number;
  duplicates: number;
  rateLimited: number;
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
  // Round robin over the channels, 100 deliveries a second: every channel has a backlog within a second.
  for (let i = 0; i < total; i++) {
    const c = i % opts.channels;
    const wait = started + i * 10 - Date.now();
    if (wait > 0) await sleep(wait);
    const res = await postJson(
      hook,
      deliveryBody(callCompleted(`e2e-${run}-${i}`, { campaignId: `camp-rate-${c}`, callTranscript: undefined })),
    );
    if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    await res.arrayBuffer();
  }
  const cards = await until(
    () => {
      const found = cardsByCallId(stack.slack);
      return found.size >= total ? found : undefined;
    },
    `${total} cards`,
    opts.perChannel * 1000 * 3 + 10_000,
  ).catch(() => cardsByCallId(stack.slack));
  const seconds = (Date.now() - started) / 1000;
  await sleep(1500); // a duplicate would come after its original
  const posts = stack.slack.callsTo('chat.postMessage').filter((c) => c.status === 200);
  const rates = channels.map((channel) => {
    const times = posts.filter((p) => p.args.channel === channel).map((p) => p.at);
    return times.length < 2 ? 0 : (times.length - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
  });
  const achieved = rates.reduce((a, b) => a + b, 0) / rates.length;
  const duplicates = [...cardsByCallId(stack.slack).values()].reduce((n, list) => n + list.length - 1, 0);
  const rateLimited = stack.slack.callsTo('chat.postMessage').filter((c) => c.status === 429).length;
  stack.slack.reset();
  return {
    channels: opts.channels,
    perChannel: opts.perChannel,
    limitPerSecond: 1,
    achievedPerChannel: achieved,
    slowestChannel: Math.min(...rates),
    ratio: achieved / 1,
    posted: cards.size,
    lost: total - cards.size,
    duplicates,
    rateLimited,
    seconds,
  };
}
