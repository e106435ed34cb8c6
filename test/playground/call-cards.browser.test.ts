/**
 * A completed call in the playground's #calls, in a real headless browser: one short section (outcome, customer,
 * duration, the summary's first line, campaign and agent) with a Details button, which opens the full card in a
 * modal — as the Slack stand-in received and accepted them. Needs /usr/bin/chromium (browser.ts).
 */
import { describe, expect, it } from 'vitest';
import { browserTestsRun, type BrowserPage } from './browser.js';
import { CALLS, usePlaygroundPage, type PlaygroundHarness } from './support.js';

describe.skipIf(!browserTestsRun)('call cards in #calls', () => {
  let h: PlaygroundHarness;
  let b: BrowserPage;

  usePlaygroundPage((started, page) => {
    h = started;
    b = page;
  });

  it('shows a call as one short section, and Details opens its full card', async () => {
    await b.page.getByRole('button', { name: '# calls' }).click();
    await b.page.getByRole('tab', { name: /Simulate/ }).click();
    await b.page.locator('#sim-trigger').selectOption('call_completed');
    await b.page.locator('#sim-campaign').selectOption('camp-1');
    await b.page.locator('#sim-name').fill('Dora Details');
    await b.page.locator('#sim-number').fill('+14155550166');
    await b.page.locator('#sim-outcome').selectOption('booked');
    await b.page.getByRole('button', { name: 'Fire event' }).click();

    const card = b.page
      .locator('#messages .msg', { hasText: 'Dora Details' })
      .filter({ has: b.page.getByRole('button', { name: 'Details' }) });
    await card.waitFor();
    const section = card.locator('.bk-section');
    expect(await section.count()).toBe(1);
    const text = await section.innerText();
    expect(text).toMatch(/Dora Details \(\+14155550166\) · completed · \d\d:\d\d/);
    expect(text).toContain('Dora Details confirmed the check-up and booked Tuesday 10:00.');
    expect(text).toMatch(/campaign camp-1 · Riley/);
    expect(text).not.toContain('Ended reason');
    // What the page shows is what Slack took: a section and the Details button, nothing else.
    const taken = h.pg.slack.calls.find(
      (c) =>
        c.method === 'chat.postMessage' &&
        c.args.channel === CALLS &&
        c.response.ok === true &&
        JSON.stringify(c.args).includes('Dora Details'),
    );
    expect((taken?.args.blocks as Array<{ type: string }>).map((x) => x.type)).toEqual(['section', 'actions']);

    await card.getByRole('button', { name: 'Details' }).click();
    const details = b.page.locator('#modal', { hasText: 'Call details' });
    await details.waitFor();
    const full = await details.innerText();
    for (const field of ['Number', '+14155550166', 'Email', 'Ended reason', 'Started', 'Ended', 'Summary'])
      expect(full).toContain(field);
    await b.page.locator('#modal-close').click();
    await details.waitFor({ state: 'hidden' });
    expect(b.pageErrors).toEqual([]);
  });
});
