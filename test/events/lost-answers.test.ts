/**
 * Posts whose answer was lost, under Slack's 2025 limits for apps distributed outside the Marketplace:
 * conversations.history / .replies once a minute per workspace, 15 messages a page
 * (https://docs.slack.dev/reference/methods/conversations.history). Where the app's posts landed comes from Slack
 * itself — `message_metadata_posted` for the event type the manifest subscribes to
 * (https://docs.slack.dev/reference/events/message_metadata_posted) — and history is read only when no event came:
 * one bounded page per channel. What each test asserts is what a user sees in the channel, and what Slack was asked.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { TEAM_ID, useHarness, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { CALL_COMPLETED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, routeTo, startEventsHarness } from './support.js';

const redis = await requireRedis();
const uid = () => randomBytes(4).toString('hex');
const HISTORY = ['conversations.history', 'conversations.replies'];

function cardsOf(h: Harness, channel: string, callIds: readonly string[]): number[] {
  return callIds.map((id) => posts(h, channel).filter((m) => JSON.stringify(m.blocks ?? []).includes(id)).length);
}

/** `count` calls end, routed to `channel`, without transcripts (one post each). */
async function callsEnd(h: Harness, channel: string, count: number): Promise<string[]> {
  const campaignId = `camp-${uid()}`;
  const hook = await routeTo(h, [{ campaignId, triggerName: 'call_completed', channelId: channel }]);
  const ids = Array.from({ length: count }, () => `call-${uid()}`);
  for (const callId of ids)
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, campaignId, callId, callTranscript: '' }])).status).toBe(
      200,
    );
  return ids;
}

/** Every call shown and nothing left waiting in the channel's outbox. */
async function allShown(h: Harness, channel: string, ids: readonly string[]): Promise<void> {
  await waitFor(
    async () =>
      cardsOf(h, channel, ids).every((n) => n > 0) &&
      (await h.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: channel })) === 0,
    'every call shown in its channel',
    90_000,
  );
}

describe.each(['memory', 'redis'] as const)('lost answers under Slack’s 2025 history limits (%s store)', (backend) => {
  /** How far a test moved the bots' clock: past their wait for Slack's event, when none comes (idempotent-posts.ts). */
  let botSkewMs = 0;
  beforeEach(() => {
    botSkewMs = 0;
  });
  const store = (name: string) => ({
    ...(backend === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}lost-answers:${name}:${uid()}:` } : {}),
    bot: { now: () => Date.now() + botSkewMs },
  });

  describe('the app subscribes to its own metadata (manifest.yml)', () => {
    const h = useHarness(
      () =>
        startEventsHarness({
          ...store('events'),
          slack: { historyLimits2025: true },
          env: { SLACK_HISTORY_PER_MINUTE: '1' },
        }),
      ['slack', 'platform'],
    );

    it('6 calls, 3 answers lost: each shown once, found from Slack’s events without reading history', async () => {
      const channel = `C0LOSTEV${uid().toUpperCase()}`;
      h.slack.loseAnswer('chat.postMessage', 3);
      const ids = await callsEnd(h, channel, 6);
      await allShown(h, channel, ids);

      expect(cardsOf(h, channel, ids)).toEqual([1, 1, 1, 1, 1, 1]);
      expect(h.slack.callsTo('chat.postMessage').filter((c) => c.lost !== undefined)).toHaveLength(3);
      const reads = HISTORY.flatMap((m) => h.slack.callsTo(m));
      expect(reads).toEqual([]);
      const shown = posts(h, channel).map((m) => Number(m.ts));
      // Figures, on the stand-in's clock (its message ts): how long the six took from the first to the last.
      console.info(
        `lost answers (${backend}): 6 calls, 3 answers lost, 2025 history limits on — first to last shown ${(
          Math.max(...shown) - Math.min(...shown)
        ).toFixed(1)} s, history reads ${reads.length}`,
      );
    });
  });

  describe('no event comes (an app without the metadata subscription)', () => {
    const h = useHarness(
      () =>
        startEventsHarness({
          ...store('no-events'),
          slack: { historyLimits2025: true, metadataSubscriptions: [] },
          env: { SLACK_HISTORY_PER_MINUTE: '1' },
        }),
      ['slack', 'platform'],
    );

    it('reads history once, one bounded page of at most 15 messages, and shows the call once', async () => {
      const channel = `C0LOSTHI${uid().toUpperCase()}`;
      h.slack.loseAnswer('chat.postMessage', 1);
      const ids = await callsEnd(h, channel, 2);
      await h.slack.waitFor(() => h.slack.callsTo('chat.postMessage').some((c) => c.lost));
      botSkewMs += 6_000;
      await allShown(h, channel, ids);

      expect(cardsOf(h, channel, ids)).toEqual([1, 1]);
      const reads = HISTORY.flatMap((m) => h.slack.callsTo(m));
      expect(reads.map((c) => [c.method, c.status, c.args.channel])).toEqual([['conversations.history', 200, channel]]);
      const args = reads[0]!.args;
      expect(Number(args.limit)).toBeLessThanOrEqual(15);
      expect([String(args.inclusive), String(args.include_all_metadata)]).toEqual(['true', 'true']);
      expect(Number(args.latest) - Number(args.oldest)).toBeLessThanOrEqual(60);
    });
  });

  describe('no event comes, two posts of one channel lost', () => {
    // Its own bot, whose token's history budget (SLACK_HISTORY_PER_MINUTE) takes a read for each.
    const h = useHarness(
      () =>
        startEventsHarness({
          ...store('no-events-two'),
          slack: { historyLimits2025: true, metadataSubscriptions: [] },
          env: { SLACK_HISTORY_PER_MINUTE: '50' },
        }),
      ['slack', 'platform'],
    );

    it('two posts lost: the channel waits for each look-up, and each customer’s card is shown once', async () => {
      const channel = `C0LOSTTW${uid().toUpperCase()}`;
      const campaignId = `camp-${uid()}`;
      const hook = await routeTo(h, [{ campaignId, triggerName: 'message_received', channelId: channel }]);
      h.slack.loseAnswer('chat.postMessage', 2);
      const customers = ['Ada Lovelace', 'Alan Turing'];
      for (const [i, customerName] of customers.entries()) {
        const event = { ...MESSAGE_RECEIVED_FULL, campaignId, customerName, customerNumber: `+1415555010${i}` };
        expect((await deliver(hook, [event])).status).toBe(200);
      }
      // One post of a channel at a time: the second card goes only once the first is found in the channel.
      for (const lost of [1, 2]) {
        await h.slack.waitFor(() => h.slack.callsTo('chat.postMessage').filter((c) => c.lost).length === lost);
        botSkewMs += 6_000;
      }
      await queueDrained(h, 60_000);

      // Each customer's card once (a card is a top-level post naming the customer).
      const cards = customers.map(
        (name) => posts(h, channel).filter((m) => JSON.stringify(m.blocks ?? []).includes(name)).length,
      );
      expect(cards).toEqual([1, 1]);
      // A look-up per lost post (the channel's history, or the thread's for a line in it), each taken by Slack.
      expect(HISTORY.flatMap((m) => h.slack.callsTo(m)).map((c) => c.status)).toEqual([200, 200]);
    });
  });
});
