/**
 * Linking a chat session costs one paste, on both store backends: a `session: <id>` thread reply from a full
 * member links it (the card shows it, one line in the thread says so, and it never reaches the platform's
 * send-human-response), a bad id or a guest gets one sentence privately; and the card's Link session form is
 * one empty, focused field whose hint says where the id is found. Asserted on what the Slack stand-in and the
 * platform simulator received, and what is stored.
 */
import { describe, expect, it } from 'vitest';
import { findBlock } from '../support/blocks.js';
import { MEMBER_ID, TEAM_ID, startHarness, storeOn, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { FAST_WORKER, PUBLIC_URL } from '../events/support.js';
import { notices, openConversation, privateNotices, reactions, sends, type Conversation } from './support.js';

const redis = await requireRedis();

const GUEST_ID = 'U0GUEST88';

describe.each(['memory', 'redis'] as const)('session: replies and the Link session form (%s store)', (backend) => {
  const h = useHarness(async () => {
    const started = await startHarness({
      ...storeOn(backend, redis, `${redis.prefix}session-reply-${backend}:`),
      env: { PUBLIC_URL },
      bot: { events: { worker: FAST_WORKER } },
      unlimitedSlackBecause: 'linking sessions, not pace: card updates and thread lines in one channel',
    });
    started.slack.addUser({ id: GUEST_ID, name: 'gil', real_name: 'Gil Guest', is_restricted: true });
    return started;
  });

  const linked = async (conv: Conversation) => {
    const card = await conv.card();
    return (await h.bot.deps.store.conversations.findThread(TEAM_ID, conv.channels[0]!, card.ts))?.sessionId;
  };
  const done = (ts: string) => h.slackRequestDone((b) => b.event?.ts === ts, `the thread reply ${ts}`);

  it('links the session a `session:` reply names, says so in one line, and sends nothing to the customer', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi, I need help');
    await conv.waitThread(1);
    const sessionId = conv.session();
    const ts = await conv.reply(`Session:  ${sessionId}`);
    await conv.waitCard((t) => t.includes(sessionId));
    expect(await linked(conv)).toBe(sessionId);
    const [line] = await h.slack.waitFor(() => {
      const found = notices(conv.thread(), 'Linked chat session');
      return found.length > 0 ? found : undefined;
    });
    expect(JSON.stringify(line?.blocks)).toContain(`\`${sessionId}\``);
    // Stays in Slack, like a `note:` reply: the platform never got it.
    await done(ts);
    expect(sends(h, conv.campaignId)).toHaveLength(0);
    expect(reactions(h, conv.channels[0]!, ts)).toEqual([]);

    // Replies now go to that session.
    const answer = await conv.reply('Thanks for waiting — your order ships today.');
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, answer).includes('white_check_mark'));
    expect(sends(h, conv.campaignId).map((r) => r.body)).toEqual([
      { sessionId, message: 'Thanks for waiting — your order ships today.' },
    ]);
  });

  it('links nothing for a bad id or a guest, telling the author in one sentence', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hello?');
    await conv.waitThread(1);
    const card = await conv.card();
    const before = conv.thread().length;

    const spaced = await conv.reply('session: sess-1 and sess-2');
    await h.slack.waitFor(() => privateNotices(h, conv.channels[0]!, card.ts, MEMBER_ID, 'no spaces').length > 0);
    const link = await conv.reply('session: <https://portal.example.com/chats/sess-4f9c2a1b>');
    await h.slack.waitFor(() => privateNotices(h, conv.channels[0]!, card.ts, MEMBER_ID, 'is a link').length > 0);
    const empty = await conv.reply('session:');
    await h.slack.waitFor(
      () => privateNotices(h, conv.channels[0]!, card.ts, MEMBER_ID, 'Write the session id after').length > 0,
    );
    const guest = await conv.reply(`session: ${conv.session()}`, { userId: GUEST_ID });
    await h.slack.waitFor(
      () =>
        privateNotices(h, conv.channels[0]!, card.ts, GUEST_ID, 'No session was linked: only full members').length > 0,
    );
    for (const ts of [spaced, link, empty, guest]) {
      await done(ts);
      await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('warning'));
    }
    expect(await linked(conv)).toBeUndefined();
    expect(sends(h, conv.campaignId)).toHaveLength(0);
    expect(conv.thread().filter((m) => m.bot_id !== undefined)).toHaveLength(before);
  });

  it('opens a one-field form, empty and focused, whose hint says where the session id is found', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    await conv.linkSession(conv.session());
    const form = await conv.openLinkForm();
    expect(JSON.stringify(form.blocks).match(/"type":"input"/g)).toHaveLength(1);
    const field = findBlock(form.blocks, 'session_id');
    expect(field?.hint?.text).toContain('platform’s portal, on this customer’s chat');
    expect(field?.hint?.text).toContain('session: <id>');
    expect(field?.element).toMatchObject({ type: 'plain_text_input', focus_on_load: true });
    // Changing the session is one paste too: the field holds nothing to clear first.
    expect(field?.element).not.toHaveProperty('initial_value');
  });
});
