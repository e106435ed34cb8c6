/**
 * The fault suite's toolbox: real bot processes (`bench/lib/stack.ts`) against the fakes, plus what the faults
 * need — posting webhooks, reading cards back, a store snapshot to prove "nothing was written", and a proxy
 * that answers half of Slack's Web API calls with 429.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { FakeSlack, SlackCall } from '../fakes/slack.js';

export { startStack, TEAM_ID, ADMIN_ID, MEMBER_ID, type Stack } from '../../bench/lib/stack.js';
export { callCompleted, deliveryBody, messageReceived, postJson } from '../../bench/lib/events.js';
export { figure, percentile, mb } from '../../bench/lib/stats.js';
export { until } from '../../bench/lib/net.js';
import { postsByCallId } from '../../bench/lib/shown.js';
import { startStack, type Stack } from '../../bench/lib/stack.js';
import { startedForTests } from '../support/lifetime.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Cards (top-level chat.postMessage answered 200) showing `callId`. */
export function cardsFor(slack: FakeSlack, callId: string): SlackCall[] {
  return slack
    .callsTo('chat.postMessage')
    .filter(
      (c) =>
        c.status === 200 &&
        c.args.thread_ts === undefined &&
        JSON.stringify(c.args.blocks ?? '').includes(`\`${callId}\``),
    );
}

/** How many top-level cards each call id got (ids matched by `pattern`). */
export function cardCounts(slack: FakeSlack, pattern: RegExp): Map<string, number> {
  // A roll-up (a channel that fell behind Slack's posting limit) shows many calls in one post.
  return new Map([...postsByCallId(slack, pattern)].map(([id, posts]) => [id, posts.length]));
}

/**
 * How many top-level messages in Slack show each id matched by `pattern` — what people see, lost answers included
 * (a post whose answer was lost is in Slack all the same; a roll-up shows many calls in one message).
 */
export function shownCounts(slack: FakeSlack, pattern: RegExp): Map<string, number> {
  const every = new RegExp(pattern.source, 'g');
  const counts = new Map<string, number>();
  for (const m of slack.messages()) {
    if (m.thread_ts && m.thread_ts !== m.ts) continue; // transcripts in threads name the calls again
    for (const id of new Set(Array.from(JSON.stringify(m.blocks ?? m.text).matchAll(every), (x) => x[0])))
      counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/**
 * Everything stored in Redis, by key: the serialized value (DUMP), except streams, whose consumers' "last
 * seen" times change on every (empty) read — those are compared by entries and group positions instead.
 */
export async function storeSnapshot(redis: Redis): Promise<Map<string, string>> {
  const snapshot = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'stream') {
        const entries = await redis.xrange(key, '-', '+');
        const groups = (await redis.call('XINFO', 'GROUPS', key)) as unknown[][];
        const positions = groups.map((g) => {
          const fields = new Map<unknown, unknown>();
          for (let i = 0; i + 1 < g.length; i += 2) fields.set(g[i], g[i + 1]);
          return [fields.get('name'), fields.get('pending'), fields.get('last-delivered-id')];
        });
        snapshot.set(key, JSON.stringify({ entries, positions }));
      } else {
        snapshot.set(key, (await redis.dumpBuffer(key))?.toString('hex') ?? '');
      }
    }
  } while (cursor !== '0');
  return snapshot;
}

/** Keys added, removed or changed between two snapshots. */
export function snapshotDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [key, value] of after)
    if (before.get(key) !== value) changed.push(before.has(key) ? `changed ${key}` : `added ${key}`);
  for (const key of before.keys()) if (!after.has(key)) changed.push(`removed ${key}`);
  return changed;
}

/** A stack started for the file's tests and closed after them (see startedForTests). */
export function stackForTests(opts?: Parameters<typeof startStack>[0], startTimeoutMs?: number): Stack {
  return startedForTests(() => startStack(opts), startTimeoutMs);
}

/** A stack and the rate-limit proxy in front of its Slack, started for the file's tests and closed after them. */
export function stackBehindProxy(): { stack: Stack; proxy: RateLimitProxy } {
  const stack = stackForTests();
  return { stack, proxy: startedForTests(() => startRateLimitProxy(stack.slack)) };
}

export interface RateLimitProxy {
  /** Give this to the bot as SLACK_API_URL. */
  readonly apiUrl: string;
  /** Start answering every other Web API call with 429 (Retry-After cycling through `retryAfterSec`). */
  arm(retryAfterSec: readonly number[]): void;
  /** Calls answered 429 so far, with the Retry-After given. */
  readonly limited: Array<{ method: string; retryAfterSec: number; at: number }>;
  /** Calls passed on to the fake. */
  passed: number;
  /** Slack's edge is down: every Web API call gets this HTTP status (e.g. 503) until `recover()`. */
  outage(status: number): void;
  recover(): void;
  /** Calls answered by the outage so far. */
  readonly failedByOutage: number;
  close(): Promise<void>;
}

/**
 * A proxy in front of the fake Slack's Web API: once armed, every other call gets `429` + `Retry-After`
 * (1, 2, 3 s, 1, 2, 3 s, …) without reaching the fake; the rest are passed through unchanged. The fake's own
 * `rateLimit()` takes one Retry-After per rule and `everyOther` rules cannot be combined, hence this. During an
 * `outage` every call gets that status (Slack's edge answering 503) without reaching the fake.
 */
async function startRateLimitProxy(slack: FakeSlack): Promise<RateLimitProxy> {
  const target = new URL(slack.baseUrl);
  const limited: RateLimitProxy['limited'] = [];
  let armed: readonly number[] | undefined;
  let calls = 0;
  let down: number | undefined;
  const state = { passed: 0, failedByOutage: 0 };
  const server: Server = createServer((req, res) => {
    const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
    if (down !== undefined && (req.url ?? '').startsWith('/api/')) {
      const status = down;
      state.failedByOutage++;
      req.resume();
      req.on('end', () => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end('<html><body>Service Unavailable</body></html>');
      });
      return;
    }
    if (armed && (req.url ?? '').startsWith('/api/') && calls++ % 2 === 0) {
      const retryAfterSec = armed[limited.length % armed.length]!;
      limited.push({ method, retryAfterSec, at: Date.now() });
      req.resume();
      req.on('end', () => {
        res.writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(retryAfterSec) });
        res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      });
      return;
    }
    state.passed++;
    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    arm(retryAfterSec) {
      armed = retryAfterSec;
    },
    limited,
    get passed() {
      return state.passed;
    },
    outage(status) {
      down = status;
    },
    recover() {
      down = undefined;
    },
    get failedByOutage() {
      return state.failedByOutage;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
