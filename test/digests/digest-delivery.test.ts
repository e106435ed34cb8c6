/**
 * A scheduled digest and a quota alert on Slack's edges: what a timer makes waits in its channel's outbox (bulk
 * lane) and is posted by the delivery scheduler like every other background post — an outage and a 429 waited
 * out (no failed firing, no dead letter), an answer lost after Slack posted looked up instead of posting twice,
 * a channel's customers first. Driven with signed commands and webhooks against the Slack stand-in and the
 * platform simulator, on Redis, with the timers on a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { TEAM_ID, harnessesPerTest, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { deliver, fireTimers, queueDrained, routeTo, run } from '../events/support.js';
import { MESSAGE_RECEIVED_FULL } from '../events/fixtures.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const CHANNEL = 'C0DIGEST03';
const at = (iso: string) => Date.parse(iso);

const started = harnessesPerTest();
let n = 0;
const start = (clock: { now: number }) =>
  started({ ...storeOn('redis', redis, `${redis.prefix}dd${++n}:`), bot: { now: () => clock.now } });

describe('reports on the one road to Slack', () => {
  it('a digest waits out an outage and a 429, and a post whose answer was lost shows once', async () => {
    const clock = { now: at('2024-03-08T08:00:00Z') };
    const h = await start(clock);
    await run(h, 'digest daily * at 09:00 tz UTC', { channelId: CHANNEL });
    const before = h.slack.messages(CHANNEL).length;

    h.slack.failMethod('chat.postMessage', 'service_unavailable', 2);
    h.slack.rateLimit({ method: 'chat.postMessage', times: 1, retryAfterSec: 1 });
    h.slack.loseAnswer('chat.postMessage', 1);
    clock.now = at('2024-03-08T09:00:05Z');
    expect(await fireTimers(h, 30_000)).toBeGreaterThanOrEqual(1);

    const shown = h.slack.messages(CHANNEL).slice(before);
    expect(shown.filter((m) => m.text.includes('Daily digest for every campaign'))).toHaveLength(1);
    // The card is the digest's only post: nothing follows it.
    expect(shown.at(-1)?.text).toContain('Daily digest for every campaign');
    // Slack was asked more than once and answered ok:false, 429 and a lost answer; it holds one card.
    const tries = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL);
    expect(tries.length).toBeGreaterThanOrEqual(4);
    // Where the lost post landed came from Slack's message_metadata_posted: history was not read.
    expect(h.slack.callsTo('conversations.history')).toEqual([]);
    expect(h.logs()).not.toContain('a timer failed');
    expect(h.logs()).not.toContain('given up');
    expect((await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count).toBe(0);
  });

  it('a quota alert posts after the customers waiting in its channel', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(clock);
    const hook = await routeTo(h, [{ campaignId: '*', triggerName: 'message_received', channelId: CHANNEL }]);
    // Seeded usage is 61.7 %: the 50 % alert is left in the channel's outbox at once, and posted in its turn.
    await run(h, 'quota-alert 50 90', { channelId: CHANNEL });
    await queueDrained(h);
    const alerts = () => h.slack.messages(CHANNEL).filter((m) => m.text.includes('Usage crossed'));
    expect(alerts()).toHaveLength(1);

    // Slack is down: a customer's message and the next check's 90 % alert both wait for the channel.
    const march = h.platform.state.quota.find((r) => r.RowKey === '2024-03')!;
    march.TotalUsageMs = String(((BigInt(march.PurchasedMs) + BigInt(march.RolloverMs)) * 95n) / 100n);
    h.slack.setDown(true);
    const customer = { ...MESSAGE_RECEIVED_FULL, messageContent: 'Is anyone there?' };
    expect((await deliver(hook, [customer])).status).toBe(200);
    await waitFor(async () => (await h.bot.deps.store.queue.depth()).total === 0, 'the customer to wait in the outbox');
    clock.now += 24 * 60 * 60_000;
    await h.bot.deps.timers.runDue();
    const waiting = await h.bot.deps.store.outbox.head({ teamId: TEAM_ID, channelId: CHANNEL }, 10);
    expect(waiting.map((i) => i.lane)).toEqual(['urgent', 'bulk']);
    h.slack.setDown(false);
    await queueDrained(h, 30_000);

    const shown = h.slack
      .messages(CHANNEL)
      .filter((m) => m.text.includes('Is anyone there?') || m.text.includes('Usage crossed 90%'))
      .map((m) => (m.text.includes('Usage crossed') ? 'alert' : 'customer'));
    expect(shown[0]).toBe('customer');
    expect(shown.at(-1)).toBe('alert');
    expect(alerts()).toHaveLength(2);
  });
});
