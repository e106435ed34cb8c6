/**
 * What an operator reads when the configuration is wrong: one sentence naming the variable and what to do, at
 * start, and no stack trace at the default level (`info`). Real bot processes against the stand-ins; each test
 * waits for the line it expects, then stops the bot (an explicit signal) and reads everything it wrote.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, SIGNING_SECRET, type BotProcess } from '../../bench/lib/bot-process.js';
import { freePort } from '../../bench/lib/net.js';
import { MEMBER_ID, stackForTests, until } from './support.js';

const stack = stackForTests();
/** A bot started from source on a busy machine can take long to answer /healthz the first time. */
const START_MS = 90_000;

/** A stack trace, as pino writes one (`"stack"`) or as Node prints one (`    at …`). */
const STACK_TRACE = /"stack"|\n\s+at \S/;

/** The log lines at `warn` and above, each as its message. */
function warnings(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string })
    .filter((l) => l.level === 'warn' || l.level === 'error')
    .map((l) => l.msg);
}

/** Waits for a line matching `pattern`, stops the bot, and returns everything it wrote. */
async function lineThenStop(bot: BotProcess, pattern: RegExp): Promise<string> {
  await until(() => pattern.test(bot.output()), `a line matching ${pattern}`, 60_000, 100);
  await bot.stop();
  return bot.output();
}

/** `npm start` with `env` (and nothing inherited): what it wrote and how it ended. */
async function startOnly(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/bot/main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

/** A valid configuration for `startOnly` (memory store, the stand-ins). */
const validEnv = (): Record<string, string> => ({
  SLACK_BOT_TOKEN: stack.slack.botToken,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  SLACK_API_URL: stack.slack.apiUrl,
  CAMPAIGN_API_URL: stack.platform.url,
  METRICS_TOKEN: 'metrics-token-0123456789',
});

async function occupy(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}

it('REDIS_URL pointing at nothing: one sentence naming it (password scrubbed), /readyz not ready, the process keeps trying', async () => {
  const port = await freePort();
  const bot = await stack.startBot({
    redisUrl: `redis://:hunter2-redis-pass@127.0.0.1:${port}/0`,
    logLevel: 'info',
    startTimeoutMs: START_MS,
    env: { METRICS_TOKEN: 'metrics-token-0123456789' },
  });
  const ready = await fetch(`${bot.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({
    failed: ['store'],
    checks: { store: 'unreachable: Redis does not answer — check REDIS_URL and that Redis is running' },
  });
  expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);

  const output = await lineThenStop(bot, /has not answered for/);
  expect(warnings(output)).toEqual([
    expect.stringMatching(
      new RegExp(
        `^Redis at redis://127\\.0\\.0\\.1:${port} \\(REDIS_URL\\) has not answered for \\d+ s \\(connect ECONNREFUSED .*\\): check REDIS_URL and that Redis is running$`,
      ),
    ),
  ]);
  expect(output).not.toContain('hunter2');
  expect(output).not.toMatch(STACK_TRACE);
  expect(await bot.exited).toBe(0);
});

it('a wrong CAMPAIGN_API_KEY: one line naming it at start, users told it is the operator’s key, no stack', async () => {
  const bot = await stack.startBot({
    campaignApiKey: 'not-the-platform-key-0001',
    logLevel: 'info',
    startTimeoutMs: START_MS,
  });
  await until(() => bot.output().includes('The platform refuses CAMPAIGN_API_KEY'), 'the start-up check', 60_000);

  const ack = await stack.signer(bot).command({ text: 'stats', userId: MEMBER_ID, responseUrlId: 'wrong-key' });
  expect(ack.status).toBe(200);
  const answer = await until(() => stack.slack.responses.find((r) => r.id === 'wrong-key'), 'the answer', 15_000);
  expect(answer.status).toBe(200);
  const told = JSON.stringify(answer.body);
  expect(told).toContain('The platform refused the API key this app was set up with');
  expect(told).toContain('CAMPAIGN_API_KEY');
  expect(told).not.toContain('/campaign connect');

  await bot.stop();
  const output = bot.output();
  // The start-up check and the user's request were both refused: said once (at most once a minute).
  expect(warnings(output).filter((m) => m.includes('CAMPAIGN_API_KEY'))).toEqual([
    'The platform refuses CAMPAIGN_API_KEY (HTTP 401): set CAMPAIGN_API_KEY to a current key from the platform’s portal',
  ]);
  expect(output).not.toContain('AuthenticationError');
  expect(output).not.toContain('not-the-platform-key-0001');
  expect(output).not.toMatch(STACK_TRACE);
});

