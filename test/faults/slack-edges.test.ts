/**
 * Faults: Slack answering more than 429, against real bot processes on one Redis.
 *
 * 1. `ok:false` `service_unavailable` (HTTP 200) to every `chat.postMessage` for 60 s while 100 calls end
 *    (https://docs.slack.dev/reference/methods/chat.postMessage › Errors): time heals it — every call shown
 *    once, nothing a failed event.
 * 2. Two replicas posting 300 calls into 30 channels while 5 % of Slack's answers to `chat.postMessage` are lost
 *    after Slack carried the post out (the connection drops): every call shown exactly once — each lost post is
 *    looked up by its idempotency key before it is sent again.
 */
import { expect, it } from 'vitest';
import { callCompleted, deliveryBody, figure, postJson, sleep, stackForTests, TEAM_ID, until } from './support.js';

const stack = stackForTests();

/**
 * How many top-level messages in Slack show each call — what people see, lost answers included (a post whose
 * answer was lost is in Slack all the same; a roll-up shows many calls in one message).
 */
function countsFor(pattern: RegExp): Map<string, number> {
  const every = new RegExp(pattern.source, 'g');
  const counts = new Map<string, number>();
  for (const m of stack.slack.messages()) {
    if (m.thread_ts && m.thread_ts !== m.ts) continue; // transcripts in threads name the calls again
    for (const id of new Set(Array.from(JSON.stringify(m.blocks ?? m.text).matchAll(every), (x) => x[0])))
      counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

it('ok:false service_unavailable for 60 s while 100 calls end → 100/100 shown once, no failed event', async () => {
  const bot = await stack.startBot();
  const channel = 'C0OKFALSE1';
  const hook = `${bot.url}${await stack.route([{ campaignId: 'camp-2', triggerName: 'call_completed', channelId: channel }])}`;
  const run = Date.now().toString(36);
  const idOf = (i: number) => `okf-${run}-${i}`;
  const OUTAGE_MS = 60_000;
  stack.slack.failMethodFor('chat.postMessage', 'service_unavailable', OUTAGE_MS);
  const downAt = Date.now();
  for (let i = 0; i < 100; i++) {
    const wait = downAt + i * 500 - Date.now();
    if (wait > 0) await sleep(wait);
    expect((await postJson(hook, deliveryBody(callCompleted(idOf(i), { campaignId: 'camp-2' })))).status).toBe(200);
  }
  const pattern = new RegExp(`okf-${run}-\\d+`, 'g');
  await until(
    () => countsFor(pattern).size === 100,
    'all 100 calls shown',
    downAt + OUTAGE_MS + 40_000 - Date.now(),
    250,
  );
  const tookS = (Date.now() - (downAt + OUTAGE_MS)) / 1000;
  await sleep(1_000);
  const counts = countsFor(pattern);
  const refused = stack.slack.callsTo('chat.postMessage').filter((c) => c.response.error === 'service_unavailable');
  figure(
    'ok:false service_unavailable for 60 s while 100 calls end',
    `${counts.size}/100 shown, the last ${tookS.toFixed(1)} s after Slack healed; ${refused.length} posts answered service_unavailable; 0 failed events`,
  );
  expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
  expect(bot.output()).not.toMatch(/given up|dead-lettered/);
}, 150_000);

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
