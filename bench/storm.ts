/**
 * Storm: a busy afternoon against Slack's own limits. `calls` call_completed webhooks at `perSecond` (300 at
 * 10/s: 30 s) into one channel routed for calls and, `messageAtMs` in, one customer message_received into
 * another channel routed for chat — for one bot in memory mode, and for three replicas (bot processes) on the
 * stack's one Redis with the webhooks dealt round-robin across them. The fake Slack applies whatever limits it
 * has by default (Slack's: no opt-out here), so the bot has to pace itself: a channel that falls behind gets
 * its calls rolled up, and the customer must not wait behind them.
 *
 * Every figure comes from what the fake Slack recorded (the times are this process's clock: just before a
 * webhook is sent, and when the fake received the Web API call it accepted):
 * - the customer: webhook → its conversation card, and → its line in the card's thread;
 * - each call: webhook → the first accepted top-level post in the calls channel that holds its call id (a
 *   card, or a roll-up holding several; transcripts in threads are left out); how many within 10 s, the lag
 *   percentiles, and whether every call is shown exactly once;
 * - the share of chat.* calls the fake answered 429;
 * - posts (top-level and thread replies) in the calls channel: the most in any 10 s window, per second;
 * - each bot process's RSS, sampled every second: at the end and the peak.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SlackCall } from '../test/fakes/slack.js';
import type { BotProcess } from './lib/bot-process.js';
import { callCompleted, deliveryBody, messageReceived, postJson } from './lib/events.js';
import { until } from './lib/net.js';
import { lagsMs, postsByCallId, rollups, shownTwice } from './lib/shown.js';
import { ADMIN_ID, type Stack } from './lib/stack.js';
import { busiestRate } from './lib/slack-ledger.js';
import { percentile } from './lib/stats.js';

export interface StormOptions {
  /** `memory`: one bot without Redis; `replicas`: `replicas` bots on the stack's Redis. */
  mode: 'memory' | 'replicas';
  replicas: number;
  calls: number;
  perSecond: number;
  /** When the customer writes, from the first call's webhook. */
  messageAtMs: number;
}

export interface StormFigures {
  mode: 'memory' | 'replicas';
  bots: number;
  calls: number;
  perSecond: number;
  /** Webhook → accepted conversation card / customer line in its thread (ms); undefined when never posted. */
  customer: { cardMs: number | undefined; lineMs: number | undefined };
  /** Calls first shown within 10 s of their webhook. */
  withinTenS: number;
  lagP50: number;
  lagP95: number;
  lagMax: number;
  /** Calls shown at all, and posts that showed a call shown already. */
  shown: number;
  twice: number;
  /** Top-level posts in the calls channel showing one call (cards) and several (roll-ups), and the calls in those. */
  cards: number;
  rollupPosts: number;
  rolledCalls: number;
  /** chat.* Web API calls the fake received, and how many it answered 429; other methods answered 429. */
  chatCalls: number;
  chat429: number;
  other429: Record<string, number>;
  /** Accepted posts in the calls channel (thread replies too), and the most in any 10 s window ÷ 10. */
  callsChannelPosts: number;
  postsPerSecondMax10s: number;
  /** Per bot process. */
  rss: Array<{ endBytes: number; peakBytes: number }>;
  /** Webhooks not answered 200. */
  webhookErrors: number;
  /** Seconds from the last webhook until every call was shown (or the wait gave up). */
  drainedS: number;
  /** warn and error lines the bots logged during the storm, and the first few of them. */
  logs: { warn: number; error: number; sample: string[] };
}

const TEN_S = 10_000;
/** How long after the last webhook the bench waits for the rest of the calls to be shown. */
const WAIT_AFTER_MS = 60_000;

/**
 * A memory-mode bot routes through its own store: an admin's signed `/campaign subscribe` in `channelId`
 * (`camp-2` and `camp-3` are campaigns the fake platform knows). Resolves with the workspace's hook path,
 * read from the hook URL the bot registered at the platform, once the command confirmed the route.
 */
