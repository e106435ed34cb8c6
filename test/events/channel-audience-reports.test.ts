/**
 * Roll-ups and digests in a channel with a guest mask customers' numbers and e-mails, as its cards do; a channel
 * of full members gets them in full (docs/PRODUCT.md › Who reads a channel).
 */
import { describe, expect, it } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import { useHarness } from '../support/harness.js';
import { FAST_WORKER, deliver, posts, queueDrained, routeTo, run, startEventsHarness } from './support.js';

const GUESTS = 'C0GUESTS02';
const PLAIN = 'C0PLAIN002';
const GUEST = 'U0GUEST002';
const NUMBER = '+14155550123';
const MASKED_NUMBER = '+1 ••• ••• 0123';

const isRollup = (m: SlackMessage) => /^\d+ calls \(/.test(m.text);

describe('roll-ups and digests, by who reads the channel', () => {
  const h = useHarness(
    () =>
      startEventsHarness({
        // Roll up once the oldest waiting call is 300 ms old (test/events/pacing.test.ts does the same).
        bot: { events: { worker: FAST_WORKER, calls: { rollupAfterMs: 300 }, delivery: { scanMs: 50 } } },
      }),
    ['slack', 'platform'],
  );

  function setUpChannels(): void {
    h.slack.addUser({ id: GUEST, name: 'gus', is_ultra_restricted: true });
    h.slack.addChannel({ id: GUESTS, name: 'guests', members: [GUEST] });
    h.slack.addChannel({ id: PLAIN, name: 'plain', members: [] });
  }

  it('rolls up calls with the customers’ numbers masked where a guest reads along', async () => {
    setUpChannels();
    const hook = await routeTo(h, [
      { campaignId: '*', triggerName: 'call_completed', channelId: GUESTS },
      { campaignId: '*', triggerName: 'call_completed', channelId: PLAIN },
    ]);
    for (let i = 0; i < 12; i++) {
      const call = {
        triggerName: 'call_completed',
        campaignId: 'camp-1',
        callId: `call-roll-${i}`,
        customerNumber: NUMBER,
        status: 'completed',
        callSummary: `Call back on ${NUMBER}`,
        callTranscript: `Customer: my number is ${NUMBER}`,
        endedAt: '2024-03-08T16:41:09Z',
      };
      expect((await deliver(hook, [call])).status).toBe(200);
    }
    await queueDrained(h, 20_000);
    for (const [channel, number] of [
      [GUESTS, MASKED_NUMBER],
      [PLAIN, NUMBER],
    ] as const) {
      const rollups = posts(h, channel).filter(isRollup);
      expect(rollups.length, channel).toBeGreaterThan(0);
      for (const rollup of rollups) {
        const text = JSON.stringify(rollup.blocks);
        expect(text, channel).toContain(`✅ *${number}* · completed`);
        expect(text, channel).toContain(`Call back on ${number}`);
        const transcripts = JSON.stringify(h.slack.thread(channel, rollup.ts).slice(1));
        expect(transcripts, channel).toContain(`my number is ${number}`);
        if (channel === GUESTS) expect(text + transcripts).not.toContain(NUMBER);
      }
    }
  });

  it('masks the number and e-mail in a failed booking’s reason in a digest where a guest reads along', async () => {
    setUpChannels();
    const bookings = h.platform.state.bookings['camp-1']!;
    bookings.push({
      ...bookings[2]!,
      RowKey: 'bk-aud-1',
      Timestamp: new Date().toISOString(),
      Reason: `Call back on ${NUMBER} or priya.n@example.com`,
    });
    for (const [channel, who] of [
      [GUESTS, `Priya Natarajan: Call back on ${MASKED_NUMBER} or •••@example.com`],
      [PLAIN, `Priya Natarajan: Call back on ${NUMBER} or priya.n@example.com`],
    ] as const) {
      expect((await run(h, 'digest now camp-1', { channelId: channel })).text, channel).toContain('on its way');
      await queueDrained(h);
      const card = h.slack.messages(channel).find((m) => m.text.includes('digest'));
      expect(JSON.stringify(card?.blocks), channel).toContain(`• ${who}`);
    }
    expect(JSON.stringify(h.slack.messages(GUESTS))).not.toContain('priya.n@');
  });
});
