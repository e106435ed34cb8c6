/**
 * Fault: a bot process is killed with SIGKILL while it holds events it has not posted yet (Slack was
 * answering it 429 with a long Retry-After, so they sat pending in its name in the consumer group). Must
 * hold: a second process, started afterwards, takes them over once the dead consumer's entries go idle, and
 * posts every one of them exactly once — lost = 0.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  callCompleted,
  cardCounts,
  deliveryBody,
  figure,
  postJson,
  sleep,
  startStack,
  TEAM_ID,
  until,
  type Stack,
} from './support.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const EVENTS = 20;

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
  const hook = await stack.route([{ campaignId: 'camp-takeover', triggerName: 'call_completed', channelId: channel }]);
  stack.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 600, times: 10_000 });

  const run = Date.now().toString(36);
  const ids = Array.from({ length: EVENTS }, (_, i) => `takeover-${run}-${i}`);
  for (const callId of ids) {
    const res = await postJson(
      `${first.url}${hook}`,
      deliveryBody(callCompleted(callId, { campaignId: 'camp-takeover', callTranscript: undefined })),
    );
    expect(res.status).toBe(200);
  }
  // Every event is now held by the first process: read from the stream, tried once, waiting out the 429.
  const held = await until(
    async () => {
      const pending = await pendingByConsumer();
      const mine = [...pending].find(([name]) => name.includes(`:${first.pid}:`))?.[1] ?? 0;
      return mine === EVENTS && stack.slack.callsTo('chat.postMessage').length >= EVENTS ? mine : undefined;
    },
    `${EVENTS} entries pending for the first process`,
    20_000,
  );

  const killedAt = Date.now();
  await first.stop('SIGKILL');
  stack.slack.reset(); // Slack is fine again; the dead process never posted anything
  const second = await stack.startBot();

  const pattern = new RegExp(`takeover-${run}-\\d+`);
  await until(
    () => cardCounts(stack.slack, pattern).size === EVENTS,
    `${EVENTS} cards from the second process`,
    90_000,
    200,
  );
  const tookMs = Date.now() - killedAt;
  await sleep(2_000);
  const counts = cardCounts(stack.slack, pattern);
  const lost = ids.filter((id) => !counts.has(id)).length;
  const duplicates = [...counts.values()].reduce((n, c) => n + c - 1, 0);
  figure(
    'takeover after kill -9',
    `${held} events pending in the killed process → ${counts.size} posted by the second one ${(tookMs / 1000).toFixed(1)} s after the kill, lost ${lost}, duplicates ${duplicates}`,
  );
  expect(lost).toBe(0);
  expect(duplicates).toBe(0);
  expect([...(await pendingByConsumer()).values()].reduce((a, b) => a + b, 0)).toBe(0);
  expect(second.alive()).toBe(true);
});
