/**
 * Redis goes away under a running bot: a webhook must get a 5xx (so the platform may retry), never a 2xx.
 * Uses a throwaway redis-server on its own port (no persistence), shut down mid-test.
 */
import { afterAll, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../bench/lib/redis-server.js';
import { requireRedis } from '../support/redis.js';
import { CALL_STARTED_FULL } from './fixtures.js';
import { deliver, queueDrained, routeTo, startEventsHarness } from './support.js';

// The suite's shared Redis must be there too (the harness convention); this file adds its own server.
await requireRedis();

let server: RedisServer | undefined;
afterAll(async () => {
  await server?.close();
});

it('answers 503 once Redis is gone, and 200 while it is there', async () => {
  server = await startRedisServer();
  const h = await startEventsHarness({ redisUrl: server.url });
  try {
    const hook = await routeTo(h, [{ campaignId: 'camp-1', triggerName: 'call_started', channelId: 'C0CALLS001' }]);
    expect((await deliver(hook, [{ ...CALL_STARTED_FULL, callId: 'call-up' }])).status).toBe(200);
    // The accepted event is posted and its steps recorded before Redis goes: work caught half-way would
    // keep retrying its step mark (for up to 30 s) and hold up the bot's shutdown, which is not this test's.
    await queueDrained(h);

    await server.stop();

    const started = Date.now();
    const res = await deliver(hook, [{ ...CALL_STARTED_FULL, callId: 'call-down' }]);
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(h.logs()).toContain('webhook refused with 503');
  } finally {
    await h.close();
  }
}, 20_000);
