/**
 * `POST /hooks/<token>` against real Redis: what the platform gets back for every kind of delivery, and what
 * is (or is not) stored and posted.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEAM_ID, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { CALL_COMPLETED_FULL, CALL_STARTED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, routeTo, startEventsHarness } from './support.js';

const redis = await requireRedis();
const CHANNEL = 'C0CALLS001';

let h: Harness;
let hook: string;
let prefix: string;
let n = 0;

beforeAll(async () => {
  prefix = `${redis.prefix}intake:`;
  h = await startEventsHarness({ redisUrl: redis.url, keyPrefix: prefix });
  hook = await routeTo(h, [
    { campaignId: 'camp-1', triggerName: 'call_completed', channelId: CHANNEL },
    { campaignId: 'camp-1', triggerName: 'call_started', channelId: CHANNEL },
  ]);
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  // What an earlier test queued is posted (at Slack's pace) before this one starts counting calls.
  await queueDrained(h);
  h.slack.reset();
});

/** A call_started with a fresh call id (so dedup never hides it). */
const callStarted = (extra: Record<string, unknown> = {}) => ({
  ...CALL_STARTED_FULL,
  callId: `call-${++n}-${Date.now()}`,
  ...extra,
});

/**
 * What is stored. A posting lease (held a moment while a replica looks at a channel) and a Slack rate budget (gone
 * once its bucket is full again, whenever an earlier post's refill ends) are not data.
 */
async function storedKeys(): Promise<string[]> {
  return (await redis.redis.keys(`${prefix}*`))
    .filter((key) => !key.includes(':outbox-lease:') && !key.includes(':rate-budget:'))
    .sort();
}

describe('who may deliver', () => {
  it('answers 404 for an unknown or malformed token and writes nothing', async () => {
    const before = await storedKeys();
    for (const token of [randomBytes(32).toString('base64url'), 'short', '..%2F..']) {
      const res = await deliver(`${h.url}/hooks/${token}`, [callStarted()]);
      // An encoded traversal is refused (400) before any route looks for a token.
      expect(res.status).toBe(token.includes('%2F') ? 400 : 404);
    }
    await queueDrained(h);
    expect(await storedKeys()).toEqual(before);
    expect(h.slack.calls).toHaveLength(0);
  });

  it('answers 405 to anything but POST, without logging the token', async () => {
    const res = await fetch(hook);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(h.logs()).not.toContain(hook.split('/').at(-1));
  });

  it('answers 404 to a replaced token from the next delivery on, though it delivered a moment before', async () => {
    expect((await deliver(hook, [callStarted()])).status).toBe(200);
    // Replaced with no grace period, as any replica's store may do it: this process is not told.
    const { token } = await h.bot.deps.store.workspaces.rotateHookToken(TEAM_ID, 0);
    const replaced = hook;
    hook = `${h.url}/hooks/${token}`;
    expect((await deliver(replaced, [callStarted()])).status).toBe(404);
    expect((await deliver(hook, [callStarted()])).status).toBe(200);
  });
});

