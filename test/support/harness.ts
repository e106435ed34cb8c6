/**
 * Starts the real bot (through its composition root) against the fake Slack and fake platform,
 * over real sockets. Each harness gets its own store key prefix, so tests can share one Redis.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { createBot, type Bot, type BotOptions } from '../../src/bot/compose.js';
import { parseConfig, type Config } from '../../src/config.js';
import { startFakePlatform, type FakePlatform } from '../fakes/platform.js';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from '../fakes/slack.js';
import { SlackSigner } from '../fakes/slack-signer.js';
import { SocketModeDriver } from '../fakes/socket-mode.js';
import { freePort } from '../../bench/lib/net.js';
import { startedForTests } from './lifetime.js';
import type { RedisTestContext } from './redis.js';
import { waitFor } from './wait.js';

export const SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';
export const TEAM_ID = 'T0TEST001';
export const ADMIN_ID = 'U0ADMIN01';
export const MEMBER_ID = 'U0MEMBER1';
export const OAUTH_CLIENT = { clientId: '1111.2222', clientSecret: 'test-client-secret-abcdef' };
/** At least 32 characters, as config requires. */
export const STATE_SECRET = 'test-state-secret-0123456789abcdef';

export interface HarnessOptions {
  /** Use Redis at this URL (default: in-memory store). */
  redisUrl?: string;
  /** Use this Redis Cluster (`host:port,…`, REDIS_CLUSTER_NODES) instead. */
  redisClusterNodes?: string;
  /** Give the bot CAMPAIGN_API_KEY = the fake platform's key (default true). */
  defaultApiKey?: boolean;
  env?: Record<string, string>;
  /** Extra `createBot` options (e.g. a small voice-sample size cap, fast event-worker timings, a clock). */
  bot?: Pick<
    BotOptions,
    | 'voiceSampleMaxBytes'
    | 'events'
    | 'now'
    | 'slackLimits'
    | 'platformTurns'
    | 'requestLimits'
    | 'slowNoticeMs'
    | 'timers'
  >;
  /** OAuth multi-workspace mode (client id/secret/state secret) instead of a bot token. */
  oauth?: boolean;
  /** Socket Mode (SLACK_APP_TOKEN, no signing secret); drive it with `harness.socket`. */
  socketMode?: boolean;
  /** Store key prefix (Redis tests pass one under their file's prefix so it is cleaned up). */
  keyPrefix?: string;
  /** How the Slack stand-in serves file downloads (e.g. Slack's redirect to a signed CDN URL), the clock its faults heal by… */
  slack?: Pick<
    FakeSlackOptions,
    | 'fileDownloads'
    | 'unauthenticatedFileDownloads'
    | 'enterpriseId'
    | 'fileOrigin'
    | 'historyLimits2025'
    | 'metadataSubscriptions'
    | 'rateLimitClock'
  >;
  /** Run against these fakes instead of new ones, and leave them open on close: a bot restart. */
  fakes?: { slack: FakeSlack; platform: FakePlatform };
  /**
   * Why this test runs against a Slack without rate limits (the stand-in's `unlimitedBecause`), with the bot's
   * pacing lifted to match. Only for tests about something else than pace, whose many posts into one channel
   * would otherwise take a second each.
   */
  unlimitedSlackBecause?: string;
}

/**
 * The slow-platform notice's delay in tests: longer than any test, so a command's first answer is its answer
 * however busy the machine is. The notice has tests of its own, which set a short one.
 */
const NO_SLOW_NOTICE_MS = 60_000;

/** The bot's pace when the stand-in has no limits: every budget as good as endless. */
const NO_LIMITS = {
  channelPosts: { intervalMs: 1, burst: 1_000_000 },
  workspacePosts: { intervalMs: 1, burst: 1_000_000 },
  tier3: { intervalMs: 1, burst: 1_000_000 },
  tier2: { intervalMs: 1, burst: 1_000_000 },
  tier4: { intervalMs: 1, burst: 1_000_000 },
  other: { intervalMs: 1, burst: 1_000_000 },
  history: { intervalMs: 1, burst: 1_000_000 },
};

