/**
 * Who may reach customers from a handoff thread, and what the bot trusts of what comes back to it: replies go
 * out only from full members of the installing workspace; a Send again button or a Link session form only
 * acts on the thread it belongs to; a `sessionId` in a webhook payload never replaces the session a person
 * linked. Driven through the bot's edges: signed Slack events and clicks, platform webhooks, the stand-ins.
 */
import { describe, expect, it } from 'vitest';
import { LINK_SESSION_ACTION, REPORTED_SESSION_BLOCK, SWITCH_SESSION_ACTION } from '../../src/handoff/card.js';
import { LINK_SESSION_CALLBACK } from '../../src/handoff/index.js';
import { findAction, findBlock, textOf } from '../support/blocks.js';
import { MEMBER_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { startEventsHarness } from '../events/support.js';
import { openConversation, privateNotices, retryValue, sends, type Conversation } from './support.js';

const GUEST_ID = 'U0GUEST001';
const SINGLE_CHANNEL_GUEST_ID = 'U0GUEST002';
/** A user of another organisation in a Slack Connect channel: users.info names their own team. */
const PARTNER_ID = 'U0PARTNER1';
const PARTNER_TEAM = 'T0PARTNER1';
/** A deactivated account (`deleted: true`): nobody, whatever it was. */
const DEACTIVATED_ID = 'U0GONE0001';
/** users.info's `is_stranger`: a user of a foreign workspace party to a shared channel. */
const STRANGER_ID = 'U0STRANGE1';
/** Enterprise Grid: the installing workspace's org, a member of a sibling workspace of it, and another org's user. */
const ENTERPRISE = 'E0GRID0001';
const SIBLING_TEAM = 'T0SIBLING1';
const SIBLING_ID = 'U0SIBLING1';
const OTHER_ORG_ID = 'U0OTHERORG';

const h = useHarness(async () => {
  const started = await startEventsHarness({
    unlimitedSlackBecause:
      'who may reach customers, not pace: many card updates and notices in one channel (pacing: test/events/pacing.test.ts)',
  });
  started.slack.addUser({ id: GUEST_ID, name: 'gus', real_name: 'Gus Guest', is_restricted: true });
  started.slack.addUser({
    id: SINGLE_CHANNEL_GUEST_ID,
    name: 'sia',
    real_name: 'Sia Single',
    is_restricted: true,
    is_ultra_restricted: true,
  });
  started.slack.addUser({
    id: PARTNER_ID,
    name: 'pat',
    real_name: 'Pat Partner',
    team_id: PARTNER_TEAM,
    is_admin: true,
  });
  started.slack.addUser({ id: DEACTIVATED_ID, name: 'del', real_name: 'Del Gone', deleted: true, is_admin: true });
  started.slack.addUser({
    id: STRANGER_ID,
    name: 'sam',
    real_name: 'Sam Stranger',
    team_id: PARTNER_TEAM,
    is_stranger: true,
  });
  started.slack.addUser({
    id: SIBLING_ID,
    name: 'sib',
    real_name: 'Sib Ling',
    team_id: SIBLING_TEAM,
    enterprise_id: ENTERPRISE,
  });
  started.slack.addUser({ id: OTHER_ORG_ID, name: 'oto', team_id: PARTNER_TEAM, enterprise_id: 'E0OTHER001' });
  return started;
});

/** A conversation whose thread has its first line and a linked, handed-off session. */
async function linkedConversation(): Promise<{ conv: Conversation; sessionId: string }> {
  const conv = await openConversation(h);
  await conv.customer('Hi, I need a person');
  await conv.waitThread(1);
  const sessionId = conv.session();
  await conv.linkSession(sessionId);
  return { conv, sessionId };
}

/** The ephemeral sentence the bot posted to a click's response_url, found by its wording. */
async function ephemeral(text: string) {
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => JSON.stringify(r.body).includes(text)));
  expect(answer.status).toBe(200);
  return answer;
}

