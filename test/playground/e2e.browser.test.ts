/**
 * The playground in a real headless browser (Debian's chromium, driven by playwright-core): what a newcomer
 * does after `npm start` with no configuration.
 *
 * Needs /usr/bin/chromium (browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerFor } from '../../playground/call-outcomes.js';
import { browserTestsRun, openPage, type BrowserPage } from './browser.js';
import { startTestPlayground, type PlaygroundHarness } from './support.js';

describe.skipIf(!browserTestsRun)('playground in a browser', () => {
  let h: PlaygroundHarness;
  let browser: BrowserPage;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    h = await startTestPlayground();
    browser = await openPage(h.pg.url.replace('localhost', '127.0.0.1'));
    ({ page, pageErrors } = browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.pg.stop();
  });

  it('runs /campaign stats from the message box and shows the figures', async () => {
    await page.getByText('PLAYGROUND MODE').first().waitFor();
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/campaign stats');
    await box.press('Enter');
    const answer = page.locator('#messages .msg.ephemeral', { hasText: 'Connection rate' });
    await answer.waitFor();
    const text = await answer.innerText();
    expect(text).toContain('Only visible to you');
    expect(text).toContain('1,284');
    expect(text).toContain('62%');
    expect(pageErrors).toEqual([]);
  });

  it('Try these shows the seeded ids, fills a command into the message box, and it runs', async () => {
    const panel = page.locator('#panel-try');
    await panel.locator('#try-campaigns').getByText('Spring Recall Reminders').waitFor();
    for (const id of ['camp-1', 'agent-11', 'pn-2', 'tpl-outbound-recall'])
      await panel.locator(`[data-insert="${id}"]`).waitFor();

    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await panel.locator('[data-insert="pn-2"]').click();
    expect(await box.inputValue()).toBe('pn-2 ');
    await box.fill('');

    const example = panel.locator('[data-fill^="/campaign template "]');
    const command = (await example.getAttribute('data-fill')) ?? '';
    const id = command.replace('/campaign template ', '');
    const seeded = h.pg.platform.state.templates[id];
    expect(seeded).toBeDefined();
    await example.click();
    expect(await box.inputValue()).toBe(command);
    await box.press('Enter');
    const answer = page.locator('#messages .msg.ephemeral', { hasText: 'Required fields' });
    await answer.waitFor();
    const text = await answer.innerText();
    expect(text).toContain(seeded!.title);
    expect(text).toContain(id);
    expect(pageErrors).toEqual([]);
  });

  it('@ completes to a person of the workspace, and the bot gets a real mention', async () => {
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.click();
    await box.pressSequentially('/campaign agent-link @sa');
    const menu = page.locator('#mention-menu');
    await menu.getByRole('option', { name: /@sam/ }).waitFor();
    await box.press('Enter');
    await menu.waitFor({ state: 'hidden' });
    expect(await box.inputValue()).toBe('/campaign agent-link @sam ');
    await box.pressSequentially('agent-31');
    await box.press('Enter');
    const answer = page.locator('#messages .msg.ephemeral', { hasText: 'now sent as agent' });
    await answer.waitFor();
    expect(await answer.innerText()).toContain('@sam');
    // The bot knew whom: the mention carried Sam's user id.
    expect(await h.pg.bot.deps.store.agentLinks.get(h.pg.slack.teamId, 'U0PLAYSAM01')).toBe('agent-31');
    expect(pageErrors).toEqual([]);
  });

  it('as the guest, bookings are refused with the members-only sentence; as the admin again, they show', async () => {
    await page.locator('#you-select').selectOption('U0PLAYGWEN1');
    await page.locator('#you-role', { hasText: 'guest' }).waitFor();
    await page.locator('#panel-try [data-fill^="/campaign bookings "]').click();
    await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
    const refusal = page.locator('#messages .msg.ephemeral', { hasText: 'guests can’t see it' });
    await refusal.waitFor();
    expect(await refusal.innerText()).toContain('Ask a member or an admin');

    await page.locator('#you-select').selectOption('U0PLAYYOU01');
    await page.locator('#you-role', { hasText: 'admin' }).waitFor();
    // The guest's private answer is not the admin's to see.
    await refusal.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('simulates a customer message, whose session the platform hands over; replies in the thread and sees ✅', async () => {
    await page.getByRole('button', { name: '# support' }).click();
    await page.getByRole('tab', { name: /Simulate/ }).click();
    await page.locator('#sim-trigger').selectOption('message_received');
    await page.locator('#sim-campaign').selectOption('camp-3');
    await page.locator('#sim-name').fill('Emma Davis');
    await page.locator('#sim-number').fill('+14155550142');
    await page.locator('#sim-text').fill('Hi! Can I move my cleaning to Friday?');
    await page.getByRole('button', { name: 'Fire event' }).click();
    // Fire answers once the card is in #support and linked (the bot posts it, then Link session runs).
    await page.locator('#sim-result', { hasText: 'handed over' }).waitFor({ timeout: 30_000 });
    const sessionId = (await page.locator('#sim-result code').first().innerText()).trim();
    expect(sessionId).toMatch(/^sess-/);
    expect(await page.locator('#sim-result').innerText()).toContain('handed over: the playground pressed Link session');

    // The conversation's card in #support shows the session; no form opened on the page.
    const card = page.locator('#messages .msg', { hasText: 'Emma Davis' }).last();
    // The card's update waits its turn in the channel's lane like every post: as long as the hand-over may take.
    await card.getByText(sessionId).waitFor({ timeout: 30_000 });
    expect(await page.locator('#modal').isHidden()).toBe(true);

    await card.locator('button.replies').click();
    const thread = page.locator('#thread-messages');
    // The customer's line in the thread (the card above it quotes their latest words too).
    await thread.getByText('Can I move my cleaning to Friday?').last().waitFor();
    const reply = 'Of course — Friday 9:30 is yours.';
    const replyBox = page.getByRole('textbox', { name: 'Reply in thread' });
    await replyBox.fill(reply);
    await replyBox.press('Enter');

    const mine = thread.locator('.msg', { hasText: reply });
    await mine.locator('.reaction', { hasText: '✅' }).waitFor();
    // The platform received exactly that reply for that session.
    expect(h.pg.platform.state.humanResponses).toContainEqual(expect.objectContaining({ sessionId, message: reply }));

    // A file attached to a reply reaches the customer as a link, which the Simulate panel offers.
    const form = Buffer.from('%PDF-1.4 the rescheduling form');
    await page.locator('#reply-attach').setInputFiles({ name: 'form.pdf', mimeType: 'application/pdf', buffer: form });
    await page.locator('#pending-reply-files', { hasText: 'form.pdf' }).waitFor();
    await replyBox.press('Enter');
    const filed = thread.locator('.msg', { hasText: 'form.pdf' }).last();
    await filed.locator('.reaction', { hasText: '✅' }).waitFor();
    expect(h.pg.platform.state.humanResponses.at(-1)).toMatchObject({
      sessionId,
      message: 'Sent you a file: form.pdf',
      attachments: [expect.stringMatching(/\/attachments\/[A-Za-z0-9_-]{43}$/)],
    });
    await page.locator('#tab-simulate').click();
    const link = page.locator('#sim-human a', { hasText: 'file 1' });
    const href = (await link.getAttribute('href')) ?? '';
    const opened = await fetch(new URL(href, h.base));
    expect(Buffer.from(await opened.arrayBuffer()).equals(form)).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('with the platform down, a command gets the clear sentence; back to normal, the answer', async () => {
    await page.getByRole('button', { name: '# general' }).click();
    await page.getByRole('tab', { name: /Simulate/ }).click();
    // Clicked, and judged by the badge the page shows: the panel may redraw the switch from the server's state
    // just as it is clicked, which makes Playwright's check() report an unchanged box although the click went in.
    await page.locator('#platform-switch input[value="down"]').click();
    await page.locator('#platform-badge', { hasText: 'down' }).waitFor();
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/campaign quota');
    await box.press('Enter');
    await page
      .locator('#messages .msg.ephemeral', { hasText: 'could not be reached — try again in a minute' })
      .waitFor();

    await page.locator('#platform-switch input[value="normal"]').click();
    await page.locator('#platform-badge').waitFor({ state: 'hidden' });
    await box.fill('/campaign quota');
    await box.press('Enter');
    await page.locator('#messages .msg.ephemeral', { hasText: 'Usage quota' }).waitFor();
    expect(h.pg.platform.mode()).toBe('normal');
    expect(pageErrors).toEqual([]);
  });

  it('a burst of 20 calls ends at once and every call shows in #calls', async () => {
    await page.locator('#sim-burst-campaign').selectOption('camp-1');
    await page.locator('#sim-burst').click();
    await page.locator('#sim-result', { hasText: '20 calls ended' }).waitFor();
    expect(await page.locator('#sim-result').innerText()).toContain('20 × 200');
    await page.getByRole('button', { name: '# calls' }).click();
    const names = Array.from({ length: 20 }, (_, i) => customerFor(i).customerName);
    // Cards or roll-ups, as the channel keeps up: every call shows.
    for (const name of names) await page.locator('#messages').getByText(name).first().waitFor({ timeout: 30_000 });
    expect(pageErrors).toEqual([]);
  }, 40_000);

  it('a recording and “open thread” open on the page, not at an address off the machine', async () => {
    await page.getByRole('button', { name: '# general' }).click();
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/campaign sample call_completed camp-1');
    await box.press('Enter');
    const card = page.locator('#messages .msg.ephemeral', { hasText: 'Sample' }).last();
    // The card's Recording button asks the bot, which answers a full member with the link, privately.
    await card.locator('button[data-action-id="call_recording_open"]').click();
    const recording = page
      .locator('#messages .msg.ephemeral', { hasText: 'shown to you only' })
      .last()
      .locator('button[data-audio-src]');
    await recording.waitFor();
    const served = page.waitForResponse((r) => r.url().includes('/playground/media/recording/'));
    await recording.click();
    expect((await served).status()).toBe(200);
    await page.locator('#player', { hasText: 'call-sample-0001' }).waitFor();

    await box.fill('/campaign handoffs');
    await box.press('Enter');
    const list = page.locator('#messages .msg.ephemeral', { hasText: 'Emma Davis' }).last();
    await list.getByText('open thread').click();
    await page.locator('#channel-title', { hasText: 'support' }).waitFor();
    await page.locator('#thread-messages').getByText('Can I move my cleaning to Friday?').last().waitFor();
    expect(page.url()).toBe(h.pg.url.replace('localhost', '127.0.0.1'));
    expect(pageErrors).toEqual([]);
  });

  it('when the bot restarts, the page says so and shows the new run instead of going blank', async () => {
    const port = h.pg.port;
    await h.pg.stop();
    const banner = page.locator('#restart-banner');
    await banner.getByText('not answering').waitFor();
    h = await startTestPlayground(port);
    await banner.getByText('The bot restarted').waitFor();
    // The new run's workspace: its seeded routes in #calls, nothing of what was said before in #general.
    await page.getByRole('button', { name: '# calls' }).click();
    await page.locator('#messages', { hasText: 'This channel now receives' }).waitFor();
    await page.getByRole('button', { name: '# general' }).click();
    await page.locator('#messages .empty').waitFor();
    await banner.getByRole('button', { name: 'OK' }).click();
    await banner.waitFor({ state: 'hidden' });
    expect(pageErrors).toEqual([]);
  });
});
