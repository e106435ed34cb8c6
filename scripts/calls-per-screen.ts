/**
 * How many completed calls a person sees at once in the playground's #calls, at 1280×720: `npm run calls:screen`
 * measures the default short cards, `npm run calls:screen -- full` the full ones (the route option `cards:full`).
 * Calls are fired one by one from the Simulate panel, each waited for (so none is rolled up), then the channel is
 * scrolled to its end and the cards wholly inside the message pane are counted. Needs /usr/bin/chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium } from 'playwright-core';
import { startPlayground } from '../playground/index.js';

const cards = process.argv[2] === 'full' ? 'full' : 'short';
const CALLS = 8;
const OUTCOMES = ['booked', 'hot-lead', 'no-answer', 'not-interested', 'busy', 'transferred', 'failed', 'voicemail'];
const VIEWPORT = { width: 1280, height: 720 };

const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
const pg = await startPlayground({ env: { PORT: '0', LOG_LEVEL: 'warn' }, logDestination: quiet });
const profile = mkdtempSync(join(tmpdir(), 'calls-per-screen-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: VIEWPORT,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  await page.goto(pg.url);
  await page.getByRole('button', { name: '# calls' }).click();
  if (cards === 'full') {
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/campaign subscribe * call_started call_completed cards:full');
    await box.press('Enter');
    await page.locator('#messages .msg', { hasText: 'cards:full' }).first().waitFor();
  }
  await page.getByRole('tab', { name: /Simulate/ }).click();
  const names: string[] = [];
  for (let i = 0; i < CALLS; i++) {
    const name = `Caller ${String.fromCharCode(65 + i)}${i}`;
    names.push(name);
    await page.locator('#sim-trigger').selectOption('call_completed');
    await page.locator('#sim-campaign').selectOption('camp-1');
    await page.locator('#sim-name').fill(name);
    await page.locator('#sim-outcome').selectOption(OUTCOMES[i % OUTCOMES.length]!);
    await page.getByRole('button', { name: 'Fire event' }).click();
    await page.locator('#messages .msg', { hasText: name }).first().waitFor();
  }
  // The channel as a reader finds it: at its latest post.
  const pane = page.locator('#messages');
  await pane.hover();
  await page.mouse.wheel(0, 100_000);
  await page
    .locator('#messages .msg', { hasText: names.at(-1) })
    .first()
    .waitFor();
  const view = (await pane.boundingBox())!;
  const heights: number[] = [];
  let whole = 0;
  for (const name of names) {
    const box = await page.locator('#messages .msg', { hasText: name }).first().boundingBox();
    if (!box) continue;
    heights.push(box.height);
    if (box.y >= view.y - 0.5 && box.y + box.height <= view.y + view.height + 0.5) whole++;
  }
  const mean = heights.reduce((a, b) => a + b, 0) / heights.length;
  process.stdout.write(
    `${cards} cards at ${VIEWPORT.width}×${VIEWPORT.height}: ${whole} calls wholly on screen in #calls ` +
      `(message pane ${Math.round(view.height)} px, a card ${Math.round(mean)} px on average: ` +
      `${(view.height / mean).toFixed(1)} cards' height)\n`,
  );
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await pg.stop();
}
