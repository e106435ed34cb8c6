/**
 * Writes docs/playground.png, the README's picture of the playground: a call routed to #partners (a guest reads it,
 * so the customer is masked), then #general with the dashboard's top campaigns as a table and a digest whose
 * charts the page draws as Slack draws them, the People list with who is on shift beside.
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
  const box = page.getByRole('textbox', { name: 'Message', exact: true });

  await page.locator('#panel-try [data-fill="/campaign subscribe * call_started call_completed"]').click();
  await box.press('Enter');
  await page.locator('#messages .msg', { hasText: 'so the bot masks' }).first().waitFor();

  await page.getByRole('tab', { name: /Simulate/ }).click();
  await page.locator('#sim-trigger').selectOption('call_completed');
  await page.locator('#sim-campaign').selectOption('camp-1');
  await page.locator('#sim-name').fill('Maria Lopez');
  await page.locator('#sim-number').fill('+14155550142');
  await page.locator('#sim-outcome').selectOption('booked');
  await page.getByRole('button', { name: 'Fire event' }).click();
  await page.locator('#messages .msg', { hasText: 'Maria Lopez' }).getByRole('button', { name: 'Details' }).waitFor();

  // A digest in #general: its charts drawn as Slack draws them, and the stats' top campaigns table.
  await page.getByRole('button', { name: '# general' }).click();
  await box.fill('/campaign stats --public');
  await box.press('Enter');
  await page.locator('#messages .bk-data-table').first().waitFor();
  await box.fill('/campaign digest daily * at 09:00');
  await box.press('Enter');
  await page.locator('#messages .msg', { hasText: 'now gets a digest' }).waitFor();
  await page.locator('#sim-digest').click();
  const charts = page.locator('#messages .bk-chart[data-chart-type="bar"]').last();
  await charts.waitFor();
  await charts.scrollIntoViewIfNeeded();
  await page.screenshot({ path: OUT.pathname });
  process.stdout.write(`wrote ${OUT.pathname}\n`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await pg.stop();
}