it('a SLACK_BOT_TOKEN Slack refuses: one line naming it at start, /readyz not ready', async () => {
  // https://docs.slack.dev/reference/methods/auth.test, "Errors": an unknown token is `invalid_auth`.
  stack.slack.expectRefusal('auth.test', 'invalid_auth');
  const bot = await stack.startBot({
    botToken: 'xoxb-0000-not-a-real-token',
    logLevel: 'info',
    startTimeoutMs: START_MS,
  });
  const ready = await fetch(`${bot.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({ failed: ['slack'] });
  const output = await lineThenStop(bot, /Slack refuses SLACK_BOT_TOKEN/);
  expect(warnings(output)).toContain(
    'Slack refuses SLACK_BOT_TOKEN (auth.test: invalid_auth): set it to the app’s current Bot User OAuth Token (OAuth & Permissions; reinstalling the app gives a new one)',
  );
  expect(output).not.toContain('xoxb-0000-not-a-real-token');
  expect(output).not.toMatch(STACK_TRACE);
});

it.each(['PORT', 'OPS_PORT'])('%s in use: one sentence naming it, exit 1', async (name) => {
  const [taken, free] = [await freePort(), await freePort()];
  const server = await occupy(taken);
  try {
    const ports =
      name === 'PORT'
        ? { PORT: String(taken), OPS_PORT: String(free) }
        : { PORT: String(free), OPS_PORT: String(taken) };
    const { code, output } = await startOnly({ ...validEnv(), ...ports });
    expect(code).toBe(1);
    expect(output).toContain(
      `campaign bot will not start: port ${taken} (${name}) is in use by another process: stop that process or set ${name} to a free port`,
    );
    expect(output).not.toContain('EADDRINUSE');
    expect(output).not.toMatch(STACK_TRACE);
  } finally {
    server.close();
  }
});

it('a SLACK_APP_TOKEN Slack refuses (Socket Mode): one sentence naming it, exit 1', async () => {
  // https://docs.slack.dev/reference/methods/apps.connections.open, "Errors": an unknown token is `invalid_auth`.
  stack.slack.expectRefusal('apps.connections.open', 'invalid_auth');
  const { code, output } = await startOnly({ ...validEnv(), SLACK_APP_TOKEN: 'xapp-1-not-a-real-token' });
  expect(code).toBe(1);
  expect(output).toContain(
    'campaign bot will not start: Slack refuses SLACK_APP_TOKEN (apps.connections.open: invalid_auth): set it to an app-level token with connections:write (Basic Information › App-Level Tokens)',
  );
  expect(output).not.toContain('xapp-1-not-a-real-token');
});

it('a malformed value is headed as such, naming each variable and never its value', async () => {
  const { code, output } = await startOnly({ ...validEnv(), PORT: 'eighty', LOG_LEVEL: 'loud' });
  expect(code).toBe(1);
  expect(output).toContain('campaign bot will not start: 2 values are not valid (values are never shown):');
  expect(output).toContain('  - PORT: must be a port number');
  expect(output).toContain('  - LOG_LEVEL: must be one of debug, info, warn, error');
  expect(output).not.toMatch(/incomplete|eighty|loud/);
});