describe('what a delivery may be', () => {
  it('accepts the spec’s shape (an array with one event) and a bare object', async () => {
    const a = await deliver(hook, [callStarted()]);
    expect(a.status).toBe(200);
    expect(await a.json()).toEqual({ ok: true, queued: 1, duplicates: 0 });
    const b = await deliver(hook, callStarted());
    expect(b.status).toBe(200);
    await h.slack.waitFor(() => posts(h, CHANNEL).length === 2);
  });

  it('answers 413 past 256 KB (declared length), and accepts exactly 256 KB', async () => {
    const event = JSON.stringify([callStarted()]);
    const exact = event + ' '.repeat(256 * 1024 - Buffer.byteLength(event));
    expect((await deliver(hook, exact)).status).toBe(200);
    const over = await deliver(hook, `${exact} `);
    expect(over.status).toBe(413);
  });

  it('stops reading a streamed (chunked) body at the limit', async () => {
    const url = new URL(hook);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const { status, written } = await new Promise<{ status: number; written: number }>((resolve, reject) => {
      let written = 0;
      let stop = false;
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          stop = true;
          res.resume();
          resolve({ status: res.statusCode ?? 0, written });
        },
      );
      req.on('error', (err) => (stop ? undefined : reject(err)));
      const pump = () => {
        while (!stop && written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!stop) req.end();
      };
      req.write('[');
      pump();
    });
    expect(status).toBe(413);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('answers 400 to a body that is not JSON', async () => {
    for (const body of ['not json', '[{"callId":', '']) {
      const res = await deliver(hook, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_json' });
    }
  });

  it('answers 400 to JSON of the wrong shape', async () => {
    const wrong = [
      '"hello"',
      '42',
      'null',
      '[]',
      '[1]',
      '[{}]',
      JSON.stringify([{ campaignId: 'camp-1', callId: 42 }]),
      JSON.stringify([{ ...CALL_COMPLETED_FULL, callId: 'call-x', durationMs: 'two minutes' }]),
      JSON.stringify([{ triggerName: 7, campaignId: 'camp-1' }]),
      `[{"campaignId":"camp-1","callId":"deep","x":${'['.repeat(40)}${']'.repeat(40)}}]`,
    ];
    for (const body of wrong) {
      const res = await deliver(hook, body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toMatchObject({ ok: false });
    }
    await queueDrained(h);
    expect(h.slack.calls).toHaveLength(0);
  });

  it('drops __proto__ keys: nothing is polluted and the event is still posted', async () => {
    const callId = `call-proto-${Date.now()}`;
    const body = `[{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"campaignId":"camp-1","callId":"${callId}","customerName":"Ada","extra":{"__proto__":{"polluted":"yes"}},"more":{"\\u005f_proto__":{"polluted":"yes"}}}]`;
    const res = await deliver(hook, body);
    expect(res.status).toBe(200);
    const post = await h.slack.waitFor(() => posts(h, CHANNEL).find((m) => JSON.stringify(m.blocks).includes('Ada')));
    expect(post).toBeDefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('refuses an event of a trigger the app does not know with 422 naming it, never the payload, and stores nothing', async () => {
    await queueDrained(h);
    const before = await storedKeys();
    const secret = 'customer-text-that-must-not-come-back';
    const res = await deliver(hook, [
      { triggerName: 'call_transferred', campaignId: 'camp-1', callId: 'call-tr-1', transferTo: secret },
    ]);
    expect(res.status).toBe(422);
    const body = await res.text();
    expect(JSON.parse(body)).toMatchObject({ ok: false, error: 'unknown_trigger' });
    expect(body).toContain('unknown trigger \\"call_transferred\\"');
    expect(body).toContain('call_completed');
    expect(body).not.toContain(secret);
    // Fields that name no event the app takes, and no triggerName: refused the same way.
    const shapeless = await deliver(hook, { campaignId: 'camp-1', transferTo: secret });
    expect(shapeless.status).toBe(422);
    expect(await shapeless.json()).toMatchObject({
      error: 'unknown_trigger',
      problem: expect.stringContaining('no triggerName'),
    });
    expect(await storedKeys()).toEqual(before);
    expect(h.logs()).toContain('webhook body refused: 422');
    expect(h.logs()).not.toContain(secret);
  });

  it('refuses a body whose events include one of an unknown trigger whole, with 422 naming that event: the known one is queued only when sent again alone', async () => {
    await queueDrained(h);
    const before = await storedKeys();
    const known = callStarted({ customerName: 'Whole Or Nothing' });
    const res = await deliver(hook, [known, { triggerName: 'call_transferred', callId: 'call-tr-2' }]);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      error: 'unknown_trigger',
      problem: expect.stringMatching(/^event 1: unknown trigger "call_transferred"/),
    });
    await queueDrained(h);
    expect(await storedKeys()).toEqual(before);
    expect(posts(h, CHANNEL)).toHaveLength(0);

    // The platform's retry of the known event alone is taken and posted once.
    const again = await deliver(hook, [known]);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, queued: 1, duplicates: 0 });
    await h.slack.waitFor(() => posts(h, CHANNEL).find((m) => JSON.stringify(m.blocks).includes('Whole Or Nothing')));
  });
});

describe('exactly once', () => {
  it('posts one card for 20 concurrent copies of one event', async () => {
    const event = {
      ...CALL_COMPLETED_FULL,
      callId: `call-dup-${Date.now()}`,
      customerName: 'Dup Licate',
      callTranscript: '',
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        deliver(hook, [event]).then(async (r) => ({ status: r.status, body: (await r.json()) as { queued: number } })),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.reduce((sum, a) => sum + a.body.queued, 0)).toBe(1);
    await h.slack.waitFor(() => posts(h, CHANNEL).length === 1);
    await queueDrained(h);
    expect(posts(h, CHANNEL)).toHaveLength(1);
    // A redelivery later is still a duplicate.
    expect(await (await deliver(hook, [event])).json()).toMatchObject({ queued: 0, duplicates: 1 });
  });

  it('keys call events by trigger + callId: a call’s start and end are two posts', async () => {
    const callId = `call-pair-${Date.now()}`;
    await deliver(hook, [{ ...CALL_STARTED_FULL, callId }]);
    await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId, callTranscript: '' }]);
    await h.slack.waitFor(() => posts(h, CHANNEL).length === 2);
    expect(posts(h, CHANNEL).map((m) => m.text.split(' ').slice(0, 2).join(' '))).toEqual([
      'Call started',
      'Call completed',
    ]);
  });
});

describe('when it cannot queue', () => {
  it('answers 503 while shutting down', async () => {
    h.bot.deps.lifecycle.stopping = true;
    try {
      expect((await deliver(hook, [callStarted()])).status).toBe(503);
    } finally {
      h.bot.deps.lifecycle.stopping = false;
    }
  });

  it('answers 503 — never 2xx — when the queue refuses', async () => {
    const memory = await startEventsHarness();
    try {
      const url = await routeTo(memory, [{ campaignId: 'camp-1', triggerName: 'call_started', channelId: CHANNEL }]);
      await memory.bot.deps.store.queue.close();
      const res = await deliver(url, [callStarted()]);
      expect(res.status).toBe(503);
    } finally {
      await memory.close();
    }
  });
});
