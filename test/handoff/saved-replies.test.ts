/**
 * Saved replies, on both store backends: `/campaign replies` (admins add and remove, full members list), and a
 * conversation card's **Quick reply** — pick a saved reply, edit it, send — which goes out like a reply typed
 * in the thread: shown there on the agent's behalf, ✅ on it, sent once however often Slack delivers the form,
 * and the same "not sent" handling when no session is linked.
 */
import { describe, expect, it } from 'vitest';
import { QUICK_REPLY_ACTION } from '../../src/handoff/card.js';
import { QUICK_REPLY_CALLBACK, QUICK_REPLY_PICK_ACTION } from '../../src/handoff/index.js';
import type { SlackView } from '../fakes/slack.js';
import { findAction, findBlock, textOf } from '../support/blocks.js';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, useHarness, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { run, startEventsHarness } from '../events/support.js';
import { openConversation, privateNotices, reactions, sends, retryValue, type Conversation } from './support.js';

const redis = await requireRedis();

const GUEST_ID = 'U0GUEST002';

describe.each(['memory', 'redis'] as const)('saved replies (%s store)', (backend) => {
  const h = useHarness(async () => {
    const started = await startEventsHarness({
      ...storeOn(backend, redis, `${redis.prefix}replies-${backend}:`),
      unlimitedSlackBecause:
        'saved replies and the Quick reply form, not pace: a card, lines, a form and its updates in one channel (pacing: test/events/pacing.test.ts)',
    });
    started.slack.addUser({ id: GUEST_ID, name: 'gail', real_name: 'Gail Guest', is_restricted: true });
    return started;
  });

  const channelOf = (conv: Conversation) => conv.channels[0]!;

  /** Presses Quick reply on the card; the form Slack then shows. */
  async function openForm(conv: Conversation, userId = MEMBER_ID): Promise<SlackView> {
    const opened = h.slack.callsTo('views.open').length;
    await conv.pressCard(QUICK_REPLY_ACTION, { userId });
    const call = await h.slack.waitFor(() => h.slack.callsTo('views.open')[opened]);
    expect(call.response.ok).toBe(true);
    return h.slack.view((call.response.view as { id: string }).id)!.view;
  }

  /** Picks a saved reply in the form; the form as Slack shows it after the bot's views.update. */
  async function pick(view: SlackView, name: string, userId = MEMBER_ID): Promise<SlackView> {
    const updates = h.slack.callsTo('views.update').length;
    const res = await h.signer.blockAction({
      actionId: QUICK_REPLY_PICK_ACTION,
      viewId: view.id,
      userId,
      action: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: name }, value: name } },
    });
    expect(res.status).toBe(200);
    const call = await h.slack.waitFor(() => h.slack.callsTo('views.update')[updates]);
    expect(call.response.ok).toBe(true);
    return h.slack.view(view.id)!.view;
  }

  const textBlockOf = (view: SlackView) =>
    (view.blocks as Array<{ block_id?: string; type?: string }>).find((b) => b.type === 'input')!.block_id!;

  const submit = (view: SlackView, text: string, userId = MEMBER_ID) =>
    h.signer.viewSubmission({
      callbackId: QUICK_REPLY_CALLBACK,
      viewId: view.id,
      userId,
      values: { [textBlockOf(view)]: { value: { type: 'plain_text_input', value: text } } },
    });

  /** The bot's posts in the thread on an agent's behalf. */
  const quickReplies = (conv: Conversation) =>
    conv.thread().filter((m) => m.bot_id !== undefined && JSON.stringify(m.blocks).includes('(quick reply)'));

  it('lets admins add, replace and remove saved replies — saved as the customer reads them — and full members list them', async () => {
    const added = await run(
      h,
      'replies add Greeting Hi &amp; welcome :wave: — our *Friday* hours are 9–5 &lt;3\nAsk <@U0MEMBER1> anything.',
    );
    expect(added.text).toContain('Saved `greeting`');
    const saved = await h.bot.deps.store.savedReplies.get(TEAM_ID, 'greeting');
    expect(saved?.text).toBe('Hi & welcome 👋 — our Friday hours are 9–5 <3\nAsk @max anything.');
    expect(saved?.by).toBe(ADMIN_ID);
    expect((await run(h, 'replies add greeting Hello!')).text).toContain('Replaced `greeting`');
    expect((await h.bot.deps.store.savedReplies.get(TEAM_ID, 'greeting'))?.text).toBe('Hello!');
    await run(h, 'replies add refund-policy Refunds take 5 business days --public, not more.');
    expect((await h.bot.deps.store.savedReplies.get(TEAM_ID, 'refund-policy'))?.text).toBe(
      'Refunds take 5 business days --public, not more.',
    );

    const listed = await run(h, 'replies', { userId: MEMBER_ID });
    expect(listed.body).toMatchObject({ response_type: 'ephemeral' });
    expect(listed.text).toContain('`greeting` — Hello!');
    expect(listed.text).toContain('`refund-policy` — Refunds take 5 business days');

    expect((await run(h, 'replies add thanks Thank you!', { userId: MEMBER_ID })).text).toContain(
      'Only Slack workspace admins',
    );
    expect((await run(h, 'replies', { userId: GUEST_ID })).text).toContain('full members');
    expect((await run(h, 'replies add Not_A_Name hi')).text).toContain('1 to 40 lowercase letters');
    expect((await run(h, 'replies add empty')).text).toContain('Give the reply a name and its text');
    expect((await run(h, `replies add long ${'x'.repeat(2001)}`)).text).toContain('at most 2,000 characters');
    expect((await run(h, 'replies forget greeting')).text).toContain('is not something');

    expect((await run(h, 'replies remove refund-policy')).text).toContain('Removed the saved reply `refund-policy`');
    expect((await run(h, 'replies remove refund-policy')).text).toContain('There is no saved reply');
    expect((await h.bot.deps.store.savedReplies.list(TEAM_ID)).map((r) => r.name)).toEqual(['greeting']);
  });

  it('keeps at most 100 saved replies in a workspace (what one Quick reply list shows)', async () => {
    const repo = h.bot.deps.store.savedReplies;
    const teamId = 'T0FULL0001';
    for (let i = 0; i < 100; i++)
      expect(await repo.save(teamId, { name: `r${i}`, text: `reply ${i}`, by: ADMIN_ID, at: 0 })).toBe('added');
    expect(await repo.save(teamId, { name: 'one-more', text: 'x', by: ADMIN_ID, at: 0 })).toBe('full');
    expect(await repo.save(teamId, { name: 'r7', text: 'new text', by: ADMIN_ID, at: 0 })).toBe('replaced');
    expect(await repo.list(teamId)).toHaveLength(100);
  });

  it('sends a picked, edited saved reply from the Quick reply form once — however often Slack delivers the form — shown in the thread with ✅', async () => {
    await run(h, 'replies add shipping Your parcel ships today & arrives in 2–3 days.');
    await run(h, 'replies add hours We are open 9–5, Monday to Friday.');
    const conv = await openConversation(h);
    const channel = channelOf(conv);
    await conv.customer('Where is my parcel?');
    const sessionId = conv.session();
    await conv.linkSession(sessionId);

    const form = await openForm(conv);
    expect(textOf(form.blocks)).toContain('Noah Wilson');
    const select = findAction(form.blocks, QUICK_REPLY_PICK_ACTION);
    expect(select?.type).toBe('static_select');
    expect(JSON.stringify(select)).toContain('"value":"shipping"');
    expect(JSON.stringify(select)).toContain('"value":"hours"');

    // The pick fills the text (under a new block id, so Slack does not keep the empty text over it).
    const picked = await pick(form, 'shipping');
    const textBlock = textBlockOf(picked);
    expect(textBlock).not.toBe(textBlockOf(form));
    expect(JSON.stringify(findBlock(picked.blocks, textBlock))).toContain(
      'Your parcel ships today & arrives in 2–3 days.',
    );

    // Edited, then submitted; Slack delivers the submission twice.
    const edited = 'Your parcel ships today & arrives in 2–3 days. Tracking: ZX-42 :)';
    const [first, again] = await Promise.all([submit(picked, edited), submit(picked, edited)]);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect([first.body, again.body]).toEqual(['', '']);

    const [shown] = await h.slack.waitFor(() => (quickReplies(conv).length > 0 ? quickReplies(conv) : undefined));
    await h.slack.waitFor(() => reactions(h, channel, shown!.ts).includes('white_check_mark'));
    expect(textOf(shown!.blocks)).toContain('Tracking: ZX-42');
    expect(shown!.text).toContain('(quick reply)');
    expect(sends(h, conv.campaignId).map((r) => r.body)).toEqual([{ sessionId, message: edited }]);
    expect(quickReplies(conv)).toHaveLength(1);
    // The platform's echo of it is not posted again; the card names who answered.
    await conv.agent(edited);
    await h.slack.waitFor(() =>
      JSON.stringify(h.slack.message(channel, conv.thread()[0]!.thread_ts!)?.blocks).includes(
        `*Last answered by*\\n<@${MEMBER_ID}>`,
      ),
    );
    const record = await h.bot.deps.store.conversations.findReply(TEAM_ID, channel, shown!.thread_ts!, shown!.ts);
    expect(record).toMatchObject({ user: MEMBER_ID, text: edited, state: 'sent', attempts: 1 });
  });

  it('treats a quick reply like a typed one when no session is linked: ⚠️, its author told privately, Send again sends it', async () => {
    await run(h, 'replies add hello Hello! How can I help?');
    const conv = await openConversation(h);
    const channel = channelOf(conv);
    await conv.customer('Hi');
    const card = await conv.card();
    await conv.waitThread(1);
    const form = await pick(await openForm(conv), 'hello');
    expect((await submit(form, 'Hello! How can I help?')).status).toBe(200);
    const [shown] = await h.slack.waitFor(() => (quickReplies(conv).length > 0 ? quickReplies(conv) : undefined));
    await h.slack.waitFor(() => reactions(h, channel, shown!.ts).includes('warning'));
    const notice = await h.slack.waitFor(
      () => privateNotices(h, channel, card.ts, MEMBER_ID, 'no chat session is linked')[0],
    );
    expect(sends(h, conv.campaignId)).toHaveLength(0);

    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    await conv.press(notice.ts, { ephemeral: true, value: retryValue(notice) });
    await h.slack.waitFor(() => reactions(h, channel, shown!.ts).includes('white_check_mark'));
    expect(sends(h, conv.campaignId).map((r) => r.body)).toEqual([{ sessionId, message: 'Hello! How can I help?' }]);
  });

  it('refuses the form to a guest, and an empty reply on the form', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hello?');
    await conv.waitThread(1);
    const opened = h.slack.callsTo('views.open').length;
    await conv.pressCard(QUICK_REPLY_ACTION, { userId: GUEST_ID });
    await h.slack.waitFor(() =>
      h.slack.responses.find((r) => JSON.stringify(r.body).includes('You can’t send a quick reply: only full members')),
    );
    expect(h.slack.callsTo('views.open')).toHaveLength(opened);

    const form = await openForm(conv);
    const res = await submit(form, '   ');
    expect(JSON.parse(res.body)).toMatchObject({
      response_action: 'errors',
      errors: { [textBlockOf(form)]: 'Write the reply, or pick a saved reply above.' },
    });
    expect(quickReplies(conv)).toEqual([]);
  });
});
