/**
 * The composition root: config → logger → store → platform client → Bolt app → listeners.
 * Nothing else constructs long-lived services; tests build the bot through here too.
 */
import type { Server } from 'node:http';
import { App, type Authorize, type CustomRoute } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { DestinationStream } from 'pino';
import { createTransport, type TransportOptions } from '../api/index.js';
import type { Config } from '../config.js';
import { createLogger, Redactor, type Logger } from '../logger.js';
import { BoundedLogOutput } from '../log-output.js';
import { claimSchemaVersion, createStore, isStoreUnavailable } from '../store/index.js';
import { register as registerCommands } from '../commands/index.js';
import { createEvents, type EventsOptions } from '../events/index.js';
import { register as registerHome } from '../home/index.js';
import { attachmentRoute, register as registerHandoff } from '../handoff/index.js';
import { register as registerDigests } from '../digests/index.js';
import { register as registerWorkflows } from '../workflows/index.js';
import { register as registerUninstall } from './uninstall.js';
import { register as registerChannelAudience } from './channel-audience-events.js';
import { register as registerPostLanded } from './post-landed-events.js';
import { AdminGate } from '../app/admin-gate.js';
import { Membership } from '../app/membership.js';
import { ChannelAudiences } from '../app/channel-audience.js';
import { AudienceNotices } from '../app/audience-notice.js';
import { Roster } from '../app/roster.js';
import { boltLogger } from '../slack/logger.js';
import type { Deps, Surfaces } from '../app/deps.js';
import { openConnectForm } from '../commands/connect.js';
import { publishHome } from '../home/publish.js';
import { installErrorHandler } from './error-handler.js';
import { healthRoutes } from './http-routes.js';
import { SlackTokenCheck } from './readiness.js';
import { HTTP_LIMITS, type HttpLimits } from './http-server.js';
import { onAppRateLimited } from './app-rate-limited.js';
import { OpsServer } from './ops-server.js';
import { SlackReceiver } from './receiver.js';
import { replayGuard } from './replay-guard.js';
import { SLACK_GATE_LIMITS, type SlackGateLimits } from './slack-gate.js';
import { createMetrics } from '../app/metrics.js';
import { Lifecycle } from '../app/lifecycle.js';
import { startTracing, type Tracing } from '../app/tracing.js';
import { OperatorKeyRefusedError, PlatformAccess } from '../app/platform-access.js';
import { Timers, type TimersOptions } from '../app/timers.js';
import { SlackPace, slackLimits, type SlackLimits } from '../delivery/pace.js';
import { SLACK_CLIENT_RULES, SlackClients } from '../delivery/clients.js';
import { IdempotentPosts } from '../delivery/idempotent-posts.js';
import { SlackTokens } from '../app/slack-token.js';
import { workspaceScope } from './workspace-scope.js';
import { isMetadataWarning } from '../delivery/slack-errors.js';

export interface Bot {
  readonly app: App;
  readonly deps: Deps;
  /** Starts serving on `config.port` (0 = any free port); resolves with the bound port and the server on it. */
  /** `opsPort`: where `/healthz`, `/readyz` and `/metrics` are served when OPS_PORT is set. */
  start(): Promise<{ port: number; server: Server; opsPort?: number }>;
  stop(): Promise<void>;
}

