/**
 * Everything a benchmark or fault test runs against, started in one call: its own redis-server, the fake
 * Slack and fake platform (in this process, over real sockets), a store handle for setting up and inspecting
 * state, and `startBot()` to run real bot processes (any number, sharing that Redis) configured through env.
 */
import { SlackSigner } from '../../test/fakes/slack-signer.js';
import { startFakePlatform, type FakePlatform } from '../../test/fakes/platform.js';
import { startFakeSlack, type FakeSlack } from '../../test/fakes/slack.js';
import type { Store } from '../../src/store/index.js';
import { SIGNING_SECRET, startBotProcess, type BotProcess, type BotProcessOptions } from './bot-process.js';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { until } from './net.js';
import { newSecretsKey, openStore, provisionWorkspace, type RouteSpec } from './workspace.js';

export const TEAM_ID = 'T0BENCH001';
export const ADMIN_ID = 'U0BENCHADM';
export const MEMBER_ID = 'U0BENCHMEM';

export interface Stack {
  /** The Redis (with `cluster`: the cluster's first master). */
  redis: RedisServer;
  /** The Redis Cluster the bots run on, when the stack was started with `cluster`. */
  cluster?: RedisCluster;
  slack: FakeSlack;
  platform: FakePlatform;
  secretsKey: string;
  /** The bots' store (same Redis, prefix and SECRETS_KEY), for setup and for checking what was stored. */
  store: Store;
  /** Routes events to channels and returns the local hook path `/hooks/<token>`. */
  route(routes: readonly RouteSpec[]): Promise<string>;
  /**
   * Routes `camp-2`'s call_completed to `channel` the way a person does, for a bot whose store is not the
   * stack's (memory mode): an admin's signed `/campaign subscribe`. Resolves with the hook path it made.
   */
  subscribe(bot: BotProcess, channel: string): Promise<string>;
  startBot(opts?: Partial<BotProcessOptions>): Promise<BotProcess>;
  /** A signer for a running bot's `/slack/events`. */
  signer(bot: BotProcess): SlackSigner;
  /** Every bot started here, running or not. */
  readonly bots: BotProcess[];
  close(): Promise<void>;
}

export async function startStack(
  opts: { durableRedis?: boolean; entry?: 'dist' | 'source'; cluster?: boolean } = {},
): Promise<Stack> {
  const cluster = opts.cluster ? await startRedisCluster({ durable: opts.durableRedis ?? false }) : undefined;
  const redis = cluster?.nodes[0] ?? (await startRedisServer({ durable: opts.durableRedis ?? false }));
  const slack = await startFakeSlack({ teamId: TEAM_ID });
  slack.addUser({ id: ADMIN_ID, name: 'ada', real_name: 'Ada Admin', is_admin: true });
  slack.addUser({ id: MEMBER_ID, name: 'max', real_name: 'Max Member' });
  const platform = await startFakePlatform();
  const secretsKey = newSecretsKey();
  const store = openStore(cluster ? { cluster: cluster.seeds } : redis.url, secretsKey);
  const bots: BotProcess[] = [];
  const signer = (bot: BotProcess) =>
    new SlackSigner({ signingSecret: SIGNING_SECRET, url: `${bot.url}/slack/events`, teamId: TEAM_ID, fake: slack });

  return {
    redis,
    ...(cluster ? { cluster } : {}),
    slack,
    platform,
    secretsKey,
    store,
    bots,
    async route(routes) {
      return `/hooks/${await provisionWorkspace(store, TEAM_ID, routes)}`;
    },
    async subscribe(bot, channel) {
      slack.addChannel({ id: channel, name: channel.toLowerCase() });
      const seen = platform.requests.length;
      const res = await signer(bot).command({
        text: 'subscribe camp-2 call_completed',
        userId: ADMIN_ID,
        channelId: channel,
      });
      if (res.status !== 200) throw new Error(`subscribe answered ${res.status}`);
      const hookUrl = await until(
        () =>
          platform.requests
            .slice(seen)
            .map((r) => (r.body as { hookUrl?: unknown } | undefined)?.hookUrl)
            .find((u): u is string => typeof u === 'string'),
        'the bot’s platform subscription',
        10_000,
      );
      return new URL(hookUrl).pathname;
    },
    async startBot(extra = {}) {
      const bot = await startBotProcess({
        slackApiUrl: slack.apiUrl,
        botToken: slack.botToken,
        campaignApiUrl: platform.url,
        campaignApiKey: platform.apiKey,
        ...(cluster ? { redisClusterNodes: cluster.spec } : { redisUrl: redis.url }),
        secretsKey,
        // A bare user id names an admin in single-workspace mode; OAuth mode wants the workspace with it.
        adminUserIds: [extra.oauth || extra.env?.SLACK_CLIENT_ID ? `${TEAM_ID}:${ADMIN_ID}` : ADMIN_ID],
        entry: opts.entry ?? 'source',
        ...extra,
      });
      bots.push(bot);
      return bot;
    },
    signer,
    async close() {
      await Promise.all(bots.map((b) => b.stop('SIGKILL')));
      await store.close();
      await Promise.all([slack.close(), platform.close()]);
      await (cluster ?? redis).close();
    },
  };
}
