/**
 * Handoff conversations judged by who reads their channel (docs/PRODUCT.md › Who reads a channel): the SLA
 * nudge, `/campaign handoffs` and App Home's "my open conversations" show a customer with no name by their
 * number — masked for a conversation in a channel with a guest, in full for one in a channel of full members.
 * The routes are made in the store (as before the bot judged channels): each channel is learned at its first post.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_ACTION } from '../../src/handoff/card.js';
import { ADMIN_ID, startHarness, useHarness } from '../support/harness.js';
import { FAST_WORKER, PUBLIC_URL, queueDrained, run } from '../events/support.js';
import { openConversation, uid, type Conversation } from './support.js';

const GUEST_ID = 'U0GUEST003';
/** The guest channel's customer, and how a guest may see them. */
const GUEST_NUMBER = '+14155550123';
const MASKED_NUMBER = '+1 ••• ••• 0123';
/** The full members' channel's customer. */
const PLAIN_NUMBER = '+14155550188';
const START = Date.UTC(2025, 0, 6, 15, 0, 0);

/** The conversation lines of a message or view: its sections' text, a line each. */
function lines(payload: unknown): string[] {
  const { blocks } = payload as { blocks: Array<{ type: string; text?: { text: string } }> };
  return blocks.flatMap((b) => (b.type === 'section' && b.text ? b.text.text.split('\n') : []));
}

/** Matches a line that begins with `prefix`, as written. */
const startsWith = (prefix: string) => new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

describe('handoff conversations, by who reads the channel', () => {
  let now = START;
  const h = useHarness(async () => {
    const started = await startHarness({
      env: { PUBLIC_URL },
      bot: { events: { worker: FAST_WORKER }, now: () => now },
      unlimitedSlackBecause: 'what each channel shows, not pace: two conversations with cards, lines and nudges',
    });
    started.slack.addUser({ id: GUEST_ID, name: 'gus', is_restricted: true });
    return started;
  }, ['platform', 'slack']);

  /**
   * A conversation in a channel with a guest and one in a channel of full members, each with a customer who
   * gave no name and waits for an answer since `now`; `agent`, a full member of this test alone, is in both
   * (the store keeps earlier tests' conversations open, in channels this agent is not in).
   */
  async function twoWaiting(): Promise<{ guests: Conversation; plain: Conversation; agent: string }> {
    const tag = uid().toUpperCase();
    const agent = `U0AG${tag}`;
    const guestsChannel = `C0GST${tag}`;
    const plainChannel = `C0PLN${tag}`;
    h.slack.addUser({ id: agent, name: `agent-${tag.toLowerCase()}` });
    h.slack.addChannel({ id: guestsChannel, name: `guests-${tag}`, members: [agent, GUEST_ID] });
    h.slack.addChannel({ id: plainChannel, name: `plain-${tag}`, members: [agent] });
    const guests = await openConversation(h, { in: [guestsChannel], customerNumber: GUEST_NUMBER });
    const plain = await openConversation(h, { in: [plainChannel], customerNumber: PLAIN_NUMBER });
    for (const conv of [guests, plain]) {
      // No name in the event (undefined leaves the JSON): the number is what names the customer.
      await conv.customer(`Please call me back on ${conv.customerNumber}`, { customerName: undefined });
      await conv.waitCard((t) => t.includes('waiting since'));
    }
    // The card itself, as the other tests of each channel have it: masked with a guest, in full without.
    expect(await guests.cardText()).toContain(MASKED_NUMBER);
    expect(await guests.cardText()).not.toContain(GUEST_NUMBER);
    expect(await plain.cardText()).toContain(PLAIN_NUMBER);
    return { guests, plain, agent };
  }

  it('the SLA nudge names the customer by a masked number where a guest reads along, in full elsewhere', async () => {
    const { guests, plain } = await twoWaiting();
    for (const conv of [guests, plain]) {
      const answer = await run(h, 'handoff-sla 10', { channelId: conv.channels[0]!, userId: ADMIN_ID });
      expect(answer.text).toContain('10 min');
    }
    now += 10 * 60_000 + 1_000;
    await h.bot.deps.timers.runDue();

    const nudgeOf = (conv: Conversation) =>
      h.slack.waitFor(() => conv.thread().find((m) => m.bot_id !== undefined && m.text.includes('is waiting')));
    const [masked, full] = [await nudgeOf(guests), await nudgeOf(plain)];
    // The nudges' cards are marked overdue too before the next test.
    await queueDrained(h);
    expect(masked.text).toBe(`${MASKED_NUMBER} is waiting for an answer`);
    expect(JSON.stringify(masked.blocks)).toContain(`*${MASKED_NUMBER}* has been waiting 10 min`);
    expect(JSON.stringify(guests.thread().slice(1))).not.toContain(GUEST_NUMBER);
    expect(full.text).toBe(`${PLAIN_NUMBER} is waiting for an answer`);
    expect(JSON.stringify(full.blocks)).toContain(`*${PLAIN_NUMBER}* has been waiting 10 min`);
  });

  it('`/campaign handoffs` lists the customer by a masked number where a guest reads along, in full elsewhere', async () => {
    const { guests, plain, agent } = await twoWaiting();
    const answer = await run(h, 'handoffs', { userId: agent, channelId: plain.channels[0]! });
    expect(answer.body).toMatchObject({ response_type: 'ephemeral' });
    const listed = lines(answer.body);
    expect(listed.find((l) => l.includes(`in <#${guests.channels[0]}>`))).toMatch(startsWith(`*${MASKED_NUMBER}* · `));
    expect(listed.find((l) => l.includes(`in <#${plain.channels[0]}>`))).toMatch(startsWith(`*${PLAIN_NUMBER}* · `));
    expect(answer.text).not.toContain(GUEST_NUMBER);
  });

  it('App Home lists a claimed customer by a masked number where a guest reads along, in full elsewhere', async () => {
    const { guests, plain, agent } = await twoWaiting();
    for (const conv of [guests, plain]) {
      await conv.pressCard(CLAIM_ACTION, { userId: agent });
      await conv.waitCard((t) => t.includes(`<@${agent}>`));
    }
    const before = h.slack.callsTo('views.publish').length;
    await h.signer.event({ type: 'app_home_opened', user: agent, tab: 'home', channel: 'D0HOME0003' });
    const publish = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[before]);
    expect(publish.response.ok).toBe(true);
    const home = JSON.stringify(publish.args.view);
    expect(home).toContain('My open conversations');
    const listed = lines(publish.args.view);
    expect(listed.find((l) => l.includes(`in <#${guests.channels[0]}>`))).toMatch(
      startsWith(`• *${MASKED_NUMBER}* · `),
    );
    expect(listed.find((l) => l.includes(`in <#${plain.channels[0]}>`))).toMatch(startsWith(`• *${PLAIN_NUMBER}* · `));
    expect(home).not.toContain(GUEST_NUMBER);
  });
});