export interface BotOptions {
  /** Where log lines go: the process's bounded stdout (src/bot/main.ts), or a test's capture; a bounded stdout by default. */
  logDestination?: DestinationStream;
  /** Store key prefix (tests isolate themselves with their own). */
  keyPrefix?: string;
  /** Per-file cap (bytes) on audio samples for `/campaign clone-voice` (tests use a small one). */
  voiceSampleMaxBytes?: number;
  /** Webhook intake and event worker settings (tests use short takeover/backoff times). */
  events?: EventsOptions;
  /** More HTTP routes served on PORT beside ours (the playground's page and API). */
  extraRoutes?: CustomRoute[];
  /** Interface to listen on (HTTP mode); all interfaces by default. The playground listens on loopback only. */
  listenHost?: string;
  /** How often timers are looked for (tests shorten it instead of waiting). */
  timers?: TimersOptions;
  /** The clock hook-token expiry and timers are judged by (tests move it instead of waiting). Default `Date.now`. */
  now?: () => number;
  /** Slack's limits the bot paces itself to (`SLACK_LIMITS`); a test against an unlimited stand-in lifts them. */
  slackLimits?: SlackLimits;
  /** Per-workspace turns for platform requests (tests shorten the longest wait instead of waiting it out). */
  platformTurns?: TransportOptions['turns'];
  /** What PORT's server and `/slack/events` take (`HTTP_LIMITS`, `SLACK_GATE_LIMITS`); tests use small ones. */
  requestLimits?: { http?: Partial<HttpLimits>; slack?: Partial<SlackGateLimits> };
  /** How long a slash command's answer may take before the user is told the platform is slow. Default 2 s. */
  slowNoticeMs?: number;
  /**
   * Told once the bot is done with a Slack request (an event, command, action…): every middleware and listener
   * has finished. Tests assert that something did not happen only after it.
   */
  onSlackRequestDone?: (body: unknown) => void;
}

