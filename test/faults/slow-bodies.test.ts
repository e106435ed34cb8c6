/**
 * Fault: request bodies that trickle in, one byte a second, against a real bot process with its real limits.
 * Must hold: `/slack/events` drops one within 5 s whether it looks signed or not (Slack's SSL check is an
 * unsigned form this small), any other route within 10 s, and `/healthz` answers all the while.
 */
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { figure, sleep, stackForTests } from './support.js';

const stack = stackForTests();
let bot: BotProcess;
let hook: string;
beforeAll(async () => {
  bot = await stack.startBot();
  hook = await stack.route([{ campaignId: '*', triggerName: 'call_completed', channelId: 'C0SLOWBODY' }]);
});

/** Sends `head` then one byte a second; resolves with the status answered and when the bot closed the socket. */
function trickle(head: string): Promise<{ status: number; closedAfterMs: number }> {
  const { port } = new URL(bot.url);
  return new Promise((resolve, reject) => {
    const began = Date.now();
    let got = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(`${head}\r\n`));
    const drip = setInterval(() => socket.write('a'), 1_000);
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0), closedAfterMs: Date.now() - began });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error('still open after 30 s'));
    }, 30_000).unref();
  });
}

function head(path: string, headers: Record<string, string>): string {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Length: 200'];
  return [...lines, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ''].join('\r\n');
}

it('drops trickling bodies within their time, while /healthz keeps answering', async () => {
  const looksSigned = {
    'X-Slack-Signature': `v0=${randomBytes(32).toString('hex')}`,
    'X-Slack-Request-Timestamp': String(Math.floor(Date.now() / 1000)),
  };
  const cases = [
    {
      name: 'unsigned form to /slack/events',
      limitMs: 5_000,
      head: head('/slack/events', { 'Content-Type': 'application/x-www-form-urlencoded' }),
    },
    {
      name: 'signed-looking JSON to /slack/events',
      limitMs: 5_000,
      head: head('/slack/events', { 'Content-Type': 'application/json', ...looksSigned }),
    },
    {
      name: 'webhook delivery',
      limitMs: 10_000,
      head: head(hook, { 'Content-Type': 'application/json' }),
    },
  ];
  const health: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const began = Date.now();
      expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);
      health.push(Date.now() - began);
      await sleep(250);
    }
  })();
  const results = await Promise.all(cases.map(async (c) => ({ ...c, ...(await trickle(c.head)) })));
  probing = false;
  await probe;
  for (const r of results) {
    expect({ name: r.name, status: r.status }).toEqual({ name: r.name, status: 408 });
    expect(r.closedAfterMs, r.name).toBeLessThanOrEqual(r.limitMs + 500);
  }
  figure(
    'slow bodies',
    `${results.map((r) => `${r.name}: 408, closed after ${(r.closedAfterMs / 1000).toFixed(1)} s`).join('; ')}; /healthz ${health.length}/${health.length} answered meanwhile (worst ${Math.max(...health)} ms)`,
  );
});
