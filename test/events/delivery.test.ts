/**
 * From webhook to Slack post, against real Redis and a real Redis Cluster: the admin's subscribe to a card in
 * the channel, the transcript in its thread, several channels, Slack 429s, and a second bot taking over a
 * stopped one's work.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CALL_DETAILS_ACTION } from '../../src/events/render/call-completed.js';
import { findAction } from '../support/blocks.js';
import { TEAM_ID, type Harness, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { requireCluster } from '../support/redis-cluster.js';
import { CALL_COMPLETED_FULL, CALL_STARTED_FULL, MESSAGE_RECEIVED_FULL, injectedMarkup } from './fixtures.js';
import {
  deadLettersAfter,
  deliver,
  localHookUrl,
  posts,
  queueDrained,
  routeTo,
  run,
  startEventsHarness,
} from './support.js';

const redis = await requireRedis();
const cluster = await requireCluster();
const stores = {
  redis: (keyPrefix: string) => ({ redisUrl: redis.url, keyPrefix }),
  cluster: (keyPrefix: string) => ({ redisClusterNodes: cluster.spec, keyPrefix }),
};

describe.each(['redis', 'cluster'] as const)('delivery (%s)', (backend) => {
  const store = stores[backend];
  const h = useHarness(() => startEventsHarness(store(`${redis.prefix}delivery:${backend}:`)), ['slack', 'platform']);

  const uid = () => randomBytes(4).toString('hex');
  const cards = (channel: string) => posts(h, channel).filter((m) => m.text.startsWith('Call completed'));

  describe('an admin subscribes a channel; a completed call becomes one card there', () => {
    it('posts the card, the transcript in its thread, and nothing more for a duplicate delivery', async () => {
      const channel = 'C0MANAGERS';
      await run(h, 'subscribe camp-1 call_completed', { channelId: channel });
      const sub = h.platform.state.subscriptions.find(
        (s) => s.campaignId === 'camp-1' && s.triggerName === 'call_completed',
      );
      expect(sub?.hookUrl).toMatch(/^https:\/\/bot\.example\.com\/hooks\/[A-Za-z0-9_-]{43}$/);

      // What the platform POSTs (docs/PLATFORM-API.md › Delivery): JSON array holding one event.
      const event = { ...CALL_COMPLETED_FULL, callId: `call-${uid()}` };
      const res = await deliver(localHookUrl(h, sub!.hookUrl), [event]);
      expect(res.status).toBe(200);

      const card = await h.slack.waitFor(() => cards(channel)[0]);
      const cardJson = JSON.stringify(card.blocks);
      for (const text of [
        'Olivia',
        '+14155550123',
        'camp-1',
        'Riley',
        '02:34',
        'completed',
        'Customer confirmed the check-up',
      ])
        expect(cardJson).toContain(text);
      expect(injectedMarkup(cardJson)).toEqual([]);
      // The rest of the card is a Details click away.
      const opened = h.slack.callsTo('views.open').length;
      await h.signer.blockAction({
        actionId: CALL_DETAILS_ACTION,
        value: findAction(card.blocks, CALL_DETAILS_ACTION)!.value!,
        channelId: channel,
        messageTs: card.ts,
      });
      const details = await h.slack.waitFor(() => h.slack.callsTo('views.open')[opened]);
      const detailsJson = JSON.stringify(h.slack.view((details.response.view as { id: string }).id)!.view);
      for (const text of ['olivia.brown@example.com', 'Spring Recall', 'customer-ended-call'])
        expect(detailsJson).toContain(text);
      expect(injectedMarkup(detailsJson)).toEqual([]);
      const thread = await h.slack.waitFor(() => {
        const t = h.slack.thread(channel, card.ts);
        return t.length === 2 ? t : undefined;
      });
      expect(JSON.stringify(thread[1]!.blocks)).toContain('Tuesday works');

      expect((await deliver(localHookUrl(h, sub!.hookUrl), [event])).status).toBe(200);
      await queueDrained(h);
      expect(cards(channel)).toHaveLength(1);
      expect(h.slack.thread(channel, card.ts)).toHaveLength(2);
    });

    it('uploads a transcript too long for a message as a file in the card’s thread', async () => {
      const channel = 'C0LONGTX01';
      const hook = await routeTo(h, [{ campaignId: 'camp-long', triggerName: 'call_completed', channelId: channel }]);
      const transcript = 'AI: Hello, how can I help?\nCustomer: I would like to talk about my bill. '.repeat(80);
      await deliver(hook, [
        { ...CALL_COMPLETED_FULL, campaignId: 'camp-long', callId: `call-${uid()}`, callTranscript: transcript },
      ]);
      const card = await h.slack.waitFor(() => cards(channel)[0]);
      const upload = await h.slack.waitFor(() => h.slack.uploads.find((u) => u.channel_id === channel));
      expect(upload.thread_ts).toBe(card.ts);
      expect(upload.data.toString('utf8')).toBe(`${transcript.trim()}\n`);
      expect(upload.filename).toMatch(/^transcript-call-[0-9a-f]+\.txt$/);
    });

    it('shows a transcript file once when Slack shared it but its answer was lost, and reports nothing failed', async () => {
      const channel = `C0LOSTTX${uid().slice(0, 3).toUpperCase()}`;
      const hook = await routeTo(h, [
        { campaignId: 'camp-lost-tx', triggerName: 'call_completed', channelId: channel },
      ]);
      const before = (await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count;
      h.slack.loseAnswer('files.completeUploadExternal');
      const transcript = 'AI: Hello, how can I help?\nCustomer: Please call me back tomorrow. '.repeat(80);
      await deliver(hook, [
        { ...CALL_COMPLETED_FULL, campaignId: 'camp-lost-tx', callId: `call-${uid()}`, callTranscript: transcript },
      ]);
      const card = await h.slack.waitFor(() => cards(channel)[0]);
      await queueDrained(h);
      const shared = h.slack.uploads.filter((u) => u.channel_id === channel);
      expect(shared).toHaveLength(1);
      expect(shared[0]!.thread_ts).toBe(card.ts);
      // The share went through though its answer was lost; the next try asked Slack before sharing again.
      expect(h.slack.callsTo('files.info').map((c) => c.status)).toEqual([200]);
      expect(h.slack.callsTo('files.getUploadURLExternal').filter((c) => c.status === 200)).toHaveLength(1);
      expect((await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count).toBe(before);
    });

    it('uploads a transcript again when Slack lost its upload before the share (file_not_found): shown once', async () => {
      const channel = `C0GONETX${uid().slice(0, 3).toUpperCase()}`;
      const hook = await routeTo(h, [
        { campaignId: 'camp-gone-tx', triggerName: 'call_completed', channelId: channel },
      ]);
      const before = (await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count;
      const uploadsBefore = h.slack.callsTo('files.getUploadURLExternal').filter((c) => c.status === 200).length;
      // https://docs.slack.dev/reference/methods/files.completeUploadExternal › Errors: file_not_found.
      h.slack.failMethod('files.completeUploadExternal', 'file_not_found', 1);
      const transcript = 'AI: Hello, how can I help?\nCustomer: My upload went missing. '.repeat(80);
      await deliver(hook, [
        { ...CALL_COMPLETED_FULL, campaignId: 'camp-gone-tx', callId: `call-${uid()}`, callTranscript: transcript },
      ]);
      const card = await h.slack.waitFor(() => cards(channel)[0]);
      await queueDrained(h);
      const shared = await h.slack.waitFor(() => {
        const found = h.slack.uploads.filter((u) => u.channel_id === channel);
        return found.length > 0 ? found : undefined;
      });
      expect(shared).toHaveLength(1);
      expect(shared[0]!.thread_ts).toBe(card.ts);
      expect(shared[0]!.data.toString('utf8')).toBe(`${transcript.trim()}\n`);
      const uploads = h.slack.callsTo('files.getUploadURLExternal').filter((c) => c.status === 200).length;
      expect(uploads - uploadsBefore).toBe(2);
      expect((await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count).toBe(before);
    });
  });

  describe('routing', () => {
    it('posts once in every matching channel (campaign and *), and a retry never re-posts a step already done', async () => {
      const hook = await routeTo(h, [
        { campaignId: 'camp-route', triggerName: 'call_completed', channelId: 'C0ROUTE001' },
        { campaignId: '*', triggerName: 'call_completed', channelId: 'C0ROUTE002' },
        { campaignId: 'camp-other', triggerName: 'call_completed', channelId: 'C0ROUTE003' },
      ]);
      // Every other chat.postMessage is refused with 429: each step fails once, then succeeds on its retry.
      h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 0, everyOther: true, times: 100 });
      await deliver(hook, [{ ...CALL_COMPLETED_FULL, campaignId: 'camp-route', callId: `call-${uid()}` }]);
      for (const channel of ['C0ROUTE001', 'C0ROUTE002']) {
        const card = await h.slack.waitFor(() => cards(channel)[0]);
        await h.slack.waitFor(() => h.slack.thread(channel, card.ts).length === 2);
      }
      await queueDrained(h);
      expect(h.slack.callsTo('chat.postMessage').some((c) => c.status === 429)).toBe(true);
      for (const channel of ['C0ROUTE001', 'C0ROUTE002']) {
        expect(cards(channel)).toHaveLength(1);
        expect(h.slack.thread(channel, cards(channel)[0]!.ts)).toHaveLength(2);
      }
      expect(h.slack.messages('C0ROUTE003')).toHaveLength(0);
    });

    it('drops an event no channel routes any more, without a dead letter', async () => {
      const hook = await routeTo(h, []);
      const before = (await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count;
      // (call_started: the routing test above routes call_completed of every campaign somewhere.)
      await deliver(hook, [{ ...CALL_STARTED_FULL, campaignId: 'camp-nobody', callId: `call-${uid()}` }]);
      await h.slack.waitFor(() => h.logs().includes('no channel is subscribed to this event'));
      expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
      expect((await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count).toBe(before);
    });
  });

  describe('entries queued by an older bot', () => {
    it('validates their event (the schemas’ input, as received) and posts it like any other', async () => {
      const channel = 'C0OLDERBOT';
      await routeTo(h, [{ campaignId: 'camp-older', triggerName: 'call_completed', channelId: channel }]);
      const callId = `call-${uid()}`;
      // As a bot without the mark queued it: the schemas' input, not their output (duration as a string).
      const event = { ...CALL_COMPLETED_FULL, campaignId: 'camp-older', callId, durationMs: '154250' };
      const job = {
        v: 1,
        trigger: 'call_completed',
        dedupKey: `call_completed:${callId}`,
        event,
        receivedAt: Date.now(),
      };
      const queued = await h.bot.deps.store.queue.enqueueOnce(
        job.dedupKey,
        { teamId: TEAM_ID, orderKey: JSON.stringify(['call', TEAM_ID, callId]), payload: job },
        60_000,
      );
      expect(queued).toBe('queued');
      const card = await h.slack.waitFor(() => cards(channel)[0]);
      expect(JSON.stringify(card.blocks)).toContain('02:34');
    });

    it('dead-letters one whose event no longer validates, without posting it', async () => {
      const channel = 'C0OLDERBAD';
      await routeTo(h, [{ campaignId: 'camp-older-bad', triggerName: 'call_completed', channelId: channel }]);
      const before = (await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count;
      const event = { ...CALL_COMPLETED_FULL, campaignId: 'camp-older-bad', callId: 12345 };
      const job = {
        v: 1,
        trigger: 'call_completed',
        dedupKey: `call_completed:bad-${uid()}`,
        event,
        receivedAt: Date.now(),
      };
      await h.bot.deps.store.queue.enqueueOnce(
        job.dedupKey,
        { teamId: TEAM_ID, orderKey: JSON.stringify(['unknown', TEAM_ID, job.dedupKey]), payload: job },
        60_000,
      );
      const dead = (await deadLettersAfter(h, before)).entries[0];
      expect(dead?.error).toContain('no longer validates');
      expect(posts(h, channel)).toHaveLength(0);
    });
  });

  describe('Slack 429', () => {
    it('waits out Retry-After and posts later, without dropping or reordering a conversation', async () => {
      const channel = 'C0CHAT0001';
      const hook = await routeTo(h, [{ campaignId: 'camp-chat', triggerName: 'message_received', channelId: channel }]);
      // The one 429 must land in this channel: an earlier test's posts still going out elsewhere would take it.
      await queueDrained(h);
      h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: 1 });
      const customerNumber = `+1415555${uid().slice(0, 4)}`;
      for (let i = 1; i <= 3; i++) {
        const res = await deliver(hook, [
          {
            ...MESSAGE_RECEIVED_FULL,
            customerNumber,
            messageContent: `message ${i}`,
            receivedAt: `2024-03-08T16:45:0${i}.000Z`,
          },
        ]);
        expect(res.status).toBe(200);
      }
      // One conversation: its card, then the three messages in the card's thread (those that waited out the
      // Retry-After together may share one post).
      const card = await h.slack.waitFor(() => posts(h, channel)[0], 5_000);
      const shown = () =>
        h.slack
          .thread(channel, card.ts)
          .slice(1)
          .flatMap((m) => [...JSON.stringify(m.blocks).matchAll(/message (\d)/g)].map((x) => x[1]));
      await h.slack.waitFor(() => shown().length === 3, 5_000);
      const inChannel = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel);
      const limited = inChannel.find((c) => c.status === 429)!;
      const delivered = inChannel.filter((c) => c.status === 200);
      expect(delivered[0]!.at - limited.at).toBeGreaterThanOrEqual(900);
      expect(posts(h, channel)).toHaveLength(1);
      expect(shown()).toEqual(['1', '2', '3']);
      // The conversation card's updates come after its lines: done before the next test resets Slack.
      await queueDrained(h);
    });
  });

  describe(`two bots on one ${backend === 'cluster' ? 'Redis Cluster' : 'Redis'}`, () => {
    it('the second takes over what a stopped first one was holding, and posts it once', async () => {
      const prefix = `${redis.prefix}takeover:${uid()}:`;
      const secretsKey = randomBytes(32).toString('base64');
      const first = await startEventsHarness({ ...store(prefix), env: { SECRETS_KEY: secretsKey } });
      let second: Harness | undefined;
      try {
        const channel = 'C0TAKEOVER';
        const hook = await routeTo(first, [
          { campaignId: 'camp-1', triggerName: 'call_completed', channelId: channel },
        ]);
        // The first bot's Slack answers 429 with a Retry-After: the channel waits, its calls kept in Redis, and
        // when it is due again is kept there too (every replica honours it).
        first.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 4, times: 100 });
        const ids = [`call-a-${uid()}`, `call-b-${uid()}`];
        for (const callId of ids)
          expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId, callTranscript: '' }])).status).toBe(200);
        await first.slack.waitFor(() => first.slack.callsTo('chat.postMessage').some((c) => c.status === 429));
        const waiting = () => first.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: channel });
        await waitFor(async () => (await waiting()) === 2, 'both calls waiting for the channel');
        await first.close(); // stopped while both calls wait for the channel
        // Told to wait, the first bot sent nothing more to that channel: one refused call, not a retry storm.
        expect(first.slack.callsTo('chat.postMessage').filter((c) => c.status === 429)).toHaveLength(1);

        second = await startEventsHarness({ ...store(prefix), env: { SECRETS_KEY: secretsKey } });
        const s = second;
        await s.slack.waitFor(() => posts(s, channel).length === 2, 12_000);
        await queueDrained(s);
        const posted = posts(s, channel).map((m) => ids.find((id) => JSON.stringify(m.blocks).includes(id)));
        expect(posted.sort()).toEqual([...ids].sort());
        expect(first.slack.callsTo('chat.postMessage').every((c) => c.status === 429)).toBe(true);
      } finally {
        await second?.close();
      }
    }, 20_000);
  });
});
