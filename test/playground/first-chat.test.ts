/**
 * A newcomer's first chat: the playground's platform hands the session over (Link session pressed on the card
 * through the bot's real action and form), so the first reply in the thread reaches the customer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channel, eventually, startTestPlayground, SUPPORT, type PlaygroundHarness } from './support.js';

let h: PlaygroundHarness;

beforeAll(async () => {
  h = await startTestPlayground();
  // The seed route of #support, made with the real /campaign subscribe, is on the platform.
  await eventually(() =>
    Promise.resolve(h.pg.platform.state.subscriptions.some((s) => s.triggerName === 'message_received')),
  );
});

afterAll(async () => {
  await h?.pg.stop();
});

/** The card of the chat with `name` in #support, as the page shows it. */
async function cardOf(name: string) {
  const support = channel(await h.state(), SUPPORT);
  return support.messages.find((m) => m.html.includes(`Chat with <strong>${name}</strong>`));
}

describe('the first customer chat', () => {
  it('is linked to its session on arrival, and the first reply in its thread reaches the customer with ✅', async () => {
    const outcome = await h.post('/playground/simulate', {
      trigger: 'message_received',
      campaignId: 'camp-3',
      customerName: 'Emma Davis',
      customerNumber: '+14155550142',
      text: 'Hi! Can I move my cleaning to Friday?',
    });
    expect(outcome).toMatchObject({ ok: true });
    const sessionId = outcome.simulation?.sessionId ?? '';
    expect(outcome.simulation?.handOver).toEqual({ sessionId, by: '@you', linked: ['#support'] });

    // The card shows the session; no form was left open on the page.
    const card = await cardOf('Emma Davis');
    expect(card?.html).toContain(`<code>${sessionId}</code>`);
    expect(card?.html).not.toContain('not linked');
    const state = await h.state();
    expect(state.modal).toBeNull();
    // The one who linked is told so privately in the thread, as a person pressing Link session would be.
    const linked = channel(state, SUPPORT).threads[card!.ts]?.find((m) => m.html.includes('You linked chat session'));
    expect(linked?.ephemeral).toBe(true);

    const reply = 'Of course — Friday 9:30 is yours.';
    expect(await h.post('/playground/reply', { channel: SUPPORT, threadTs: card!.ts, text: reply })).toEqual({
      ok: true,
    });
    const sent = await eventually(async () =>
      channel(await h.state(), SUPPORT).threads[card!.ts]?.find(
        (m) => m.html.includes(reply) && m.reactions.some((r) => r.name === 'white_check_mark'),
      ),
    );
    expect(sent.reactions.map((r) => r.name)).not.toContain('warning');
    expect(h.pg.platform.state.humanResponses).toContainEqual(expect.objectContaining({ sessionId, message: reply }));
  });

  it('a second message of the same chat lands in the linked thread, and nothing is linked again', async () => {
    const outcome = await h.post('/playground/simulate', {
      trigger: 'message_received',
      campaignId: 'camp-3',
      customerName: 'Emma Davis',
      customerNumber: '+14155550142',
      text: 'And can you text me the address?',
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.simulation?.handOver).toBeUndefined();
    const support = channel(await h.state(), SUPPORT);
    expect(support.messages.filter((m) => m.html.includes('Chat with <strong>Emma Davis</strong>'))).toHaveLength(1);
  });

  it('fired by the guest, the session is linked by the admin: guests may not link', async () => {
    expect(await h.post('/playground/you', { userId: 'U0PLAYGWEN1' })).toEqual({ ok: true });
    try {
      const outcome = await h.post('/playground/simulate', {
        trigger: 'message_received',
        campaignId: 'camp-3',
        customerName: 'Noah Kim',
        customerNumber: '+14155550177',
      });
      expect(outcome.simulation?.handOver).toMatchObject({ by: '@you', linked: ['#support'] });
      expect((await cardOf('Noah Kim'))?.html).toContain(`<code>${outcome.simulation?.sessionId}</code>`);
    } finally {
      await h.post('/playground/you', { userId: 'U0PLAYYOU01' });
    }
  });
});
