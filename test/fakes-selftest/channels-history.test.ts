/**
 * Channels that refuse posts and reading history back, as Slack does, over real sockets with the real WebClient.
 *
 * - chat.postMessage's errors (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors"):
 *   `restricted_action_read_only_channel` (announcement channels), `restricted_action_thread_only_channel`
 *   (top-level posts in a thread-only channel), `restricted_action` (a workspace preference), `is_archived`;
 *   sharing a file (files.completeUploadExternal) posts a message and is refused alike.
 * - Message metadata: `invalid_metadata_format` / `invalid_metadata_schema` (chat.postMessage's "Errors"); an
 *   `event_type` with punctuation "returns an `invalid_metadata_schema` warning and is ignored"
 *   (https://docs.slack.dev/messaging/message-metadata); conversations.history and conversations.replies return
 *   it only with `include_all_metadata` (https://docs.slack.dev/reference/methods/conversations.history), and
 *   honour `oldest`, `latest`, `inclusive`, `limit` and cursors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LogLevel, WebClient } from '@slack/web-api';
import { liveRefusalLedgers } from '../../fakes/slack/refusals.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

const CHANNEL = 'C0RESTRICT1';

let fake: FakeSlack;
let client: WebClient;

function unexpectedRefusals(): string[] {
  return [...liveRefusalLedgers()].flatMap((ledger) => ledger.takeUnexpected());
}

/** The `error` Slack answered a call with, or undefined when it went through. */
async function errorOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (e: unknown) => (e as { code?: string; data?: { error?: unknown } }).data?.error ?? e,
  );
}

const post = (args: { text: string; thread_ts?: string; metadata?: unknown; channel?: string }) =>
  client.chat.postMessage({ channel: CHANNEL, ...args } as never);

