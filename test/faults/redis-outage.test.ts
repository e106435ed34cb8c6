/**
 * Fault: Redis goes away for 10 s in the middle of a steady stream of webhooks, then comes back (same data:
 * the test's own redis-server, append-only with fsync on every write, killed with SIGKILL and restarted).
 * Must hold: every request is answered 2xx or 503 (never a hang, a reset or another status); every event
 * answered 2xx is posted once Redis is back; the bot recovers without a restart. The platform would retry the
 * 503s, so the test does too, and then every event is posted.
 */
import { expect, it } from 'vitest';
import { callCompleted, cardCounts, deliveryBody, figure, postJson, sleep, until, stackForTests } from './support.js';

const stack = stackForTests({ durableRedis: true });

const RATE = 40; // webhooks per second
const BEFORE_MS = 5_000;
const OUTAGE_MS = 10_000;
const AFTER_MS = 5_000;

it('Redis stopped for 10 s during intake → only 2xx or 503, nothing answered 2xx lost, recovery without restart', async () => {
  const bot = await stack.startBot();
  const channel = 'C0OUTAGE01';
  const hook = `${bot.url}${await stack.route([{ campaignId: 'camp-outage', triggerName: 'call_completed', channelId: channel }])}`;
  const run = Date.now().toString(36);
  const bodyOf = (callId: string) =>
    deliveryBody(callCompleted(callId, { campaignId: 'camp-outage', callTranscript: undefined }));

  type Outcome = { callId: string; sentAt: number; status: number | string; ms: number };
  const outcomes: Outcome[] = [];
  const inFlight: Array<Promise<void>> = [];
  const send = (callId: string) => {
    const sentAt = Date.now();
    inFlight.push(
      postJson(hook, bodyOf(callId), AbortSignal.timeout(15_000)).then(
        async (res) => {
          await res.arrayBuffer();
          outcomes.push({ callId, sentAt, status: res.status, ms: Date.now() - sentAt });
        },
        (err: unknown) => {
          outcomes.push({
            callId,
            sentAt,
            status: `error: ${err instanceof Error ? err.message : String(err)}`,
            ms: Date.now() - sentAt,
          });
        },
      ),
    );
  };

  const started = Date.now();
  let outage: { down: number; up: number } | undefined;
  const redisCycle = (async () => {
    await sleep(BEFORE_MS);
    const down = Date.now();
    await stack.redis.stop('SIGKILL');
    await sleep(OUTAGE_MS);
    await stack.redis.start();
    outage = { down, up: Date.now() };
  })();
  let n = 0;
  while (Date.now() - started < BEFORE_MS + OUTAGE_MS + AFTER_MS || !outage) {
    send(`outage-${run}-${n++}`);
    await sleep(1000 / RATE);
  }
  await redisCycle;
  await Promise.all(inFlight);

  const statuses: Record<string, number> = {};
  for (const o of outcomes) statuses[String(o.status)] = (statuses[String(o.status)] ?? 0) + 1;
  const accepted = outcomes.filter((o) => o.status === 200);
  const refused = outcomes.filter((o) => o.status === 503);
  // Every request got an answer, and only these two.
  expect(Object.keys(statuses).sort(), JSON.stringify(statuses)).toEqual(refused.length > 0 ? ['200', '503'] : ['200']);
  expect(refused.length).toBeGreaterThan(0);
  // Recovered without a restart: the same process answers 200 to what is sent after Redis is back.
  const afterRecovery = outcomes.filter((o) => o.sentAt > outage!.up + 2_000);
  expect(afterRecovery.length).toBeGreaterThan(0);
  expect(afterRecovery.every((o) => o.status === 200)).toBe(true);
  expect(bot.alive()).toBe(true);

  const pattern = new RegExp(`outage-${run}-\\d+`);
  await until(
    () => accepted.every((o) => cardCounts(stack.slack, pattern).has(o.callId)),
    'every accepted event posted',
    60_000,
    250,
  );
  const lostAccepted = accepted.filter((o) => !cardCounts(stack.slack, pattern).has(o.callId)).length;

  // The platform retries the 503s.
  for (const o of refused) expect((await postJson(hook, bodyOf(o.callId))).status).toBe(200);
  await until(
    () => cardCounts(stack.slack, pattern).size === outcomes.length,
    'every event posted after the retries',
    60_000,
    250,
  );
  await sleep(1_500);
  const counts = cardCounts(stack.slack, pattern);
  const duplicates = [...counts.values()].reduce((a, c) => a + c - 1, 0);
  const slowest = Math.max(...outcomes.map((o) => o.ms));
  figure(
    'Redis down 10 s',
    `${outcomes.length} webhooks at ${RATE}/s: ${accepted.length} × 200, ${refused.length} × 503 (slowest answer ${slowest} ms); ` +
      `accepted and lost: ${lostAccepted}; after the platform's retries ${counts.size}/${outcomes.length} posted, duplicates ${duplicates}; ` +
      `first 200 after Redis returned: +${Math.max(0, Math.min(...accepted.filter((o) => o.sentAt > outage!.up).map((o) => o.sentAt)) - outage.up)} ms`,
  );
  expect(lostAccepted).toBe(0);
  expect(counts.size).toBe(outcomes.length);
});