/** The notice the bot told `userId` alone in the thread (and Slack accepted), found by its wording. */
async function acceptedPrivateNotice(conv: Conversation, userId: string, text: string) {
  const card = await conv.card();
  const notice = await h.slack.waitFor(() => privateNotices(h, conv.channels[0]!, card.ts, userId, text)[0]);
  const post = h.slack.callsTo('chat.postEphemeral').find((c) => c.response.message_ts === notice.ts);
  expect(post?.response.ok).toBe(true);
  return notice;
}

/** The Send again notice a member was told privately about their reply not sent (no session linked yet). */
async function unlinkedNotice(conv: Conversation) {
  return acceptedPrivateNotice(conv, MEMBER_ID, 'no chat session is linked');
}

describe('who may answer customers', () => {
  it.each([
    ['a guest', GUEST_ID, 'guests can’t'],
    ['a single-channel guest', SINGLE_CHANNEL_GUEST_ID, 'guests can’t'],
    ['an admin of another organisation (users.info names their team)', PARTNER_ID, 'from another organisation'],
    ['a user users.info calls a stranger (Slack Connect)', STRANGER_ID, 'from another organisation'],
    ['a deactivated admin (users.info: deleted)', DEACTIVATED_ID, 'this account is deactivated'],
  ])('sends nothing from %s, and tells them why privately in the thread', async (_who, userId, why) => {
    const { conv } = await linkedConversation();
    await conv.reply('I can refund you right away', { userId });
    const notice = await acceptedPrivateNotice(conv, userId, why);
    expect(JSON.stringify(notice.blocks)).toContain(`<@${userId}> your reply was not sent to the customer`);
    expect(sends(h, conv.campaignId)).toHaveLength(0);
    // A full member's reply in the same thread still goes out.
    await conv.reply('Happy to help');
    await h.slack.waitFor(() => sends(h, conv.campaignId).length === 1);
    expect(sends(h, conv.campaignId)[0]!.body).toMatchObject({ message: 'Happy to help' });
  });

  it('refuses a Slack Connect author by the event’s user_team, without asking users.info', async () => {
    // In a shared channel the message event names the author's team (user_team) and where it was posted
    // from (source_team): https://api.slack.com/apis/channels-between-orgs
    const { conv } = await linkedConversation();
    const lookups = h.slack.callsTo('users.info').length;
    await conv.reply('Partner here, refund approved', {
      userId: 'U0UNKNOWN9',
      extra: { user_team: PARTNER_TEAM, source_team: PARTNER_TEAM },
    });
    await acceptedPrivateNotice(conv, 'U0UNKNOWN9', 'from another organisation');
    expect(sends(h, conv.campaignId)).toHaveLength(0);
    expect(
      h.slack
        .callsTo('users.info')
        .slice(lookups)
        .filter((c) => c.args.user === 'U0UNKNOWN9'),
    ).toHaveLength(0);
  });

  it('sends the reply of a member of a sibling workspace of the same Enterprise Grid org', async () => {
    // Their message names their own workspace (user_team) — not ours, yet the same org: users.info's
    // enterprise_user.enterprise_id says so.
    const { conv, sessionId } = await linkedConversation();
    const lookups = h.slack.callsTo('users.info').length;
    const ts = await conv.reply('Colleague from the sister office here', {
      userId: SIBLING_ID,
      enterpriseId: ENTERPRISE,
      extra: { user_team: SIBLING_TEAM, source_team: SIBLING_TEAM },
    });
    await h.slack.waitFor(() => sends(h, conv.campaignId).length === 1);
    expect(sends(h, conv.campaignId)[0]!.body).toMatchObject({
      sessionId,
      message: 'Colleague from the sister office here',
    });
    const checkmark = await h.slack.waitFor(() =>
      h.slack.callsTo('reactions.add').find((c) => c.args.timestamp === ts),
    );
    expect(checkmark.response.ok).toBe(true);
    const card = await conv.card();
    expect(privateNotices(h, conv.channels[0]!, card.ts, SIBLING_ID, 'your reply was not sent')).toEqual([]);
    expect(
      h.slack
        .callsTo('users.info')
        .slice(lookups)
        .map((c) => c.args.user),
    ).toContain(SIBLING_ID);
  });

  it('refuses someone of another organisation in a Grid workspace’s shared channel (another enterprise)', async () => {
    const { conv } = await linkedConversation();
    await conv.reply('Not one of yours', {
      userId: OTHER_ORG_ID,
      enterpriseId: ENTERPRISE,
      extra: { user_team: PARTNER_TEAM, source_team: PARTNER_TEAM },
    });
    await acceptedPrivateNotice(conv, OTHER_ORG_ID, 'from another organisation');
    expect(sends(h, conv.campaignId)).toHaveLength(0);
  });

  it('opens no Link session form (it names the customer and the session) for a guest, and says why', async () => {
    const { conv, sessionId } = await linkedConversation();
    const opened = h.slack.callsTo('views.open').length;
    await conv.pressCard(LINK_SESSION_ACTION, { userId: GUEST_ID, responseUrlId: 'guest-link' });
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'guest-link'));
    expect(answer.status).toBe(200);
    expect(String(answer.body.text)).toContain('No session can be linked: only full members of this workspace');
    expect(h.slack.callsTo('views.open')).toHaveLength(opened);
    expect(JSON.stringify(answer.body)).not.toContain(sessionId);
  });

  it('lets a guest’s Send again press send nothing, with a sentence for the guest', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hello?');
    await conv.waitThread(1);
    await conv.reply('Let me check that for you'); // a member's reply, no session yet
    const notice = await unlinkedNotice(conv);
    await conv.linkSession(conv.session());
    await conv.press(notice.ts, { userId: GUEST_ID, ephemeral: true, value: retryValue(notice) });
    await ephemeral('Nothing was sent: only full members of this workspace can answer customers');
    expect(sends(h, conv.campaignId)).toHaveLength(0);
  });
});

