/**
 * The playground in a real headless browser (Debian's chromium, driven by playwright-core): what a newcomer
 * does after `npm start` with no configuration.
 *
 * Needs /usr/bin/chromium (`.ci/run` installs it). In CI a missing browser FAILS this file; locally (CI unset)
 * it is skipped with a loud message.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlayground, type PlaygroundHarness } from './support.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const inCi = Boolean(process.env.CI);

if (!haveChromium && !inCi) {
  console.warn(
    `\n!!! ${CHROMIUM} is missing: SKIPPING the playground browser test (apt-get install -y chromium). CI fails instead.\n`,
  );
}

describe.skipIf(!haveChromium && !inCi)('playground in a browser', () => {
  let h: PlaygroundHarness;
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!haveChromium)
      throw new Error(`${CHROMIUM} is missing: install it (apt-get install -y chromium) — .ci/run does`);
    h = await startTestPlayground();
    profileDir = mkdtempSync(join(tmpdir(), 'playground-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1440, height: 900 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(h.pg.url.replace('localhost', '127.0.0.1'));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await h?.pg.stop();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
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

  it('shows a template from the Try chips without having to know a template id', async () => {
    const chip = page.locator('#try').getByRole('button', { name: /^template / });
    const id = ((await chip.getAttribute('data-try')) ?? '').replace('/campaign template ', '');
    const seeded = h.pg.platform.state.templates[id];
    expect(seeded).toBeDefined();
    await chip.click();
    const answer = page.locator('#messages .msg.ephemeral', { hasText: 'Required fields' });
    await answer.waitFor();
    const text = await answer.innerText();
    expect(text).toContain(seeded!.title);
    expect(text).toContain(id);
    expect(text).not.toContain('was not found');
    expect(pageErrors).toEqual([]);
  });

  it('simulates a customer message, links its session, replies in the thread and sees ✅', async () => {
    await page.getByRole('button', { name: '# support' }).click();
    await page.locator('#sim-trigger').selectOption('message_received');
    await page.locator('#sim-campaign').selectOption('camp-3');
    await page.locator('#sim-name').fill('Emma Davis');
    await page.locator('#sim-number').fill('+14155550142');
    await page.locator('#sim-text').fill('Hi! Can I move my cleaning to Friday?');
    await page.getByRole('button', { name: 'Fire event' }).click();
    const sessionId = (await page.locator('#sim-result code').first().innerText()).trim();
    expect(sessionId).toMatch(/^sess-/);

    // The conversation's card in #support, with the customer's message in its thread.
    const card = page.locator('#messages .msg', { hasText: 'Emma Davis' }).last();
    await card.waitFor();
    await card.getByRole('button', { name: /Link session/ }).click();
    await page.getByRole('textbox', { name: 'Session id' }).fill(sessionId);
    await page.locator('#modal-submit').click();
    await page.locator('#modal').waitFor({ state: 'hidden' });

    await card.locator('button.replies').click();
    const thread = page.locator('#thread-messages');
    await thread.getByText('Can I move my cleaning to Friday?').waitFor();
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
});
