/**
 * Channels others can read, in a real headless browser: #partners has a guest in it and #vendor-support is shared
 * with another organisation (Slack Connect). Routing calls there shows customers masked; customer chats are
 * refused until an admin says `customers:full`. What the page shows is checked against what the Slack stand-in
 * received and accepted.
 *
 * Needs /usr/bin/chromium (browser.ts).
 */
import { describe, expect, it } from 'vitest';
import { browserTestsRun, type BrowserPage } from './browser.js';
import { CALLS, usePlaygroundPage, type PlaygroundHarness } from './support.js';

const PARTNERS = 'C0PARTNERS1';
const VENDOR = 'C0VENDORSP1';

describe.skipIf(!browserTestsRun)('channels with a guest or another organisation in them', () => {
  let h: PlaygroundHarness;
  let b: BrowserPage;

  usePlaygroundPage((started, page) => {
    h = started;
    b = page;
  });

  const box = () => b.page.getByRole('textbox', { name: 'Message', exact: true });
  /** A Try these example: it opens its channel and fills the message box; Enter sends it. */
  async function runExample(command: string): Promise<void> {
    await b.page.getByRole('tab', { name: /Try these/ }).click();
    await b.page.locator(`#panel-try [data-fill="${command}"]`).click();
    expect(await box().inputValue()).toBe(command);
    await box().press('Enter');
  }
  async function fireCall(name: string, number: string): Promise<void> {
    await b.page.getByRole('tab', { name: /Simulate/ }).click();
    await b.page.locator('#sim-trigger').selectOption('call_completed');
    await b.page.locator('#sim-campaign').selectOption('camp-1');
    await b.page.locator('#sim-name').fill(name);
    await b.page.locator('#sim-number').fill(number);
    await b.page.locator('#sim-outcome').selectOption('booked');
    await b.page.getByRole('button', { name: 'Fire event' }).click();
    await b.page.locator('#sim-result .ok').first().waitFor();
  }
  /** A call's card in the channel shown: its short section with the Details button. */
  const cardOf = (name: string) =>
    b.page
      .locator('#messages .msg', { hasText: name })
      .filter({ has: b.page.getByRole('button', { name: 'Details' }) });
  /** The bot's posts into `channel` that the stand-in took, as text. */
  const posted = (channel: string) =>
    h.pg.slack.calls
      .filter((c) => c.method === 'chat.postMessage' && c.args.channel === channel && c.response.ok === true)
      .map((c) => JSON.stringify(c.args));

  it('says who besides full members reads each channel', async () => {
    await b.page.getByRole('button', { name: '# partners' }).click();
    await b.page.locator('#channel-audience', { hasText: 'a guest: @gwen' }).waitFor();
    await b.page.getByRole('button', { name: '# vendor-support' }).click();
    await b.page.locator('#channel-audience', { hasText: 'Slack Connect with Northwind BPO: @olu, @mira' }).waitFor();
    await b.page.getByRole('button', { name: '# calls' }).click();
    await b.page.locator('#channel-audience').waitFor({ state: 'hidden' });
    expect(b.pageErrors).toEqual([]);
  });

  it('calls routed to #partners show the customer masked; #calls, of full members, in full', async () => {
    await runExample('/campaign subscribe * call_started call_completed');
    await b.page.locator('#channel-title', { hasText: 'partners' }).waitFor();
    await b.page
      .locator('#messages .msg', { hasText: 'This channel has 1 guest in it, so the bot masks' })
      .first()
      .waitFor();

    await fireCall('Nia Masked', '+14155550123');
    const card = cardOf('Nia Masked');
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain('+1 ••• ••• 0123');
    expect(text).not.toContain('+14155550123');
    // Its full card, a click away, masked alike.
    await card.getByRole('button', { name: 'Details' }).click();
    const details = b.page.locator('#modal', { hasText: 'Call details' });
    await details.waitFor();
    expect(await details.innerText()).toContain('+1 ••• ••• 0123');
    expect(await details.innerText()).not.toContain('+14155550123');
    await b.page.locator('#modal-close').click();
    await details.waitFor({ state: 'hidden' });
    const inPartners = posted(PARTNERS).filter((p) => p.includes('Nia Masked'));
    expect(inPartners.length).toBeGreaterThan(0);
    for (const post of inPartners) expect(post).not.toContain('4155550123');

    await b.page.getByRole('button', { name: '# calls' }).click();
    expect(await cardOf('Nia Masked').innerText()).toContain('+14155550123');
    expect(b.pageErrors).toEqual([]);
  });

  it('customer chats are refused in #partners without customers:full, and nothing is routed', async () => {
    await runExample('/campaign subscribe * message_received message_sent');
    await b.page.locator('#channel-title', { hasText: 'partners' }).waitFor();
    const refusal = b.page.locator('#messages .msg.ephemeral', { hasText: 'Nothing was subscribed' });
    await refusal.waitFor();
    expect(await refusal.innerText()).toContain('This channel has 1 guest in it, so customer chats');
    const routes = await h.pg.bot.deps.store.routes.listForTeam(h.pg.slack.teamId);
    expect(
      routes
        .filter((r) => r.channelId === PARTNERS)
        .map((r) => r.triggerName)
        .sort(),
    ).toEqual(['call_completed', 'call_started']);
    expect(b.pageErrors).toEqual([]);
  });

  it('in the Slack Connect channel, calls are masked for the other organisation', async () => {
    await runExample('/campaign subscribe * call_completed');
    await b.page.locator('#channel-title', { hasText: 'vendor-support' }).waitFor();
    await b.page
      .locator('#messages .msg', { hasText: '2 people of another organisation (it is a Slack Connect channel)' })
      .first()
      .waitFor();
    await fireCall('Omar Shared', '+14155550177');
    const card = cardOf('Omar Shared');
    await card.waitFor();
    expect(await card.innerText()).toContain('+1 ••• ••• 0177');
    for (const post of posted(VENDOR).filter((p) => p.includes('Omar Shared')))
      expect(post).not.toContain('4155550177');
    // The same call in #calls, of full members only: in full.
    await h.pg.slack.waitFor(() => posted(CALLS).some((p) => p.includes('+14155550177')));
    expect(b.pageErrors).toEqual([]);
  });

  it('with an admin’s customers:full, chats reach the Slack Connect channel in full', async () => {
    await runExample('/campaign subscribe * message_received message_sent customers:full');
    await b.page.locator('#messages .msg', { hasText: 'with customers:full' }).first().waitFor();
    await b.page.getByRole('tab', { name: /Simulate/ }).click();
    await b.page.locator('#sim-trigger').selectOption('message_received');
    await b.page.locator('#sim-campaign').selectOption('camp-3');
    await b.page.locator('#sim-name').fill('Lena Open');
    await b.page.locator('#sim-number').fill('+14155550188');
    await b.page.locator('#sim-text').fill('Can Northwind call me back tonight?');
    await b.page.getByRole('button', { name: 'Fire event' }).click();
    const card = b.page.locator('#messages .msg', { hasText: 'Lena Open' }).last();
    await card.waitFor();
    expect(await card.innerText()).toContain('+14155550188');
    await h.pg.slack.waitFor(() => posted(VENDOR).some((p) => p.includes('+14155550188')));
    expect(b.pageErrors).toEqual([]);
  });
});
