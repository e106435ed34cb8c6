/**
 * Fault: Slack is down — its edge answers every Web API call with 503 for 60 s — while 100 calls end, for a bot
 * with Redis and a bot in memory mode at once. Must hold: time heals it — nothing is dead-lettered, every call
 * is shown once Slack is back (one by one or rolled up), none twice, and the backlog is out within 30 s of
 * Slack's return; while down, the bots probe Slack now and then instead of retrying every event.
 */
import { expect, it } from 'vitest';
import { callCompleted, deliveryBody, figure, postJson, sleep, stackBehindProxy, until } from './support.js';
import type { BotProcess } from '../../bench/lib/bot-process.js';

const { stack, proxy } = stackBehindProxy();

const CALLS = 100;
const OUTAGE_MS = 60_000;

it('Slack answering 503 for 60 s while 100 calls end → every call shown once, within 30 s of its return (Redis and memory mode)', async () => {
  const redisBot = await stack.startBot({ slackApiUrl: proxy.apiUrl });
  const memoryBot = await stack.startBot({ slackApiUrl: proxy.apiUrl, env: { REDIS_URL: '' } });
  const channels = { redis: 'C0OUTREDIS', memory: 'C0OUTMEMRY' };
  const hooks = {
    redis: `${redisBot.url}${await stack.route([{ campaignId: 'camp-2', triggerName: 'call_completed', channelId: channels.redis }])}`,
    memory: `${memoryBot.url}${await stack.subscribe(memoryBot, channels.memory)}`,
  };

  const run = Date.now().toString(36);
  const idOf = (mode: string, i: number) => `out-${run}-${mode}-${i}`;
  proxy.outage(503);
  const downAt = Date.now();
  // The calls end over the first 50 s of the outage, as a busy afternoon's would.
  for (let i = 0; i < CALLS; i++) {
    const wait = downAt + i * 500 - Date.now();
    if (wait > 0) await sleep(wait);
    for (const mode of ['redis', 'memory'] as const) {
      const res = await postJson(hooks[mode], deliveryBody(callCompleted(idOf(mode, i), { campaignId: 'camp-2' })));
      expect(res.status).toBe(200);
    }
  }
  await sleep(downAt + OUTAGE_MS - Date.now());
  proxy.recover();
  const upAt = Date.now();
  const probes = proxy.failedByOutage;

  const pattern = new RegExp(`out-${run}-(redis|memory)-(\\d+)`, 'g');
  const shown = (mode: 'redis' | 'memory') => {
    const counts = new Map<string, number>();
    for (const m of stack.slack.messages(channels[mode])) {
      if (m.thread_ts && m.thread_ts !== m.ts) continue; // transcripts in threads name the calls again
      // A call's id shows in its line and its recording link: count each message once per call.
      const inMessage = new Set([...JSON.stringify(m.blocks ?? m.text).matchAll(pattern)].map((match) => match[0]));
      for (const id of inMessage) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };
  await until(
    () => shown('redis').size === CALLS && shown('memory').size === CALLS,
    `all ${CALLS} calls shown in both channels within 30 s of Slack's return`,
    30_000,
    250,
  ).catch((err: unknown) => {
    const tail = (bot: BotProcess) =>
      bot
        .output()
        .split('\n')
        .filter((l) => /"level":"(warn|error)"/.test(l))
        .slice(-10)
        .join('\n');
    throw new Error(
      `${String(err)}: shown redis ${shown('redis').size}, memory ${shown('memory').size}\n--- redis bot ---\n${tail(redisBot)}\n--- memory bot ---\n${tail(memoryBot)}`,
    );
  });
  const tookS = (Date.now() - upAt) / 1000;
  await sleep(1_000);
  figure(
    'Slack down for 60 s (503) while 100 calls end',
    `${CALLS}/${CALLS} calls shown per bot, the last ${tookS.toFixed(1)} s after Slack's return; ${probes} Web API calls reached the outage in 60 s (2 bots)`,
  );
  for (const mode of ['redis', 'memory'] as const) {
    const counts = shown(mode);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(CALLS);
  }
  // While Slack was down the bots probed it, rather than trying every waiting event (200 of them) again and again.
  expect(probes).toBeLessThan(100);
  for (const bot of [redisBot, memoryBot]) {
    expect(bot.output()).not.toMatch(/dead-lettered|given up/);
  }
}, 150_000);