export interface Harness {
  bot: Bot;
  config: Config;
  slack: FakeSlack;
  platform: FakePlatform;
  signer: SlackSigner;
  /** The environment the bot's config was parsed from. */
  env: Readonly<Record<string, string>>;
  /** Socket Mode only: pushes envelopes over the bot's WebSocket. */
  socket?: SocketModeDriver;
  url: string;
  /** With OPS_PORT: where `/healthz`, `/readyz` and `/metrics` are served instead. */
  opsUrl?: string;
  /** The HTTP server on the bot's PORT. */
  server: Server;
  /** Every log line the bot wrote, as text. */
  logs(): string;
  /** Stops the bot (and the fakes, unless they were given); once, however often it is called. */
  close(): Promise<void>;
  /**
   * Resolves once the bot is done with a Slack request `match` accepts (every listener finished): what it did
   * not do by then, it will not do for that request.
   */
  slackRequestDone(match: (body: SlackRequestBody) => boolean, what: string): Promise<void>;
}

/** What tests pick a Slack request by (the parts of an event, command or action body they look at). */
export interface SlackRequestBody {
  type?: string;
  command?: string;
  text?: string;
  event?: { type?: string; text?: string; ts?: string; channel?: string };
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const platform = opts.fakes?.platform ?? (await startFakePlatform());
  const slack =
    opts.fakes?.slack ??
    (await startFakeSlack({
      teamId: TEAM_ID,
      ...(opts.oauth ? { oauthClient: OAUTH_CLIENT } : {}),
      ...(opts.unlimitedSlackBecause ? { unlimitedBecause: opts.unlimitedSlackBecause } : {}),
      ...opts.slack,
    }));
  slack.addUser({ id: ADMIN_ID, name: 'ada', real_name: 'Ada Admin', is_admin: true });
  slack.addUser({ id: MEMBER_ID, name: 'max', real_name: 'Max Member' });

