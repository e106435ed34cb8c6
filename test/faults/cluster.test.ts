/**
 * Fault: three bot processes on a three-master Redis Cluster, webhooks spread over them; one bot is killed
 * with SIGKILL mid-stream and the master holding the event queue's slot is killed and restarted. Must hold:
 * every event a bot accepted (2xx) is posted exactly once, in order within its conversation's thread.
 *
 * While the faults happen Slack answers 429, so no post is in flight when a process dies (a post that Slack
 * accepted but whose answer died with the process is the one duplicate at-least-once delivery allows).
 */
import { expect, it } from 'vitest';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { deliveryBody, figure, messageReceived, postJson, sleep, until, stackForTests } from './support.js';

const stack = stackForTests({ cluster: true, durableRedis: true }, 30_000);

const CONVERSATIONS = 6;
const PER_CONVERSATION = 15;
/** A channel per conversation: a channel takes about a post a second, and this test is about the queue. */
const channelOf = (c: number) => `C0CLUSTER${c}`;
const messages = () =>
  Array.from({ length: CONVERSATIONS }, (_, c) => channelOf(c)).flatMap((channel) => stack.slack.messages(channel));

/** The platform's behaviour: a delivery is sent again until a bot answers 2xx (a 503 means "not taken in"). */
async function deliverUntilAccepted(
  bots: () => BotProcess[],
  hook: string,
  body: string,
  turn: number,
): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const live = bots();
    const bot = live[(turn + attempt) % live.length]!;
    try {
      const res = await postJson(`${bot.url}${hook}`, body, AbortSignal.timeout(5_000));
      if (res.ok) return attempt;
    } catch {
      // connection refused / reset: the same as a 5xx for the platform
    }
    if (attempt > 300) throw new Error('a delivery was never accepted');
    await sleep(100);
  }
}

it('kill -9 of a bot and of the queue’s master → every accepted event posted once, in order', async () => {
  const cluster = stack.cluster!;
  const bots = [await stack.startBot(), await stack.startBot(), await stack.startBot()];
  const live = () => bots.filter((b) => b.alive());
  const hook = await stack.route(
    Array.from({ length: CONVERSATIONS }, (_, c) => ({
      campaignId: `camp-chat-${c}`,
      triggerName: 'message_received',
      channelId: channelOf(c),
    })),
  );

  const run = Date.now().toString(36);
  const numbers = Array.from({ length: CONVERSATIONS }, (_, c) => `+1555${run.slice(-4)}${String(c).padStart(3, '0')}`);
  const text = (c: number, i: number) => `cluster ${run} conv ${c} message ${String(i).padStart(2, '0')}`;
  let turn = 0;
  let retried = 0;
  const send = async (i: number) => {
    for (let c = 0; c < CONVERSATIONS; c++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i, c)).toISOString();
      retried += await deliverUntilAccepted(
        live,
        hook,
        deliveryBody(messageReceived(numbers[c]!, text(c, i), at, `camp-chat-${c}`)),
        turn++,
      );
    }
  };

  // A third of the stream with nothing wrong.
  for (let i = 0; i < 5; i++) await send(i);
  // Slack holds every post back from here: the bots keep their entries pending while the faults happen.
  stack.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: 1_000_000 });
  for (let i = 5; i < 10; i++) await send(i);
  await bots[1]!.stop('SIGKILL');

  const queueKey = stack.store.keys.queueTeamStream('T0BENCH001');
  const slot = Number(await cluster.client.call('CLUSTER', 'KEYSLOT', queueKey));
  const ranges = (await cluster.client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
  const port = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
  const master = cluster.nodes.find((n) => n.port === port)!;
  await master.stop('SIGKILL');
  const sending = (async () => {
    for (let i = 10; i < PER_CONVERSATION; i++) await send(i);
  })();
  await sleep(1_000);
  await master.start();
  await cluster.ready();
  await sending;
  stack.slack.clearFaults();

  const threadLines = () => {
    const lines = new Map<number, string[]>();
    for (const m of messages()) {
      if (m.thread_ts === undefined || m.thread_ts === m.ts) continue;
      // Messages that waited for their thread together share one post: every one of them counts.
      const pattern = new RegExp(`cluster ${run} conv (\\d+) message (\\d+)`, 'g');
      for (const match of JSON.stringify(m.blocks ?? '').matchAll(pattern)) {
        const c = Number(match[1]);
        lines.set(c, [...(lines.get(c) ?? []), match[2]!]);
      }
    }
    return lines;
  };
  const total = CONVERSATIONS * PER_CONVERSATION;
  // The killed bot's pending entries are taken over once they are idle (30 s); a channel whose posts it was draining
  // when killed waits out its lease (120 s, src/delivery/scheduler.ts), then posts its thread at Slack's pace.
  await until(() => [...threadLines().values()].flat().length >= total, `${total} thread lines`, 180_000, 250);
  await sleep(2_000);

  const lines = threadLines();
  const expected = Array.from({ length: PER_CONVERSATION }, (_, i) => String(i).padStart(2, '0'));
  for (let c = 0; c < CONVERSATIONS; c++) expect(lines.get(c), `conversation ${c}`).toEqual(expected);
  const cards = messages().filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
  expect(cards).toHaveLength(CONVERSATIONS);
  figure(
    'cluster: kill -9 of a bot and of the queue master',
    `${total} events over 3 bots (${retried} deliveries retried while the master was down) → ${total} thread lines, each once, in order; ${CONVERSATIONS} cards`,
  );
}, 300_000);
