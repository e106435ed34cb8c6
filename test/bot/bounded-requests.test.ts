/**
 * What the bot's PORT takes before it trusts a request, driven over raw sockets and signed requests:
 *
 * - `/slack/events` refuses a request without Slack's signature headers, or with a timestamp out of Slack's
 *   5-minute window, before its body is read (the answer comes while the client still holds most of its body);
 *   a body over 1 MB is refused when declared and when streamed; the bodies being read, all together, stay
 *   within a budget;
 * - a signed request is good once: the same bytes again (on another replica too) do nothing, while Slack's
 *   retry — the same event signed anew — is handled;
 * - the server has a connection cap and header/request timeouts, and sockets that never send a request can
 *   neither hold a connection forever nor keep `/healthz` and commands out.
 */
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { slackSignature } from '../fakes/slack-signer.js';
import { ADMIN_ID, MEMBER_ID, SIGNING_SECRET, type Harness, harnessesPerTest } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { routeTo } from '../events/support.js';

const redis = await requireRedis();
const MB = 1024 * 1024;

const start = harnessesPerTest();

interface RawAnswer {
  status: number;
  text: string;
  socket: Socket;
}

/**
 * Sends `head` and then `body` (which is never the whole of what `head` announces, unless `complete`), and
 * resolves with the status line of the answer once it arrives: an answer that comes before the client has sent
 * its body was given without that body.
 */
