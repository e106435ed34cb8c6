/**
 * Channels judged by who is in them (docs/PRODUCT.md › Who reads a channel): a channel with a guest, one shared
 * with another organisation (Slack Connect) and one of full members only get the same events; customers'
 * numbers and e-mails show in full only in the last — and, for chats, where an admin said `customers:full`.
 * A guest who joins later (member_joined_channel from the stand-in) masks the next post, with no restart and
 * no member list asked of Slack per post.
 */
import { describe, expect, it } from 'vitest';
import {
  channelShared,
  channelUnshared,
  memberJoinedChannel,
  memberLeftChannel,
} from '../../fakes/slack/channel-events.js';
import { textOf } from '../support/blocks.js';
import { TEAM_ID, useHarness } from '../support/harness.js';
import { deliver, posts, queueDrained, run, startEventsHarness } from './support.js';

const GUESTS = 'C0GUESTS01';
const SHARED = 'C0SHARED01';
const PLAIN = 'C0PLAIN001';
const GUEST = 'U0GUEST001';
const OUTSIDER = 'U0OUTSIDE1';
const COLLEAGUE = 'U0COLLEAG1';

const NUMBER = '+14155550123';
const EMAIL = 'olivia.brown@example.com';
const MASKED_NUMBER = '+1 ••• ••• 0123';
const MASKED_EMAIL = '•••@example.com';

