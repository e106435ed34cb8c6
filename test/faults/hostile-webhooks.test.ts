/**
 * Fault: 1,000 malformed, oversized and hostile webhook bodies at a valid hook URL, 25 at a time. Must hold:
 * every one is answered 4xx (none is queued, nothing reaches Slack), the process stays up and answers
 * /healthz, and its memory stays bounded (sampled throughout).
 */
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { callCompleted, figure, mb, TEAM_ID, stackForTests } from './support.js';

const stack = stackForTests();
let bot: BotProcess;
beforeAll(async () => {
  bot = await stack.startBot();
});

const TOTAL = 1_000;
const CONCURRENCY = 25;
const LIMIT = 256 * 1024;

interface Hostile {
  kind: string;
  method?: string;
  /** The body; `stream` sends this many bytes chunked, without a Content-Length, until the bot answers. */
  body?: string | Buffer;
  stream?: number;
}

const valid = () => callCompleted(`hostile-${randomBytes(4).toString('hex')}`);
const deep = (n: number, open = '[', close = ']') => `${open.repeat(n)}${close.repeat(n)}`;

/** One of each kind, cycled to 1,000. Every one is invalid by design: a valid event would rightly be queued. */
const KINDS: Array<(i: number) => Hostile> = [
  () => ({ kind: 'garbage', body: randomBytes(64).toString('base64') }),
  () => ({ kind: 'binary', body: randomBytes(512) }),
  (i) => ({ kind: 'truncated JSON', body: JSON.stringify([valid()]).slice(0, 20 + (i % 400)) }),
  () => ({ kind: 'empty body', body: '' }),
  () => ({ kind: 'BOM + JSON', body: `\uFEFF${JSON.stringify([valid()])}` }),
  () => ({ kind: 'NaN / comments / trailing comma', body: '[{"callId":"x","durationMs":NaN,/* hi */}]' }),
  () => ({ kind: 'scalar', body: ['"hello"', '42', 'true', 'null'][Math.floor(Math.random() * 4)]! }),
  () => ({ kind: 'empty array / object', body: Math.random() < 0.5 ? '[]' : '{}' }),
  () => ({ kind: 'array of scalars', body: '[1,"two",null]' }),
  () => ({ kind: '101 events', body: JSON.stringify(Array.from({ length: 101 }, valid)) }),
  () => ({ kind: 'callId of the wrong type', body: JSON.stringify([{ ...valid(), callId: { $gt: '' } }]) }),
  () => ({
    kind: 'duration not a number',
    body: JSON.stringify([{ ...valid(), durationMs: '<!channel> two minutes' }]),
  }),
  () => ({ kind: 'triggerName not a name', body: JSON.stringify([{ ...valid(), triggerName: ['call_completed'] }]) }),
  () => ({ kind: '__proto__ only', body: '[{"__proto__":{"polluted":"yes","isAdmin":true}}]' }),
  () => ({ kind: 'escaped __proto__ only', body: '[{"\\u005f_proto__":{"polluted":"yes"}}]' }),
  () => ({ kind: 'nested 40 deep', body: `[{"callId":"deep","x":${deep(40)}}]` }),
  () => ({ kind: 'nested 100,000 deep', body: `[${deep(100_000)}]` }),
  () => ({
    kind: 'nested 50,000 deep with __proto__',
    body: `[{"__proto__":1,"x":${deep(50_000, '{"a":', '}').replace(/\{"a":\}/, '{"a":1}')}}]`,
  }),
  () => ({ kind: 'one byte over the limit', body: `[${' '.repeat(LIMIT - 1)}]` }),
  () => ({ kind: '1 MB declared', body: Buffer.alloc(1024 * 1024, 0x20) }),
  () => ({ kind: '2 MB streamed (chunked)', stream: 2 * 1024 * 1024 }),
  () => ({ kind: 'GET', method: 'GET' }),
  () => ({ kind: 'PUT', method: 'PUT', body: JSON.stringify([valid()]) }),
];

function send(url: URL, h: Hostile): Promise<number | string> {
  return new Promise((resolve) => {
    let answered = false;
    const body = h.body === undefined ? undefined : Buffer.isBuffer(h.body) ? h.body : Buffer.from(h.body, 'utf8');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (body) headers['content-length'] = String(body.length);
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: h.method ?? 'POST', headers },
      (res) => {
        answered = true;
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    // The bot may close the connection once it has answered (413): that is not a failure. A kept-alive socket it
    // closed just as this request went out on it never reached the bot: sent again, as Node's http docs advise
    // (https://nodejs.org/api/http.html#requestreusedsocket).
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (answered) return;
      if (req.reusedSocket && err.code === 'ECONNRESET') resolve(send(url, h));
      else resolve(`error: ${err.message}`);
    });
    if (h.stream !== undefined) {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let written = 0;
      const pump = () => {
        while (!answered && written < h.stream!) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.write('[');
      pump();
      return;
    }
    req.end(body);
  });
}

it('1,000 malformed / oversized / hostile webhook bodies → only 4xx, process alive, RSS bounded', async () => {
  const hook = new URL(
    `${bot.url}${await stack.route([{ campaignId: '*', triggerName: 'call_completed', channelId: 'C0HOSTILE1' }])}`,
  );
  const streamBefore = await stack.redis.client.xlen(stack.store.keys.queueTeamStream(TEAM_ID));
  const rssBefore = bot.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, bot.rss())), 100);

  const statuses = new Map<string, number>();
  const wrong: string[] = [];
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        const i = next++;
        const hostile = KINDS[i % KINDS.length]!(i);
        const status = await send(hook, hostile);
        statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
        if (typeof status !== 'number' || status < 400 || status > 499) wrong.push(`${hostile.kind} → ${status}`);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const rssAfter = bot.rss();

  const health = await fetch(`${bot.url}/healthz`);
  figure(
    'hostile webhooks',
    `${TOTAL} bodies (${KINDS.length} kinds) in ${seconds.toFixed(1)} s → ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; RSS ${mb(rssBefore)} before, ${mb(rssPeak)} peak, ${mb(rssAfter)} after`,
  );
  expect(wrong).toEqual([]);
  expect(bot.alive()).toBe(true);
  expect(health.status).toBe(200);
  expect(await stack.redis.client.xlen(stack.store.keys.queueTeamStream(TEAM_ID))).toBe(streamBefore);
  expect(stack.slack.callsTo('chat.postMessage')).toHaveLength(0);
  expect(rssPeak).toBeLessThan(300 * 1024 * 1024);
  expect(rssAfter - rssBefore).toBeLessThan(100 * 1024 * 1024);
});
