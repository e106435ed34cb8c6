/**
 * Graceful shutdown: bot.stop() takes no new work, refuses new deliveries with 503, and lets the post under
 * way finish (and be acknowledged) before it resolves. A small proxy in front of the fake Slack holds posts until
 * the test lets them through, so a post is in flight when stop() is called.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { requireRedis } from '../support/redis.js';
import { startFakeSlack } from '../fakes/slack.js';
import { CALL_STARTED_FULL } from './fixtures.js';
import { TEAM_ID } from '../support/harness.js';
import { deliver, routeTo, startEventsHarness } from './support.js';

const redis = await requireRedis();

/** Forwards Web API calls to `target`, holding chat.postMessage until `release()`; counts calls in flight. */
async function holdingProxy(
  target: string,
): Promise<{ url: string; inFlight: () => number; release: () => void; server: Server }> {
  let inFlight = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const method = (req.url ?? '').replace(/^\/api\//, '');
        inFlight++;
        try {
          if (method.startsWith('chat.postMessage')) await released;
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers))
            if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
          const upstream = await fetch(`${target}${method}`, {
            method: req.method ?? 'POST',
            headers,
            body: Buffer.concat(chunks),
          });
          res.writeHead(upstream.status, {
            'content-type': upstream.headers.get('content-type') ?? 'application/json',
          });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        } finally {
          inFlight--;
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  return { url, inFlight: () => inFlight, release, server };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

it('lets the post in flight finish, acknowledges it, and refuses new deliveries while stopping', async () => {
  // The fake Slack is created first so the proxy can point at it; the harness gets its own fake too, unused.
  const slack = await startFakeSlack({ teamId: 'T0TEST001' });
  cleanups.push(() => slack.close());
  const proxy = await holdingProxy(slack.apiUrl);
  cleanups.push(() => new Promise((resolve) => proxy.server.close(resolve)));

  const prefix = `${redis.prefix}shutdown:`;
  const h = await startEventsHarness({
    redisUrl: redis.url,
    keyPrefix: prefix,
    env: { SLACK_API_URL: proxy.url, SLACK_BOT_TOKEN: slack.botToken },
  });
  cleanups.push(() => Promise.all([h.slack.close(), h.platform.close()]));

  const channel = 'C0SHUTDOWN';
  const botPosts = (c: string) => slack.messages(c).filter((m) => m.bot_id !== undefined);
  const hook = await routeTo(h, [{ campaignId: 'camp-1', triggerName: 'call_started', channelId: channel }]);
  expect((await deliver(hook, [{ ...CALL_STARTED_FULL, callId: 'call-in-flight' }])).status).toBe(200);
  await slack.waitFor(() => proxy.inFlight() > 0 && slack.callsTo('chat.postMessage').length === 0);

  let stopped = false;
  const stopping = h.bot.stop().then(() => (stopped = true));
  expect((await deliver(hook, [{ ...CALL_STARTED_FULL, callId: 'call-too-late' }])).status).toBe(503);
  expect(botPosts(channel)).toHaveLength(0); // still in flight
  expect(stopped).toBe(false); // and stop() waits for it
  proxy.release();
  await stopping;

  expect(botPosts(channel)).toHaveLength(1);
  expect(JSON.stringify(botPosts(channel)[0]!.blocks)).toContain('Olivia');
  // Acknowledged before stop() resolved: nothing left in the stream for another worker to post again.
  expect(await redis.redis.xlen(h.bot.deps.store.keys.queueTeamStream(TEAM_ID))).toBe(0);
}, 15_000);
