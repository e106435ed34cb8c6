/**
 * Customer data (bookings, scheduled calls, handoff lists, samples built from real campaigns, the Home tab's
 * conversations) is for active full members of the workspace only. Guests, people of another organisation in a
 * Slack Connect channel and deactivated users get one sentence instead — in private, with `--public` too — and
 * the platform is not asked; stats, quota and help stay open to them. Signed slash commands, clicks and events
 * against the stand-ins; what Slack received (and accepted) is checked for customer details.
 */
import { describe, expect, it } from 'vitest';
import { findAction } from '../support/blocks.js';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { startEventsHarness } from '../events/support.js';
import { openConversation } from '../handoff/support.js';

const GUEST_ID = 'U0GUEST001';
const SINGLE_CHANNEL_GUEST_ID = 'U0GUEST002';
/** Slack Connect: users.info names their own team and calls them a stranger. */
const PARTNER_ID = 'U0PARTNER1';
/** Deactivated (users.info `deleted: true`), and an admin before that — and listed in ADMIN_USER_IDS. */
const DEACTIVATED_ID = 'U0GONE0001';
const CHANNEL = 'C0CUSTDATA1';

/** What the seeded platform would show of its customers: none of it may reach a non-member. */
const CUSTOMER_DETAILS = [
  'Maria Lopez',
  'maria.lopez@example.com',
  'Priya Natarajan',
  'Olivia Brown',
  '+14155550123',
  'Noah Wilson',
];

const NON_MEMBERS = [
  ['a guest', GUEST_ID, 'guests can’t see it'],
  ['a single-channel guest', SINGLE_CHANNEL_GUEST_ID, 'guests can’t see it'],
  ['someone of another organisation (Slack Connect)', PARTNER_ID, 'you are here from another organisation'],
  ['a deactivated admin', DEACTIVATED_ID, 'your account is deactivated here'],
] as const;

const h = useHarness(async () => {
  const started = await startEventsHarness({
    env: { ADMIN_USER_IDS: DEACTIVATED_ID },
    unlimitedSlackBecause:
      'who may see customer data, not pace: many answers and pages in one channel (pacing: test/events/pacing.test.ts)',
  });
  started.slack.addUser({ id: GUEST_ID, name: 'gus', real_name: 'Gus Guest', is_restricted: true });
  started.slack.addUser({
    id: SINGLE_CHANNEL_GUEST_ID,
    name: 'sia',
    is_restricted: true,
    is_ultra_restricted: true,
  });
  started.slack.addUser({ id: PARTNER_ID, name: 'pat', team_id: 'T0PARTNER1', is_stranger: true, is_admin: true });
  started.slack.addUser({ id: DEACTIVATED_ID, name: 'del', deleted: true, is_admin: true });
  return started;
}, ['platform']);

let seq = 0;
/** `/campaign <text>` in CHANNEL as `userId`; the first answer Slack accepted on its response_url. */
async function run(text: string, userId: string) {
  const id = `cd-${++seq}`;
  const ack = await h.signer.command({ text, userId, responseUrlId: id, channelId: CHANNEL });
  expect(ack.status).toBe(200);
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
  expect(answer.status).toBe(200);
  return { id, body: answer.body, text: JSON.stringify(answer.body) };
}

/** How much the bot has put in front of anyone through Slack so far (see `shownSince`). */
function shownMark() {
  return {
    messages: h.slack.messages().length,
    ephemerals: h.slack.ephemerals().length,
    responses: h.slack.responses.length,
    views: h.slack.callsTo('views.publish').length + h.slack.callsTo('views.open').length,
  };
}

/** Everything shown since `mark`: messages, ephemerals, response_url posts, published and opened views. */
function shownSince(mark: ReturnType<typeof shownMark>): string {
  return JSON.stringify([
    h.slack.messages().slice(mark.messages),
    h.slack.ephemerals().slice(mark.ephemerals),
    h.slack.responses.slice(mark.responses).map((r) => r.body),
    [...h.slack.callsTo('views.publish'), ...h.slack.callsTo('views.open')].slice(mark.views).map((c) => c.args),
  ]);
}

