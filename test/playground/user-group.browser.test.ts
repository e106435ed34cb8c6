/**
 * The playground's user group, in a real headless browser: the hint the bot gives where customer chats are routed
 * (`/campaign handoff-sla 5 @support`) runs as written, and the next chat there pages the group by its handle.
 *
 * Needs /usr/bin/chromium (browser.ts).
 */
import { describe, expect, it } from 'vitest';
import { browserTestsRun, type BrowserPage } from './browser.js';
import { SUPPORT, usePlaygroundPage, type PlaygroundHarness } from './support.js';

describe.skipIf(!browserTestsRun)('the @support user group', () => {
  let h: PlaygroundHarness;
  let b: BrowserPage;

  usePlaygroundPage((started, page) => {
    h = started;
    b = page;
  });

  it('the hint a chat route gives runs as written, and a new chat there pages @support', async () => {
    const { page } = b;
    await page.getByRole('button', { name: '# support' }).click();
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    // Routing customer chats to a channel that pages nobody: the bot's answer says how to page the team.
    await box.fill('/campaign subscribe camp-3 message_received');
    await box.press('Enter');
    const hint = page.locator('#messages .msg.ephemeral', { hasText: 'Nobody is paged when a customer chat arrives' });
    const command = (await hint.locator('code', { hasText: '/campaign handoff-sla' }).innerText()).trim();
    expect(command).toBe('/campaign handoff-sla 5 @support');

    // Typed out in full, not picked from the @ list (the space after it closes the list).
    await box.fill(`${command} `);
    await box.press('Enter');
    const answer = page.locator('#messages .msg.ephemeral', { hasText: 'Paged as a chat arrives' });
    await answer.waitFor();
    expect(await answer.innerText()).toContain('@support');
    expect(await h.pg.bot.deps.store.handoffSla.get(h.pg.slack.teamId, SUPPORT)).toMatchObject({
      userGroup: 'S0PLAYSUPRT',
      slaS: 300,
    });

    await page.getByRole('tab', { name: /Simulate/ }).click();
    await page.locator('#sim-trigger').selectOption('message_received');
    await page.locator('#sim-campaign').selectOption('camp-3');
    await page.locator('#sim-name').fill('Liam Chen');
    await page.locator('#sim-number').fill('+14155550166');
    await page.getByRole('button', { name: 'Fire event' }).click();
    await page.locator('#sim-result', { hasText: 'handed over' }).waitFor();
    const card = page.locator('#messages .msg', { hasText: 'Chat with Liam Chen' });
    await card.locator('.bk-mention', { hasText: '@support' }).first().waitFor();
    expect(await card.innerText()).toContain('@support a new chat arrived');
    // Slack received the card with the group's mention, and accepted it.
    const posted = h.pg.slack.calls.find(
      (c) => c.method === 'chat.postMessage' && c.response.ok === true && JSON.stringify(c.args).includes('Liam Chen'),
    );
    expect(JSON.stringify(posted?.args.blocks)).toContain('<!subteam^S0PLAYSUPRT>');
    expect(b.pageErrors).toEqual([]);
  });

  it('@ offers the group beside the people', async () => {
    const box = b.page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('');
    await box.pressSequentially('/campaign handoff-sla 10 @sup');
    await b.page
      .locator('#mention-menu')
      .getByRole('option', { name: /@support/ })
      .waitFor();
    await box.press('Enter');
    expect(await box.inputValue()).toBe('/campaign handoff-sla 10 @support ');
    await box.press('Enter');
    await b.page.locator('#messages .msg.ephemeral', { hasText: 'more than 10 min' }).waitFor();
    expect(await h.pg.bot.deps.store.handoffSla.get(h.pg.slack.teamId, SUPPORT)).toMatchObject({
      userGroup: 'S0PLAYSUPRT',
      slaS: 600,
    });
  });
});
