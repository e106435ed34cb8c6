/**
 * Debian's chromium, driven by playwright-core, on a playground page: what the browser tests share. Needs
 * /usr/bin/chromium (`.ci/run` installs it); in CI a missing browser FAILS, locally (CI unset) the file is skipped
 * with a loud message.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

/** Whether the browser tests run here (they do in CI, where a missing chromium fails them). */
export const browserTestsRun = haveChromium || Boolean(process.env.CI);

if (!browserTestsRun) {
  console.warn(
    `\n!!! ${CHROMIUM} is missing: SKIPPING the playground browser tests (apt-get install -y chromium). CI fails instead.\n`,
  );
}

export interface BrowserPage {
  page: Page;
  /** Uncaught errors of the page's script. */
  pageErrors: string[];
  close(): Promise<void>;
}

/** A headless chromium with a fresh profile, on `url`. */
export async function openPage(url: string): Promise<BrowserPage> {
  if (!haveChromium) throw new Error(`${CHROMIUM} is missing: install it (apt-get install -y chromium) — .ci/run does`);
  const profileDir = mkdtempSync(join(tmpdir(), 'playground-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profileDir, {
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
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(url);
  return {
    page,
    pageErrors,
    async close() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
