/**
 * The playground on smaller screens, in a real headless browser: a 1024×768 laptop with a thread open keeps the
 * channel readable and Send clear of the thread, and a 390 px phone shows the thread as an overlay.
 *
 * Needs /usr/bin/chromium (browser.ts).
 */
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserTestsRun, type BrowserPage } from './browser.js';
import { eventually, usePlaygroundPage, type PlaygroundHarness } from './support.js';

type Box = { x: number; y: number; width: number; height: number };

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${locator.toString()} is not shown`);
  return box;
}

function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe.skipIf(!browserTestsRun)('the playground on smaller screens', () => {
  let h: PlaygroundHarness;
  let b: BrowserPage;

  usePlaygroundPage((started, page) => {
    h = started;
    b = page;
  });

  /** A customer chat in #support, its thread opened from the card. */
  async function openChatThread(name: string, number: string): Promise<void> {
    // The seed route of #support, made with the real /campaign subscribe, is on the platform.
    await eventually(() =>
      Promise.resolve(h.pg.platform.state.subscriptions.some((s) => s.triggerName === 'message_received')),
    );
    const fired = await h.post('/playground/simulate', {
      trigger: 'message_received',
      campaignId: 'camp-3',
      customerName: name,
      customerNumber: number,
      text: 'Hi, can I move my appointment to Friday?',
    });
    expect(fired.ok).toBe(true);
    await b.page.getByRole('button', { name: '# support' }).click();
    const card = b.page.locator('#messages .msg', { hasText: `Chat with ${name}` });
    await card.locator('button.replies').click();
    await b.page.locator('#thread-messages').getByText('can I move my appointment').last().waitFor();
  }

  it('at 1024×768 with a thread open, the channel keeps 400 px and more, and Send stays clear of the thread', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 1024, height: 768 });
    await openChatThread('Ava Wilson', '+14155550181');

    const channel = await boxOf(page.locator('main.main'));
    const thread = await boxOf(page.locator('#panel-thread'));
    const send = await boxOf(page.locator('#composer-send'));
    expect(channel.width).toBeGreaterThanOrEqual(400);
    expect(overlap(send, thread)).toBe(false);
    expect(send.x + send.width).toBeLessThanOrEqual(channel.x + channel.width);
    // The card reads in lines, not a letter or two per line: its heading is one line at the body's size.
    const heading = await boxOf(
      page.locator('#messages .msg', { hasText: 'Chat with Ava Wilson' }).locator('.bk-section-text').first(),
    );
    expect(heading.height).toBeLessThan(30);
    // Both reply boxes are whole and on screen.
    const reply = await boxOf(page.locator('#reply-send'));
    expect(reply.x + reply.width).toBeLessThanOrEqual(1024);
    expect(reply.y + reply.height).toBeLessThanOrEqual(768);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1024);
    // Closing the thread brings Try these and Simulate back.
    await page.locator('#thread-close').click();
    await page.getByRole('tab', { name: /Simulate/ }).waitFor();
    expect(b.pageErrors).toEqual([]);
  });

  it('on a 390 px phone, the thread is an overlay over the whole screen, and ✕ goes back to the channel', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    await openChatThread('Ethan Brooks', '+14155550182');

    const thread = await boxOf(page.locator('#panel-thread'));
    expect(thread).toEqual({ x: 0, y: 0, width: 390, height: 844 });
    // Whatever is under the middle of the screen is the thread.
    const onTop = await page.evaluate<boolean>(
      "document.elementFromPoint(195, 422)?.closest('#panel-thread') !== null",
    );
    expect(onTop).toBe(true);
    const reply = await boxOf(page.locator('#reply-send'));
    expect(reply.x + reply.width).toBeLessThanOrEqual(390);
    expect(reply.y + reply.height).toBeLessThanOrEqual(844);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

    await page.locator('#thread-close').click();
    await page.locator('#panel-thread').waitFor({ state: 'hidden' });
    const channel = await boxOf(page.locator('main.main'));
    expect(channel.width).toBe(390);
    const send = await boxOf(page.locator('#composer-send'));
    expect(send.x + send.width).toBeLessThanOrEqual(390);
    expect(b.pageErrors).toEqual([]);
  });
});