function rawRequest(url: string, head: string, body: Buffer = Buffer.alloc(0)): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`${head}\r\n`);
      if (body.length > 0) socket.write(body);
    });
    let got = '';
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (status && got.includes('\r\n\r\n')) resolve({ status: Number(status[1]), text: got, socket });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before an answer; got ${JSON.stringify(got.slice(0, 80))}`)));
  });
}

/** A POST to `/slack/events` announcing more than `bytes`, of which it sends `bytes` and then nothing. */
function openStalledBody(url: string, headers: Record<string, string>, bytes: number): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `${postHead({ 'Content-Type': 'application/json', 'Content-Length': String(bytes + 1), ...headers })}\r\n`,
      );
      socket.write(Buffer.alloc(bytes, 0x20), () => resolve(socket));
    });
    socket.on('error', reject);
  });
}

const now = () => Math.floor(Date.now() / 1000);
/** What the bot asked of Slack, but the token check Bolt makes when it starts. */
const slackCalls = (h: Harness) => h.slack.calls.filter((c) => c.method !== 'auth.test');
function postHead(headers: Record<string, string>, path = '/slack/events'): string {
  return [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
  ].join('\r\n');
}
/** Headers that look like Slack's (a well-formed signature, a fresh timestamp): what a forger can always send. */
const looksSigned = (ts = now()) => ({
  'X-Slack-Signature': `v0=${randomBytes(32).toString('hex')}`,
  'X-Slack-Request-Timestamp': String(ts),
});

describe('/slack/events before its body is read', () => {
  it('refuses an unsigned 4 MB POST (401) before the body is sent, and a stale or future timestamp too', async () => {
    const h = await start();
    const cases: Array<{ name: string; headers: Record<string, string> }> = [
      { name: 'no signature headers', headers: {} },
      { name: 'signature but no timestamp', headers: { 'X-Slack-Signature': looksSigned()['X-Slack-Signature'] } },
      { name: 'malformed signature', headers: { ...looksSigned(), 'X-Slack-Signature': 'v0=abc' } },
      { name: 'stale by 6 minutes', headers: looksSigned(now() - 6 * 60) },
      { name: 'future by 6 minutes', headers: looksSigned(now() + 6 * 60) },
    ];
    for (const c of cases) {
      // 4 MB announced, 1 KB sent: the answer can only come from the headers.
      const answer = await rawRequest(
        h.url,
        postHead({ 'Content-Type': 'application/json', 'Content-Length': String(4 * MB), ...c.headers }),
        Buffer.alloc(1024, 0x20),
      );
      answer.socket.destroy();
      expect({ name: c.name, status: answer.status }).toEqual({ name: c.name, status: 401 });
    }
    expect(slackCalls(h)).toHaveLength(0);
    expect(h.platform.requests).toHaveLength(0);
  });

  it('refuses a body over 1 MB (413): declared, before it is sent; streamed, once 1 MB has come', async () => {
    const h = await start();
    const declared = await rawRequest(
      h.url,
      postHead({ 'Content-Type': 'application/json', 'Content-Length': String(1 * MB + 1), ...looksSigned() }),
      Buffer.alloc(1024, 0x20),
    );
    declared.socket.destroy();
    expect(declared.status).toBe(413);

    // Chunked: no length announced. 1.1 MB sent, the body never ended.
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const chunks = Array.from({ length: 18 }, () =>
      Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
    );
    const streamed = await rawRequest(
      h.url,
      postHead({ 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', ...looksSigned() }),
      Buffer.concat(chunks),
    );
    streamed.socket.destroy();
    expect(streamed.status).toBe(413);
    expect(slackCalls(h)).toHaveLength(0);
  });

  it('keeps the bytes of all Slack bodies being read within a budget: past it, 503 + Retry-After', async () => {
    const h = await start({
      bot: { requestLimits: { slack: { unverifiedBytes: 64 * 1024, smallReserveBytes: 16 * 1024 } } },
    });
    const answer = await rawRequest(
      h.url,
      postHead({ 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', ...looksSigned() }),
      Buffer.concat([Buffer.from(`${(100 * 1024).toString(16)}\r\n`), Buffer.alloc(100 * 1024, 0x20)]),
    );
    answer.socket.destroy();
    expect(answer.status).toBe(503);
    expect(answer.text.toLowerCase()).toContain('retry-after: 1');

    // The budget was given back: a signed command within it goes through.
    const ok = await h.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'after-budget' });
    expect(ok.status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'after-budget'));
  });

  it('gives each client its share: behind a trusted proxy by X-Forwarded-For, else by its own address', async () => {
    const slack = { unverifiedBytes: 4 * MB, smallReserveBytes: MB, perClientBytes: 256 * 1024, bodyReadMs: 10_000 };
    /** Holds 200 KB of a forged body from `client`, then tries 100 KB more until that is refused for want of room. */
    const fillShare = async (h: Harness, client: string) => {
      const held = await openStalledBody(h.url, { 'X-Forwarded-For': client, ...looksSigned() }, 200 * 1024);
      const tries: number[] = [];
      await waitFor(
        async () => {
          const more = await rawRequest(
            h.url,
            postHead({
              'Content-Type': 'application/json',
              'Content-Length': String(100 * 1024),
              ...looksSigned(),
              'X-Forwarded-For': client,
            }),
            Buffer.alloc(100 * 1024, 0x20),
          );
          more.socket.destroy();
          tries.push(more.status);
          return more.status === 503;
        },
        () => `the share of ${client} to fill (answers so far: ${tries.join(', ')})`,
      );
      return held;
    };
    // A signed body too large for the small reserve (a big modal submission): it needs room in its client's share.
    const challenge = JSON.stringify({ type: 'url_verification', challenge: 'c'.repeat(100 * 1024) });
    const genuine = (h: Harness, client: string) => h.signer.raw(challenge, { 'X-Forwarded-For': client });

    const proxied = await start({ env: { TRUSTED_PROXIES: '127.0.0.1' }, bot: { requestLimits: { slack } } });
    const held = await fillShare(proxied, '203.0.113.7');
    expect((await genuine(proxied, '198.51.100.9')).status).toBe(200);
    expect((await genuine(proxied, '203.0.113.7')).status).toBe(503);
    held.destroy();
    // An IPv6 client is its /64: another address of the prefix shares the share, another prefix has its own.
    const held6 = await fillShare(proxied, '2001:db8:1:2::7');
    expect((await genuine(proxied, '2001:db8:1:2:ffff::1')).status).toBe(503);
    expect((await genuine(proxied, '2001:db8:1:3::7')).status).toBe(200);
    held6.destroy();

    // Not behind a trusted proxy: the header is the client's own writing, and a new one buys no new share.
    const direct = await start({ bot: { requestLimits: { slack } } });
    const heldDirect = await fillShare(direct, '203.0.113.7');
    expect((await genuine(direct, '198.51.100.9')).status).toBe(503);
    heldDirect.destroy();
    // Slack's small requests still have the reserve.
    const command = await direct.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'share-full' });
    expect(command.status).toBe(200);
  });

  it("still answers Slack's unsigned SSL check, and still verifies what it lets through", async () => {
    const h = await start();
    expect((await h.signer.sslCheck()).status).toBe(200);
    // Well-formed headers and a fresh timestamp, but not Slack's signature: read, then refused by Bolt.
    const forged = await h.signer.raw('text=help', {}, { signature: `v0=${randomBytes(32).toString('hex')}` });
    expect(forged.status).toBe(401);
    expect(slackCalls(h)).toHaveLength(0);
  });
});

describe('a signed Slack request is good once', () => {
  it('a replayed `/campaign digest now` posts once, whichever replica the copy reaches', async () => {
    const keyPrefix = `${redis.prefix}replay:`;
    const env = { SECRETS_KEY: randomBytes(32).toString('base64') };
    const a = await start({ redisUrl: redis.url, keyPrefix, env });
    const b = await start({ redisUrl: redis.url, keyPrefix, env, fakes: { slack: a.slack, platform: a.platform } });
    const channel = 'C0REPLAY01';
    const digests = () => a.slack.messages(channel).filter((m) => m.text.includes('digest for'));

    const first = await a.signer.command({
      text: 'digest now',
      userId: ADMIN_ID,
      channelId: channel,
      responseUrlId: 'dn',
    });
    expect(first.status).toBe(200);
    await a.slack.waitFor(() => a.slack.responses.find((r) => r.id === 'dn'));
    await a.slack.waitFor(() => digests()[0]); // posted from the channel's outbox
    const platformCalls = a.platform.requests.length;

    // The same bytes, to each replica: acknowledged, and nothing done.
    for (const [h, replica] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      const again = await h.signer.raw(first.sent.body, first.sent.headers);
      expect(again.status).toBe(200);
      await h.slack.waitFor(() => h.logs().includes('came again with the same signature'));
      expect({ replica, digests: digests().length }).toEqual({ replica, digests: 1 });
    }
    expect(a.slack.responses.filter((r) => r.id === 'dn')).toHaveLength(1);
    expect(a.platform.requests).toHaveLength(platformCalls);
    // One mark for the command (the card's own `message_metadata_posted` event has its own).
    const marks = await redis.keys(`*slack-signature:${first.sent.headers['X-Slack-Signature']}`);
    expect(marks).toHaveLength(1);
    // Kept about as long as the timestamp is acceptable (5 minutes, and a margin for replicas' clocks).
    const ttl = await redis.redis.pttl(marks[0]!);
    expect(ttl).toBeGreaterThan(4 * 60_000);
    expect(ttl).toBeLessThanOrEqual(6 * 60_000);
  });

  it("handles Slack's retry of an event: the same body, signed anew, is not a replay", async () => {
    const h = await start({ redisUrl: redis.url, keyPrefix: `${redis.prefix}retry:` });
    const opened = { type: 'app_home_opened', user: MEMBER_ID, tab: 'home', channel: 'D0HOME0001' };
    const first = await h.signer.event(opened, { eventId: 'Ev0RETRY0001' });
    expect(first.status).toBe(200);
    await h.slack.waitFor(() => h.slack.callsTo('views.publish').length === 1);

    const replay = await h.signer.raw(first.sent.body, first.sent.headers);
    expect(replay.status).toBe(200);
    await h.slack.waitFor(() => h.logs().includes('came again with the same signature'));

    // Slack signs each delivery when it sends it: a retry a second later has a signature of its own.
    const ts = Number(first.sent.headers['X-Slack-Request-Timestamp']) + 1;
    const retry = await h.signer.raw(
      first.sent.body,
      { 'X-Slack-Retry-Num': '1', 'X-Slack-Retry-Reason': 'http_timeout' },
      { timestamp: ts, contentType: 'application/json' },
    );
    expect(retry.status).toBe(200);
    await h.slack.waitFor(() => h.slack.callsTo('views.publish').length === 2);
    expect(h.slack.callsTo('views.publish').every((c) => c.response.ok)).toBe(true);
    expect(retry.sent.headers['X-Slack-Signature']).not.toBe(first.sent.headers['X-Slack-Signature']);
    expect(retry.sent.headers['X-Slack-Signature']).toBe(slackSignature(SIGNING_SECRET, ts, first.sent.body));
  });
});

describe('the server on PORT', () => {
  it('has a connection cap, header and request timeouts, and a keep-alive shorter than the header timeout', async () => {
    const h = await start();
    const s = h.server;
    expect(s.maxConnections).toBeGreaterThanOrEqual(500);
    expect(s.maxConnections).toBeLessThanOrEqual(5_000);
    expect(s.headersTimeout).toBeLessThanOrEqual(10_000);
    expect(s.requestTimeout).toBeLessThanOrEqual(30_000);
    expect(s.keepAliveTimeout).toBeLessThan(s.headersTimeout);
    expect(Reflect.get(s, 'connectionsCheckingInterval')).toBeLessThanOrEqual(1_000);
  });

  it('answers 408 and closes a connection that never finishes its headers, or its body', async () => {
    const h = await start({
      bot: { requestLimits: { http: { headersTimeoutMs: 300, requestTimeoutMs: 600, checkEveryMs: 50 } } },
    });
    const headers = await rawRequest(h.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1');
    expect(headers.status).toBe(408);
    const body = await rawRequest(
      h.url,
      postHead({ 'Content-Type': 'application/json', 'Content-Length': '100', ...looksSigned() }),
      Buffer.from('{"a":'),
    );
    expect(body.status).toBe(408);
    await new Promise((resolve) => body.socket.once('close', resolve));
  });

  it('drops a body that arrives too slowly, on /slack/events (signed or not) and on any other route', async () => {
    const h = await start({
      bot: { requestLimits: { slack: { bodyReadMs: 300 }, http: { bodyTimeoutMs: 300 } } },
    });
    const hook = await routeTo(h, [{ campaignId: '*', triggerName: 'call_completed', channelId: 'C0SLOWBODY' }]);
    const heads = [
      // Slack's SSL check is an unsigned form this small: it goes on to be read, within the same time.
      postHead({ 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '200' }),
      postHead({ 'Content-Type': 'application/json', 'Content-Length': '200', ...looksSigned() }),
      postHead({ 'Content-Type': 'application/json', 'Content-Length': '200' }, new URL(hook).pathname),
    ];
    for (const head of heads) {
      const began = Date.now();
      const answer = await rawRequest(h.url, head, Buffer.from('s'));
      await new Promise((resolve) => answer.socket.once('close', resolve));
      expect(answer.status).toBe(408);
      // Its own time, not Node's request timeout (30 s, looked at once a second).
      expect(Date.now() - began).toBeLessThan(3_000);
    }
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  });

  it('under the connection cap, drops the oldest slow bodies to let /healthz and a command in', async () => {
    const h = await start({ bot: { requestLimits: { http: { maxConnections: 8 } } } });
    const { port } = new URL(h.url);
    // `Expect: 100-continue`: the server's "100 Continue" says it has taken the request in (no longer silent).
    const head = postHead({
      'Content-Type': 'application/x-www-form-urlencoded',
      'Content-Length': '200',
      Expect: '100-continue',
    });
    const closedAt: number[] = [];
    const trickling: Socket[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => closedAt.push(i));
        trickling.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(`${head}\r\n`);
        await new Promise((resolve) => socket.once('data', resolve));
        // A first byte of its body, then nothing: a request under way, its body trickling.
        socket.write('s');
      }
      const health = await fetch(`${h.url}/healthz`);
      expect(health.status).toBe(200);
      const command = await h.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'slow-crowd' });
      expect(command.status).toBe(200);
      await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'slow-crowd'));
      await h.slack.waitFor(() => closedAt.length >= 12 - 7);
      // The oldest went first.
      expect(closedAt.slice(0, 3)).toEqual([0, 1, 2]);
    } finally {
      for (const s of trickling) s.destroy();
    }
  });

  it('under the connection cap, closes the oldest connection idle on keep-alive after its answer first', async () => {
    const h = await start({ bot: { requestLimits: { http: { maxConnections: 8 } } } });
    const { port } = new URL(h.url);
    const closedAt: string[] = [];
    const sockets: Socket[] = [];
    try {
      // 8 clients each asked /healthz once and keep their connection open: the cap is reached by idle ones.
      for (let i = 0; i < 8; i++) {
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => closedAt.push(`idle ${i}`));
        sockets.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        await new Promise((resolve) => socket.once('data', resolve));
      }
      // Then 2 that never send a request: the idle ones give way first, the silent ones stay.
      for (let i = 0; i < 2; i++) {
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => closedAt.push(`silent ${i}`));
        sockets.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
      }
      expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
      const command = await h.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'idle-crowd' });
      expect(command.status).toBe(200);
      await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'idle-crowd'));
      await h.slack.waitFor(() => closedAt.length >= 3);
      expect(closedAt.slice(0, 3)).toEqual(['idle 0', 'idle 1', 'idle 2']);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  it('sockets that never send a request cannot keep /healthz or a command out', async () => {
    const h = await start({ bot: { requestLimits: { http: { maxConnections: 8 } } } });
    const { port } = new URL(h.url);
    let closed = 0;
    const silent: Socket[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => closed++);
        silent.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
      }
      const health = await fetch(`${h.url}/healthz`);
      expect(health.status).toBe(200);
      const command = await h.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'crowded' });
      expect(command.status).toBe(200);
      await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'crowded'));
      // The oldest silent ones made room: at most the cap less its room stayed open.
      await h.slack.waitFor(() => closed >= 12 - 7);
    } finally {
      for (const s of silent) s.destroy();
    }
  });
});
