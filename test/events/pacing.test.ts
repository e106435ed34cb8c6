/**
 * Posting at Slack's pace, seen from Slack: a burst of calls into one channel comes out as cards while the
 * channel keeps up and as roll-ups once it falls behind — every call shown once, none refused; a customer
 * writing into the same channel is not queued behind the calls; two replicas on one Redis share each channel's
 * budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import { TEAM_ID, type Harness, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { CALL_COMPLETED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { FAST_WORKER, deliver, posts, queueDrained, routeTo, run, startEventsHarness } from './support.js';

const redis = await requireRedis();
let n = 0;
const uid = () => `${Date.now().toString(36)}${++n}`;

/** Every call id a top-level post or thread reply in `channel` shows, with how often. */
function callsShown(h: Harness, channel: string, ids: readonly string[]): Map<string, number> {
  const shown = new Map<string, number>();
  for (const m of posts(h, channel)) {
    const json = JSON.stringify(m.blocks ?? []);
    for (const id of ids) if (json.includes(`\`${id}\``)) shown.set(id, (shown.get(id) ?? 0) + 1);
  }
  return shown;
}

const isRollup = (m: SlackMessage) => /^\d+ calls \(/.test(m.text);

describe.each(['memory', 'redis'] as const)('calls at Slack’s pace (%s)', (mode) => {
  const h = useHarness(
    () =>
      startEventsHarness({
        ...(mode === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}pacing:${mode}:` } : {}),
        // Roll up once the oldest waiting call is 300 ms old: what a busy afternoon does in seconds, sooner.
        bot: { events: { worker: FAST_WORKER, calls: { rollupAfterMs: 300 }, delivery: { scanMs: 50 } } },
      }),
    ['slack'],
  );

  it('shows a burst of 25 calls once each, as cards and then roll-ups, with their transcripts, and Slack refuses none', async () => {
    const channel = 'C0BURST001';
    const hook = await routeTo(h, [{ campaignId: '*', triggerName: 'call_completed', channelId: channel }]);
    const ids = Array.from({ length: 25 }, () => `call-${uid()}`);
    for (const callId of ids)
      expect(
        (await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId, customerName: `Customer ${callId}` }])).status,
      ).toBe(200);
    await queueDrained(h, 15_000);

    const shown = callsShown(h, channel, ids);
    expect([...shown.keys()].sort()).toEqual([...ids].sort());
    expect([...shown.values()].every((count) => count === 1)).toBe(true);
    // The channel could not keep up with 25 calls at once: most of them came out rolled up.
    const rollups = posts(h, channel).filter(isRollup);
    expect(rollups.length).toBeGreaterThan(0);
    expect(posts(h, channel).length).toBeLessThan(ids.length);
    // Each roll-up's transcripts are in its thread.
    for (const rollup of rollups) {
      const replies = h.slack.thread(channel, rollup.ts).slice(1);
      expect(replies.map((m) => m.text)).toEqual(['Call transcripts']);
    }
    // Every post Slack got for the channel, it accepted (the stand-in enforces Slack's per-channel limit).
    const refused = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel && c.status !== 200);
    expect(refused).toEqual([]);
  });
  it('gives a hot lead its own card with its mention, in its turn, while the calls around it are rolled up', async () => {
    const channel = 'C0HOTBURST';
    // Every call of every campaign here, and camp-1's interested customers mentioning the sales group.
    await run(h, 'subscribe * call_completed', { channelId: channel });
    await run(h, 'subscribe camp-1 call_completed summary:interested notify:<!subteam^S0SALES01|@sales>', {
      channelId: channel,
    });
    const hook = await routeTo(h, []);
    const ids = Array.from({ length: 12 }, () => `call-${uid()}`);
    const hotId = ids[6]!;
    for (const callId of ids) {
      const callSummary = callId === hotId ? 'Very interested, wants a quote.' : 'Could not be reached.';
      expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId, callTranscript: '', callSummary }])).status).toBe(
        200,
      );
    }
    await queueDrained(h, 15_000);

    const shown = callsShown(h, channel, ids);
    expect([...shown.keys()].sort()).toEqual([...ids].sort());
    expect([...shown.values()].every((count) => count === 1)).toBe(true);
    const rollups = posts(h, channel).filter(isRollup);
    expect(rollups.length).toBeGreaterThan(0);
    expect(rollups.some((m) => JSON.stringify(m.blocks).includes(hotId))).toBe(false);
    const mentioned = posts(h, channel).filter((m) => m.text.startsWith('<!subteam^S0SALES01> 🔥 Hot lead:'));
    expect(mentioned).toHaveLength(1);
    expect(JSON.stringify(mentioned[0]!.blocks)).toContain(`\`${hotId}\``);
  });

  it('never rolls up the calls of a channel subscribed with compact:off: they come one by one, and lag', async () => {
    const channel = 'C0NOROLLUP';
    const { text } = await run(h, 'subscribe * call_completed compact:off', { channelId: channel });
    expect(text).toContain('`compact:off`');
    const hook = await routeTo(h, []);
    const ids = Array.from({ length: 8 }, () => `call-${uid()}`);
    for (const callId of ids)
      expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId, callTranscript: '' }])).status).toBe(200);
    await queueDrained(h, 15_000);
    const shown = callsShown(h, channel, ids);
    expect([...shown.keys()].sort()).toEqual([...ids].sort());
    // One card per call, though the channel fell seconds behind (roll-ups here start after 300 ms).
    expect(posts(h, channel).filter(isRollup)).toEqual([]);
    expect(posts(h, channel).filter((m) => m.text.startsWith('Call completed'))).toHaveLength(ids.length);
  });
});

