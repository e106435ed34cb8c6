/**
 * Starts the playground in-process (as `npm start` does with an empty environment, on a free port) and talks
 * to its JSON API the way the page does.
 */
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import type { PlaygroundModule } from '../../src/bot/playground-module.js';
import * as playgroundModule from '../../playground/index.js';
import { startPlayground, type RunningPlayground } from '../../playground/index.js';
import type { Outcome, PageChannel, PageState } from '../../playground/page-api.js';
import { WAIT_TIMEOUT_MS, waitForValue } from '../support/wait.js';
import { openPage, type BrowserPage } from './browser.js';

// main imports the playground by URL and types it with PlaygroundModule: this keeps the two in step.
const _loadedByMain: PlaygroundModule = playgroundModule;

/** The playground's channels (playground/workspace.ts). */
export const GENERAL = 'C0GENERAL01';
export const CALLS = 'C0CALLS0001';
export const SUPPORT = 'C0SUPPORT01';

/** One channel of the page's state (throws when it is missing). */
export function channel(state: PageState, id: string): PageChannel {
  const found = state.channels.find((c) => c.id === id);
  if (!found) throw new Error(`no channel ${id}`);
  return found;
}

export interface PlaygroundHarness {
  pg: RunningPlayground;
  /** http://127.0.0.1:PORT */
  base: string;
  state(): Promise<PageState>;
  post(path: string, body: unknown): Promise<Outcome>;
  logs(): string;
}

/** `port`: listen there (the browser test restarts the playground where the page already is); a free one by default. */
export async function startTestPlayground(port = 0): Promise<PlaygroundHarness> {
  const lines: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const pg = await startPlayground({ env: { PORT: String(port), LOG_LEVEL: 'debug' }, logDestination });
  const base = `http://127.0.0.1:${pg.port}`;
  return {
    pg,
    base,
    async state() {
      const res = await request(`${base}/playground/state`);
      return (await res.body.json()) as PageState;
    },
    async post(path, body) {
      const res = await request(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-playground': '1' },
        body: JSON.stringify(body),
      });
      if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${await res.body.text()}`);
      return (await res.body.json()) as Outcome;
    },
    logs: () => lines.join(''),
  };
}

/** How long a PCM WAV file plays: its data's bytes over its bytes per second (the header's fields). */
export function wavSeconds(wav: Buffer): number {
  expect(wav.toString('ascii', 0, 4) + wav.toString('ascii', 8, 12)).toBe('RIFFWAVE');
  return wav.readUInt32LE(40) / wav.readUInt32LE(28);
}

/** Polls until `pick` returns something truthy (the bot answers asynchronously, like in Slack). */
export function eventually<T>(
  pick: () => Promise<T | undefined | null | false>,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<T> {
  return waitForValue(pick, () => pick.toString().slice(0, 200), timeoutMs);
}

/**
 * For a describe block: a playground and a headless page on it, opened before its tests (past the page's
 * loading) and closed after them; `ready` receives both.
 */
export function usePlaygroundPage(ready: (h: PlaygroundHarness, b: BrowserPage) => void): void {
  let h: PlaygroundHarness | undefined;
  let b: BrowserPage | undefined;
  beforeAll(async () => {
    h = await startTestPlayground();
    b = await openPage(h.pg.url.replace('localhost', '127.0.0.1'));
    await b.page.getByText('PLAYGROUND MODE').first().waitFor();
    ready(h, b);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await h?.pg.stop();
  });
}
