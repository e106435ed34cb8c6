/**
 * How Slack traffic reaches the app: Bolt's HTTPReceiver on PORT (`/slack/events`), or Socket Mode
 * when SLACK_APP_TOKEN is set. Either way our own routes (health, metrics, webhooks, OAuth install)
 * are served on PORT, by Bolt's own routing, on a server with the limits of `http-server.ts`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  HTTPReceiver,
  HTTPReceiverDeferredRequestError,
  SocketModeReceiver,
  type App,
  type CustomRoute,
} from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { boltLogger } from '../slack/logger.js';
import { answerRouteError, applyServerLimits, capConnections, serverOptions, type HttpLimits } from './http-server.js';
import { signatureProperties } from './replay-guard.js';
import { BOT_SCOPES } from './scopes.js';
import { gateSlackRequests, SLACK_EVENTS_PATH, type SlackGateLimits } from './slack-gate.js';

const OAUTH_REDIRECT_PATH = '/slack/oauth_redirect';

export interface SlackReceiver {
  receiver: HTTPReceiver | SocketModeReceiver;
  /** Starts the app on it; resolves with the HTTP server serving our routes, and its port. */
  listen(this: void, app: App): Promise<{ port: number; server: Server }>;
}

export interface ReceiverLimits {
  http: HttpLimits;
  slack: SlackGateLimits;
}

export function createReceiver(
  config: Config,
  store: Store,
  customRoutes: CustomRoute[],
  logger: Logger,
  limits: ReceiverLimits,
  host?: string,
): SlackReceiver {
  const oauth = oauthOptions(config, store);
  const onRouteError = (err: unknown, req: IncomingMessage, res: ServerResponse) =>
    answerRouteError(logger, err, req, res, (e) => e instanceof HTTPReceiverDeferredRequestError);
  if (config.slack.appToken) {
    const receiver = new SocketModeReceiver({
      appToken: config.slack.appToken,
      customRoutes,
      logger: boltLogger(logger, 'bolt-socket-mode'),
      ...oauth.credentials,
      installerOptions: {
        ...oauth.installerOptions,
        port: config.port,
        clientOptions: { slackApiUrl: config.slack.apiUrl },
      },
    });
    const server = socketModeRouteServer(receiver);
    answerEveryRequest(server, onRouteError);
    applyServerLimits(server, limits.http);
    capConnections(server, limits.http);
    return {
      receiver,
      async listen(app) {
        await app.start();
        return { port: config.port, server };
      },
    };
  }

  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret ?? '',
    endpoints: [SLACK_EVENTS_PATH],
    customRoutes,
    logger: boltLogger(logger, 'bolt-receiver'),
    // Ack first, work after: listeners call ack() before any slow I/O.
    processBeforeResponse: false,
    // The gate reads the body within this already; Bolt's own cap stays as a second line.
    bodyLimit: limits.slack.bodyBytes,
    // The verified signature, for the replay guard (replay-guard.ts).
    customPropertiesExtractor: signatureProperties,
    // Bolt's default logs the full URL, and ours can carry a hook token; a path it can't route
    // (unknown, or malformed percent-encoding) is a 404, not a 500.
    dispatchErrorHandler: ({ error, request, response }) => onRouteError(error, request, response),
    ...oauth.credentials,
    ...(Object.keys(oauth.credentials).length > 0 ? { installerOptions: oauth.installerOptions } : {}),
  });
  receiver.requestListener = gateSlackRequests(receiver.requestListener, limits.slack, onRouteError);
  return {
    receiver,
    async listen(app) {
      const server = (await app.start(
        host === undefined ? config.port : { port: config.port, host },
        serverOptions(limits.http),
      )) as Server;
      capConnections(server, limits.http);
      return { port: (server.address() as AddressInfo).port, server };
    },
  };
}

/**
 * Socket Mode serves our routes and the OAuth pages from a server of its own, made in the receiver's
 * constructor and started by `start()` (@slack/bolt 5.1 src/receivers/SocketModeReceiver.ts); the receiver
 * keeps it to itself, so it is taken from there. Without it, nothing of ours would be served on PORT.
 */
function socketModeRouteServer(receiver: SocketModeReceiver): Server {
  const server: unknown = Reflect.get(receiver, 'httpServer');
  if (!(server instanceof Object) || typeof Reflect.get(server, 'listen') !== 'function') {
    throw new Error('Socket Mode: the receiver has no HTTP server for our routes (a Bolt upgrade changed it?)');
  }
  return server as Server;
}

/**
 * Socket Mode's route server handles each request in an async function and answers nothing when it throws:
 * `/hooks/%E0%A4%A` (its router's `decodeURIComponent` throws `URIError`) was never answered, and the
 * rejection went unhandled. Its handler is wrapped so that every request is answered.
 */
function answerEveryRequest(
  server: Server,
  onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => void,
): void {
  const handlers = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => unknown>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    for (const handler of handlers) {
      try {
        void Promise.resolve(handler.call(server, req, res)).catch((err: unknown) => onError(err, req, res));
      } catch (err) {
        onError(err, req, res);
      }
    }
  });
}

/** OAuth multi-workspace: Bolt serves /slack/install and the redirect, and authorizes each request from our InstallationStore. */
function oauthOptions(config: Config, store: Store) {
  const mode = config.slack.mode;
  if (mode.kind !== 'oauth') return { credentials: {}, installerOptions: {} };
  const origin = new URL(config.slack.apiUrl).origin;
  return {
    credentials: {
      clientId: mode.clientId,
      clientSecret: mode.clientSecret,
      // The OAuth state travels in a cookie signed with this secret: any replica can finish an install.
      stateSecret: mode.stateSecret,
      scopes: [...BOT_SCOPES],
      installationStore: store.installations,
      ...(config.publicUrl ? { redirectUri: `${config.publicUrl}${OAUTH_REDIRECT_PATH}` } : {}),
    },
    installerOptions: {
      directInstall: true,
      redirectUriPath: OAUTH_REDIRECT_PATH,
      clientOptions: { slackApiUrl: config.slack.apiUrl },
      // Slack's authorize page lives beside its Web API; only a non-default API base (a test fake) moves it.
      ...(origin === 'https://slack.com' ? {} : { authorizationUrl: `${origin}/oauth/v2/authorize` }),
    },
  };
}