  const env: Record<string, string> = {
    ...(opts.oauth
      ? {
          SLACK_CLIENT_ID: OAUTH_CLIENT.clientId,
          SLACK_CLIENT_SECRET: OAUTH_CLIENT.clientSecret,
          SLACK_STATE_SECRET: STATE_SECRET,
        }
      : { SLACK_BOT_TOKEN: slack.botToken }),
    ...(opts.socketMode ? { SLACK_APP_TOKEN: slack.appToken } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    SLACK_API_URL: slack.apiUrl,
    CAMPAIGN_API_URL: platform.url,
    // Socket Mode's route server can't report a port it picked: give it a free one.
    PORT: opts.socketMode ? String(await freePort()) : '0',
    LOG_LEVEL: 'debug',
    // In OAuth mode the default key serves exactly one workspace: the harness's own.
    ...(opts.defaultApiKey === false
      ? {}
      : { CAMPAIGN_API_KEY: platform.apiKey, ...(opts.oauth ? { CAMPAIGN_API_KEY_TEAM: TEAM_ID } : {}) }),
    ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl, SECRETS_KEY: randomBytes(32).toString('base64') } : {}),
    ...(opts.redisClusterNodes
      ? { REDIS_CLUSTER_NODES: opts.redisClusterNodes, SECRETS_KEY: randomBytes(32).toString('base64') }
      : {}),
    // Recordings are copied only where a test lists its own recording host: the fixtures' recording URLs name
    // hosts that do not exist, and a test must not look names up on the internet.
    RECORDING_HOSTS: 'off',
    ...opts.env,
  };
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new Error(`test config invalid: ${parsed.problems.join('; ')}`);

  const lines: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const done: SlackRequestBody[] = [];
  const bot = createBot(parsed.config, {
    logDestination,
    onSlackRequestDone: (body) => done.push(body as SlackRequestBody),
    slowNoticeMs: NO_SLOW_NOTICE_MS,
    keyPrefix: opts.keyPrefix ?? `test:${randomUUID()}:`,
    ...(opts.unlimitedSlackBecause ? { slackLimits: NO_LIMITS } : {}),
    ...opts.bot,
  });
  const { port, server, opsPort } = await bot.start();
  // The bot tries CAMPAIGN_API_KEY once as it starts (GET /open-api): not a request any test made, so it is
  // waited for and left out of what the platform received.
  if (opts.defaultApiKey !== false && platform.mode() !== 'down') {
    const isKeyCheck = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/open-api';
    await waitFor(() => platform.requests.some(isKeyCheck), 'the start-up check of CAMPAIGN_API_KEY');
    platform.requests.splice(platform.requests.findIndex(isKeyCheck), 1);
  }
  const url = `http://127.0.0.1:${port}`;
  const signer = new SlackSigner({
    signingSecret: SIGNING_SECRET,
    url: `${url}/slack/events`,
    teamId: TEAM_ID,
    fake: slack,
  });
  // Slack tells the app where its posts landed (the manifest's metadata subscriptions), signed like any event.
  if (!opts.socketMode) slack.onMetadataPosted((event) => void signer.event(event).catch(() => undefined));
  const socket = opts.socketMode ? new SocketModeDriver({ fake: slack, teamId: TEAM_ID }) : undefined;
  let closing: Promise<void> | undefined;

  return {
    bot,
    config: parsed.config,
    slack,
    platform,
    signer,
    env,
    ...(socket ? { socket } : {}),
    url,
    ...(opsPort === undefined ? {} : { opsUrl: `http://127.0.0.1:${opsPort}` }),
    server,
    logs: () => lines.join(''),
    slackRequestDone: (match, what) => waitFor(() => done.some(match), `the bot to be done with ${what}`),
    close() {
      closing ??= (async () => {
        await bot.stop();
        await socket?.close();
        if (!opts.fakes) await Promise.all([slack.close(), platform.close()]);
      })();
      return closing;
    },
  };
}

/** What a test starts without when its file shares one harness (`useHarness`). */
export type Fresh = 'platform' | 'slack' | 'routes';

/**
 * One harness for the tests of a file or describe block: started before them, closed after them. Before each
 * test, what `fresh` names is put back: the platform's seed data with no faults or recorded requests, the Slack
 * stand-in's records, the workspace's routes. The object returned stands for the harness once it has started.
 */
export function useHarness(start: () => Promise<Harness>, fresh: readonly Fresh[] = []): Harness {
  const h = startedForTests(start);
  if (fresh.length > 0)
    beforeEach(async () => {
      if (fresh.includes('platform')) {
        h.platform.reset();
        h.platform.resetState();
      }
      if (fresh.includes('slack')) h.slack.reset();
      if (fresh.includes('routes'))
        for (const r of await h.bot.deps.store.routes.listForTeam(TEAM_ID)) await h.bot.deps.store.routes.remove(r);
    });
  return h;
}

/**
 * Starts harnesses (through `start`, `startHarness` by default) that close after the test that started them,
 * the last first: a second bot before the fakes it shares with the first.
 */
export function harnessesPerTest<O = HarnessOptions>(
  start: (opts?: O) => Promise<Harness> = startHarness as (opts?: O) => Promise<Harness>,
): (opts?: O) => Promise<Harness> {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const h of open.splice(0).reverse()) await h.close();
  });
  return async (opts) => {
    const h = await start(opts);
    open.push(h);
    return h;
  };
}

/** A harness's store on `backend`: in memory, or in Redis under `keyPrefix` (one below the file's prefix). */
export function storeOn(
  backend: 'memory' | 'redis',
  redis: RedisTestContext,
  keyPrefix: string,
): Pick<HarnessOptions, 'redisUrl' | 'keyPrefix'> {
  return backend === 'redis' ? { redisUrl: redis.url, keyPrefix } : {};
}