async function subscribe(stack: Stack, bot: BotProcess, channelId: string, text: string): Promise<string> {
  stack.slack.addChannel({ id: channelId, name: `storm-${channelId.toLowerCase()}` });
  const seen = stack.platform.requests.length;
  const responseUrlId = `storm-${channelId}-${Date.now().toString(36)}`;
  const res = await stack.signer(bot).command({ text, userId: ADMIN_ID, channelId, responseUrlId });
  if (res.status !== 200) throw new Error(`subscribe answered ${res.status}`);
  const confirmed = /now receives/;
  await until(
    () =>
      confirmed.test(res.body) ||
      stack.slack.responses.some((r) => r.id === responseUrlId && confirmed.test(JSON.stringify(r.body))),
    `“${text}” confirmed`,
    10_000,
  );
  const hookUrl = stack.platform.requests
    .slice(seen)
    .map((r) => (r.body as { hookUrl?: unknown } | undefined)?.hookUrl)
    .find((u): u is string => typeof u === 'string');
  if (!hookUrl) throw new Error(`“${text}” made no platform subscription`);
  return new URL(hookUrl).pathname;
}

/** The customer of the storm writes (campaign camp-3, routed to the chat channel). */
function customerMessage(): Record<string, unknown> {
  return messageReceived(
    '+14155550199',
    'Hi, can I move my appointment to Friday?',
    new Date().toISOString(),
    'camp-3',
  );
}

/** The warn and error lines the bots wrote after `from` (each bot's output length when the storm began). */
function logLines(bots: readonly BotProcess[], from: readonly number[]): StormFigures['logs'] {
  const lines = bots.flatMap((b, i) => b.output().slice(from[i]).split('\n'));
  const warn = lines.filter((l) => l.includes('"level":"warn"') || l.includes('"level":40'));
  const error = lines.filter((l) => l.includes('"level":"error"') || l.includes('"level":50'));
  return {
    warn: warn.length,
    error: error.length,
    sample: [...error, ...warn].slice(0, 3).map((l) => l.slice(0, 300)),
  };
}