beforeAll(async () => {
  fake = await startFakeSlack({
    teamId: 'T0RESTRICT1',
    unlimitedBecause: 'reads back many messages posted into one channel at once; pacing is not what these check',
  });
  client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
  });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('channels that refuse posts', () => {
  it('an announcement (read-only) channel refuses every post, thread replies too, until lifted', async () => {
    const parent = await post({ text: 'before' });
    fake.restrictChannel(CHANNEL, 'read-only');
    expect(await errorOf(post({ text: 'top' }))).toBe('restricted_action_read_only_channel');
    expect(await errorOf(post({ text: 'reply', thread_ts: parent.ts! }))).toBe('restricted_action_read_only_channel');
    expect(fake.callsTo('chat.postMessage').at(-1)?.injected).toBe(true);

    fake.unrestrictChannel(CHANNEL);
    expect((await post({ text: 'after' })).ok).toBe(true);
    expect(fake.messages(CHANNEL).map((m) => m.text)).toEqual(['before', 'after']);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('a thread-only channel refuses top-level posts and takes thread replies', async () => {
    const parent = await post({ text: 'parent' });
    fake.restrictChannel(CHANNEL, 'thread-only');
    expect(await errorOf(post({ text: 'top' }))).toBe('restricted_action_thread_only_channel');
    expect((await post({ text: 'reply', thread_ts: parent.ts! })).ok).toBe(true);
    expect(fake.thread(CHANNEL, parent.ts!).map((m) => m.text)).toEqual(['parent', 'reply']);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('a workspace preference refuses with restricted_action; other channels still take posts', async () => {
    fake.restrictChannel(CHANNEL, 'admins-only');
    expect(await errorOf(post({ text: 'no' }))).toBe('restricted_action');
    expect((await post({ text: 'elsewhere', channel: 'C0OPEN00001' })).ok).toBe(true);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('an archived channel refuses posts and updates with is_archived, and shows as archived, until lifted', async () => {
    const earlier = await post({ text: 'earlier' });
    fake.archiveChannel(CHANNEL);
    expect(await errorOf(post({ text: 'late' }))).toBe('is_archived');
    expect(await errorOf(client.chat.update({ channel: CHANNEL, ts: earlier.ts!, text: 'edit' }))).toBe('is_archived');
    expect((await client.conversations.info({ channel: CHANNEL })).channel?.is_archived).toBe(true);
    expect(unexpectedRefusals()).toEqual([]);

    fake.unrestrictChannel(CHANNEL);
    expect(fake.channel(CHANNEL)?.is_archived).toBe(false);
    expect((await post({ text: 'unarchived' })).ok).toBe(true);
  });

  it('a channel archived through addChannel is not a fault: its refusal must be declared', async () => {
    fake.addChannel({ id: 'C0GONE00001', name: 'gone', is_archived: true });
    await errorOf(post({ text: 'x', channel: 'C0GONE00001' }));
    expect(unexpectedRefusals()).toEqual(['chat.postMessage → is_archived']);
  });

  it('refuses a file shared into the channel the same way (files.completeUploadExternal)', async () => {
    const parent = await post({ text: 'call' });
    fake.restrictChannel(CHANNEL, 'thread-only');
    const file = { file: Buffer.from('hello'), filename: 'hello.txt' };
    const share = (threadTs?: string) =>
      threadTs
        ? client.filesUploadV2({ channel_id: CHANNEL, thread_ts: threadTs, ...file })
        : client.filesUploadV2({ channel_id: CHANNEL, ...file });
    expect(await errorOf(share())).toBe('restricted_action_thread_only_channel');
    await share(parent.ts);
    expect(fake.uploads.map((u) => u.thread_ts)).toEqual([parent.ts]);

    fake.restrictChannel(CHANNEL, 'read-only');
    expect(await errorOf(share(parent.ts))).toBe('restricted_action_read_only_channel');
    fake.archiveChannel(CHANNEL);
    expect(await errorOf(share(parent.ts))).toBe('is_archived');
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('clearFaults and reset lift every restriction', async () => {
    fake.restrictChannel(CHANNEL, 'read-only');
    fake.archiveChannel('C0ARCHIVE01');
    fake.clearFaults();
    expect((await post({ text: 'open' })).ok).toBe(true);
    expect((await post({ text: 'open', channel: 'C0ARCHIVE01' })).ok).toBe(true);
  });
});

describe('message metadata', () => {
  const metadata = { event_type: 'call_logged', event_payload: { call_id: 'c-1', seconds: 42 } };

  it('is checked like Slack: an object with a string event_type and an object event_payload', async () => {
    fake.expectRefusal('chat.postMessage', 'invalid_metadata_format');
    fake.expectRefusal('chat.postMessage', 'invalid_metadata_schema');
    expect(await errorOf(post({ text: 'x', metadata: '{not json' }))).toBe('invalid_metadata_format');
    expect(await errorOf(post({ text: 'x', metadata: [metadata] }))).toBe('invalid_metadata_format');
    expect(await errorOf(post({ text: 'x', metadata: { event_payload: {} } }))).toBe('invalid_metadata_schema');
    expect(await errorOf(post({ text: 'x', metadata: { event_type: 'a', event_payload: 'b' } }))).toBe(
      'invalid_metadata_schema',
    );
    // A JSON string of an object is taken as the object.
    const ok = await post({ text: 'as a string', metadata: JSON.stringify(metadata) });
    expect(fake.message(CHANNEL, ok.ts!)?.metadata).toEqual(metadata);
    expect(fake.messages(CHANNEL)).toHaveLength(1);
  });

  it('drops metadata whose event_type has punctuation, with a warning, and posts the message', async () => {
    const res = await post({ text: 'warned', metadata: { event_type: 'call.logged', event_payload: {} } });
    expect(res.ok).toBe(true);
    expect(res.response_metadata?.warnings).toContain('invalid_metadata_schema');
    expect(fake.message(CHANNEL, res.ts!)?.metadata).toBeUndefined();
  });

  it('chat.update checks and replaces it alike', async () => {
    const res = await post({ text: 'v1', metadata });
    fake.expectRefusal('chat.update', 'invalid_metadata_schema');
    expect(
      await errorOf(
        client.chat.update({ channel: CHANNEL, ts: res.ts!, text: 'v2', metadata: { event_type: 'x' } as never }),
      ),
    ).toBe('invalid_metadata_schema');
    const next = { event_type: 'call_updated', event_payload: { call_id: 'c-1' } };
    await client.chat.update({ channel: CHANNEL, ts: res.ts!, text: 'v2', metadata: next });
    expect(fake.message(CHANNEL, res.ts!)?.metadata).toEqual(next);
  });

  it('comes back from history and replies only with include_all_metadata', async () => {
    const parent = await post({ text: 'parent', metadata });
    await post({ text: 'reply', thread_ts: parent.ts!, metadata });

    const bare = await client.conversations.history({ channel: CHANNEL });
    expect(bare.messages?.map((m) => m.metadata)).toEqual([undefined]);
    const full = await client.conversations.history({ channel: CHANNEL, include_all_metadata: true });
    expect(full.messages?.map((m) => m.metadata)).toEqual([metadata]);

    const thread = await client.conversations.replies({ channel: CHANNEL, ts: parent.ts! });
    expect(thread.messages?.map((m) => [m.text, m.metadata])).toEqual([
      ['parent', undefined],
      ['reply', undefined],
    ]);
    const withMeta = await client.conversations.replies({
      channel: CHANNEL,
      ts: parent.ts!,
      include_all_metadata: true,
    });
    expect(withMeta.messages?.map((m) => m.metadata)).toEqual([metadata, metadata]);
  });
});

describe('history windows and pages', () => {
  it('history: newest first, oldest/latest exclusive unless inclusive, limit and cursor pages', async () => {
    const ts: string[] = [];
    for (let i = 0; i < 5; i++) ts.push((await post({ text: `m${i}` })).ts!);
    const texts = (r: { messages?: Array<{ text?: string }> }) => r.messages?.map((m) => m.text);

    expect(texts(await client.conversations.history({ channel: CHANNEL }))).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
    expect(texts(await client.conversations.history({ channel: CHANNEL, oldest: ts[1], latest: ts[3] }))).toEqual([
      'm2',
    ]);
    expect(
      texts(await client.conversations.history({ channel: CHANNEL, oldest: ts[1], latest: ts[3], inclusive: true })),
    ).toEqual(['m3', 'm2', 'm1']);

    const first = await client.conversations.history({ channel: CHANNEL, limit: 2 });
    expect([texts(first), first.has_more]).toEqual([['m4', 'm3'], true]);
    const second = await client.conversations.history({
      channel: CHANNEL,
      limit: 2,
      cursor: first.response_metadata?.next_cursor,
    });
    expect(texts(second)).toEqual(['m2', 'm1']);
    const last = await client.conversations.history({
      channel: CHANNEL,
      limit: 2,
      cursor: second.response_metadata?.next_cursor,
    });
    expect([texts(last), last.has_more, last.response_metadata?.next_cursor]).toEqual([['m0'], false, '']);
  });

  it('replies: parent then replies, oldest first, within oldest/latest, in pages', async () => {
    const parent = await post({ text: 'p' });
    const replies: string[] = [];
    for (let i = 0; i < 3; i++) replies.push((await post({ text: `r${i}`, thread_ts: parent.ts! })).ts!);
    const texts = (r: { messages?: Array<{ text?: string }> }) => r.messages?.map((m) => m.text);

    expect(texts(await client.conversations.replies({ channel: CHANNEL, ts: parent.ts! }))).toEqual([
      'p',
      'r0',
      'r1',
      'r2',
    ]);
    expect(texts(await client.conversations.replies({ channel: CHANNEL, ts: parent.ts!, oldest: replies[0] }))).toEqual(
      ['r1', 'r2'],
    );
    const page = await client.conversations.replies({ channel: CHANNEL, ts: parent.ts!, limit: 3 });
    expect([texts(page), page.has_more]).toEqual([['p', 'r0', 'r1'], true]);
    const rest = await client.conversations.replies({
      channel: CHANNEL,
      ts: parent.ts!,
      limit: 3,
      cursor: page.response_metadata?.next_cursor,
    });
    expect(texts(rest)).toEqual(['r2']);
  });
});

describe('Slack’s 2025 limits for apps distributed outside the Marketplace', () => {
  // https://docs.slack.dev/reference/methods/conversations.history: conversations.history and .replies once a
  // minute per workspace, at most 15 messages a page, for apps outside the Marketplace (since 2025-05-29).
  let now = 1_000_000;
  let limited: FakeSlack;
  let api: WebClient;
  beforeAll(async () => {
    limited = await startFakeSlack({
      teamId: 'T0HISTORY01',
      historyLimits2025: true,
      rateLimitClock: () => now,
      unlimitedBecause: 'posts 20 messages into one channel at once to read them back; history limits stay on',
    });
    api = new WebClient(limited.botToken, {
      slackApiUrl: limited.apiUrl,
      logLevel: LogLevel.ERROR,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
  });
  afterAll(async () => {
    await limited.close();
  });

  it('answers one read a minute per method, then 429 with Retry-After; pages hold at most 15 messages', async () => {
    for (let i = 0; i < 20; i++) await api.chat.postMessage({ channel: CHANNEL, text: `m${i}` });
    const first = await api.conversations.history({ channel: CHANNEL, limit: 100 });
    expect([first.messages?.length, first.has_more]).toEqual([15, true]);

    limited.expectRefusal('conversations.history', 'ratelimited');
    const refused = await api.conversations.history({ channel: CHANNEL }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'slack_webapi_rate_limited_error', retryAfter: 60 });
    expect(limited.callsTo('conversations.history').map((c) => c.status)).toEqual([200, 429]);

    // replies has a minute of its own; history again after the minute.
    const parent = first.messages![0]!.ts!;
    expect((await api.conversations.replies({ channel: CHANNEL, ts: parent })).ok).toBe(true);
    now += 60_000;
    expect((await api.conversations.history({ channel: CHANNEL, limit: 5 })).messages).toHaveLength(5);

    limited.limitHistory(false);
    expect((await api.conversations.history({ channel: CHANNEL, limit: 100 })).messages).toHaveLength(20);
  });
});

describe('message_metadata_posted', () => {
  // https://docs.slack.dev/reference/events/message_metadata_posted: sent for the event types the app's manifest
  // lists under metadata_subscriptions.
  it('is sent after a post carrying a subscribed event type, even when its answer is lost; not for others', async () => {
    const subscribed = await startFakeSlack({
      teamId: 'T0METAEV001',
      unlimitedBecause: 'three posts into one channel; pacing is not what this checks',
      metadataSubscriptions: [{ app_id: '*', event_type: 'campaign_post' }],
    });
    try {
      const events: Array<Record<string, unknown>> = [];
      subscribed.onMetadataPosted((e) => events.push(e));
      const c = new WebClient(subscribed.botToken, {
        slackApiUrl: subscribed.apiUrl,
        logLevel: LogLevel.ERROR,
        retryConfig: { retries: 0 },
      });
      const metadata = { event_type: 'campaign_post', event_payload: { key: 'k1' } };
      const posted = await c.chat.postMessage({ channel: CHANNEL, text: 'a', metadata });
      await c.chat.postMessage({ channel: CHANNEL, text: 'b', metadata: { event_type: 'other', event_payload: {} } });
      subscribed.loseAnswer('chat.postMessage');
      await errorOf(
        c.chat.postMessage({ channel: CHANNEL, text: 'c', metadata: { ...metadata, event_payload: { key: 'k2' } } }),
      );
      const lost = subscribed.messages(CHANNEL).at(-1)!;
      await subscribed.waitFor(() => events.length >= 2);

      expect(events.map((e) => [e.type, e.channel_id, e.message_ts, e.app_id, e.metadata])).toEqual([
        ['message_metadata_posted', CHANNEL, posted.ts, subscribed.appId, metadata],
        ['message_metadata_posted', CHANNEL, lost.ts, subscribed.appId, { ...metadata, event_payload: { key: 'k2' } }],
      ]);
    } finally {
      await subscribed.close();
    }
  });
});
