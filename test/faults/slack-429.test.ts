/**
 * Fault: Slack answers half of the bot's Web API calls with 429 and a Retry-After of 1–3 s. Three customer
 * conversations of 15 messages each, each routed to a channel of its own, arrive at once. Must hold: every
 * message is posted, each exactly once, and each conversation's messages appear in the order they were sent,
 * in one thread per conversation. (A channel takes about a post a second: one channel each keeps this short.)
 */
import { expect, it } from 'vitest';
import { deliveryBody, figure, messageReceived, postJson, sleep, stackBehindProxy, until } from './support.js';

const { stack, proxy } = stackBehindProxy();

const CONVERSATIONS = 3;
const MESSAGES = 15;

it('429 with Retry-After 1–3 s on half the calls, 3 conversations × 15 messages → all posted, in order per thread', async () => {
  const bot = await stack.startBot({ slackApiUrl: proxy.apiUrl });
  const channels = Array.from({ length: CONVERSATIONS }, (_, c) => `C0LIMITED${c}`);
  const hook = `${bot.url}${await stack.route(
    channels.map((channelId, c) => ({ campaignId: `camp-429-${c}`, triggerName: 'message_received', channelId })),
  )}`;
  proxy.arm([1, 2, 3]);

  const run = Date.now().toString(36);
  const marker = (c: number, m: number) => `msg-${run}-${c}-${m}.`;
  const started = Date.now();
  // Interleaved across conversations, in order within each: what the platform does for concurrent chats.
  for (let m = 1; m <= MESSAGES; m++) {
    for (let c = 0; c < CONVERSATIONS; c++) {
      const at = new Date(Date.UTC(2024, 2, 8, 16, 0, 0) + m * 1000).toISOString();
      const res = await postJson(
        hook,
        deliveryBody(
          messageReceived(`+1415555${run.slice(-2)}${c}0`.slice(0, 12), `Hello ${marker(c, m)}`, at, `camp-429-${c}`),
        ),
      );
      expect(res.status).toBe(200);
    }
  }

  // Messages that waited for their thread together share one post: every one of them counts.
  const linePattern = new RegExp(`msg-${run}-(\\d)-(\\d+)\\.`, 'g');
  const lines = () =>
    channels
      .flatMap((channel) => stack.slack.messages(channel))
      // Lines in the threads (the card above each quotes the customer's latest words too).
      .filter((msg) => msg.thread_ts !== undefined && msg.thread_ts !== msg.ts)
      .flatMap((msg) =>
        [...JSON.stringify(msg.blocks ?? msg.text).matchAll(linePattern)].map((found) => ({
          conversation: Number(found[1]),
          n: Number(found[2]),
          thread: msg.thread_ts ?? msg.ts,
        })),
      );
  await until(
    () => lines().length >= CONVERSATIONS * MESSAGES,
    `${CONVERSATIONS * MESSAGES} messages posted`,
    150_000,
    500,
  );
  const tookS = (Date.now() - started) / 1000;
  await sleep(1_500);

  const all = lines();
  const calls = proxy.passed + proxy.limited.length;
  const retryAfters = [...new Set(proxy.limited.map((l) => l.retryAfterSec))].sort();
  figure(
    'Slack 429 on half the calls',
    `${CONVERSATIONS} × ${MESSAGES} messages posted in ${tookS.toFixed(0)} s; ${proxy.limited.length} of ${calls} Web API calls answered 429 (Retry-After ${retryAfters.join('/')} s); ${all.length} lines in Slack`,
  );
  // Half of the calls were refused: fewer calls than messages when waiting lines share a post.
  expect(proxy.limited.length).toBeGreaterThanOrEqual(CONVERSATIONS);
  expect(all).toHaveLength(CONVERSATIONS * MESSAGES);
  for (let c = 0; c < CONVERSATIONS; c++) {
    const mine = all.filter((l) => l.conversation === c);
    // In the order sent (the fake keeps Slack's order: oldest first), each once…
    expect(mine.map((l) => l.n)).toEqual(Array.from({ length: MESSAGES }, (_, i) => i + 1));
    // …and all in one thread of its own.
    expect(new Set(mine.map((l) => l.thread)).size).toBe(1);
  }
  expect(new Set(all.map((l) => l.thread)).size).toBe(CONVERSATIONS);
  expect(bot.alive()).toBe(true);
}, 180_000);
