/**
 * Starts the playground in-process (as `npm start` does with an empty environment, on a free port) and talks
 * to its JSON API the way the page does.
 */
import { Writable } from 'node:stream';
import { request } from 'undici';
import type { PlaygroundModule } from '../../src/bot/playground-module.js';
import * as playgroundModule from '../../playground/index.js';
import { startPlayground, type RunningPlayground } from '../../playground/index.js';
import type { Outcome, PageState } from '../../playground/page-api.js';
import { waitForValue } from '../support/wait.js';

// main imports the playground by URL and types it with PlaygroundModule: this keeps the two in step.
const _loadedByMain: PlaygroundModule = playgroundModule;

export interface PlaygroundHarness {
  pg: RunningPlayground;
  /** http://127.0.0.1:PORT */
  base: string;
  state(): Promise<PageState>;
  post(path: string, body: unknown): Promise<Outcome>;
  logs(): string;
}

export async function startTestPlayground(): Promise<PlaygroundHarness> {
  const lines: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const pg = await startPlayground({ env: { PORT: '0', LOG_LEVEL: 'debug' }, logDestination });
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

/** Polls until `pick` returns something truthy (the bot answers asynchronously, like in Slack). */
export function eventually<T>(pick: () => Promise<T | undefined | null | false>, timeoutMs = 5000): Promise<T> {
  return waitForValue(pick, () => pick.toString().slice(0, 200), timeoutMs);
}