export function createBot(config: Config, options: BotOptions = {}): Bot {
  const redactor = new Redactor();
  for (const secret of secretsOf(config)) redactor.pinSecret(secret);
  const logOutput = options.logDestination ?? new BoundedLogOutput(process.stdout);
  // Told once a minute by the store's connection (reportOutages) and by PlatformAccess: other lines at debug.
  const quiet = (err: unknown) => isStoreUnavailable(err) || err instanceof OperatorKeyRefusedError;
  const logger: Logger = createLogger({ level: config.logLevel, redactor, destination: logOutput, quiet });

  const store = createStore({
    ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
    ...(config.redisCluster ? { redisCluster: config.redisCluster } : {}),
    ...(config.secretsKeys ? { secretsKey: config.secretsKeys } : {}),
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
    ...(options.now ? { now: options.now } : {}),
    conversationRetentionMs: config.handoff.retentionDays * 86_400_000,
    logger,
  });
  if (store.backend === 'memory') {
    logger.warn(
      'Neither REDIS_URL nor REDIS_CLUSTER_NODES is set: state and the event queue live in this process only (embedded mode). Use Redis for production and for several replicas.',
    );
  }
  const metrics = createMetrics(store, () => (logOutput instanceof BoundedLogOutput ? logOutput.dropped : 0));
  // OAuth mode: Bolt's installer refreshes rotating tokens; it is handed over once the receiver has made it.
  const tokens = new SlackTokens(config, store);
  const pace = new SlackPace(
    store.budgets,
    {
      onRateLimited: (method) => metrics.slackRateLimited.inc({ method }),
      renewToken: (team, expired) => tokens.renew(team, expired),
      onWarnings: (method, warnings) => {
        for (const warning of warnings) metrics.slackWarnings.inc({ method, warning });
        // Metadata Slack dropped: the post carries no idempotency key, so a lost answer could show it twice.
        if (warnings.some(isMetadataWarning))
          logger.error({ method, warnings }, 'Slack dropped a post’s metadata: that post cannot be found again');
        else logger.warn({ method, warnings }, 'Slack warned about a call it took');
      },
    },
    options.slackLimits ?? slackLimits(config.slack.historyPerMinute),
  );
  const transport = createTransport({
    baseUrl: config.campaign.apiUrl,
    onRequest: ({ endpoint, status, durationMs }) => {
      metrics.platformRequests.inc({ endpoint, status: String(status) });
      metrics.platformLatency.observe({ endpoint }, durationMs / 1000);
    },
    // With one workspace there is nobody to share the call pool with; its uploads still go 2 at a time.
    oneWorkspace: config.slack.mode.kind === 'single',
    onTurnRefused: ({ lane, reason }) => metrics.platformTurnsRefused.inc({ lane, reason }),
    ...(options.platformTurns ? { turns: options.platformTurns } : {}),
  });
  const platform = new PlatformAccess(
    transport,
    store,
    redactor,
    logger,
    config.campaign.apiKey,
    config.campaign.apiKeyTeam,
  );
  const members = new Membership(store, logger);
  const admins = new AdminGate(config.adminUsers, members, logger);
  const timers = new Timers(store, logger.child({ component: 'timers' }), options.timers);
  const posts = new IdempotentPosts(store, (err) => pace.judge(err));
  const audienceLogger = logger.child({ component: 'channel-audience' });
  const audienceNotices = new AudienceNotices(store, posts, audienceLogger);
  const audiences = new ChannelAudiences(
    store,
    new Roster(store, pace, audienceLogger),
    audienceNotices,
    pace,
    audienceLogger,
  );
  const surfaces: Surfaces = {
    publishHome: (client, teamId, userId) => publishHome(deps, client, teamId, userId),
    openConnectForm: (client, triggerId, teamId) =>
      openConnectForm(deps, { client, triggerId, teamId, fromHome: true }),
    retryDeadLetter: (teamId, id) => events.retryDeadLetter(teamId, id),
  };
  const deps: Deps = {
    config,
    logger,
    redactor,
    store,
    platform,
    members,
    admins,
    audiences,
    metrics,
    pace,
    tokens,
    slack: new SlackClients({
      apiUrl: config.slack.apiUrl,
      pace,
      tokenFor: (teamId) => tokens.botToken(teamId),
      logger,
    }),
    surfaces,
    posts,
    // Made with the outbox's lanes, below; read only once the app serves.
    get bulk() {
      return events.bulk;
    },
    lifecycle: new Lifecycle(),
    timers,
  };
  if (options.voiceSampleMaxBytes !== undefined) deps.voiceSampleMaxBytes = options.voiceSampleMaxBytes;
  if (options.slowNoticeMs !== undefined) deps.slowNoticeMs = options.slowNoticeMs;

  const events = createEvents(deps, options.events);
  audienceNotices.postIn(events.bulk);

  const singleClient =
    config.slack.mode.kind === 'single' ? deps.slack.forPeople(config.slack.mode.botToken) : undefined;
  const slackToken =
    singleClient &&
    new SlackTokenCheck(
      () => singleClient.auth.test(),
      options.now ?? Date.now,
      (refused) => metrics.slackTokenRefused.set(refused ? 1 : 0),
      logger,
    );
  const health = healthRoutes(deps, slackToken);
  const httpLimits = { ...HTTP_LIMITS, ...options.requestLimits?.http };
  // OPS_PORT: health and metrics there only, never beside the public routes.
  const ops = config.opsPort === undefined ? undefined : new OpsServer(health, httpLimits, logger);
  // Bolt matches custom routes in order, compiling each pattern per request: the webhooks' route, by far the
  // busiest, is tried first (behind it, each delivery paid for compiling the three health routes' patterns).
  const routes = [events.route, attachmentRoute(deps), ...(ops ? [] : health), ...(options.extraRoutes ?? [])];
  const receiver = new SlackReceiver(config, store, logger, {
    customRoutes: routes,
    limits: {
      http: httpLimits,
      slack: { ...SLACK_GATE_LIMITS, ...options.requestLimits?.slack },
    },
    ...(options.listenHost === undefined ? {} : { host: options.listenHost }),
    onAppRateLimited: onAppRateLimited(deps, events.bulk),
    ...(options.onSlackRequestDone ? { onRequestDone: options.onSlackRequestDone } : {}),
  });
  // In OAuth mode Bolt authorizes each request with the receiver's installer (`receiver.installer`).
  tokens.useInstaller(receiver.installer);
  const app = new App({
    receiver,
    ...(config.slack.mode.kind === 'single' && singleClient
      ? { authorize: singleWorkspaceAuthorize(singleClient, config.slack.mode.botToken) }
      : {}),
    // A person's request waits for its Slack budget (a few seconds at most) rather than being refused; the client
    // never retries or pauses on its own (SLACK_CLIENT_RULES).
    clientOptions: {
      slackApiUrl: config.slack.apiUrl,
      fetch: pace.fetch({ background: false, urgency: 'urgent' }),
      ...SLACK_CLIENT_RULES,
    },
    logger: boltLogger(logger),
    extendedErrorHandler: true,
  });

  installErrorHandler(app, deps);
  // First of all middleware: a replayed request reaches no listener.
  app.use(replayGuard(store, logger));
  app.use(workspaceScope(store, logger));
  registerCommands(app, deps);
  registerHome(app, deps);
  registerUninstall(app, deps);
  registerChannelAudience(app, deps);
  registerPostLanded(app, deps);
  registerHandoff(app, deps, events);
  registerDigests(deps);
  registerWorkflows(app, deps);
  events.register(app);

  let tracing: Tracing | undefined;
  return {
    app,
    deps,
    async start() {
      // Before anything is served, so the first request is traced too.
      tracing ??= await startTracing(config.tracing, logger);
      try {
        await claimSchemaVersion(store.kv, store.keys);
      } catch (err) {
        if (isStoreUnavailable(err)) {
          // Serving without the store (/readyz says 503) beats a crash loop; the next start checks the version.
          logger.warn({ err }, 'the store is not answering at start: its schema version is not checked this time');
        } else {
          // Nothing started yet: closing the store lets the process end with the reason.
          await store.close();
          await tracing.shutdown();
          throw err;
        }
      }
      await app.start();
      const { port, server } = receiver.address();
      const opsPort = await ops?.start(config.opsPort ?? 0, options.listenHost);
      logger.info(
        {
          port,
          store: store.backend,
          slack: config.slack.appToken ? 'socket-mode' : 'http',
          mode: config.slack.mode.kind,
          ...(opsPort === undefined ? {} : { opsPort }),
        },
        'campaign bot listening',
      );
      // Listening on one interface (the playground: loopback) is not public.
      if (opsPort === undefined && config.metricsToken === undefined && options.listenHost === undefined) {
        logger.warn('/metrics is open on PORT: set OPS_PORT (kept off the Ingress) or METRICS_TOKEN');
      }
      // A refused token or key is one line naming its variable from the start, not a surprise at the first request.
      void slackToken?.current();
      void platform.checkOperatorKey();
      events.start();
      timers.start();
      return { port, server, ...(opsPort === undefined ? {} : { opsPort }) };
    },
    async stop() {
      // Intake answers 503 from now on; the worker takes no new work and finishes the posts under way.
      deps.lifecycle.stopping = true;
      await timers.stop();
      await events.stop();
      await app.stop();
      await ops?.stop();
      await transport.close();
      await store.close();
      // Last, so the spans of the work finished above are sent too.
      await tracing?.shutdown();
      tracing = undefined;
    },
  };
}

