/**
 * Customer details written so that a simple pattern misses them — fullwidth digits, a number spelled out digit
 * by digit with spaces and dashes, an e-mail whose local part is not ASCII — still reach a channel with a guest
 * masked: in the card's fields, its summary and the transcript in its thread. A webhook through the real route,
 * the Slack stand-in's channel as the guest reads it.
 */
import { describe, expect, it } from 'vitest';
import { MEMBER_ID, useHarness } from '../support/harness.js';
import { CALL_COMPLETED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, routeTo, startEventsHarness } from './support.js';

const GUESTS = 'C0MASKGST01';
const GUEST = 'U0GUEST001';

describe('customer details written to slip past the mask', () => {
  const h = useHarness(async () => {
    const started = await startEventsHarness({
      unlimitedSlackBecause: 'what a card shows, not pace: a card and its transcript in one channel',
    });
    started.slack.addUser({ id: GUEST, name: 'gus', is_restricted: true });
    started.slack.addChannel({ id: GUESTS, name: 'with-guest', members: [MEMBER_ID, GUEST] });
    return started;
  });

  it('fullwidth digits, a spaced-out number and a non-ASCII e-mail are masked in the card and its transcript', async () => {
    const hook = await routeTo(h, [{ campaignId: 'camp-1', triggerName: 'call_completed', channelId: GUESTS }]);
    const event = {
      ...CALL_COMPLETED_FULL,
      callId: 'call-mask-attack',
      customerNumber: '＋１４１５５５５０１７７',
      customerEmail: 'zëd.hüsker@example.com',
      callSummary: 'Call back on ４１５５５５０１７７ or 4 1 5 - 5 5 5 - 0 1 7 7.',
      callTranscript: 'Customer: write to zëd.hüsker@example.com, or ring 4 1 5 - 5 5 5 - 0 1 7 7.',
    };
    expect((await deliver(hook, [event])).status).toBe(200);
    await queueDrained(h);
    const card = posts(h, GUESTS).find((m) => JSON.stringify(m.blocks).includes('call-mask-attack'))!;
    expect(card).toBeDefined();
    const shown = JSON.stringify([card, ...h.slack.thread(GUESTS, card.ts)]);
    expect(shown).toContain('+1 ••• ••• 0177');
    expect(shown).toContain('Call back on ••• ••• 0177 or ••• ••• 0177.');
    expect(shown).toContain('write to •••@example.com, or ring ••• ••• 0177.');
    // Of the number only its last four digits, of the address only its domain, in any form.
    for (const leak of ['４１５', '5550', '5 5 5', 'zëd', 'hüsker', 'd•••'])
      expect(shown.normalize('NFKC')).not.toContain(leak.normalize('NFKC'));
  });
});
