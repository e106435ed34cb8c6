/**
 * The playground: the real bot, wired to an embedded Slack stand-in and platform simulator (both on
 * loopback ports), with a page on the bot's own port where a person can use every feature as in Slack.
 *
 * Started only by `src/bot/main.ts`, and only when no deployment variable is set (`isUnconfigured`).
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import { createBot, type Bot } from '../src/bot/compose.js';
import { PlaygroundReports } from './reports.js';
import { BOT_SCOPES } from '../src/bot/scopes.js';
import { parsePlaygroundConfig } from '../src/config.js';
import { startFakePlatform, type FakePlatform } from '../fakes/platform/index.js';
import { loadPageFiles, playgroundRoutes } from './routes.js';
import { PlaygroundSession } from './session.js';
import { manifestFunctions, startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import {
  OUTSIDE_PEOPLE,
  PLAYGROUND_ADMIN_IDS,
  PLAYGROUND_CHANNELS,
  PLAYGROUND_USER_GROUPS,
  PLAYGROUND_PEOPLE,
  seedCatalog,
} from './workspace.js';

export const PLAYGROUND_BANNER = 'PLAYGROUND MODE — not connected to Slack or the platform';

export interface PlaygroundOptions {
  /** Only `PORT` and `LOG_LEVEL` are read from it. */
  env: Readonly<Record<string, string | undefined>>;
  logDestination?: DestinationStream;
}

export interface RunningPlayground {
  bot: Bot;
  /** The page, e.g. http://localhost:3000/ */
  url: string;
  port: number;
  slack: FakeSlack;
  platform: FakePlatform;
  session: PlaygroundSession;
  stop(): Promise<void>;
}

/** How long a stopping playground lets the requests under way finish before it closes their connections. */
const STOP_GRACE_MS = 2_000;

export async function startPlayground(opts: PlaygroundOptions): Promise<RunningPlayground> {
  // Read first: a broken build (page files missing) stops here, before anything listens.
  const page = loadPageFiles();
  // Its seed dated as of now: this month's quota, last week's bookings, tomorrow's scheduled calls.
  const platform = await startFakePlatform({ today: () => new Date() });
  // The Workflow Builder steps the app declares: the stand-in runs them, the Workflows panel lists them.
  const steps = manifestFunctions(new URL('../manifest.yml', import.meta.url));
  const slack = await startFakeSlack({
    teamId: 'T0PLAYGRND1',
    teamName: 'Campaign Playground',
    teamDomain: 'campaign-playground',
    scopes: BOT_SCOPES,
    functions: steps,
  });
  let bot: Bot | undefined;
  let session: PlaygroundSession | undefined;
  let server: Server | undefined;
  const stop = async () => {
    session?.stop();
    // A request the page left open (a poll, a simulation waiting on the bot) does not hold the restart up.
    const lingering = setTimeout(() => server?.closeAllConnections(), STOP_GRACE_MS);
    await bot?.stop().finally(() => clearTimeout(lingering));
    await Promise.all([slack.close(), platform.close()]);
  };
  try {
    for (const { role: _role, about: _about, ...user } of PLAYGROUND_PEOPLE) slack.addUser(user);
    for (const user of OUTSIDE_PEOPLE) slack.addUser(user);
    for (const channel of PLAYGROUND_CHANNELS) slack.addChannel({ ...channel, is_member: true });
    for (const group of PLAYGROUND_USER_GROUPS) slack.addUserGroup(group);

    const signingSecret = randomBytes(24).toString('hex');
    const parsed = parsePlaygroundConfig(opts.env, {
      slackApiUrl: slack.apiUrl,
      botToken: slack.botToken,
      signingSecret,
      campaignApiUrl: platform.url,
      campaignApiKey: platform.apiKey,
      secretsKey: randomBytes(32).toString('base64'),
      adminUserIds: PLAYGROUND_ADMIN_IDS,
      // The simulator serves its calls' recordings: the bot copies them into #calls' threads from there.
      recordingHosts: new URL(platform.recordingsUrl).host,
    });
    if (!parsed.ok) throw new Error(`playground configuration: ${parsed.problems.join('; ')}`);

    session = new PlaygroundSession(slack, platform, steps);
    bot = createBot(parsed.config, {
      ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
      // Loopback only: the page drives a workspace with admin rights and must not be reachable from the network.
      listenHost: '127.0.0.1',
      extraRoutes: playgroundRoutes(session, page),
    });
    const started = await bot.start();
    const { port } = started;
    server = started.server;
    const logger = bot.deps.logger.child({ component: 'playground' });
    const reports = new PlaygroundReports(bot, platform, slack.teamId);
    const shifts = bot.deps.store.shifts;
    session.connect({
      botUrl: `http://127.0.0.1:${port}`,
      signingSecret,
      logger,
      reports,
      onShift: async () => (await shifts.onShift(slack.teamId)).map((a) => a.user),
    });
    if (opts.env.REDIS_URL?.trim())
      logger.warn('REDIS_URL is ignored in the playground: its workspace is throwaway and lives in this process');
    await seedCatalog(bot.deps.store.catalog, slack.teamId, platform.state);
    await session.seed();
    await reports.seedHistory(new Date(bot.deps.store.now()));
    const url = `http://localhost:${port}/`;
    logger.warn({ url, slackStandIn: slack.baseUrl, platformSimulator: platform.url }, PLAYGROUND_BANNER);
    return { bot, url, port, slack, platform, session, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
