/**
 * Command answers posted in a channel (`--public`, and the pages of such a list) are read by everyone there, so
 * they are masked as the bot's posts there are: where a guest or another organisation reads along, customers'
 * numbers and e-mails are masked, unless an admin said `customers:full` for the channel. A private answer to a
 * full member stays in full. Signed slash commands and clicks over real sockets; what the Slack stand-in
 * accepted into the channel is what is checked.
 */
import { describe, expect, it } from 'vitest';
import { CALL_DETAILS_ACTION } from '../../src/events/render/call-completed.js';
import { findAction } from '../support/blocks.js';
import { MEMBER_ID, useHarness } from '../support/harness.js';
import { run, startEventsHarness } from '../events/support.js';

const GUESTS = 'C0PUBGUEST1';
const SHARED = 'C0PUBSHARE1';
const PLAIN = 'C0PUBPLAIN1';
const GUEST = 'U0GUEST001';
const OUTSIDER = 'U0OUTSIDE1';

/** What the seeded platform holds of camp-1's customers (bookings' e-mails, scheduled calls' numbers). */
const EMAILS = ['maria.lopez@example.com', 'j.chen@example.com', 'priya.n@example.com', 'tom.baker@example.com'];
const NUMBERS = ['+14155550123', '+14155550187', '+14155550142'];

describe('command answers posted where guests read', () => {
  const h = useHarness(async () => {
    const started = await startEventsHarness({
      unlimitedSlackBecause: 'what each answer shows, not pace: several answers go into each channel',
    });
    started.slack.addUser({ id: GUEST, name: 'gus', is_restricted: true });
    started.slack.addUser({ id: OUTSIDER, name: 'olga', team_id: 'T0OTHERORG', is_stranger: true });
    started.slack.addChannel({ id: GUESTS, name: 'with-guest', members: [MEMBER_ID, GUEST] });
    started.slack.addChannel({ id: SHARED, name: 'partners', is_ext_shared: true, members: [MEMBER_ID, OUTSIDER] });
    started.slack.addChannel({ id: PLAIN, name: 'team', members: [MEMBER_ID] });
    return started;
  }, ['platform']);

  /** `/campaign <text>` run by a full member in `channel`: the answer Slack accepted, and what it put there. */
  async function answer(text: string, channel: string, posts = 1) {
    const before = h.slack.messages(channel).length;
    const { id, body } = await run(h, text, { channelId: channel, userId: MEMBER_ID });
    // An answer of several posts (a sample and its transcript) is whole once each is in.
    await h.slack.waitFor(() => h.slack.responses.filter((r) => r.id === id).length >= posts || undefined);
    const posted = h.slack.messages(channel).slice(before);
    return { body, posted, shown: JSON.stringify(posted) };
  }

  it('`bookings camp-1 --public` in a channel with a guest posts no customer e-mail', async () => {
    const { body, posted, shown } = await answer('bookings camp-1 --public', GUESTS);
    expect(body.response_type).toBe('in_channel');
    expect(posted).toHaveLength(1);
    expect(shown).toContain('Maria Lopez');
    expect(shown).toContain('•••@example.com');
    for (const email of EMAILS) expect(shown).not.toContain(email.split('@')[0]);
  });

  it('`scheduled camp-1 --public` in a Slack Connect channel posts no customer number', async () => {
    const { body, posted, shown } = await answer('scheduled camp-1 --public', SHARED);
    expect(body.response_type).toBe('in_channel');
    expect(posted).toHaveLength(1);
    expect(shown).toContain('Olivia Brown');
    expect(shown).toContain('+1 ••• ••• 0123');
    for (const number of NUMBERS) expect(shown).not.toContain(number.slice(2, 8));
  });

  it('`sample call_completed camp-1 --public` in a channel with a guest posts the sample masked', async () => {
    const { posted, shown } = await answer('sample call_completed camp-1 --public', GUESTS, 2);
    expect(posted).toHaveLength(2);
    expect(shown).toContain('+1 ••• ••• 0123');
    expect(shown).not.toContain('5550123');
    expect(shown).not.toContain('olivia.brown@');
    // The short card's e-mail is in its full card, a Details click away: masked too.
    const opened = h.slack.callsTo('views.open').length;
    const details = findAction(posted[0]!.blocks, CALL_DETAILS_ACTION)!;
    await h.signer.blockAction({
      actionId: CALL_DETAILS_ACTION,
      value: details.value!,
      userId: GUEST,
      channelId: GUESTS,
      messageTs: posted[0]!.ts,
    });
    const call = await h.slack.waitFor(() => h.slack.callsTo('views.open')[opened]);
    const view = JSON.stringify(h.slack.view((call.response.view as { id: string }).id)!.view);
    expect(view).toContain('•••@example.com');
    expect(view).not.toContain('5550123');
    expect(view).not.toContain('olivia.brown@');
  });

  it('Next ▶ on a public list in a channel with a guest keeps the page masked', async () => {
    const base = h.platform.state.bookings['camp-1']![0]!;
    h.platform.state.bookings['camp-many'] = Array.from({ length: 45 }, (_, i) => ({
      ...base,
      RowKey: `bk-${i}`,
      CustomerName: `Customer ${String(i).padStart(3, '0')}`,
      CustomerEmail: `customer.${i}@example.com`,
      BookingDate: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    }));
    const { posted } = await answer('bookings camp-many --public', GUESTS);
    const list = posted[0]!;
    const next = findAction(list.blocks, 'bookings_page:next')!;
    await h.signer.blockAction({
      actionId: 'bookings_page:next',
      value: next.value!,
      userId: MEMBER_ID,
      channelId: GUESTS,
      messageTs: list.ts,
      responseUrlId: 'public-next',
    });
    const page = await h.slack.waitFor(() => {
      const now = h.slack.message(GUESTS, list.ts);
      return JSON.stringify(now?.blocks).includes('Showing 21–40 of 45 bookings') ? now : undefined;
    });
    const shown = JSON.stringify(page);
    expect(shown).toContain('Customer 024');
    expect(shown).toContain('•••@example.com');
    expect(shown).not.toMatch(/customer\.\d+@/);
  });

  it('shows customers in full privately, in a channel of full members, and where an admin said customers:full', async () => {
    const privately = await answer('bookings camp-1', GUESTS);
    expect(privately.body.response_type).toBe('ephemeral');
    expect(JSON.stringify(privately.body)).toContain('maria.lopez@example.com');

    const plain = await answer('scheduled camp-1 --public', PLAIN);
    expect(plain.shown).toContain('+14155550123');

    const full = await run(h, 'subscribe * message_received customers:full', { channelId: SHARED });
    expect(full.text).toContain('only `customers:full`');
    const confirmed = await answer('bookings camp-1 --public', SHARED);
    expect(confirmed.shown).toContain('maria.lopez@example.com');
  });
});
