/**
 * Fault: two replicas posting 300 calls into 30 channels while 5 % of Slack's answers to `chat.postMessage` are lost
 * after Slack carried the post out (the connection drops): every call shown exactly once — each lost post is looked
 * up by its idempotency key before it is sent again.
 */
import { expect, it } from 'vitest';
import {
  deliveryBody,
  callCompleted,
  figure,
  postJson,
  shownCounts,
  sleep,
  stackForTests,
  TEAM_ID,
  until,
} from './support.js';

const stack = stackForTests();
const countsFor = (pattern: RegExp) => shownCounts(stack.slack, pattern);

it('5 % of post answers lost after Slack acted, two replicas, 300 calls in 30 channels → each shown exactly once', async () => {
  const bots = [await stack.startBot(), await stack.startBot()];
  const run = Date.now().toString(36);
  const channels = Array.from({ length: 30 }, (_, i) => `C0LOST${String(i).padStart(4, '0')}`);
  const path = await stack.route(
    channels.map((channelId, i) => ({ campaignId: `camp-lost-${i}`, triggerName: 'call_completed', channelId })),
  );
  stack.slack.loseAnswers({ method: 'chat.postMessage', share: 0.05, seed: 7 });
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) {
    const id = `lost-${run}-${i}`;
    ids.push(id);
    const bot = bots[i % 2]!;
    const body = deliveryBody(callCompleted(id, { campaignId: `camp-lost-${i % 30}` }));
    expect((await postJson(`${bot.url}${path}`, body)).status).toBe(200);
  }
  const pattern = new RegExp(`lost-${run}-\\d+`, 'g');
  await until(() => countsFor(pattern).size === 300, 'all 300 calls shown', 90_000, 250).catch(async (err: unknown) => {
    const warnings = bots.map((b) =>
      b
        .output()
        .split('\n')
        .filter((l) => /"level":"(warn|error)"/.test(l))
        .slice(-8)
        .join('\n'),
    );
    const missing = ids.filter((id) => !countsFor(pattern).has(id));
    const waiting = await stack.store.outbox.channels();
    const depth = await stack.store.queue.depth();
    const dead = await stack.store.queue.deadLetters(TEAM_ID);
    throw new Error(
      `${String(err)}: missing ${missing.join(' ')}; outbox channels ${JSON.stringify(waiting)}; queue ${JSON.stringify(depth)}; dead ${dead.count}\n${warnings.join('\n---\n')}`,
    );
  });
  await sleep(2_000);
  const counts = countsFor(pattern);
  const lost = stack.slack.callsTo('chat.postMessage').filter((c) => c.lost !== undefined).length;
  const lookups =
    stack.slack.callsTo('conversations.history').length + stack.slack.callsTo('conversations.replies').length;
  figure(
    '5 % of chat.postMessage answers lost after Slack acted (2 replicas, 300 calls, 30 channels)',
    `${counts.size}/300 shown, ${[...counts.values()].filter((n) => n > 1).length} twice; ${lost} answers lost, ${lookups} look-ups`,
  );
  expect(lost).toBeGreaterThan(0);
  expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
  expect(ids.filter((id) => !counts.has(id))).toEqual([]);
}, 150_000);
