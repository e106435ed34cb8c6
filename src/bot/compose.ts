/**
 * The composition root: config → logger → store → platform client → Bolt app → listeners.
 * Nothing else constructs long-lived services; tests build the bot through here too.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver } from '@slack/bolt';
import type { DestinationStream } from 'pino';
import { createTransport } from '../api/index.js';
import type { Config } from '../config.js';
import { createLogger, Redactor, type Logger } from '../logger.js';
import { createStore } from '../store/index.js';
import { register as registerCommands } from '../commands/index.js';
import { register as registerHome } from '../home/index.js';
import { register as registerUninstall } from './uninstall.js';
import { BOT_SCOPES } from './scopes.js';
import { AdminGate } from './admin-gate.js';
import { boltLogger } from './bolt-logger.js';
import type { Deps } from './deps.js';
import { installErrorHandler } from './error-handler.js';
import { healthRoutes } from './http-routes.js';
import { createMetrics } from './metrics.js';
import { Lifecycle } from './lifecycle.js';
import { PlatformAccess } from './platform-access.js';

export interface Bot {
  readonly app: App;
  readonly deps: Deps;
  /** Starts serving on `config.port` (0 = any free port); resolves with the bound port. */
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
}

export interface BotOptions {
  /** Where log lines go (tests capture them); stdout by default. */
  logDestination?: DestinationStream;
  /** Store key prefix (tests isolate themselves with their own). */
  keyPrefix?: string;
  /** Per-file cap (bytes) on audio samples for `/campaign clone-voice` (tests use a small one). */
  voiceSampleMaxBytes?: number;
}

export function createBot(config: Config, options: BotOptions = {}): Bot {
  const redactor = new Redactor();
  for (const secret of secretsOf(config)) redactor.addSecret(secret);
  const logger: Logger = createLogger({ level: config.logLevel, redactor, ...(options.logDestination ? { destination: options.logDestination } : {}) });

  const store = createStore({
    ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
    ...(config.secretsKey ? { secretsKey: config.secretsKey } : {}),
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
    logger,
  });
  if (store.backend === 'memory') {
    logger.warn('REDIS_URL is not set: state and the event queue live in this process only (embedded mode). Use Redis for production and for several replicas.');
  }
  const metrics = createMetrics(store.queue);
  const transport = createTransport({
    baseUrl: config.campaign.apiUrl,
    onRequest: ({ endpoint, status, durationMs }) => {
      metrics.platformRequests.inc({ endpoint, status: String(status) });
      metrics.platformLatency.observe({ endpoint }, durationMs / 1000);
    },
  });
  const platform = new PlatformAccess(transport, store, redactor, config.campaign.apiKey);
  const admins = new AdminGate(config.adminUserIds, store, logger);
  const deps: Deps = { config, logger, redactor, store, platform, admins, metrics, lifecycle: new Lifecycle() };
  if (options.voiceSampleMaxBytes !== undefined) deps.voiceSampleMaxBytes = options.voiceSampleMaxBytes;

  const mode = config.slack.mode;
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret ?? '',
    // OAuth multi-workspace: Bolt serves /slack/install and /slack/oauth_redirect and authorizes each
    // request from our InstallationStore; the OAuth state is a signed cookie (works across replicas).
    ...(mode.kind === 'oauth'
      ? {
          clientId: mode.clientId,
          clientSecret: mode.clientSecret,
          stateSecret: mode.stateSecret,
          scopes: [...BOT_SCOPES],
          installationStore: store.installations,
          ...(config.publicUrl ? { redirectUri: `${config.publicUrl}/slack/oauth_redirect` } : {}),
          installerOptions: {
            directInstall: true,
            redirectUriPath: '/slack/oauth_redirect',
            clientOptions: { slackApiUrl: config.slack.apiUrl },
            ...slackAuthorizationUrl(config.slack.apiUrl),
          },
        }
      : {}),
    customRoutes: healthRoutes(deps),
    logger: boltLogger(logger, 'bolt-receiver'),
    // Ack first, work after: listeners call ack() before any slow I/O.
    processBeforeResponse: false,
  });
  const app = new App({
    receiver,
    ...(mode.kind === 'single' ? { token: mode.botToken } : {}),
    clientOptions: { slackApiUrl: config.slack.apiUrl },
    logger: boltLogger(logger),
    extendedErrorHandler: true,
  });

  installErrorHandler(app, deps);
  registerCommands(app, deps);
  registerHome(app, deps);
  registerUninstall(app, deps);

  return {
    app,
    deps,
    async start() {
      const server = (await app.start(config.port)) as Server;
      const { port } = server.address() as AddressInfo;
      logger.info({ port, store: store.backend }, 'campaign bot listening');
      return { port };
    },
    async stop() {
      await app.stop();
      await transport.close();
      await store.close();
    },
  };
}

/** Slack's authorize page lives beside its Web API; only a non-default API base (a test fake) moves it. */
function slackAuthorizationUrl(apiUrl: string): { authorizationUrl?: string } {
  const origin = new URL(apiUrl).origin;
  return origin === 'https://slack.com' ? {} : { authorizationUrl: `${origin}/oauth/v2/authorize` };
}

function secretsOf(config: Config): Array<string | undefined> {
  const mode = config.slack.mode;
  return [
    config.slack.signingSecret,
    config.slack.appToken,
    config.campaign.apiKey,
    mode.kind === 'single' ? mode.botToken : mode.clientSecret,
    mode.kind === 'oauth' ? mode.stateSecret : undefined,
  ];
}