export async function runStorm(stack: Stack, opts: StormOptions): Promise<StormFigures> {
  // What an earlier section left in the fakes (the commands section holds every platform request 10 s).
  stack.platform.reset();
  stack.slack.reset();
  const run = Date.now().toString(36);
  const tag = opts.mode === 'memory' ? 'MEM' : 'REP';
  const callsChannel = `C0STORM${tag}`;
  const chatChannel = `C0CHAT${tag}`;
  const bots: BotProcess[] = [];
  try {
    let hooks: string[];
    if (opts.mode === 'memory') {
      const bot = await stack.startBot({ env: { REDIS_URL: '' } });
      bots.push(bot);
      const path = await subscribe(stack, bot, callsChannel, 'subscribe camp-2 call_completed');
      await subscribe(stack, bot, chatChannel, 'subscribe camp-3 message_received');
      hooks = [`${bot.url}${path}`];
    } else {
      const path = await stack.route([
        { campaignId: 'camp-2', triggerName: 'call_completed', channelId: callsChannel },
        { campaignId: 'camp-3', triggerName: 'message_received', channelId: chatChannel },
      ]);
      for (let i = 0; i < opts.replicas; i++) bots.push(await stack.startBot());
      hooks = bots.map((b) => `${b.url}${path}`);
    }
    // The subscribe confirmations took from the channels' budgets: let them fill up again, then start clean.
    await sleep(3_500);
    stack.slack.reset();
    const outputFrom = bots.map((b) => b.output().length);

    const peaks = bots.map((b) => b.rss());
    const sampler = setInterval(() => {
      bots.forEach((b, i) => {
        if (b.alive()) peaks[i] = Math.max(peaks[i]!, b.rss());
      });
    }, 1_000);

    const sentAt = new Map<string, number>();
    let customerSentAt = 0;
    let webhookErrors = 0;
    const answers: Array<Promise<void>> = [];
    const send = (hook: string, body: string) =>
      answers.push(
        postJson(hook, body).then(
          async (res) => {
            if (res.status !== 200) webhookErrors++;
            await res.arrayBuffer();
          },
          () => {
            webhookErrors++;
          },
        ),
      );
    const started = Date.now();
    let customerSent = false;
    for (let i = 0; i < opts.calls; i++) {
      const at = started + (i * 1000) / opts.perSecond;
      if (!customerSent && at >= started + opts.messageAtMs) {
        const wait = started + opts.messageAtMs - Date.now();
        if (wait > 0) await sleep(wait);
        customerSent = true;
        customerSentAt = Date.now();
        send(hooks[i % hooks.length]!, deliveryBody(customerMessage()));
      }
      const wait = at - Date.now();
      if (wait > 0) await sleep(wait);
      const callId = `storm-${run}-${i}`;
      sentAt.set(callId, Date.now());
      send(hooks[i % hooks.length]!, deliveryBody(callCompleted(callId, { campaignId: 'camp-2' })));
    }
    if (!customerSent) {
      customerSentAt = Date.now();
      send(hooks[0]!, deliveryBody(customerMessage()));
    }
    const lastSent = Date.now();
    await Promise.all(answers);

    const pattern = new RegExp(`storm-${run}-\\d+`);
    const chatPosts = () =>
      stack.slack
        .callsTo('chat.postMessage')
        .filter((c) => c.args.channel === chatChannel && c.status === 200 && c.response.ok === true);
    await until(
      () =>
        postsByCallId(stack.slack, pattern, callsChannel).size >= opts.calls &&
        chatPosts().some((c) => c.args.thread_ts !== undefined),
      'every call and the customer shown',
      WAIT_AFTER_MS,
      250,
    ).catch(() => undefined);
    const drainedS = (Date.now() - lastSent) / 1000;
    await sleep(3_000); // a call shown twice, or a late transcript, would come now
    clearInterval(sampler);
    const rss = bots.map((b, i) => {
      const endBytes = b.alive() ? b.rss() : 0;
      return { endBytes, peakBytes: Math.max(peaks[i]!, endBytes) };
    });

    const posts = postsByCallId(stack.slack, pattern, callsChannel);
    const lags = lagsMs(sentAt, posts);
    const rolled = rollups(posts);
    const firstAt = (calls: SlackCall[]) => (calls.length > 0 ? Math.min(...calls.map((c) => c.at)) : undefined);
    const card = firstAt(chatPosts().filter((c) => c.args.thread_ts === undefined));
    const line = firstAt(chatPosts().filter((c) => c.args.thread_ts !== undefined));
    const chat = stack.slack.calls.filter((c) => c.method.startsWith('chat.'));
    const other429: Record<string, number> = {};
    for (const c of stack.slack.calls)
      if (c.status === 429 && !c.method.startsWith('chat.')) other429[c.method] = (other429[c.method] ?? 0) + 1;
    const inCallsChannel = stack.slack.calls.filter(
      (c) =>
        (c.method === 'chat.postMessage' || c.method === 'files.completeUploadExternal') &&
        (c.args.channel ?? c.args.channel_id) === callsChannel &&
        c.status === 200 &&
        c.response.ok === true,
    );
    return {
      mode: opts.mode,
      bots: bots.length,
      calls: opts.calls,
      perSecond: opts.perSecond,
      customer: {
        cardMs: card === undefined ? undefined : card - customerSentAt,
        lineMs: line === undefined ? undefined : line - customerSentAt,
      },
      withinTenS: [...sentAt].filter(([id, at]) => {
        const first = posts.get(id)?.[0];
        return first !== undefined && first.at - at <= TEN_S;
      }).length,
      lagP50: percentile(lags, 50),
      lagP95: percentile(lags, 95),
      lagMax: lags.length > 0 ? Math.max(...lags) : Number.NaN,
      shown: posts.size,
      twice: shownTwice(posts),
      cards: new Set([...posts.values()].flat()).size - rolled.posts,
      rollupPosts: rolled.posts,
      rolledCalls: rolled.calls,
      chatCalls: chat.length,
      chat429: chat.filter((c) => c.status === 429).length,
      other429,
      callsChannelPosts: inCallsChannel.length,
      postsPerSecondMax10s: busiestRate(
        inCallsChannel.map((c) => c.at),
        TEN_S,
      ),
      rss,
      webhookErrors,
      drainedS,
      logs: logLines(bots, outputFrom),
    };
  } finally {
    await Promise.all(bots.map((b) => b.stop()));
    stack.slack.reset();
  }
}
