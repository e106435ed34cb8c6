/**
 * Writes docs/playground.png, the README's picture of the playground: a newcomer's first customer chat — its card
 * in #support with the session the simulated platform handed over, the thread with the customer's message and the
 * answer the platform accepted (✅), the People list with who is on shift beside.
 * `npm run screenshot`; needs /usr/bin/chromium and, for the emoji, fonts-noto-color-emoji.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium } from 'playwright-core';
import { startPlayground } from '../playground/index.js';

const OUT = new URL('../docs/playground.png', import.meta.url);

const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
const pg = await startPlayground({ env: { PORT: '0', LOG_LEVEL: 'warn' }, logDestination: quiet });
const profile = mkdtempSync(join(tmpdir(), 'playground-screenshot-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1440, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  await page.goto(pg.url);
  await page.getByText('PLAYGROUND MODE').first().waitFor();

  // A customer chat: its session handed over, the card in #support, and the agent's answer delivered (✅).
  await page.getByRole('tab', { name: /Simulate/ }).click();
  await page.locator('#sim-trigger').selectOption('message_received');
  await page.locator('#sim-campaign').selectOption('camp-3');
  await page.locator('#sim-name').fill('Emma Davis');
  await page.locator('#sim-number').fill('+14155550142');
  await page.locator('#sim-text').fill('Hi! Can I move my cleaning to Friday?');
  await page.getByRole('button', { name: 'Fire event' }).click();
  await page.locator('#sim-result', { hasText: 'handed over' }).waitFor();
  await page.getByRole('button', { name: '# support' }).click();
  const card = page.locator('#messages .msg', { hasText: 'Chat with Emma Davis' });
  await card.locator('button.replies').click();
  const replyBox = page.getByRole('textbox', { name: 'Reply in thread' });
  await replyBox.fill('Of course — Friday 9:30 is yours. See you then!');
  await replyBox.press('Enter');
  await page.locator('#thread-messages .msg', { hasText: 'Friday 9:30 is yours' }).locator('.reaction').waitFor();
  await page.screenshot({ path: OUT.pathname });
  process.stdout.write(`wrote ${OUT.pathname}\n`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await pg.stop();
}