/**
 * One workspace's authorization. Bolt's own `token` option calls auth.test as the app is built, before anything
 * awaits it: with Slack unreachable at start, that is an unhandled rejection that ends the process. This asks on
 * the first request (whose failure Bolt handles), keeps the answer, and asks again after a failure.
 */
function singleWorkspaceAuthorize(client: WebClient, botToken: string): Authorize<boolean> {
  let known: Promise<{ botUserId?: string; botId?: string }> | undefined;
  return async () => {
    known ??= client.auth.test().then((r) => ({
      ...(r.user_id ? { botUserId: r.user_id } : {}),
      ...(r.bot_id ? { botId: r.bot_id } : {}),
    }));
    try {
      return { botToken, ...(await known) };
    } catch (err) {
      known = undefined;
      throw err;
    }
  };
}

/** The configuration's secrets: pinned in the log redactor, so no number of run-time secrets pushes them out. */
function secretsOf(config: Config): Array<string | undefined> {
  const mode = config.slack.mode;
  return [
    config.slack.signingSecret,
    config.slack.appToken,
    config.campaign.apiKey,
    config.metricsToken,
    config.redisCluster?.password,
    config.redisUrl && decodeURIComponent(new URL(config.redisUrl).password),
    mode.kind === 'single' ? mode.botToken : mode.clientSecret,
    mode.kind === 'oauth' ? mode.stateSecret : undefined,
    ...Object.values(config.tracing?.headers ?? {}),
    // As SECRETS_KEY may spell them: standard base64 (with or without padding) or url-safe.
    ...(config.secretsKeys ?? []).flatMap((key) => [
      key.toString('base64').replace(/=+$/, ''),
      key.toString('base64url'),
    ]),
  ];
}
