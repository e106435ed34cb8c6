/**
 * Fault: Slack answering `ok:false` `service_unavailable` (HTTP 200) to every `chat.postMessage` for 60 s while 100
 * calls end, against a real bot process on one Redis
 * (https://docs.slack.dev/reference/methods/chat.postMessage › Errors): time heals it — every call shown once,
 * nothing a failed event.
 */
import { expect, it } from 'vitest';
import { deliveryBody, callCompleted, figure, postJson, shownCounts, sleep, stackForTests, until } from './support.js';

const stack = stackForTests();
const countsFor = (pattern: RegExp) => shownCounts(stack.slack, pattern);

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
