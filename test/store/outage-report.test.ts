/**
 * What the operator reads while Redis does not answer: nothing for a blip, one sentence naming the variable once
 * it has lasted OUTAGE_REPORT_MS, the same at most once per OUTAGE_REPEAT_MS while it lasts, and one line when it
 * answers again. A real ioredis client against a port with nothing on it (then a real Redis behind that port);
 * the reporter's clock is the test's, and the test asks when it checks (its own timer is out of the way).
 */
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/net.js';
import { createLogger, Redactor } from '../../src/logger.js';
import { OUTAGE_REPEAT_MS, OUTAGE_REPORT_MS, reportOutages } from '../../src/store/redis-connection.js';
import { requireRedis } from '../support/redis.js';

const target = new URL((await requireRedis()).url);

const lines: Array<{ level: string; msg: string; stack?: unknown }> = [];
const logger = createLogger({
  level: 'info',
  redactor: new Redactor(),
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as (typeof lines)[number]);
      done();
    },
  }),
});

const port = await freePort();
const redis = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 20, maxRetriesPerRequest: 0 });
let clock = 1_000_000;
const { check } = reportOutages(
  redis,
  logger,
  { name: `Redis at redis://127.0.0.1:${port}`, variable: 'REDIS_URL' },
  { now: () => clock, everyMs: 3_600_000 },
);
const sockets: Socket[] = [];
const proxy = createServer((client) => {
  const upstream = connect(Number(target.port || 6379), target.hostname);
  sockets.push(client, upstream);
  client.pipe(upstream).pipe(client);
});
afterAll(() => {
  redis.disconnect();
  for (const s of sockets) s.destroy();
  proxy.close();
});

it('says nothing for a blip, one sentence after 10 s, again once a minute, and once when Redis is back', async () => {
  await check();
  clock += OUTAGE_REPORT_MS - 1_000;
  await check();
  expect(lines).toEqual([]);

  clock += 1_000;
  await check();
  const sentence = `Redis at redis://127.0.0.1:${port} (REDIS_URL) has not answered for 10 s (connect ECONNREFUSED 127.0.0.1:${port}): check REDIS_URL and that Redis is running`;
  expect(lines).toEqual([expect.objectContaining({ level: 'warn', msg: sentence })]);

  clock += OUTAGE_REPEAT_MS - 1;
  await check();
  expect(lines).toHaveLength(1);
  clock += 1;
  await check();
  expect(lines.map((l) => l.msg)).toEqual([sentence, sentence.replace('for 10 s', 'for 70 s')]);

  proxy.listen(port, '127.0.0.1');
  await once(redis, 'ready');
  await check();
  expect(lines.at(-1)).toMatchObject({
    level: 'info',
    msg: `Redis at redis://127.0.0.1:${port} (REDIS_URL) answers again`,
  });
  expect(lines.some((l) => l.stack !== undefined)).toBe(false);
});
