/**
 * Redis goes away under a running bot: a webhook must get a 5xx (so the platform may retry), never a 2xx.
 * Uses a throwaway redis-server on its own port (no persistence), shut down mid-test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { requireRedis } from '../support/redis.js';
import { CALL_STARTED_FULL } from './fixtures.js';
import { deliver, queueDrained, routeTo, sleep, startEventsHarness } from './support.js';

// The suite's shared Redis must be there too (the harness convention); this file adds its own server.
await requireRedis();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  child.on('error', () => undefined); // reported below as "did not start"
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  for (let i = 0; i < 100; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      probe.disconnect();
      await sleep(50);
    }
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start (is it installed?)');
}

let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

it('answers 503 once Redis is gone, and 200 while it is there', async () => {
  const port = await freePort();
  child = await startRedis(port);
  const h = await startEventsHarness({ redisUrl: `redis://127.0.0.1:${port}` });
  try {
    const hook = await routeTo(h, [{ campaignId: 'camp-1', triggerName: 'call_started', channelId: 'C0CALLS001' }]);
    expect((await deliver(hook, [{ ...CALL_STARTED_FULL, callId: 'call-up' }])).status).toBe(200);
    // The accepted event is posted and its steps recorded before Redis goes: work caught half-way would
    // keep retrying its step mark (for up to 30 s) and hold up the bot's shutdown, which is not this test's.
    await queueDrained(h);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;

    const started = Date.now();
    const res = await deliver(hook, [{ ...CALL_STARTED_FULL, callId: 'call-down' }]);
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(h.logs()).toContain('webhook refused with 503');
  } finally {
    await h.close();
  }
}, 20_000);
