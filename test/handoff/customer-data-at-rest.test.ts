/**
 * Less customer data at rest and in logs: after calls and chats with customers known by phone number or email
 * (on Redis), a SCAN of the store's key names finds none of them — a keyed hash stands for the customer — and
 * the bot's debug log (the harness runs at LOG_LEVEL=debug) holds no customer's text, number or email, though
 * Slack's Web API client and the platform's were called with them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventsHarness, deliver, routeTo } from '../events/support.js';
import type { Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { openConversation, reactions, sends } from './support.js';

const redis = await requireRedis();

const PHONE = '+14155550123';
const EMAIL = 'rita.quist@example.org';
const CALLER = '+14155550177';
const TEXTS = {
  asked: 'Is my parcel 7Q at the depot?',
  emailed: 'Can I move my booking to Friday?',
  replied: 'Yes, parcel 7Q waits at gate 7',
  transcript: 'Customer: call me back about invoice 88Z',
};

let h: Harness;
beforeAll(async () => {
  h = await startEventsHarness({
    redisUrl: redis.url,
    keyPrefix: `${redis.prefix}at-rest:`,
    unlimitedSlackBecause: 'what is stored and logged, not pace: cards, lines and reactions in a few channels',
  });
});
afterAll(async () => {
  await h.close();
});

describe('customer data at rest', () => {
  it('keeps no phone number or email in a key name, and logs no customer text at debug', async () => {
    // A chat by phone, answered from Slack through a linked session; a chat by email.
    const byPhone = await openConversation(h, { customerNumber: PHONE });
    await byPhone.customer(TEXTS.asked);
    await byPhone.card();
    await byPhone.linkSession(byPhone.session());
    const ts = await byPhone.reply(TEXTS.replied);
    await h.slack.waitFor(() => reactions(h, byPhone.channels[0]!, ts).includes('white_check_mark'));
    expect(sends(h, byPhone.campaignId)).toHaveLength(1);
    const byEmail = await openConversation(h, { customerNumber: EMAIL });
    await byEmail.customer(TEXTS.emailed);
    await byEmail.card();

    // A call with its transcript.
    const calls = await routeTo(h, [
      { campaignId: 'camp-calls', triggerName: 'call_completed', channelId: 'C0ATREST01' },
    ]);
    const call = { campaignId: 'camp-calls', callId: 'call-at-rest-1', customerName: 'Hugo Caller' };
    const res = await deliver(calls, [
      {
        ...call,
        triggerName: 'call_completed',
        customerNumber: CALLER,
        callTranscript: TEXTS.transcript,
        status: 'completed',
        endedAt: '2024-03-08T16:41:09Z',
      },
    ]);
    expect(res.status).toBe(200);
    await h.slack.waitFor(() => h.slack.messages('C0ATREST01').some((m) => JSON.stringify(m).includes('Hugo Caller')));

    // Both conversations stored (a card is in Slack a moment before).
    await waitFor(async () => (await redis.keys('at-rest:conversation:*')).length === 2, 'both conversations stored');
    const keys = await redis.keys('at-rest:*');
    expect(keys.length).toBeGreaterThan(10);
    const customers = [PHONE, EMAIL, CALLER].flatMap((c) => [c, c.slice(2), encodeURIComponent(c)]);
    expect(keys.filter((k) => customers.some((c) => k.includes(c)))).toEqual([]);

    // Slack's Web API client was called with the customer's text and number; the debug log shows neither.
    const logs = h.logs();
    expect(logs).toContain('"msg":"http request body: '); // the Web API client's debug lines are written
    for (const secret of [PHONE, EMAIL, CALLER, ...Object.values(TEXTS)])
      expect([secret, logs.includes(secret)]).toEqual([secret, false]);
  });
});