describe('values Slack echoes back', () => {
  it('refuses a Send again whose value names another conversation’s reply', async () => {
    // Conversation B has an unsent reply and a linked session: its own Send again would send it.
    const b = await openConversation(h);
    await b.customer('Hi from B');
    await b.waitThread(1);
    await b.reply('Reply meant for B');
    const bNotice = await unlinkedNotice(b);
    await b.linkSession(b.session());
    // A's notice is pressed with B's value (a client can send any value).
    const a = await openConversation(h);
    await a.customer('Hi from A');
    await a.waitThread(1);
    await a.reply('Reply in A');
    const aNotice = await unlinkedNotice(a);
    await a.press(aNotice.ts, { value: retryValue(bNotice), ephemeral: true });
    await ephemeral('That button does not belong to this conversation, so nothing was sent');
    expect(sends(h, b.campaignId)).toHaveLength(0);
    expect(sends(h, a.campaignId)).toHaveLength(0);
    expect(h.logs()).toContain('a Send again button named another thread than its own: refused');
    // B's own button still works.
    await b.press(bNotice.ts, { value: retryValue(bNotice), ephemeral: true });
    await h.slack.waitFor(() => sends(h, b.campaignId).length === 1);
  });

  it('refuses a Link session form whose private_metadata names another thread, forged or altered', async () => {
    const { conv: other, sessionId: otherSession } = await linkedConversation();
    const otherCard = await other.card();
    const conv = await openConversation(h);
    await conv.customer('Hi');
    await conv.waitThread(1);
    const card = await conv.card();
    const sealed = (await conv.openLinkForm()).private_metadata;
    const target = { c: other.channels[0]!, t: otherCard.ts };
    const altered = JSON.stringify({ ...(JSON.parse(sealed) as { s: string }), d: JSON.stringify(target) });
    for (const privateMetadata of [JSON.stringify(target), altered]) {
      const res = await h.signer.viewSubmission({
        callbackId: LINK_SESSION_CALLBACK,
        userId: MEMBER_ID,
        privateMetadata,
        values: { session_id: { value: { type: 'plain_text_input', value: 'sess-attacker' } } },
      });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        response_action: 'errors',
        errors: { session_id: expect.stringContaining('lost track of its thread') },
      });
    }
    expect((await h.bot.deps.store.conversations.findThread(TEAM_ID, target.c, target.t))?.sessionId).toBe(
      otherSession,
    );
    // The form as the bot sealed it links its own thread.
    const ok = conv.session();
    const res = await h.signer.viewSubmission({
      callbackId: LINK_SESSION_CALLBACK,
      userId: MEMBER_ID,
      values: { session_id: { value: { type: 'plain_text_input', value: ok } } },
    });
    expect(res.body).toBe('');
    expect((await h.bot.deps.store.conversations.findThread(TEAM_ID, conv.channels[0]!, card.ts))?.sessionId).toBe(ok);
  });
});

