/**
 * `npm start`'s entry decides between the playground and a real deployment: an empty environment serves the
 * playground page; any deployment variable means a real deployment — a missing value is then an error, and
 * the playground is never started instead.
 */
import { spawn } from 'node:child_process';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { request } from 'undici';
import { DEPLOYMENT_VARIABLES } from '../../src/config.js';
import { waitFor, waitForValue } from '../support/wait.js';

const BANNER = 'PLAYGROUND MODE — not connected to Slack or the platform';

/** Starts `src/bot/main.ts` with exactly `env` (plus PATH/HOME), collecting its output. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bot/main.ts'], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

const VALUES: Record<(typeof DEPLOYMENT_VARIABLES)[number], string> = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'client-secret-value',
  SLACK_STATE_SECRET: 'state-secret-value',
  SLACK_APP_TOKEN: 'xapp-1-A1-2-abc',
  SLACK_SIGNING_SECRET: 'signing-secret-value',
  CAMPAIGN_API_URL: 'https://platform.example.com/v1/api',
};

describe('npm start', () => {
  it('with no environment at all, starts the playground and serves its page', async () => {
    const main = startMain({ PORT: '0' });
    try {
      const url = await waitForValue(
        () => /Open (http:\/\/localhost:\d+\/)/.exec(main.stderr())?.[1],
        'the playground to say where it is',
        30_000,
      );
      // The banner's log line reaches stdout through the non-blocking log writer, maybe after stderr's box.
      await waitForValue(() => main.stdout().includes(BANNER) || undefined, 'the banner on stdout', 30_000);
      expect(main.stderr()).toContain(BANNER);
      // The log line saying so goes through the bot's log output, which may write it a little later.
      await waitFor(() => main.stdout().includes(BANNER), 'the banner in the log');
      const page = await request(url);
      expect(page.statusCode).toBe(200);
      expect(await page.body.text()).toContain('<title>/campaign playground</title>');
    } finally {
      main.child.kill('SIGTERM');
      expect(await main.exited).toBe(0);
    }
  }, 40_000);

  it.each(DEPLOYMENT_VARIABLES)(
    'with only %s set, reports the missing configuration and never falls back to the playground',
    async (name) => {
      const main = startMain({ [name]: VALUES[name], PORT: '0' });
      const code = await main.exited;
      expect(code).toBe(1);
      expect(main.stderr()).toMatch(/required variables? (is|are) not set/);
      expect(main.stderr()).not.toContain(BANNER);
      expect(main.stdout()).not.toContain('PLAYGROUND');
    },
    30_000,
  );
});

describe('npm run build', () => {
  it('compiles src/ only: no stand-in, simulator or playground file is part of the program', () => {
    const root = process.cwd();
    const config = ts.getParsedCommandLineOfConfigFile(
      'tsconfig.build.json',
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    expect(config?.errors).toEqual([]);
    const program = ts.createProgram({ rootNames: config?.fileNames ?? [], options: config?.options ?? {} });
    const ours = program
      .getSourceFiles()
      .map((f) => relative(root, f.fileName))
      .filter((f) => !f.startsWith('node_modules/'));
    expect(ours.length).toBeGreaterThan(50);
    // main reaches the playground only through a URL built at run time, which the compiler does not follow.
    expect(ours.filter((f) => !f.startsWith('src/') || /(^|\/)(playground|fakes)\//.test(f))).toEqual([]);
  }, 30_000);
});
