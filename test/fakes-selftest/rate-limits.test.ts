/**
 * The stand-in pushes back like Slack by default (fakes/slack/rate-limits.ts): chat.postMessage takes a burst
 * of 4 per channel and then 1 a second; Tier 3 methods (chat.update, chat.delete, reactions.add,
 * reactions.remove) take 10 in a burst and then 50 a minute, per workspace and method; users.list (Tier 2) 5
 * then 20 a minute, users.info and conversations.members (Tier 4) 20 then 100 a minute. Beyond that: HTTP 429,
 * `Retry-After` in whole seconds and `{ok:false,error:'ratelimited'}`, reported by the refusal check unless
 * declared. https://docs.slack.dev/apis/web-api/rate-limits
 *
 * Waits here are the Retry-After the stand-in answered, never a guess.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, LogLevel, WebClient, type WebAPIRateLimitedError } from '@slack/web-api';
import { addCompany } from '../../fakes/slack/company.js';
import { TokenBucket } from '../../fakes/slack/rate-limits.js';
import { liveRefusalLedgers } from '../../fakes/slack/refusals.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

const CHANNEL = 'C0BURST0001';
const OTHER_CHANNEL = 'C0QUIET0001';

let fake: FakeSlack;
let client: WebClient;

/** A client that hands a 429 back instead of waiting it out, and never retries. */
function strictClient(token: string, apiUrl: string): WebClient {
  return new WebClient(token, {
    slackApiUrl: apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
}

/** The Retry-After (seconds) of a call the stand-in refused with a 429; fails when it was not refused. */
async function refusedFor(call: Promise<unknown>): Promise<number> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIRateLimitedError | undefined;
  expect(err?.code).toBe(ErrorCode.RateLimitedError);
  return err!.retryAfter;
}

const post = (text: string, channel = CHANNEL, c = client) => c.chat.postMessage({ channel, text });

/** The limits' clock: a test moves it past a Retry-After instead of waiting it out. */
let now = Date.now();

beforeAll(async () => {
  fake = await startFakeSlack({ teamId: 'T0LIMITS001', rateLimitClock: () => now });
  client = strictClient(fake.botToken, fake.apiUrl);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('chat.postMessage: a burst of 4 per channel, then 1 a second', () => {
  it('takes 4 posts at once, refuses the 5th with 429 + Retry-After; another channel is unaffected; after the Retry-After the channel takes posts again', async () => {
    for (let i = 1; i <= 4; i++) expect((await post(`burst ${i}`)).ok).toBe(true);

    fake.expectRefusal('chat.postMessage', 'ratelimited');
    const retryAfter = await refusedFor(post('one too many'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(1); // one post a second: a token is never more than a second away
    const refused = fake.callsTo('chat.postMessage').at(-1)!;
    expect(refused.status).toBe(429);
    expect(refused.response).toEqual({ ok: false, error: 'ratelimited' });
    expect(refused.injected).toBeUndefined();
    expect(fake.messages(CHANNEL).map((m) => m.text)).toEqual(['burst 1', 'burst 2', 'burst 3', 'burst 4']);

    expect((await post('elsewhere', OTHER_CHANNEL)).ok).toBe(true);

    now += retryAfter * 1000;
    expect((await post('after waiting')).ok).toBe(true);
    expect(fake.messages(CHANNEL)).toHaveLength(5);
  });

  it('answers Retry-After as a raw HTTP 429 with the header in whole seconds', async () => {
    const raw = () =>
      fetch(`${fake.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.botToken}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ channel: CHANNEL, text: 'raw' }),
      });
    for (let i = 0; i < 4; i++) expect((await raw()).status).toBe(200);
    fake.expectRefusal('chat.postMessage', 'ratelimited');
    const res = await raw();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await res.json()).toEqual({ ok: false, error: 'ratelimited' });
  });

  it('counts per workspace: the same channel id in another workspace has its own bucket', async () => {
    const grant = fake.oauthCode({ teamId: 'T0LIMITS002', teamName: 'Other Workspace' });
    const exchange = new WebClient(undefined, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR });
    await exchange.oauth.v2.access({ client_id: 'id', client_secret: 'secret', code: grant.code });
    const other = strictClient(grant.botToken, fake.apiUrl);

    for (let i = 1; i <= 4; i++) await post(`burst ${i}`);
    expect((await post('other workspace', CHANNEL, other)).ok).toBe(true);
    fake.expectRefusal('chat.postMessage', 'ratelimited');
    await refusedFor(post('one too many'));
  });

  it('a refusal nobody declared is reported by the after-each check (it is not an injected fault)', async () => {
    for (let i = 1; i <= 4; i++) await post(`burst ${i}`);
    await refusedFor(post('one too many'));
    const reported = [...liveRefusalLedgers()].flatMap((ledger) => ledger.takeUnexpected());
    expect(reported).toEqual(['chat.postMessage → ratelimited']);
  });
});

describe('Tier 3 methods: 10 in a burst, then 50 a minute, per workspace and method', () => {
  it('refuses the 11th chat.update of a burst; reactions.add has its own bucket; after the Retry-After chat.update goes through again', async () => {
    const { ts } = await post('to be edited');
    for (let i = 1; i <= 10; i++) {
      expect((await client.chat.update({ channel: CHANNEL, ts: ts!, text: `edit ${i}` })).ok).toBe(true);
    }
    fake.expectRefusal('chat.update', 'ratelimited');
    const retryAfter = await refusedFor(client.chat.update({ channel: CHANNEL, ts: ts!, text: 'edit 11' }));
    // 50 a minute: the next token is 1.2 s away.
    expect(retryAfter).toBe(2);
    expect(fake.message(CHANNEL, ts!)?.text).toBe('edit 10');

    expect((await client.reactions.add({ channel: CHANNEL, timestamp: ts!, name: 'eyes' })).ok).toBe(true);

    now += retryAfter * 1000;
    expect((await client.chat.update({ channel: CHANNEL, ts: ts!, text: 'edit 12' })).ok).toBe(true);
  });

  it('chat.delete, reactions.add and reactions.remove are limited too', async () => {
    const messages: string[] = [];
    for (let i = 0; i < 4; i++) messages.push((await post(`m${i}`, `C0TIER3000${i}`)).ts!);
    const at = (i: number) => ({ channel: `C0TIER3000${i % 4}`, timestamp: messages[i % 4]! });
    for (let i = 0; i < 10; i++) await client.reactions.add({ ...at(i), name: `emoji${i}` });
    for (let i = 0; i < 10; i++) await client.reactions.remove({ ...at(i), name: `emoji${i}` });
    fake.expectRefusal('reactions.add', 'ratelimited');
    fake.expectRefusal('reactions.remove', 'ratelimited');
    await refusedFor(client.reactions.add({ ...at(0), name: 'one_too_many' }));
    await refusedFor(client.reactions.remove({ ...at(0), name: 'emoji0' }));

    fake.expectRefusal('chat.delete', 'ratelimited');
    for (let i = 0; i < 10; i++) {
      const { ts } = await post(`doomed ${i}`, `C0DOOMED00${i}`);
      expect((await client.chat.delete({ channel: `C0DOOMED00${i}`, ts: ts! })).ok).toBe(true);
    }
    const { ts } = await post('survivor', 'C0DOOMED0A');
    await refusedFor(client.chat.delete({ channel: 'C0DOOMED0A', ts: ts! }));
    expect(fake.message('C0DOOMED0A', ts!)?.text).toBe('survivor');
  });
});

describe('who is who at a company’s size: users.list Tier 2, users.info and conversations.members Tier 4', () => {
  it('pages 3,000 people at most 1,000 at a time, takes 5 users.list in a burst, then one every 3 s', async () => {
    addCompany(fake, { channel: 'C0COMPANY01', people: 3_000, prefix: 'ST' });
    const ids = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.users.list({ limit: 5_000, ...(cursor ? { cursor } : {}) });
      pages++;
      expect(page.members!.length).toBeLessThanOrEqual(1_000);
      for (const m of page.members!) ids.add(m.id!);
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    expect(pages).toBe(4); // 3,000 people, the bot and whoever the stand-in knew already
    expect(ids.size).toBeGreaterThan(3_000);
    await client.users.list({ limit: 1 });
    fake.expectRefusal('users.list', 'ratelimited');
    // 20 a minute: the next one is 3 s away.
    const retryAfter = await refusedFor(client.users.list({ limit: 1 }));
    expect(retryAfter).toBe(3);
    now += retryAfter * 1000;
    expect((await client.users.list({ limit: 1 })).ok).toBe(true);
  });

  it('takes 20 users.info in a burst and refuses the 21st; conversations.members pages at most 999 and has its own bucket', async () => {
    const people = addCompany(fake, { channel: 'C0COMPANY02', people: 1_200, prefix: 'SU' });
    for (let i = 0; i < 20; i++) expect((await client.users.info({ user: people[i]! })).ok).toBe(true);
    fake.expectRefusal('users.info', 'ratelimited');
    expect(await refusedFor(client.users.info({ user: people[20]! }))).toBe(1);
    const first = await client.conversations.members({ channel: 'C0COMPANY02', limit: 1_000 });
    expect(first.members).toHaveLength(999);
    const rest = await client.conversations.members({
      channel: 'C0COMPANY02',
      limit: 1_000,
      cursor: first.response_metadata!.next_cursor!,
    });
    expect(rest.members).toHaveLength(1_201 - 999);
    expect(rest.response_metadata?.next_cursor).toBe('');
  });
});

describe('opting out, and other numbers', () => {
  it('unlimitedBecause: no default limits at all', async () => {
    const free = await startFakeSlack({ unlimitedBecause: 'selftest of the opt-out itself' });
    try {
      const c = strictClient(free.botToken, free.apiUrl);
      const { ts } = await c.chat.postMessage({ channel: CHANNEL, text: 'first' });
      for (let i = 0; i < 20; i++) await c.chat.postMessage({ channel: CHANNEL, text: `post ${i}` });
      for (let i = 0; i < 20; i++) await c.chat.update({ channel: CHANNEL, ts: ts!, text: `edit ${i}` });
      expect(free.calls.every((call) => call.status === 200 && call.response.ok === true)).toBe(true);
    } finally {
      await free.close();
    }
  });

  it('unlimitedBecause must give a reason', async () => {
    await expect(startFakeSlack({ unlimitedBecause: ' ' })).rejects.toThrow(/must say why/);
  });

  it('rateLimits: other numbers for a test that needs them', async () => {
    const tight = await startFakeSlack({ rateLimits: { postPerChannel: { capacity: 1 }, tier3: { capacity: 2 } } });
    try {
      const c = strictClient(tight.botToken, tight.apiUrl);
      const { ts } = await c.chat.postMessage({ channel: CHANNEL, text: 'one' });
      tight.expectRefusal('chat.postMessage', 'ratelimited');
      expect(await refusedFor(c.chat.postMessage({ channel: CHANNEL, text: 'two' }))).toBe(1);
      await c.chat.update({ channel: CHANNEL, ts: ts!, text: 'edit 1' });
      await c.chat.update({ channel: CHANNEL, ts: ts!, text: 'edit 2' });
      tight.expectRefusal('chat.update', 'ratelimited');
      await refusedFor(c.chat.update({ channel: CHANNEL, ts: ts!, text: 'edit 3' }));
    } finally {
      await tight.close();
    }
    await expect(startFakeSlack({ rateLimits: { tier3: { perMinute: 0 } } })).rejects.toThrow(/positive/);
  });
});

describe('the token bucket', () => {
  it('refills continuously up to its capacity and answers whole seconds, rounded up, until the next token', () => {
    let now = 1_000_000;
    const bucket = new TokenBucket(2, 1 / 1000, () => now);
    expect(bucket.take()).toBeUndefined();
    expect(bucket.take()).toBeUndefined();
    expect(bucket.take()).toBe(1);
    now += 999;
    expect(bucket.take()).toBe(1); // 1 ms short of a token
    now += 1;
    expect(bucket.take()).toBeUndefined();
    now += 60_000; // long idle: back to 2, not 60
    expect(bucket.take()).toBeUndefined();
    expect(bucket.take()).toBeUndefined();
    expect(bucket.take()).toBe(1);

    const slow = new TokenBucket(1, 50 / 60_000, () => now);
    expect(slow.take()).toBeUndefined();
    expect(slow.take()).toBe(2); // 1.2 s away
    now += 1100;
    expect(slow.take()).toBe(1); // 0.1 s away
  });
});
