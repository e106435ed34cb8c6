/**
 * Fault: a bot process is killed with SIGKILL while events it has not posted yet wait for their channel (Slack
 * answered its first post 429, so the channel waits out the Retry-After and the customers' messages wait in the
 * channel's outbox, out of the queue). Must hold: a second process, started afterwards, posts every one of them
 * exactly once when the channel is due — lost = 0 — and nothing is left pending in the queue.
 */
import { expect, it } from 'vitest';
import { deliveryBody, messageReceived, figure, postJson, sleep, TEAM_ID, until, stackForTests } from './support.js';

const stack = stackForTests();

const EVENTS = 10;
/**
 * Long enough for the first process to be killed while the channel waits (whatever the pending check takes); the
 * budget it holds in Redis has ended before the takeover (30 s of silence) anyway.
 */
const RETRY_AFTER_S = 15;

/** Entries pending in the consumer group, per consumer name. */
async function pendingByConsumer(): Promise<Map<string, number>> {
  const stream = stack.store.keys.queueTeamStream(TEAM_ID);
  const summary = (await stack.redis.client.call('XPENDING', stream, 'workers')) as [
    number,
    string | null,
    string | null,
    Array<[string, string]> | null,
  ];
  return new Map((summary[3] ?? []).map(([name, count]) => [name, Number(count)]));
}

it('kill -9 with events pending → a second process posts them all; lost = 0', async () => {
  const first = await stack.startBot();
  const channel = 'C0TAKEOVER';
  const hook = await stack.route([
    { campaignId: 'camp-takeover', triggerName: 'message_received', channelId: channel },
  ]);
  stack.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: RETRY_AFTER_S, times: 1 });

  const run = Date.now().toString(36);
  const ids = Array.from({ length: EVENTS }, (_, i) => `takeover-${run}-${i}`);
  // Ten customers write at once: ten conversations, each its own entry.
  for (const [i, id] of ids.entries()) {
    const customer = `+1415555${String(1000 + i)}`;
    const res = await postJson(
      `${first.url}${hook}`,
      deliveryBody(messageReceived(customer, `Hello ${id}.`, '2024-03-08T16:45:00.000Z', 'camp-takeover')),
    );
    expect(res.status).toBe(200);
  }
  // Every event now waits in the channel's outbox, waiting out the 429 (its first post was refused; the others
  // wait for the channel's budget without a call to Slack): the queue holds none of them.
  const at = { teamId: TEAM_ID, channelId: channel };
  const held = await until(
    async () => {
      const waiting = await stack.store.outbox.size(at);
      if (waiting !== EVENTS || stack.slack.callsTo('chat.postMessage').length < 1) return undefined;
      // An entry is acknowledged in the queue just after it is handed to its channel's outbox, so the last one may still be
      // pending for a moment.
      const pending = [...(await pendingByConsumer()).values()].reduce((a, b) => a + b, 0);
      return pending === 0 ? waiting : undefined;
    },
    `${EVENTS} events waiting in the channel's outbox and none pending in the queue`,
    20_000,
  );

  const killedAt = Date.now();
  await first.stop('SIGKILL');
  // Slack is fine again (the 429 was a single one). Its messages stay: a real Slack keeps what it accepted.
  const second = await stack.startBot();

  const pattern = new RegExp(`takeover-${run}-\\d+`);
  /** Each customer's message as Slack accepted it: a line in its conversation's thread. */
  const lines = () => {
    const counts = new Map<string, number>();
    for (const c of stack.slack.callsTo('chat.postMessage')) {
      // The line in the thread (the card above it quotes the customer's latest words too).
      const line = c.status === 200 && c.args.thread_ts !== undefined;
      const id = line ? pattern.exec(JSON.stringify(c.args.blocks ?? ''))?.[0] : undefined;
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };
  await until(() => lines().size === EVENTS, `${EVENTS} messages posted by the second process`, 90_000, 200);
  const tookMs = Date.now() - killedAt;
  await sleep(2_000);
  const counts = lines();
  const lost = ids.filter((id) => !counts.has(id)).length;
  const duplicates = [...counts.values()].reduce((n, c) => n + c - 1, 0);
  figure(
    'takeover after kill -9',
    `${held} events waiting for their channel when the process was killed → ${counts.size} posted by the second one ${(tookMs / 1000).toFixed(1)} s after the kill, lost ${lost}, duplicates ${duplicates}`,
  );
  expect(lost).toBe(0);
  expect(duplicates).toBe(0);
  expect([...(await pendingByConsumer()).values()].reduce((a, b) => a + b, 0)).toBe(0);
  expect(second.alive()).toBe(true);
});