describe.each(['memory', 'redis'] as const)('a customer and a backlog of calls in one channel (%s)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startEventsHarness({
      ...(mode === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}priority:${mode}:` } : {}),
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('posts a customer’s message ahead of the calls waiting for the same channel', async () => {
    const channel = 'C0SHARED01';
    const hook = await routeTo(h, [
      { campaignId: '*', triggerName: 'call_completed', channelId: channel },
      { campaignId: '*', triggerName: 'message_received', channelId: channel },
    ]);
    // Twelve calls, posted one by one (no roll-up in this harness): about ten seconds of the channel's budget.
    for (let i = 0; i < 12; i++)
      expect(
        (await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId: `call-${uid()}`, callTranscript: '' }])).status,
      ).toBe(200);
    // The calls have the channel's budget to themselves for a moment: it is spent when the customer writes.
    await h.slack.waitFor(() => posts(h, channel).length >= 2, 5_000);
    const customerNumber = `+1415556${String(n).padStart(4, '0')}`;
    const writtenAt = Date.now();
    expect((await deliver(hook, [{ ...MESSAGE_RECEIVED_FULL, customerNumber }])).status).toBe(200);
    await h.slack.waitFor(() => posts(h, channel).find((m) => m.text.startsWith('Chat with')), 5_000);

    // Calls leave one post of the channel's burst to conversations: the card went out next (a call post
    // already on its way at that moment aside), not behind the calls still waiting.
    const accepted = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel && c.status === 200);
    const cardAt = accepted.findIndex((c) => String(c.args.text).startsWith('Chat with'));
    const callPostsBetween = accepted.slice(0, cardAt).filter((c) => c.at >= writtenAt);
    expect(callPostsBetween.length).toBeLessThanOrEqual(1);
    // ...while calls were still waiting for the channel then.
    expect(await h.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: channel })).toBeGreaterThan(5);
  });
});

describe('two replicas on one Redis', () => {
  let first: Harness;
  let second: Harness;
  beforeAll(async () => {
    const keyPrefix = `${redis.prefix}pacing:replicas:`;
    const secretsKey = 'x'.repeat(43) + '=';
    first = await startEventsHarness({ redisUrl: redis.url, keyPrefix, env: { SECRETS_KEY: secretsKey } });
    second = await startEventsHarness({
      redisUrl: redis.url,
      keyPrefix,
      env: { SECRETS_KEY: secretsKey },
      fakes: { slack: first.slack, platform: first.platform },
    });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('share each channel’s budget: webhooks to both, posts at one channel’s pace, none refused', async () => {
    const channel = 'C0REPLICA1';
    const hook = await routeTo(first, [{ campaignId: '*', triggerName: 'call_completed', channelId: channel }]);
    const path = new URL(hook).pathname;
    const ids = Array.from({ length: 8 }, () => `call-${uid()}`);
    await Promise.all(
      ids.map(async (callId, i) => {
        const bot = i % 2 === 0 ? first : second;
        const res = await deliver(`${bot.url}${path}`, [{ ...CALL_COMPLETED_FULL, callId, callTranscript: '' }]);
        expect(res.status).toBe(200);
      }),
    );
    await queueDrained(first, 15_000);
    await queueDrained(second, 15_000);
    const shown = callsShown(first, channel, ids);
    expect([...shown.keys()].sort()).toEqual([...ids].sort());
    expect([...shown.values()].every((count) => count === 1)).toBe(true);

    // In any window, the channel got at most the burst plus one post per interval of Slack's pace.
    const times = first.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.args.channel === channel && c.status === 200)
      .map((c) => c.at);
    for (let i = 0; i < times.length; i++)
      for (let j = i; j < times.length; j++) {
        const posted = j - i + 1;
        expect(posted).toBeLessThanOrEqual(3 + Math.floor((times[j]! - times[i]!) / 1_000));
      }
    expect(first.slack.callsTo('chat.postMessage').filter((c) => c.status !== 200)).toEqual([]);
  });
});

describe.each(['memory', 'redis'] as const)('a customer writing while the thread must wait (%s)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startEventsHarness({
      ...(mode === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}merge:${mode}:` } : {}),
      bot: {
        // A channel burst of two: the conversation's card and its first line; the next lines must wait.
        slackLimits: {
          channelPosts: { intervalMs: 1_000, burst: 2 },
          workspacePosts: { intervalMs: 10, burst: 100 },
          tier3: { intervalMs: 1_400, burst: 5 },
          other: { intervalMs: 10, burst: 100 },
          history: { intervalMs: 60_000, burst: 1 },
        },
      },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('posts the messages that waited for the same thread together, each once and in order', async () => {
    const channel = 'C0MERGE001';
    const hook = await routeTo(h, [{ campaignId: '*', triggerName: 'message_received', channelId: channel }]);
    const customerNumber = `+1415557${String(++n).padStart(4, '0')}`;
    const texts = ['Hi there', 'Are you open on Friday?', 'I mean this Friday', 'Around 10?', 'Thanks!'];
    const events = texts.map((messageContent, i) => ({
      ...MESSAGE_RECEIVED_FULL,
      customerNumber,
      messageContent,
      receivedAt: new Date(Date.UTC(2024, 2, 8, 16, 45, i)).toISOString(),
    }));
    // One webhook carrying the five messages: all five wait in the queue at once.
    expect((await deliver(hook, events)).status).toBe(200);
    await queueDrained(h, 15_000);

    const card = posts(h, channel).find((m) => m.text.startsWith('Chat with'));
    expect(card).toBeDefined();
    const lines = h.slack.thread(channel, card!.ts).slice(1);
    const shown = lines.map((m) => JSON.stringify(m.blocks ?? []));
    // Every message once, in the order the customer wrote them...
    const at = texts.map((t) => shown.findIndex((json) => json.includes(t)));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const t of texts) expect(shown.join('\n').split(t).length - 1).toBe(1);
    // ...in fewer posts than messages: those that waited went out as one.
    expect(lines.length).toBeLessThan(texts.length);
    expect(lines.some((m) => m.text.includes('more)'))).toBe(true);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.status !== 200)).toEqual([]);
  });
});