describe('channels judged by who is in them', () => {
  const h = useHarness(
    () =>
      startEventsHarness({
        unlimitedSlackBecause: 'what each channel shows, not pace: several cards go into each channel',
      }),
    ['platform', 'slack', 'routes'],
  );

  let n = 0;
  /** Each test's chats are a conversation of their own (the store outlives the stand-in's messages). */
  let chatCampaign = '';
  function setUpChannels(): void {
    chatCampaign = `camp-chat-${++n}`;
    h.slack.addUser({ id: GUEST, name: 'gus', is_restricted: true });
    h.slack.addUser({ id: OUTSIDER, name: 'olga', team_id: 'T0OTHERORG', is_stranger: true });
    h.slack.addUser({ id: COLLEAGUE, name: 'cole' });
    h.slack.addChannel({ id: GUESTS, name: 'guests', members: [COLLEAGUE, GUEST] });
    h.slack.addChannel({ id: SHARED, name: 'shared', is_ext_shared: true, members: [COLLEAGUE, OUTSIDER] });
    h.slack.addChannel({ id: PLAIN, name: 'plain', members: [COLLEAGUE] });
  }

  const hook = async () => `${h.url}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;
  const membersCalls = () => h.slack.calls.filter((c) => c.method === 'conversations.members').length;
  /** The event posts of a channel (not the bot's subscribe notices). */
  const eventPosts = (channel: string) => posts(h, channel).filter((m) => !/^[📣🔒]/u.test(m.text));
  const threadOf = (channel: string, ts: string) =>
    h.slack.messages(channel).filter((m) => m.thread_ts === ts && m.ts !== ts);
  /** A card's Number and Email fields, as Slack shows them (a short call card: the number on its first line). */
  function cardFields(blocks: unknown): Record<string, string> {
    const found = (blocks as Array<{ fields?: Array<{ text: string }> }>).flatMap((b) => b.fields ?? []);
    const headline = /\* \(([^)]*)\)/.exec(textOf(blocks))?.[1];
    if (found.length === 0 && headline) return { '*Number*': headline };
    return Object.fromEntries(found.map((f) => f.text.split('\n') as [string, string]));
  }

  const call = () => ({
    triggerName: 'call_completed',
    campaignId: 'camp-1',
    callId: `call-aud-${++n}`,
    customerName: 'Olivia Brown',
    customerNumber: NUMBER,
    customerEmail: EMAIL,
    status: 'completed',
    callSummary: `Wants a call back on ${NUMBER}.`,
    callTranscript: `Customer: reach me at ${EMAIL} or ${NUMBER}.`,
    endedAt: '2024-03-08T16:41:09Z',
  });
  const chat = (text: string) => ({
    triggerName: 'message_received',
    campaignId: chatCampaign,
    customerNumber: NUMBER,
    customerName: 'Noah Wilson',
    messageContent: text,
    receivedAt: new Date(Date.now() + ++n * 1000).toISOString(),
  });

  async function deliverAll(...events: object[]): Promise<void> {
    const url = await hook();
    for (const e of events) expect((await deliver(url, [e])).status).toBe(200);
    await queueDrained(h);
  }

  it('masks call cards and transcripts where guests or another organisation read along, not elsewhere', async () => {
    setUpChannels();
    for (const channel of [GUESTS, SHARED, PLAIN]) {
      const { text } = await run(h, 'subscribe * call_completed cards:full', { channelId: channel });
      expect(text).toContain('now receives `call_completed`');
    }
    expect(h.slack.messages(GUESTS)[0]?.text).toContain(
      '🔒 This channel has 1 guest in it, so the bot masks customers’ phone numbers and e-mails in its posts here',
    );
    expect(h.slack.messages(SHARED)[0]?.text).toContain(
      '🔒 This channel has 1 person of another organisation (it is a Slack Connect channel) in it',
    );
    expect(h.slack.messages(PLAIN)[0]?.text).not.toContain('🔒');
    const learned = membersCalls();
    expect(learned).toBe(3);

    await deliverAll(call());
    for (const [channel, number, email, words] of [
      [GUESTS, MASKED_NUMBER, MASKED_EMAIL, `${MASKED_EMAIL} or ${MASKED_NUMBER}`],
      [SHARED, MASKED_NUMBER, MASKED_EMAIL, `${MASKED_EMAIL} or ${MASKED_NUMBER}`],
      [PLAIN, NUMBER, EMAIL, `${EMAIL} or ${NUMBER}`],
    ] as const) {
      const [card] = eventPosts(channel);
      expect(card, channel).toBeDefined();
      expect(cardFields(card!.blocks), channel).toMatchObject({ '*Number*': number, '*Email*': email });
      expect(JSON.stringify(card!.blocks), channel).toContain(`Wants a call back on ${number}.`);
      const [transcript] = threadOf(channel, card!.ts);
      expect(JSON.stringify(transcript?.blocks), channel).toContain(`Customer: reach me at ${words}.`);
      if (channel !== PLAIN) expect(JSON.stringify([card, transcript])).not.toContain('5550123');
    }
    // Every post read the store: no member list asked of Slack after the subscribes.
    expect(membersCalls()).toBe(learned);
  });

  it('routes customer chats into a restricted channel only with customers:full, and says who reads them', async () => {
    setUpChannels();
    const refused = await run(h, 'subscribe * message_received', { channelId: GUESTS });
    expect(refused.text).toContain(
      'This channel has 1 guest in it, so customer chats (the customer’s own words, number and e-mail) are not routed here unless an admin accepts that everyone here may read them: add `customers:full`',
    );
    expect(refused.text).toContain('Nothing was subscribed.');
    expect(await h.bot.deps.store.routes.listForChannel(TEAM_ID, GUESTS)).toEqual([]);
    expect(h.platform.requests.filter((r) => r.path === '/events-gateway/trigger/subscribe')).toEqual([]);

    const full = await run(h, 'subscribe * message_received customers:full', { channelId: GUESTS });
    expect(full.text).toContain('now receives `message_received` (only `customers:full`)');
    expect(full.text).toContain('⚠️ This channel has 1 guest in it: with `customers:full`');
    const listed = await run(h, 'subscriptions', { channelId: GUESTS });
    expect(listed.text).toContain('customers:full');
    expect(h.logs()).toContain('customers:full: customer details shown in full in a channel');

    await run(h, 'subscribe * message_received', { channelId: PLAIN });
    await deliverAll(chat(`call me on ${NUMBER}`));
    for (const channel of [GUESTS, PLAIN]) {
      const [card] = eventPosts(channel);
      expect(cardFields(card!.blocks)['*Number*'], channel).toBe(NUMBER);
      const lines = threadOf(channel, card!.ts).map((m) => JSON.stringify(m.blocks));
      expect(lines.join(), channel).toContain(`call me on ${NUMBER}`);
    }
  });

  it('a guest joining a routed channel masks its next posts — no restart, no member list per post', async () => {
    setUpChannels();
    await run(h, 'subscribe * message_received customers:full', { channelId: PLAIN });
    await run(h, 'subscribe * call_completed', { channelId: PLAIN });
    await deliverAll(call(), chat('first, in full'));
    const before = membersCalls();
    expect(cardFields(eventPosts(PLAIN)[0]!.blocks)['*Number*']).toBe(NUMBER);

    const joined = await memberJoinedChannel(h.slack, h.signer, PLAIN, GUEST);
    expect(joined.status).toBe(200);
    const notice = await h.slack.waitFor(() => posts(h, PLAIN).find((m) => m.text.startsWith('🔒')));
    expect(notice.text).toBe(
      '🔒 1 guest can now read this channel, so from now on the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).',
    );

    await deliverAll(call(), chat(`now on ${NUMBER}`));
    const cards = eventPosts(PLAIN).filter((m) => m.text.startsWith('Call completed'));
    expect(cards.map((c) => cardFields(c.blocks)['*Number*'])).toEqual([NUMBER, MASKED_NUMBER]);
    // The conversation's card is updated masked, and its new line masks the number the customer wrote.
    const chatCard = h.slack.messages(PLAIN).find((m) => m.text.startsWith('Chat with'));
    expect(cardFields(chatCard!.blocks)['*Number*']).toBe(MASKED_NUMBER);
    const lines = threadOf(PLAIN, chatCard!.ts).map((m) => JSON.stringify(m.blocks));
    expect(lines.at(-1)).toContain(`now on ${MASKED_NUMBER}`);
    expect(membersCalls()).toBe(before);

    // An admin confirms again: in full once more.
    const again = await run(h, 'subscribe * message_received customers:full', { channelId: PLAIN });
    expect(again.text).toContain('no route changed');
    await deliverAll(call());
    const last = eventPosts(PLAIN)
      .filter((m) => m.text.startsWith('Call completed'))
      .at(-1);
    expect(cardFields(last!.blocks)['*Number*']).toBe(NUMBER);
  });

  it('a channel shared with another organisation later is masked, and shows customers again once unshared', async () => {
    setUpChannels();
    await run(h, 'subscribe * call_completed cards:full', { channelId: PLAIN });
    expect((await channelShared(h.slack, h.signer, PLAIN, 'T0OTHERORG', [OUTSIDER])).status).toBe(200);
    await h.slack.waitFor(() => posts(h, PLAIN).find((m) => m.text.startsWith('🔒')));
    await deliverAll(call());
    expect(cardFields(eventPosts(PLAIN)[0]!.blocks)).toMatchObject({
      '*Number*': MASKED_NUMBER,
      '*Email*': MASKED_EMAIL,
    });

    expect((await channelUnshared(h.slack, h.signer, PLAIN, 'T0OTHERORG', [OUTSIDER])).status).toBe(200);
    await h.slackRequestDone((b) => b.event?.type === 'channel_unshared', 'channel_unshared');
    await deliverAll(call());
    expect(cardFields(eventPosts(PLAIN)[1]!.blocks)['*Number*']).toBe(NUMBER);
  });

  it('the last guest leaving a channel shows customers in full there again, without asking Slack', async () => {
    setUpChannels();
    await run(h, 'subscribe * call_completed', { channelId: GUESTS });
    const learned = membersCalls();
    expect((await memberLeftChannel(h.slack, h.signer, GUESTS, GUEST)).status).toBe(200);
    await h.slackRequestDone((b) => b.event?.type === 'member_left_channel', 'member_left_channel');
    await deliverAll(call());
    expect(cardFields(eventPosts(GUESTS)[0]!.blocks)['*Number*']).toBe(NUMBER);
    expect(membersCalls()).toBe(learned);
  });
});