describe('customer data needs a full member', () => {
  it.each(NON_MEMBERS)(
    'refuses %s bookings, scheduled calls, handoffs and samples — with --public too — and asks the platform nothing',
    async (_who, userId, why) => {
      const mark = shownMark();
      for (const [command, name] of [
        ['bookings camp-1', 'bookings'],
        ['bookings camp-1 --public', 'bookings'],
        ['scheduled camp-1', 'scheduled'],
        ['scheduled camp-1 --public', 'scheduled'],
        ['handoffs', 'handoffs'],
        ['sample call_completed camp-1 --public', 'sample'],
      ] as const) {
        const { body } = await run(command, userId);
        expect(body.response_type, command).toBe('ephemeral');
        expect(body.text, command).toContain(`\`/campaign ${name}\` shows customer details`);
        expect(body.text, command).toContain(why);
      }
      expect(h.platform.requests).toEqual([]);
      // Nothing new in any channel, and nothing shown since carries a customer detail.
      expect(h.slack.messages().length).toBe(mark.messages);
      const shown = shownSince(mark);
      for (const detail of CUSTOMER_DETAILS) expect(shown).not.toContain(detail);
    },
  );

  it.each(NON_MEMBERS.slice(0, 3))('still answers %s stats, quota and help', async (_who, userId) => {
    expect((await run('stats', userId)).text).toContain('Campaign dashboard');
    expect((await run('quota', userId)).text).toContain('█');
    const help = await run('help', userId);
    expect(help.text).toContain('`/campaign bookings &lt;campaignId&gt;` — bookings of a campaign');
    expect(help.text).toContain('*For agents* — full members of this workspace');
    expect(h.platform.requests.map((r) => r.path).sort()).toEqual(['/customer-quota', '/dashboard/dashboard-stats']);
  });

  it('answers a member and a workspace admin as before, --public in the channel', async () => {
    expect((await run('bookings camp-1', MEMBER_ID)).text).toContain('Maria Lopez');
    const { body } = await run('scheduled camp-1 --public', ADMIN_ID);
    expect(body.response_type).toBe('in_channel');
    expect(JSON.stringify(h.slack.messages(CHANNEL))).toContain('Olivia Brown');
  });

  it('refuses the deactivated user listed in ADMIN_USER_IDS the admin subcommands too', async () => {
    const { text } = await run('keys', DEACTIVATED_ID);
    expect(text).toContain('Only Slack workspace admins and owners');
    expect(h.platform.requests).toEqual([]);
  });

  it('lets only full members page a list a member posted with --public', async () => {
    const base = h.platform.state.bookings['camp-1']![0]!;
    h.platform.state.bookings['camp-big'] = Array.from({ length: 45 }, (_, i) => ({
      ...base,
      RowKey: `bk-${i}`,
      CustomerName: `Customer ${String(i).padStart(3, '0')}`,
      BookingDate: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    }));
    const channel = 'C0PAGEDPUB1';
    const posted = await h.signer.command({
      text: 'bookings camp-big --public',
      userId: MEMBER_ID,
      channelId: channel,
      responseUrlId: 'paged-public',
    });
    expect(posted.status).toBe(200);
    const list = await h.slack.waitFor(() => h.slack.messages(channel)[0]);
    const next = findAction(list.blocks, 'bookings_page:next')!;
    h.platform.reset();

    await h.signer.blockAction({
      actionId: 'bookings_page:next',
      value: next.value!,
      userId: GUEST_ID,
      channelId: channel,
      messageTs: list.ts,
      responseUrlId: 'guest-next',
    });
    const refused = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'guest-next'));
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(refused.body.text)).toContain('`/campaign bookings` shows customer details');
    expect(h.platform.requests).toEqual([]);
    expect(JSON.stringify(h.slack.message(channel, list.ts)?.blocks)).toContain('Showing 1–20 of 45 bookings');

    await h.signer.blockAction({
      actionId: 'bookings_page:next',
      value: next.value!,
      userId: MEMBER_ID,
      channelId: channel,
      messageTs: list.ts,
      responseUrlId: 'member-next',
    });
    await h.slack.waitFor(() =>
      JSON.stringify(h.slack.message(channel, list.ts)?.blocks).includes('Showing 21–40 of 45 bookings'),
    );
  });
});

describe('App Home', () => {
  /** Opens the Home tab as `userId`; the view Slack accepted. */
  async function openHome(userId: string): Promise<string> {
    const before = h.slack.callsTo('views.publish').length;
    await h.signer.event({ type: 'app_home_opened', user: userId, tab: 'home', channel: 'D0HOME0001' });
    const publish = await h.slack.waitFor(() =>
      h.slack
        .callsTo('views.publish')
        .slice(before)
        .find((c) => c.args.user_id === userId),
    );
    expect(publish.response.ok).toBe(true);
    return JSON.stringify(publish.args.view);
  }

  it('leaves the conversations out for someone no longer a full member, and shows them to a member', async () => {
    // Conversations claimed back when each owner was a member (a guest since, a deactivated account since).
    const conversations = [];
    for (const owner of [GUEST_ID, DEACTIVATED_ID, MEMBER_ID]) {
      const conv = await openConversation(h);
      await conv.customer('Is my appointment still on?');
      await conv.waitThread(1);
      const card = await conv.card();
      expect(await h.bot.deps.store.conversations.claim(TEAM_ID, conv.channels[0]!, card.ts, owner)).toEqual({
        ok: true,
      });
      conversations.push(conv);
    }
    const [ofGuest, ofDeactivated, ofMember] = conversations;

    const guestHome = await openHome(GUEST_ID);
    expect(guestHome).toContain('My open conversations');
    expect(guestHome).toContain('The list of open conversations shows customer details');
    expect(guestHome).toContain('guests can’t see it');
    expect(guestHome).not.toContain(ofGuest!.customerNumber);
    expect(guestHome).not.toContain('Noah Wilson');
    expect(guestHome).toContain('Show stats'); // the rest of the tab stays

    const deactivatedHome = await openHome(DEACTIVATED_ID);
    expect(deactivatedHome).toContain('your account is deactivated here');
    expect(deactivatedHome).not.toContain(ofDeactivated!.customerNumber);
    expect(deactivatedHome).not.toContain('Change API key'); // an admin once: no admin button now

    const memberHome = await openHome(MEMBER_ID);
    expect(memberHome).toContain(ofMember!.customerNumber);
    expect(memberHome).not.toContain('shows customer details');
  });
});
