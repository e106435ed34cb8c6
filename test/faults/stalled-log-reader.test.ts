/**
 * Fault: whatever reads the bot's stdout (a log shipper) stops reading. Must hold: the bot keeps answering,
 * its memory stays bounded (log lines the reader can't take are dropped and counted in
 * `campaign_log_lines_dropped_total`), and SIGTERM still ends the process, with exit 0, within its 10 s
 * shutdown grace — logging never holds it hostage. And when the shutdown itself cannot finish (a post to
 * Slack that never returns), the force exit still fires at the end of the grace, log reader stalled or not.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { callCompleted, deliveryBody, figure, mb, postJson, until, stackForTests } from './support.js';

const stack = stackForTests();
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

/** Each request to an unknown path is one `info` line (~300 bytes: the path is logged up to 200 characters). */
const PATH = `/no-such-page/${'ab.'.repeat(100)}`;
/** ~1.5 MB of log: more than the stalled pipe and the bot's 1 MiB log buffer hold together. */
const FILL = 5_000;
const REQUESTS = 12_000;
const SHUTDOWN_GRACE_MS = 10_000;

/** Sends `count` GETs to unknown paths, `concurrency` at a time; resolves with the statuses seen. */
async function flood(url: string, count: number, concurrency = 16): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      const res = await fetch(`${url}${PATH}`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return statuses;
}

async function droppedLines(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^campaign_log_lines_dropped_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

it('a log reader that stops reading: the bot keeps answering, memory stays bounded, SIGTERM exits within the grace', async () => {
  const bot = await stack.startBot({ logLevel: 'info' });
  expect(await droppedLines(bot.url)).toBe(0);
  bot.child.stdout!.pause(); // the log shipper stalls: the pipe fills and stays full

  // Enough to fill the pipe and the bot's log buffer; memory is measured from there on.
  expect(await flood(bot.url, FILL)).toEqual(new Map([[404, FILL]]));
  const rssFull = bot.rss();
  const started = performance.now();
  expect(await flood(bot.url, REQUESTS)).toEqual(new Map([[404, REQUESTS]]));
  const floodS = (performance.now() - started) / 1000;
  const rssAfter = bot.rss();
  const health = await fetch(`${bot.url}/healthz`, { signal: AbortSignal.timeout(2_000) });
  expect(health.status).toBe(200);
  const dropped = await droppedLines(bot.url);
  // The buffer was full: every line of the second flood was dropped (and counted), none kept in memory.
  expect(dropped).toBeGreaterThanOrEqual(REQUESTS);
  expect(rssAfter - rssFull).toBeLessThan(16 * 1024 * 1024);

  const signalled = performance.now();
  bot.child.kill('SIGTERM');
  const exit = await Promise.race([
    bot.exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), SHUTDOWN_GRACE_MS + 2_000)),
  ]);
  const exitMs = performance.now() - signalled;
  figure(
    'stalled log reader',
    `${REQUESTS} logged requests in ${floodS.toFixed(1)} s (all answered), ${dropped} lines dropped, RSS ${mb(rssFull)} → ${mb(rssAfter)}; SIGTERM → exit ${String(exit)} after ${(exitMs / 1000).toFixed(1)} s`,
  );
  expect(exit).toBe(0);
  expect(exitMs).toBeLessThan(SHUTDOWN_GRACE_MS);
  // What was left in the buffer at exit is reported on stderr, which still had a reader.
  await until(
    () => /log lines? (were )?not delivered/.test(bot.output()),
    'the undelivered-lines notice on stderr',
    2_000,
  );
});

it('a stalled log reader and a shutdown that cannot finish (Slack never answers a post): exit 1 when the grace ends', async () => {
  // A Slack Web API that takes requests and never answers: the post under way keeps bot.stop() waiting.
  const heldCalls: IncomingMessage[] = [];
  const blackHole = createServer((req) => heldCalls.push(req));
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    blackHole.closeAllConnections();
    blackHole.close();
  });
  const bot = await stack.startBot({
    logLevel: 'info',
    slackApiUrl: `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}/api/`,
  });
  const hook = await stack.route([{ campaignId: 'camp-held', triggerName: 'call_completed', channelId: 'C0HELD0001' }]);
  bot.child.stdout!.pause();
  expect(await flood(bot.url, FILL)).toEqual(new Map([[404, FILL]]));
  expect(
    (
      await postJson(
        `${bot.url}${hook}`,
        deliveryBody(callCompleted(`held-${Date.now()}`, { campaignId: 'camp-held' })),
      )
    ).status,
  ).toBe(200);
  // The card's first call to Slack: its post, or before it (a channel routed without `subscribe`) the look at who
  // reads the channel.
  await until(
    () => heldCalls.some((r) => /chat\.postMessage|conversations\.info/.test(r.url ?? '')),
    'the card’s first call reaching the unanswering Slack',
    10_000,
  );

  const signalled = performance.now();
  bot.child.kill('SIGTERM');
  const exit = await Promise.race([
    bot.exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), SHUTDOWN_GRACE_MS + 3_000)),
  ]);
  const exitMs = performance.now() - signalled;
  figure(
    'stalled log reader + shutdown stuck on Slack',
    `SIGTERM → exit ${String(exit)} after ${(exitMs / 1000).toFixed(1)} s (grace ${SHUTDOWN_GRACE_MS / 1000} s)`,
  );
  expect(exit).toBe(1);
  expect(exitMs).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 100);
  expect(exitMs).toBeLessThan(SHUTDOWN_GRACE_MS + 1_500);
});
