/**
 * Agents on and off shift, and each person's Home tab, in a real headless browser: the sidebar shows who is on
 * shift, the shift button runs the real `/campaign shift on|off` as the person at the page, new chats in a channel
 * that assigns go to the agents on shift, and the Home tab the bot publishes (app_home_opened) is each person's own.
 *
 * Needs /usr/bin/chromium (browser.ts).
 */
import { describe, expect, it } from 'vitest';
import { browserTestsRun, type BrowserPage } from './browser.js';
import { SUPPORT, usePlaygroundPage, type PlaygroundHarness } from './support.js';

const SAM = 'U0PLAYSAM01';
const PRIYA = 'U0PLAYPRIYA';

describe.skipIf(!browserTestsRun)('shifts and the Home tab', () => {
  let h: PlaygroundHarness;
  let b: BrowserPage;

  usePlaygroundPage((started, page) => {
    h = started;
    b = page;
  });

  const person = (name: string) => b.page.locator('#people-list .person-link', { hasText: name });
  const home = () => b.page.locator('#home');
  const roster = async () => (await h.pg.bot.deps.store.shifts.onShift(h.pg.slack.teamId)).map((a) => a.user);
  async function fireChat(name: string, number: string): Promise<void> {
    await b.page.getByRole('tab', { name: /Simulate/ }).click();
    await b.page.locator('#sim-trigger').selectOption('message_received');
    await b.page.locator('#sim-campaign').selectOption('camp-3');
    await b.page.locator('#sim-name').fill(name);
    await b.page.locator('#sim-number').fill(number);
    await b.page.locator('#sim-text').fill(`Hello, this is ${name}.`);
    await b.page.getByRole('button', { name: 'Fire event' }).click();
    await b.page.locator('#sim-result .ok').first().waitFor();
  }

  it('the sidebar shows who is on shift, and the Home tab says so', async () => {
    await person('sam').locator('.on-shift').waitFor();
    expect(await person('priya').locator('.on-shift').count()).toBe(0);
    await b.page.locator('#home-link').click();
    await home().getByText('On shift now (1): @sam').waitFor();
    await b.page.locator('#channel-purpose', { hasText: 'as @you sees it' }).waitFor();
    expect(await roster()).toEqual([SAM]);
    expect(b.pageErrors).toEqual([]);
  });

  it('becoming Priya opens her own Home tab; going on shift adds her to the roster', async () => {
    await person('priya').click();
    await b.page.locator('#you-role', { hasText: 'member' }).waitFor();
    await b.page.locator('#channel-purpose', { hasText: 'as @priya sees it' }).waitFor();
    // The bot published a Home tab for Priya herself.
    await h.pg.slack.waitFor(() =>
      h.pg.slack.calls.some((c) => c.method === 'views.publish' && c.args.user_id === PRIYA && c.response.ok),
    );
    await b.page.locator('#shift-state', { hasText: 'off shift' }).waitFor();
    await b.page.getByRole('button', { name: 'Go on shift' }).click();
    await b.page.locator('#shift-state', { hasText: 'on shift' }).waitFor();
    await person('priya').locator('.on-shift').waitFor();
    await home().getByText('On shift now (2): @priya, @sam (you too').waitFor();
    expect(await roster()).toEqual([PRIYA, SAM]);
    expect(b.pageErrors).toEqual([]);
  });

  it('a channel that assigns hands new chats to the agents on shift in turn; each sees theirs at Home', async () => {
    await person('you').click();
    await b.page.locator('#you-role', { hasText: 'admin' }).waitFor();
    await b.page.getByRole('button', { name: '# support' }).click();
    const box = b.page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/campaign handoff-sla 5 assign:round-robin');
    await box.press('Enter');
    await b.page.locator('#messages .msg', { hasText: 'round-robin' }).first().waitFor();

    await fireChat('Ada Turn', '+14155550161');
    await fireChat('Ben Turn', '+14155550162');
    const ada = b.page.locator('#messages .msg', { hasText: 'Ada Turn' }).last();
    const ben = b.page.locator('#messages .msg', { hasText: 'Ben Turn' }).last();
    await ada.getByText('Assigned to @priya').waitFor();
    await ben.getByText('Assigned to @sam').waitFor();

    await person('priya').click();
    await b.page.locator('#home-link').click();
    await home().getByText('Ada Turn').waitFor();
    expect(await home().innerText()).not.toContain('Ben Turn');
    expect(b.pageErrors).toEqual([]);
  });

  it('going off shift takes Priya off the roster and hands her chat to the agent on shift', async () => {
    await b.page.getByRole('button', { name: 'Go off shift' }).click();
    await b.page.locator('#shift-state', { hasText: 'off shift' }).waitFor();
    await person('priya').locator('.on-shift').waitFor({ state: 'detached' });
    await home().getByText('On shift now (1): @sam').waitFor();
    await home().getByText('You have not claimed any open handoff conversation').waitFor();
    expect(await roster()).toEqual([SAM]);
    const threads = await h.pg.bot.deps.store.conversations.openThreads(h.pg.slack.teamId);
    expect(threads.filter((t) => t.channelId === SUPPORT).map((t) => t.owner)).toEqual([SAM, SAM]);
    expect(b.pageErrors).toEqual([]);
  });
});