describe('a sessionId in a webhook payload', () => {
  it('is linked when none is', async () => {
    const conv = await openConversation(h);
    const sessionId = conv.session();
    await conv.customer('Hi', { sessionId });
    await conv.waitThread(1);
    await conv.reply('Hello!');
    await h.slack.waitFor(() => sends(h, conv.campaignId).length === 1);
    expect(sends(h, conv.campaignId)[0]!.body).toMatchObject({ sessionId });
  });

  it('never replaces a linked session: the card says so, and a member switches explicitly', async () => {
    const { conv, sessionId: linked } = await linkedConversation();
    const reported = conv.session();
    await conv.customer('Are you still there?', { sessionId: reported });
    const card = await h.slack.waitFor(() => {
      const c = h.slack.message(conv.channels[0]!, conv.thread()[0]!.thread_ts!);
      return findAction(c?.blocks, SWITCH_SESSION_ACTION) ? c : undefined;
    });
    expect(textOf(findBlock(card.blocks, REPORTED_SESSION_BLOCK))).toContain(
      `The platform reports session \`${reported}\`; replies still go to \`${linked}\``,
    );
    const update = h.slack
      .callsTo('chat.update')
      .filter((c) => findAction(c.args.blocks, SWITCH_SESSION_ACTION))
      .at(-1);
    expect(update?.response.ok).toBe(true);

    await conv.reply('Yes, still here');
    await h.slack.waitFor(() => sends(h, conv.campaignId).length === 1);
    expect(sends(h, conv.campaignId)[0]!.body).toMatchObject({ sessionId: linked });

    const press = (userId: string, value = reported) =>
      h.signer.blockAction({
        actionId: SWITCH_SESSION_ACTION,
        channelId: conv.channels[0]!,
        messageTs: card.ts,
        userId,
        value,
      });
    // A guest can't switch, and a value the card does not offer is refused.
    await press(GUEST_ID);
    await ephemeral('The session was not switched: only full members of this workspace can answer customers');
    await press(MEMBER_ID, 'sess-forged');
    await ephemeral('That button is out of date, so the session was not switched');
    expect((await h.bot.deps.store.conversations.findThread(TEAM_ID, conv.channels[0]!, card.ts))?.sessionId).toBe(
      linked,
    );

    await press(MEMBER_ID);
    await acceptedPrivateNotice(conv, MEMBER_ID, `switched this thread from session \`${linked}\` to \`${reported}\``);
    expect(h.logs()).toContain('handoff thread switched to the session the platform reported');
    const after = h.slack.message(conv.channels[0]!, card.ts)!;
    expect(findAction(after.blocks, SWITCH_SESSION_ACTION)).toBeUndefined();
    expect(findBlock(after.blocks, REPORTED_SESSION_BLOCK)).toBeUndefined();
    await conv.reply('Now on the new chat');
    await h.slack.waitFor(() => sends(h, conv.campaignId).length === 2);
    expect(sends(h, conv.campaignId)[1]!.body).toMatchObject({ sessionId: reported });
  });
});
