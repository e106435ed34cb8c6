/**
 * Resolving a conversation and a quiet thread, on both store backends, with a fake clock: **Resolve** takes a
 * conversation off `/campaign handoffs`, App Home and its SLA timer (no nudge however long it waits) while
 * replies still reach the customer; the customer's next message reopens it — the card open again, one
 * "reopened" line, back in the list. And a short chat's thread holds the conversation and at most one nudge:
 * what only the one who acted needs (claimed, session linked, a reply not sent) is told to them alone.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_ACTION, REOPEN_ACTION, RESOLVE_ACTION } from '../../src/handoff/card.js';
import { SLA_TIMER, slaTimerId } from '../../src/handoff/waiting.js';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, startHarness, storeOn, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { FAST_WORKER, PUBLIC_URL, fireTimers, run } from '../events/support.js';
import { openConversation, privateNotices, reactions, sends, retryValue, type Conversation } from './support.js';

const redis = await requireRedis();

const OTHER_ID = 'U0OTHER002';
/** HANDOFF_SLA_S of these bots: two minutes. */
const SLA_S = 120;

describe.each(['memory', 'redis'] as const)('resolving conversations (%s store)', (backend) => {
  let now = Date.UTC(2025, 0, 7, 15, 0, 0);
  const h = useHarness(async () => {
    const started = await startHarness({
      ...storeOn(backend, redis, `${redis.prefix}resolve-${backend}:`),
      env: { PUBLIC_URL, HANDOFF_SLA_S: String(SLA_S) },
      bot: { events: { worker: FAST_WORKER }, now: () => now },
      unlimitedSlackBecause:
        'resolving and quiet threads, not pace: card updates and thread lines in one channel (pacing: test/events/pacing.test.ts)',
    });
    started.slack.addUser({ id: OTHER_ID, name: 'omar', real_name: 'Omar Other' });
    return started;
  });

  const channelOf = (conv: Conversation) => conv.channels[0]!;
  const advance = async (ms: number) => {
    now += ms;
    await fireTimers(h);
  };
  const botPosts = (conv: Conversation) => conv.thread().filter((m) => m.bot_id !== undefined);
  const customerLines = (conv: Conversation) => botPosts(conv).filter((m) => textIncludes(m, '💬'));
  const nudges = (conv: Conversation) => botPosts(conv).filter((m) => textIncludes(m, '⏰'));
  const reopenedLines = (conv: Conversation) => botPosts(conv).filter((m) => textIncludes(m, 'Reopened'));
  const textIncludes = (m: { blocks?: unknown[] }, text: string) => JSON.stringify(m.blocks ?? '').includes(text);
  /** The place in the thread of the bot's post that mentions `text` (-1: none). */
  const postWith = (conv: Conversation, text: string) => botPosts(conv).findIndex((m) => textIncludes(m, text));
  const listed = async (conv: Conversation, userId = MEMBER_ID) => {
    h.slack.addChannel({ id: channelOf(conv), members: [MEMBER_ID, ADMIN_ID, OTHER_ID] });
    return (await run(h, 'handoffs', { userId, channelId: channelOf(conv) })).text.includes(conv.customerNumber);
  };
  const onHome = async (conv: Conversation, userId = MEMBER_ID) => {
    const before = h.slack.callsTo('views.publish').length;
    await h.signer.event({ type: 'app_home_opened', user: userId, tab: 'home', channel: 'D0HOME0002' });
    const publish = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[before]);
    expect(publish.response.ok).toBe(true);
    return JSON.stringify(publish.args.view).includes(conv.customerNumber);
  };

  it('takes a resolved conversation off the lists and its SLA timer; the customer’s next message reopens it, with one line', async () => {
    const conv = await openConversation(h);
    const channel = channelOf(conv);
    await conv.customer('My parcel is late');
    const card = await conv.card();
    await conv.waitCard((t) => t.includes('waiting since'));
    await conv.pressCard(CLAIM_ACTION);
    await conv.waitCard((t) => t.includes(`<@${MEMBER_ID}>`));
    expect(await listed(conv)).toBe(true);
    expect(await onHome(conv)).toBe(true);

    await conv.pressCard(RESOLVE_ACTION);
    const resolved = await conv.waitCard((t) => t.includes('Resolved by'));
    expect(resolved).toContain(`✅ Resolved by <@${MEMBER_ID}>`);
    expect(resolved).toContain(REOPEN_ACTION);
    expect(resolved).not.toContain(RESOLVE_ACTION);
    expect(resolved).not.toContain('waiting since');
    expect(await listed(conv)).toBe(false);
    expect(await onHome(conv)).toBe(false);
    expect(await h.bot.deps.store.timers.dueAt(SLA_TIMER, slaTimerId(TEAM_ID, channel, card.ts))).toBeUndefined();
    // Long past the SLA: nobody is nudged about a resolved conversation.
    await advance((SLA_S + 60) * 1000);
    expect(nudges(conv)).toEqual([]);
    // A second press is told who resolved it.
    await conv.pressCard(RESOLVE_ACTION, { userId: OTHER_ID });
    await h.slack.waitFor(() =>
      h.slack.responses.find((r) =>
        JSON.stringify(r.body).includes(`<@${MEMBER_ID}> already resolved this conversation`),
      ),
    );

    // The session is alive: a reply in the resolved thread still reaches the customer, and it stays resolved.
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    const reply = await conv.reply('One more thing: your refund is on its way.');
    await h.slack.waitFor(() => reactions(h, channel, reply).includes('white_check_mark'));
    expect(sends(h, conv.campaignId).map((r) => r.body)).toEqual([
      { sessionId, message: 'One more thing: your refund is on its way.' },
    ]);
    expect(await conv.cardText()).toContain('Resolved by');

    // The customer writes again (twice): open again, one reopened line, back in the list, waiting, timed.
    // (Two messages that wait for the thread together may share one post: found by their text.)
    const at = now;
    await conv.customer('Thanks — and can I change the address?');
    await conv.customer('It is 5 Main St.');
    await h.slack.waitFor(() => (postWith(conv, 'It is 5 Main St.') >= 0 ? true : undefined));
    const reopened = await conv.waitCard((t) => !t.includes('Resolved by') && t.includes('waiting since'));
    expect(reopened).toContain('🟢 Open');
    expect(reopened).toContain(RESOLVE_ACTION);
    expect(reopenedLines(conv)).toHaveLength(1);
    expect(JSON.stringify(reopenedLines(conv)[0]!.blocks)).toContain(`after <@${MEMBER_ID}> resolved`);
    // The reopened line comes right before the message that reopened it.
    expect(postWith(conv, 'Reopened')).toBe(postWith(conv, 'change the address') - 1);
    expect(await listed(conv)).toBe(true);
    expect(await h.bot.deps.store.timers.dueAt(SLA_TIMER, slaTimerId(TEAM_ID, channel, card.ts))).toBe(
      at + SLA_S * 1000,
    );
    await advance((SLA_S + 1) * 1000);
    await h.slack.waitFor(() => (nudges(conv).length === 1 ? true : undefined));
  });

  it('reopens a conversation resolved too soon with the card’s Reopen, and refuses Resolve to a guest', async () => {
    const guest = 'U0GUEST003';
    h.slack.addUser({ id: guest, name: 'gert', real_name: 'Gert Guest', is_restricted: true });
    const conv = await openConversation(h);
    await conv.customer('Hello');
    await conv.waitThread(1);
    await conv.pressCard(RESOLVE_ACTION, { userId: guest });
    await h.slack.waitFor(() =>
      h.slack.responses.find((r) => JSON.stringify(r.body).includes('Nothing changed: only full members')),
    );
    expect(await conv.cardText()).not.toContain('Resolved by');

    await conv.pressCard(RESOLVE_ACTION, { userId: OTHER_ID });
    await conv.waitCard((t) => t.includes(`Resolved by <@${OTHER_ID}>`));
    expect(await listed(conv)).toBe(false);
    await conv.pressCard(REOPEN_ACTION, { userId: MEMBER_ID });
    await conv.waitCard((t) => !t.includes('Resolved by') && t.includes(RESOLVE_ACTION));
    expect(await listed(conv)).toBe(true);
    // Reopening by hand is shown on the card; the thread holds only the conversation.
    expect(reopenedLines(conv)).toEqual([]);
  });

  it('keeps a short chat’s thread to the conversation and one nudge; what only the actor needs is told to them alone', async () => {
    const conv = await openConversation(h);
    const channel = channelOf(conv);
    await conv.customer('Hi, my parcel has not arrived');
    const card = await conv.card();
    await conv.waitThread(1);
    await conv.pressCard(CLAIM_ACTION);
    await conv.waitCard((t) => t.includes(`<@${MEMBER_ID}>`));
    // A reply before any session is linked: not sent, its author alone is told, with Send again.
    const first = await conv.reply('Sorry to hear that! Let me check.');
    const notice = await h.slack.waitFor(
      () => privateNotices(h, channel, card.ts, MEMBER_ID, 'no chat session is linked')[0],
    );
    await conv.linkSession(conv.session());
    await conv.press(notice.ts, { ephemeral: true, value: retryValue(notice) });
    await h.slack.waitFor(() => reactions(h, channel, first).includes('white_check_mark'));
    now += 60_000;
    const waitingFrom = now;
    await conv.customer('It was due Monday');
    // The card shows this wait once its timer is set.
    await conv.waitCard((t) => t.includes(`<!date^${Math.floor(waitingFrom / 1000)}^{time}|`));
    await advance((SLA_S + 1) * 1000);
    await h.slack.waitFor(() => (nudges(conv).length === 1 ? true : undefined));
    const second = await conv.reply('It ships today.');
    await h.slack.waitFor(() => reactions(h, channel, second).includes('white_check_mark'));
    await conv.reply('note: courier confirmed');
    await conv.customer('Thanks!');
    await h.slack.waitFor(() => (customerLines(conv).length === 3 ? true : undefined));
    const third = await conv.reply('You are welcome!');
    await h.slack.waitFor(() => reactions(h, channel, third).includes('white_check_mark'));
    await conv.pressCard(RESOLVE_ACTION);
    await conv.waitCard((t) => t.includes('Resolved by'));

    // 4 human lines; of the bot's posts, the customer's 3 lines and 1 nudge. (The same chat posted 7 before:
    // "claimed", the not-sent notice and "session linked" went into the thread too.)
    expect(conv.thread().filter((m) => m.bot_id === undefined)).toHaveLength(4);
    expect(customerLines(conv)).toHaveLength(3);
    expect(nudges(conv)).toHaveLength(1);
    expect(botPosts(conv)).toHaveLength(4);
    // What the agent alone needed reached them privately in the thread.
    expect(privateNotices(h, channel, card.ts, MEMBER_ID, 'You linked chat session')).toHaveLength(1);
    expect(privateNotices(h, channel, card.ts, MEMBER_ID, 'reached the customer')).toHaveLength(1);
  });
});
